package activities

import (
	"testing"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/selfie"
)

// The selfie's verdicts become the check's: the face match decides,
// liveness too where the tenant requires it, and a signal where it does
// not.
func TestJudgeSelfie(t *testing.T) {
	clear := selfie.Verdict{Outcome: selfie.Clear}
	match := func(o selfie.Outcome, r selfie.Reason) *selfie.Match {
		return &selfie.Match{Verdict: selfie.Verdict{Outcome: o, Reason: r}, Similarity: 0.45, Clear: 0.5, Fail: 0.4}
	}
	still := selfie.Verdict{Outcome: selfie.Fail, Reason: selfie.StillImage}
	for _, c := range []struct {
		name      string
		res       selfie.Result
		setting   string
		validated bool
		reason    string
		liveness  check.SubResult
	}{
		{"all clear", selfie.Result{FaceDetected: clear, Liveness: clear, Match: match(selfie.Clear, "")}, check.SelfieRequired, true, "", check.Clear},
		{"a still image, liveness required", selfie.Result{FaceDetected: clear, Liveness: still, Match: match(selfie.Clear, "")}, check.SelfieRequired, false, check.ReasonLivenessFailed, check.Fail},
		{"a still image, liveness a signal", selfie.Result{FaceDetected: clear, Liveness: still, Match: match(selfie.Clear, "")}, check.SelfieOn, true, "", check.Consider},
		{"another person", selfie.Result{FaceDetected: clear, Liveness: clear, Match: match(selfie.Fail, selfie.MatchMismatch)}, check.SelfieOn, false, check.ReasonFaceMismatch, check.Clear},
		{"between the thresholds", selfie.Result{FaceDetected: clear, Liveness: clear, Match: match(selfie.Consider, selfie.MatchReview)}, check.SelfieOn, false, check.ReasonFaceReview, check.Clear},
		{"no portrait", selfie.Result{FaceDetected: selfie.Verdict{Outcome: selfie.Consider, Reason: selfie.NoPortrait}, Liveness: clear}, check.SelfieOn, false, check.ReasonFaceReview, check.Clear},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d check.IDScanData
			got := judgeSelfie(&d, c.res, c.setting)
			reason := ""
			if d.Reason != nil {
				reason = *d.Reason
			}
			if got != c.validated || reason != c.reason || d.Checks.Liveness == nil || d.Checks.Liveness.Result != c.liveness {
				t.Errorf("validated %v, reason %q, liveness %+v", got, reason, d.Checks.Liveness)
			}
			if c.res.Match != nil && (d.Checks.FaceMatch == nil || d.Checks.FaceMatch.Face == nil || d.Checks.FaceMatch.Face.Similarity != 0.45) {
				t.Errorf("face_match %+v", d.Checks.FaceMatch)
			}
			// Without a portrait the match is still there, for a reviewer.
			if c.res.Match == nil && (d.Checks.FaceMatch == nil || d.Checks.FaceMatch.Result != check.Consider || *d.Checks.FaceMatch.Reason != check.ReasonPortraitNotFound) {
				t.Errorf("face_match without a portrait %+v", d.Checks.FaceMatch)
			}
		})
	}
}
