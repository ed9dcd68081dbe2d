package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/mrz"
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
