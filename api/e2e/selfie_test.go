package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/workflows"
)

// sendSelfie posts frames and a nonce to a link's selfie endpoint, as an
// app does.
func sendSelfie(t *testing.T, path, nonce string, frames ...[]byte) response {
	t.Helper()
	fields := map[string]string{}
	if nonce != "" {
		fields["nonce"] = nonce
	}
	body, ct := selfieForm(t, fields, frames...)
	r := requestWith(t, http.MethodPost, path+"/selfie", "anything.test", "", ct, body)
	if r.status >= 500 {
		t.Fatalf("selfie: %d %s", r.status, r.raw)
	}
	return r
}

// selfieTenant is a new tenant that requires a selfie and allows two
// attempts.
func selfieTenant(t *testing.T, name, host string) tenant {
	t.Helper()
	tn, err := newTenant(t.Context(), name, host+"-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	tid := uuid.MustParse(tn.id)
	if err := env.admin.SetIDScanSelfie(t.Context(), tid, check.SelfieRequired); err != nil {
		t.Fatal(err)
	}
	if err := env.admin.SetIDScanMaxAttempts(t.Context(), tid, 2); err != nil {
		t.Fatal(err)
	}
	return tn
}

// wall is a frame of a grey wall: no face in it.
func wall(t *testing.T) []byte {
	t.Helper()
	im := image.NewRGBA(image.Rect(0, 0, 640, 480))
	draw.Draw(im, im.Bounds(), image.NewUniform(color.RGBA{120, 120, 118, 255}), image.Point{}, draw.Src)
	var b bytes.Buffer
	if err := jpeg.Encode(&b, im, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var nonceForm = regexp.MustCompile(`^[0-9a-f]{32}$`)

// A tenant that requires a selfie: once the passport's photo is read the
// check keeps waiting, the status gives a challenge of two steps and its
// nonce (data shows the attempt, never the nonce); frames answering
// another challenge, or none, are refused; frames without a face are sent
// back with a new challenge; the last attempt allowed ends the check
// selfie_unusable, the document's sub-checks kept beside the selfie's.
func TestSelfieAfterTheDocument(t *testing.T) {
	t.Parallel()
	tn := selfieTenant(t, "Selfies", "selfies")
	photo, id := docPhoto(t, 311, mrz.TD3, sharp)
	cid, path := photoCustomer(t, tn, id)
	waitStatus(t, tn, cid, "awaiting_input")
	if r := sendSelfie(t, path, "0123456789abcdef0123456789abcdef", wall(t)); r.status != http.StatusConflict {
		t.Fatalf("a selfie before the document: %d %s", r.status, r.raw)
	}
	if r := upload(t, path, photo); r.status != http.StatusAccepted {
		t.Fatalf("upload: %d %s", r.status, r.raw)
	}
	st := photoState(t, path, "selfie", "retake", "done")
	sf := obj(st["selfie"])
	steps, _ := sf["steps"].([]any)
	nonce, _ := sf["nonce"].(string)
	if st["state"] != "selfie" || sf["state"] != "awaiting" || len(steps) != 2 || !nonceForm.MatchString(nonce) || sf["attempts"] != 1.0 {
		t.Fatalf("status after the document: %v", st)
	}
	chk := customerCheck(t, tn, cid)
	d := obj(chk["data"])
	selfies, _ := d["selfie_attempts"].([]any)
	if chk["status"] != "awaiting_input" || len(selfies) != 1 || obj(selfies[0])["status"] != "awaiting" || bytes.Contains(mustJSON(t, chk), []byte(nonce)) {
		t.Fatalf("the check while the selfie is awaited: %v", chk)
	}
	if r := sendSelfie(t, path, "ffffffffffffffffffffffffffffffff", wall(t), wall(t), wall(t)); r.status != http.StatusConflict || len(obj(r.body["errors"])["nonce"].([]any)) != 1 {
		t.Fatalf("another challenge's nonce: %d %s", r.status, r.raw)
	}
	if r := sendSelfie(t, path, "", wall(t), wall(t), wall(t)); r.status != http.StatusUnprocessableEntity || obj(r.body["errors"])["nonce"] == nil {
		t.Fatalf("no nonce: %d %s", r.status, r.raw)
	}
	if r := sendSelfie(t, path, nonce); r.status != http.StatusUnprocessableEntity || obj(r.body["errors"])["frame"] == nil {
		t.Fatalf("no frames: %d %s", r.status, r.raw)
	}
	if r := sendSelfie(t, path, nonce, wall(t), wall(t), wall(t)); r.status != http.StatusAccepted {
		t.Fatalf("frames: %d %s", r.status, r.raw)
	}
	var again map[string]any
	whileReading(t, "a second challenge", func() bool {
		again = obj(requestWith(t, http.MethodGet, path+"/status", "anything.test", "", "", nil).body["selfie"])
		return again["attempts"] == 2.0
	})
	if again["state"] != "awaiting" || again["reason"] != check.SelfieNoFace || again["nonce"] == nonce || !nonceForm.MatchString(again["nonce"].(string)) {
		t.Fatalf("after frames without a face: %v", again)
	}
	if r := sendSelfie(t, path, again["nonce"].(string), wall(t), wall(t), wall(t)); r.status != http.StatusAccepted {
		t.Fatalf("second frames: %d %s", r.status, r.raw)
	}
	chk = waitRead(t, tn, cid, "completed")
	d = obj(chk["data"])
	checks := obj(d["checks"])
	selfies, _ = d["selfie_attempts"].([]any)
	if chk["validated"] != false || d["reason"] != check.ReasonSelfieMissing || obj(checks["mrz_read"])["result"] != "clear" ||
		obj(checks["face_detected"])["result"] != "fail" || obj(checks["face_detected"])["reason"] != check.SelfieNoFace || len(selfies) != 2 ||
		obj(selfies[1])["status"] != check.SelfieRetake || d["surname"] == nil {
		t.Fatalf("the check after the last selfie: %v", chk)
	}
	if r := sendSelfie(t, path, again["nonce"].(string), wall(t)); r.status != http.StatusGone {
		t.Fatalf("a selfie after the end: %d %s", r.status, r.raw)
	}
	// Three reads (the document, two selfies), each done at its first try.
	if n := attempts(t, chk["id"].(string), "IDScanRead"); n != 3 {
		t.Fatalf("IDScanRead attempts: %d, want 3", n)
	}
	// Tally reports each second; whileReading sees progress only if the
	// reader's metric counts these reads.
	eventually(t, 10*time.Second, "the reads counted", func() bool { return documentReads(t) >= 3 })
}

// drawnFrame is a camera's JPEG of the face the generator draws, held as
// a step of the challenge asks (a drawn face does not blink: for a blink,
// as it looks straight on).
func drawnFrame(t *testing.T, step string) []byte {
	t.Helper()
	poses := map[string]docgen.FacePose{"turn_left": {Yaw: 0.6}, "turn_right": {Yaw: -0.6}, "look_up": {Pitch: 1}}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, docgen.DrawFace(640, 480, poses[step]), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A face match a person decides, through the API, on a person the
// generator draws: a live tenant (four eyes) whose thresholds send every
// match to a reviewer (clear 1, fail 0). The passport printing the face
// is read, the frames answer the challenge, and the check waits in
// awaiting_review with face_match consider and its similarity, listed in
// the review queue. An aml decision on it is refused with the field
// named; one key's same_person is pending; the same key's repeat is a
// conflict; a second key's approves it: the check completes validated,
// face_match.review naming both reviewers and their notes, one audit row
// in face_reviews, check.reviewed, the audit log's decision and approval,
// and no note or name in the workflow's history.
func TestSelfieFaceReview(t *testing.T) {
	t.Parallel()
	tn, err := newTenant(t.Context(), "Face Review", "face-review-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	tid := uuid.MustParse(tn.id)
	if err := env.admin.SetIDScanSelfie(t.Context(), tid, check.SelfieOn); err != nil {
		t.Fatal(err)
	}
	if err := env.admin.SetFaceThresholds(t.Context(), tid, 1, 0); err != nil {
		t.Fatal(err)
	}
	// A page whose printed face the detector finds surely (drawn faces
	// printed small score 0.1–0.6 as a portrait; this one 0.64).
	var id docgen.Identity
	for s := uint64(73); ; s++ {
		if id = docgen.RandomIdentity(rand.New(rand.NewPCG(s, 29)), mrz.TD3); id.Expiry.After(time.Now().AddDate(1, 0, 0)) {
			break
		}
	}
	id.Portrait = docgen.DrawFace(300, 400, docgen.FacePose{})
	photo, err := docgen.Snapshot(id, 12, sharp, 73)
	if err != nil {
		t.Fatal(err)
	}
	cid, path := photoCustomer(t, tn, id)
	waitStatus(t, tn, cid, "awaiting_input")
	if r := upload(t, path, photo); r.status != http.StatusAccepted {
		t.Fatalf("upload: %d %s", r.status, r.raw)
	}
	st := photoState(t, path, "selfie", "retake", "done")
	sf := obj(st["selfie"])
	if st["state"] != "selfie" {
		t.Fatalf("status after the document: %v", st)
	}
	frames := [][]byte{drawnFrame(t, "")}
	for _, s := range sf["steps"].([]any) {
		frames = append(frames, drawnFrame(t, s.(string)))
	}
	if r := sendSelfie(t, path, sf["nonce"].(string), frames...); r.status != http.StatusAccepted {
		t.Fatalf("frames: %d %s", r.status, r.raw)
	}
	chk := waitRead(t, tn, cid, "awaiting_review")
	checkID := chk["id"].(string)
	d := obj(chk["data"])
	fm := obj(obj(d["checks"])["face_match"])
	if d["reason"] != check.ReasonFaceReview || fm["result"] != "consider" || obj(fm["face"])["clear_threshold"] != 1.0 ||
		obj(fm["face"])["similarity"].(float64) <= 0 || obj(obj(d["checks"])["face_detected"])["result"] != "clear" || fm["review"] != nil {
		t.Fatalf("the check in review: %v", chk)
	}
	if q := request(t, tn, http.MethodGet, "/api/v1/reviews", nil).want(t, http.StatusOK); !strings.Contains(string(q.raw), checkID) ||
		!strings.Contains(string(q.raw), `"alerting_hits":1`) {
		t.Fatalf("queue: %s", q.raw)
	}

	const note, approval = "Same hairline, same eyes as the portrait.", "Agreed: the portrait's person."
	decide := func(as tenant, who string, decision check.Decision, note string) response {
		return request(t, as, http.MethodPost, reviewPath(checkID), map[string]any{"reviewer": who, "decisions": []map[string]any{
			{"entity_id": check.FaceMatchEntity, "decision": decision, "note": note}}})
	}
	if r := decide(tn, "Ada Compliance", check.FalsePositive, note); r.status != http.StatusUnprocessableEntity || obj(r.body["errors"])["decisions.0.decision"] == nil {
		t.Fatalf("an aml decision on a face match: %d %s", r.status, r.raw)
	}
	r := decide(tn, "Ada Compliance", check.SamePerson, note).want(t, http.StatusOK)
	if c := obj(r.body["check"]); c["status"] != "awaiting_review" || obj(obj(obj(obj(c["data"])["checks"])["face_match"])["review"])["pending"] != true {
		t.Fatalf("the first decision: %s", r.raw)
	}
	if r := decide(tn, "Ada Compliance", check.SamePerson, note); r.status != http.StatusConflict {
		t.Fatalf("the decider approving: %d %s", r.status, r.raw)
	}
	other, secondKeyID := anotherKey(t, tn)
	r = decide(other, "Ben Second", check.SamePerson, approval).want(t, http.StatusOK)
	c := obj(r.body["check"])
	review := obj(obj(obj(obj(c["data"])["checks"])["face_match"])["review"])
	if c["status"] != "completed" || c["validated"] != true || obj(c["data"])["reason"] != nil || review["pending"] != nil ||
		review["decision"] != "same_person" || review["reviewer"] != "Ada Compliance" || review["note"] != note ||
		review["approved_by"] != "Ben Second" || review["approval_note"] != approval || obj(review["approved_via"])["key_id"] != secondKeyID.String() {
		t.Fatalf("approved: %s", r.raw)
	}
	var rows, reviewed int
	if err := env.admin.DB().Get(&rows, `SELECT count(*) FROM face_reviews WHERE tenant_id = $1 AND check_id = $2 AND approved_by = 'Ben Second'`, tn.id, checkID); err != nil || rows != 1 {
		t.Fatalf("face_reviews rows: %d %v", rows, err)
	}
	if err := env.admin.DB().Get(&reviewed, `SELECT count(*) FROM events WHERE tenant_id = $1 AND type = 'check.reviewed' AND data->'check'->>'id' = $2`, tn.id, checkID); err != nil || reviewed != 1 {
		t.Fatalf("check.reviewed events: %d %v", reviewed, err)
	}
	var audit []string
	if err := env.admin.DB().Select(&audit, `SELECT action FROM audit_log WHERE tenant_id = $1 AND record_id = $2 ORDER BY created_at`, tn.id, checkID); err != nil ||
		len(audit) != 2 || audit[0] != "review.decided" || audit[1] != "review.approved" {
		t.Fatalf("audit: %v %v", audit, err)
	}
	notInHistory(t, workflows.WorkflowID(mustUUID(t, checkID)), note, approval, "Ada Compliance", "Ben Second")
}
