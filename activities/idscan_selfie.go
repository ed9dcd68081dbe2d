package activities

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"image"
	mrand "math/rand/v2"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/selfie"
	"github.com/kycflow/kycflow/store"
)

// draft is what a read document gives the check, kept sealed until its
// selfie is decided.
type draft struct {
	Data     check.IDScanData
	Identity *store.Identity
}

// challengeSteps is how many steps a selfie challenge asks.
const challengeSteps = 2

// newChallenge draws a challenge and its nonce from the system's random
// source: a recording made for another attempt cannot answer it.
func newChallenge() store.Challenge {
	var seed [32]byte
	rand.Read(seed[:])
	steps := selfie.NewChallenge(mrand.New(mrand.NewChaCha8(seed)), challengeSteps)
	out := store.Challenge{Steps: make([]string, len(steps))}
	for i, s := range steps {
		out.Steps[i] = string(s)
	}
	var nonce [16]byte
	rand.Read(nonce[:])
	out.Nonce = hex.EncodeToString(nonce[:])
	return out
}

// awaitSelfie records a document read whose check waits for a selfie: the
// result so far sealed, the first challenge drawn.
func (a *Activities) awaitSelfie(ctx context.Context, ref check.Ref, n int, quality []byte, d draft) error {
	plain, err := json.Marshal(d)
	if err != nil {
		return err
	}
	keyID, sealed := a.Documents.Keys.SealDraft(ref, plain)
	return wrap(a.Store.ReadForSelfie(ctx, ref, n, quality, keyID, sealed, newChallenge()), "record the document read and draw a selfie challenge")
}

// readSelfie decides the check's selfie being read, if one is: a retake
// draws the next challenge while attempts are left; otherwise the check
// completes with the document's result and the selfie's sub-checks.
func (a *Activities) readSelfie(ctx context.Context, ref check.Ref) (IDScanReadResult, error) {
	sa, rows, err := a.Store.NextSelfie(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return IDScanReadResult{Outcome: "none"}, nil
	}
	if err != nil {
		return IDScanReadResult{}, wrap(err, "load selfie")
	}
	// Loading the models, decoding and judging take seconds (more under a
	// loaded machine): the heartbeat covers all of it.
	stop := heartbeat(ctx)
	defer stop()
	if a.Documents.Faces == nil {
		return IDScanReadResult{}, NotConfigured("FACE_MODELS", check.IDScan)
	}
	engine, err := a.Documents.Faces()
	if err != nil {
		return IDScanReadResult{}, NotConfigured("FACE_MODELS", check.IDScan)
	}
	settings, err := a.Store.IDScanSettings(ctx, ref.TenantID)
	if err != nil {
		return IDScanReadResult{}, wrap(err, "load idscan settings")
	}
	keyID, sealed, err := a.Store.Draft(ctx, ref)
	if err != nil {
		return IDScanReadResult{}, wrap(err, "load the document's result")
	}
	plain, err := a.Documents.Keys.OpenDraft(ref, keyID, sealed)
	if err != nil {
		return IDScanReadResult{}, wrap(err, "open the document's result")
	}
	var dr draft
	if err := json.Unmarshal(plain, &dr); err != nil {
		return IDScanReadResult{}, wrap(err, "decode the document's result")
	}
	docRows, err := a.Store.ReadDocument(ctx, ref)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return IDScanReadResult{}, wrap(err, "load the document's images")
	}
	documents := a.decodeImages(ref, docRows) // a card's front and back: the portrait is looked for on both
	frames := a.decodeImages(ref, rows)
	steps := make([]selfie.Step, len(sa.Steps))
	for i, s := range sa.Steps {
		steps[i] = selfie.Step(s)
	}
	var res selfie.Result
	if len(frames) != len(rows) || len(frames) == 0 {
		res.Retake = selfie.NoFace // a frame that does not decode shows no face
	} else { // erased images leave no portrait to find
		// Past its deadline the read stops, freeing its reader for the retry.
		if res, err = selfie.Decide(ctx, engine, documents, frames, steps, selfie.Thresholds{Clear: settings.FaceClear, Fail: settings.FaceFail}); err != nil {
			return IDScanReadResult{}, wrap(err, "judge the selfie")
		}
	}
	out := IDScanReadResult{Attempt: sa.N, Outcome: check.AttemptRead}
	erase := settings.Retention == 0
	if res.Retake != "" && sa.N < settings.MaxAttempts {
		next := newChallenge()
		reason := selfieRetake(res.Retake)
		out.Outcome, out.Reason = check.AttemptRetake, reason
		return out, wrap(a.Store.FinishSelfie(ctx, ref, sa.N, check.SelfieRetake, &reason, &next, erase), "record the selfie's retake")
	}
	d := dr.Data
	validated := judgeSelfie(&d, res, settings.Selfie)
	attempts, err := a.Store.DocumentAttempts(ctx, ref)
	if err != nil {
		return IDScanReadResult{}, wrap(err, "load uploads")
	}
	selfies, err := a.Store.SelfieAttempts(ctx, ref)
	if err != nil {
		return IDScanReadResult{}, wrap(err, "load selfies")
	}
	status, reason := check.SelfieDone, (*string)(nil)
	if res.Retake != "" {
		status, reason = check.SelfieRetake, ptr(selfieRetake(res.Retake))
		out.Outcome, out.Reason = check.AttemptRetake, *reason
	}
	for i := range selfies { // this one's outcome, recorded below
		if selfies[i].N == sa.N {
			selfies[i].Status, selfies[i].Reason, selfies[i].ReadAt = status, reason, ptr(time.Now().UTC())
		}
	}
	d.Attempts, d.SelfieAttempts = store.AttemptsData(attempts), store.SelfieData(selfies)
	var cr CheckResult
	if d.Reason != nil && *d.Reason == check.ReasonFaceReview {
		cr, err = a.awaitFaceReview(ctx, ref, d, dr.Identity)
	} else {
		cr, err = a.completeWith(ctx, ref, &validated, d, nil, dr.Identity)
	}
	if err != nil {
		return IDScanReadResult{}, err
	}
	out.CheckResult, out.Done = cr, true
	return out, wrap(a.Store.FinishSelfie(ctx, ref, sa.N, status, reason, nil, erase), "record the selfie's outcome")
}

// awaitFaceReview puts a check whose face match a person decides (between
// the tenant's thresholds, or no portrait found) in review: the document's
// result and the selfie's sub-checks kept, the document's data written on
// the customer as a completed check writes it; the workflow then waits for
// the decision under the tenant's review window and four eyes.
func (a *Activities) awaitFaceReview(ctx context.Context, ref check.Ref, d check.IDScanData, id *store.Identity) (CheckResult, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return CheckResult{}, err
	}
	applied, status, err := a.update(ctx, ref, store.CheckUpdate{Status: check.AwaitingReview, From: []check.Status{check.Running, check.AwaitingInput},
		Data: b, Identity: id})
	if err != nil {
		return CheckResult{}, wrap(err, "put the face match in review")
	}
	res := CheckResult{Applied: applied, Status: status}
	if status != check.AwaitingReview {
		return res, nil // cancelled meanwhile
	}
	return a.reviewTerms(ctx, ref.TenantID, res, []string{check.FaceMatchEntity})
}

// decodeImages opens and decodes rows, upright; those that do not open or
// decode are left out.
func (a *Activities) decodeImages(ref check.Ref, rows []store.DocumentImage) []image.Image {
	var out []image.Image
	for _, row := range rows {
		im, err := a.Documents.Keys.OpenImage(ref, row)
		if err != nil {
			continue
		}
		g, err := docimage.DecodeGray(im.Bytes, im.Info)
		if err != nil {
			continue
		}
		out = append(out, g)
	}
	return out
}

// judgeSelfie writes the selfie's sub-checks into d and answers whether
// the check is validated: the document's result, the face match clear,
// and liveness clear where the tenant requires it.
func judgeSelfie(d *check.IDScanData, res selfie.Result, setting string) bool {
	fail := func(reason string) {
		if d.Reason == nil {
			d.Reason = ptr(reason)
		}
	}
	if res.Retake != "" { // the last attempt allowed
		d.Checks.FaceDetected = sub(check.Fail, selfieRetake(res.Retake))
		fail(check.ReasonSelfieMissing)
		return false
	}
	d.Checks.FaceDetected = verdictSub(res.FaceDetected)
	d.Checks.Liveness = verdictSub(res.Liveness)
	if res.Liveness.Outcome == selfie.Fail && setting != check.SelfieRequired {
		d.Checks.Liveness.Result = check.Consider // a signal, not a verdict
	}
	if res.Match != nil {
		d.Checks.FaceMatch = verdictSub(res.Match.Verdict)
		d.Checks.FaceMatch.Face = &check.FaceMeasures{Similarity: round3(res.Match.Similarity), Clear: res.Match.Clear, Fail: res.Match.Fail}
	} else { // no portrait to compare: the match is a reviewer's to make
		d.Checks.FaceMatch = sub(check.Consider, check.ReasonPortraitNotFound)
	}
	switch {
	case res.Liveness.Outcome == selfie.Fail && setting == check.SelfieRequired:
		fail(check.ReasonLivenessFailed)
	case res.Match != nil && res.Match.Outcome == selfie.Fail:
		fail(check.ReasonFaceMismatch)
	case res.Match == nil || res.Match.Outcome != selfie.Clear:
		// Between the thresholds, or no portrait to compare: a person
		// decides (awaitFaceReview).
		fail(check.ReasonFaceReview)
	}
	return d.Reason == nil
}

func verdictSub(v selfie.Verdict) *check.SubCheck {
	return sub(check.SubResult(v.Outcome), word(livenessReasons, v.Reason, check.ReasonFaceMismatch))
}

// livenessReasons are the domain's words for the selfie's sub-check
// reasons; any other is a mismatch.
var livenessReasons = map[selfie.Reason]string{
	"":                  "",
	selfie.NoPortrait:   check.ReasonPortraitNotFound,
	selfie.StillImage:   check.ReasonStillImage,
	selfie.NotFollowed:  check.ReasonNotFollowed,
	selfie.SeveralFaces: check.ReasonSeveralFaces,
	selfie.FaceChanged:  check.ReasonFaceChanged,
	selfie.MatchReview:  check.ReasonFaceReview,
}

// selfieRetakes are the domain's words for the selfie's retakes; any
// other is a face not found.
var selfieRetakes = map[selfie.Reason]string{
	selfie.TooSmall: check.SelfieTooSmall,
	selfie.TooDark:  check.SelfieTooDark,
	selfie.TooFew:   check.SelfieTooFew,
}

func selfieRetake(r selfie.Reason) string { return word(selfieRetakes, r, check.SelfieNoFace) }

// word is r's word in words, else otherwise.
func word(words map[selfie.Reason]string, r selfie.Reason, otherwise string) string {
	if w, ok := words[r]; ok {
		return w
	}
	return otherwise
}
