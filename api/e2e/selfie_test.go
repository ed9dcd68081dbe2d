package e2e

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
	var b bytes.Buffer
	if err := jpeg.Encode(&b, docgen.DrawFace(640, 480, docgen.StepPoses[step]), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A face match a person decides, on a person the generator draws: a live
// tenant (four eyes) whose thresholds send every match to a reviewer
// (clear 1, fail 0). The passport printing the face is read, the frames
// answer the challenge, and the check waits in awaiting_review with
// face_match consider and its similarity, in the API's review queue and
// the console's inbox. The console's page shows the selfie's frames
// beside the document's photo, served and audited; the API refuses an
// aml decision on it with the field named; a reviewer's same_person in
// the console is pending, their repeat a conflict; a second reviewer's
// approval through the API completes the check validated —
// face_match.review naming both and their notes, on the page too, one
// face_reviews row, check.reviewed, the audit log, and no note or name in
// the workflow's history.
func TestSelfieFaceReview(t *testing.T) {
	t.Parallel()
	tn, err := newTenant(t.Context(), "Face Review", "face-review-"+uuid.NewString()[:8]+".localhost") // a browser reaches .localhost
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

	// In the console: the inbox lists it; its page shows the selfie's
	// frames beside the document's photo, the similarity and the
	// thresholds, and the decisions in words; the frames are served, each
	// view audited.
	const note, approval = "Same hairline, same eyes as the portrait.", "Agreed, the same person as the portrait."
	rita := staffOn(t, tn, "rita@face-review.test", check.RoleReviewer)
	if code, body, _ := rita.do(http.MethodGet, "/console/reviews", nil, ""); code != http.StatusOK || !strings.Contains(body, checkID) {
		t.Fatalf("the inbox: %d %s", code, body)
	}
	code, page, _ := rita.do(http.MethodGet, "/console/reviews/"+checkID, nil, "")
	frame := "/console/checks/" + checkID + "/selfies/1/1/photo"
	for _, want := range []string{"Face match review", `src="` + frame + `"`, `src="/console/checks/` + checkID + `/images/1/photo"`,
		"Similarity", "clear from 1.00, fail under 0.00", "Same person", "Different person"} {
		if code != http.StatusOK || !strings.Contains(page, want) {
			t.Fatalf("the review page does not show %q: %d %s", want, code, page)
		}
	}
	// In Chromium, at a phone's width and a desktop's, as a second
	// reviewer sees it: the frames drawn, axe-core clean.
	token, hash, _ := staffKey.NewToken()
	if _, err := env.admin.CreateStaff(t.Context(), tid, "vera@face-review.test", check.RoleReviewer, hash); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(env.apiURL)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + tn.host + ":" + u.Port()
	bctx := browser(t)
	browserEnrol(t, bctx, base+"/console/invite/"+token, "vera's long enough password")
	for _, width := range []int64{390, 1280} {
		do(t, bctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(base+"/console/reviews/"+checkID))
		waitHeading(t, bctx, "Face match review")
		drawn, err := chromedp.Run(bctx, chromedp.Evaluate[int](`[...document.querySelectorAll(".faces img")].filter(i => i.complete && i.naturalWidth > 0).length`))
		if err != nil || drawn != len(frames)+1 {
			t.Fatalf("images drawn at %d px: %d %v", width, drawn, err)
		}
		accessible(t, bctx, fmt.Sprintf("the face review page at %d px", width))
	}
	shoot(t, bctx, "console-face-review")
	if code, body, h := rita.do(http.MethodGet, frame, nil, ""); code != http.StatusOK || h.Get("Content-Type") != "image/jpeg" || !bytes.HasPrefix([]byte(body), []byte{0xff, 0xd8}) {
		t.Fatalf("a selfie frame: %d %v", code, h)
	}
	// Another tenant's reviewer gets nothing of it.
	elsewhere, err := newTenant(t.Context(), "Elsewhere", "elsewhere-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	eve := staffOn(t, elsewhere, "eve@elsewhere.test", check.RoleReviewer)
	for _, p := range []string{frame, "/console/reviews/" + checkID} {
		if code, _, _ := eve.do(http.MethodGet, p, nil, ""); code != http.StatusNotFound {
			t.Fatalf("another tenant's reviewer at %s: %d", p, code)
		}
	}
	// The API refuses an aml decision on a face match, naming the field.
	if r := request(t, tn, http.MethodPost, reviewPath(checkID), map[string]any{"reviewer": "Ada Compliance", "decisions": []map[string]any{
		{"entity_id": check.FaceMatchEntity, "decision": check.FalsePositive, "note": note}}}); r.status != http.StatusUnprocessableEntity ||
		obj(r.body["errors"])["decisions.0.decision"] == nil {
		t.Fatalf("an aml decision on a face match: %d %s", r.status, r.raw)
	}
	decide := url.Values{"entity": {check.FaceMatchEntity}, "decision": {string(check.SamePerson)}, "note": {note}}
	if code, _, _ := rita.post("/console/reviews/"+checkID+"/decide", decide); code != http.StatusSeeOther {
		t.Fatalf("the first decision: %d", code)
	}
	chk = customerCheck(t, tn, cid)
	if chk["status"] != "awaiting_review" || obj(obj(obj(chk["data"])["checks"])["face_match"])["review"].(map[string]any)["pending"] != true {
		t.Fatalf("after the first decision: %v", chk)
	}
	if code, body, _ := rita.post("/console/reviews/"+checkID+"/decide", decide); code != http.StatusConflict || !strings.Contains(body, "four eyes") {
		t.Fatalf("the decider approving: %d %s", code, body)
	}
	other, secondKeyID := anotherKey(t, tn) // another reviewer, through the API
	r := request(t, other, http.MethodPost, reviewPath(checkID), map[string]any{"reviewer": "Ben Second", "decisions": []map[string]any{
		{"entity_id": check.FaceMatchEntity, "decision": check.SamePerson, "note": approval}}}).want(t, http.StatusOK)
	c := obj(r.body["check"])
	review := obj(obj(obj(obj(c["data"])["checks"])["face_match"])["review"])
	if c["status"] != "completed" || c["validated"] != true || obj(c["data"])["reason"] != nil || review["pending"] != nil ||
		review["decision"] != "same_person" || review["reviewer"] != "rita@face-review.test" || review["note"] != note ||
		review["approved_by"] != "Ben Second" || review["approval_note"] != approval || obj(review["approved_via"])["key_id"] != secondKeyID.String() {
		t.Fatalf("approved: %s", r.raw)
	}
	if code, page, _ := rita.do(http.MethodGet, "/console/reviews/"+checkID, nil, ""); code != http.StatusOK || !strings.Contains(page, "approved by") || !strings.Contains(page, approval) {
		t.Fatalf("the review page after the approval: %d %s", code, page)
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
		!slices.Contains(audit, "image.viewed") || !slices.Contains(audit, "review.decided") || audit[len(audit)-1] != "review.approved" {
		t.Fatalf("audit: %v %v", audit, err)
	}
	notInHistory(t, workflows.WorkflowID(mustUUID(t, checkID)), note, approval, "rita@face-review.test", "Ben Second")
}
