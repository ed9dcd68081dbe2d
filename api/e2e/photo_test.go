package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrz"
)

// sharp is a phone's good photo of a document on a desk.
var sharp = docgen.SharpPhone

// docPhoto is a photo of a generated document through cam: a random
// identity (valid for years yet; a passport's with a personal number) and
// the JPEG.
func docPhoto(t *testing.T, seed uint64, f mrz.Format, cam docgen.Camera) ([]byte, docgen.Identity) {
	t.Helper()
	var id docgen.Identity
	for s := seed; ; s++ {
		id = docgen.RandomIdentity(rand.New(rand.NewPCG(s, 29)), f)
		// Valid for years yet; a passport with a personal number (a BSN's
		// place on a Dutch passport), which must never be kept.
		if id.Expiry.After(time.Now().AddDate(1, 0, 0)) && (f != mrz.TD3 || id.Fields.OptionalData != "") {
			break
		}
	}
	b, err := docgen.Snapshot(id, 12, cam, seed)
	if err != nil {
		t.Fatal(err)
	}
	return b, id
}

// glarePhoto is id's document photographed with a lamp's reflection over
// its code.
func glarePhoto(t *testing.T, id docgen.Identity) []byte {
	t.Helper()
	cam := sharp
	cam.Glare, cam.GlareOnMRZ, cam.GlareSize = 1, true, 0.35
	b, err := docgen.Snapshot(id, 12, cam, 7)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// photoCustomer creates a customer named and born as id says, with an
// idscan link returned to the caller; its id and link path.
func photoCustomer(t *testing.T, tn tenant, id docgen.Identity) (string, string) {
	t.Helper()
	given, surname := strings.ToLower(id.Fields.GivenNames), strings.ToLower(id.Fields.Surname)
	return newIDScanCustomer(t, tn, given+" "+surname, given, surname, id.Birth.Format(time.DateOnly))
}

// upload posts images to a link as an app does (multipart, no Origin).
func upload(t *testing.T, path string, images ...[]byte) response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for i, im := range images {
		w, err := mw.CreateFormFile("image", fmt.Sprintf("photo-%d.jpg", i))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(im)
	}
	mw.Close()
	r := requestWith(t, http.MethodPost, path+"/document", "anything.test", "", mw.FormDataContentType(), body.Bytes())
	if r.status >= 500 {
		t.Fatalf("upload: %d %s", r.status, r.raw)
	}
	return r
}

// photoState waits until the link's photo state is one of want (reads run
// on the worker, a second or so each; longer under the race detector).
func photoState(t *testing.T, path string, want ...string) map[string]any {
	t.Helper()
	var st map[string]any
	whileReading(t, "photo state "+strings.Join(want, " or "), func() bool {
		r := requestWith(t, http.MethodGet, path+"/status", "anything.test", "", "", nil)
		st = r.body
		for _, w := range want {
			if st["state"] == w {
				return true
			}
		}
		return false
	})
	return st
}

// readStall is how long the document reader may finish nothing before a
// test waiting on a read fails: twice a read's own deadline (IDScanRead's
// two minutes), so that only a reader slower than the service allows
// fails.
const readStall = 4 * time.Minute

// whileReading polls fn as eventually does, for as long as the document
// reader moves. The suite reads one photo at a time (as one worker's
// DOCUMENT_READERS=1 does), so on a loaded machine a test's photo waits
// behind every other test's: a fixed window would measure the queue, not
// the test. Progress is the worker's own Temporal metric, IDScanRead
// executions finished.
func whileReading(t *testing.T, what string, fn func() bool) {
	t.Helper()
	last, moved := documentReads(t), time.Now()
	for wait := 10 * time.Millisecond; !fn(); wait = min(wait*3/2, 100*time.Millisecond) {
		if n := documentReads(t); n != last {
			last, moved = n, time.Now()
		}
		if time.Since(moved) > readStall {
			t.Fatalf("no photo read for %s, and not yet: %s\nreads pending at %s:\n%s", readStall, what, time.Now().Format(time.TimeOnly), pendingReads(t))
		}
		time.Sleep(wait)
	}
}

// pendingReads describes every IDScanRead the server has scheduled and
// not seen finish: what a stalled reader was doing.
func pendingReads(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	var token []byte
	for {
		page, err := env.client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default",
			Query: "ExecutionStatus = 'Running'", NextPageToken: token})
		if err != nil {
			return "list workflows: " + err.Error()
		}
		for _, e := range page.Executions {
			d, err := env.client.DescribeWorkflowExecution(context.Background(), e.Execution.WorkflowId, e.Execution.RunId)
			if err != nil {
				fmt.Fprintf(&b, "  %s: %v\n", e.Execution.WorkflowId, err)
				continue
			}
			for _, a := range d.PendingActivities {
				if a.ActivityType.GetName() != "IDScanRead" {
					continue
				}
				fmt.Fprintf(&b, "  %s: %s attempt %d scheduled %s started %s heartbeat %s failure %q\n", e.Execution.WorkflowId, a.State,
					a.Attempt, a.ScheduledTime.AsTime().Format(time.TimeOnly), a.LastStartedTime.AsTime().Format(time.TimeOnly),
					a.LastHeartbeatTime.AsTime().Format(time.TimeOnly), a.LastFailure.GetMessage())
			}
		}
		if token = page.NextPageToken; len(token) == 0 {
			return b.String()
		}
	}
}

// documentReads is how many IDScanRead executions the worker has finished.
func documentReads(t *testing.T) uint64 {
	t.Helper()
	families, err := env.metrics.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "temporal_activity_execution_latency") {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "activity_type" && l.GetValue() == "IDScanRead" {
					n += m.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	return n
}

// withMetadata adds metadata carrying marker where phones and tools put
// it — an Exif segment and a comment after the SOI, an XMP segment after
// the scan, and a second image after EOI with Exif of its own (the
// Multi-Picture layout): none of it may ever be stored.
func withMetadata(jpg []byte, marker string) []byte {
	seg := func(kind byte, payload []byte) []byte {
		out := []byte{0xFF, kind, 0, 0}
		binary.BigEndian.PutUint16(out[2:], uint16(len(payload)+2))
		return append(out, payload...)
	}
	exif := seg(0xE1, append([]byte("Exif\x00\x00GPS "), marker...))
	eoi := len(jpg) - 2
	return bytes.Join([][]byte{jpg[:2], exif, seg(0xFE, []byte("comment "+marker)), jpg[2:eoi],
		seg(0xE1, []byte("http://ns.adobe.com/xap/1.0/\x00Model "+marker)), jpg[eoi:], jpg[:2], exif, jpg[2:]}, nil)
}

// A person photographs their passport: the first photo has a reflection
// over the code and is sent back, the second is read, and the check
// completes validated with source photo and every sub-check clear. The
// tenant's staff see both images (metadata stripped), another tenant
// none; nothing of the MRZ, the personal number (a BSN on a Dutch
// passport) or the images is at rest outside the sealed images, in the
// histories or in the log.
func TestIDScanFromPhoto(t *testing.T) {
	t.Parallel() // its own records and links
	good, id := docPhoto(t, 101, mrz.TD3, sharp)
	shiny := glarePhoto(t, id)
	marker := "GPS-" + uuid.NewString()
	good = withMetadata(good, marker)
	cid, path := photoCustomer(t, env.a, id)
	waitStatus(t, env.a, cid, "awaiting_input")

	// The page's camera script comes from the binary, like everything the
	// page loads.
	resp, err := http.Get(env.apiURL + "/verify/assets/capture.js")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") || !bytes.Contains(script, []byte("getUserMedia")) {
		t.Fatalf("capture.js: %d %v", resp.StatusCode, resp.Header)
	}
	if code, page := getPage(t, path+"?lang=en"); code != http.StatusOK || !strings.Contains(page, `<script src="/verify/assets/capture.js"`) ||
		!strings.Contains(page, `capture="environment"`) || !strings.Contains(page, "<svg") {
		t.Fatalf("photo page %d: %s", code, page)
	}

	st := requestWith(t, http.MethodGet, path+"/status", "anything.test", "", "", nil)
	if st.status != http.StatusOK || st.body["state"] != "awaiting_photo" || st.body["max_attempts"] != float64(5) || st.body["typed_allowed"] != true {
		t.Fatalf("status before any photo: %d %s", st.status, st.raw)
	}
	r := upload(t, path, shiny)
	if r.status != http.StatusAccepted || r.body["attempt"] != float64(1) || r.body["status_url"] != path+"/status" {
		t.Fatalf("first upload: %d %s", r.status, r.raw)
	}
	s := photoState(t, path, "retake")
	if s["attempts"] != float64(1) || s["reason"] == nil || !strings.Contains(s["message"].(string), "photo") && !strings.Contains(s["message"].(string), "code") {
		t.Fatalf("retake: %v", s)
	}
	// The page says what to do, with the attempt count, in Dutch.
	if code, page := getPage(t, path); code != http.StatusOK || !strings.Contains(page, "Maak de foto opnieuw") || !strings.Contains(page, "Foto 1 van maximaal 5") {
		t.Fatalf("retake page %d: %s", code, page)
	}
	if r = upload(t, path, good); r.status != http.StatusAccepted || r.body["attempt"] != float64(2) {
		t.Fatalf("second upload: %d %s", r.status, r.raw)
	}
	photoState(t, path, "done")
	chk := waitStatus(t, env.a, cid, "completed")
	d := obj(chk["data"])
	checks := obj(d["checks"])
	if chk["validated"] != true || d["source"] != "photo" || d["document_number"] != id.Fields.DocumentNumber || d["surname"] != id.Fields.Surname {
		t.Fatalf("check: %v", chk)
	}
	for _, name := range []string{"image_quality", "mrz_read", "check_digits", "document_expired", "data_comparison", "document_accepted", "visual_zone"} {
		if obj(checks[name])["result"] != "clear" {
			t.Errorf("sub-check %s: %v", name, checks[name])
		}
	}
	if f := obj(obj(checks["visual_zone"])["fields"]); f["name"] != "agrees" || f["birth_date"] != "agrees" {
		t.Errorf("visual_zone: %v", checks["visual_zone"])
	}
	// What the reader measured and how surely it read, for a compliance
	// officer to weigh.
	im, rd := obj(obj(checks["image_quality"])["image"]), obj(obj(checks["mrz_read"])["read"])
	if ch, _ := im["char_height"].(float64); im["band_found"] != true || ch < 7 || im["width"] == nil {
		t.Errorf("image_quality measures: %v", checks["image_quality"])
	}
	if ag, _ := rd["agreement"].(float64); ag <= 0 || ag > 1 || rd["settled"] == nil {
		t.Errorf("mrz_read measures: %v", checks["mrz_read"])
	}
	attempts, _ := d["attempts"].([]any)
	if len(attempts) != 2 || obj(attempts[0])["status"] != "retake" || obj(attempts[1])["status"] != "read" || obj(attempts[0])["reason"] == nil {
		t.Fatalf("attempts: %v", d["attempts"])
	}
	// Done: the page thanks the person; more uploads are refused.
	if code, page := getPage(t, path+"?lang=en"); code != http.StatusOK || !strings.Contains(page, "Thank you") {
		t.Fatalf("done page %d: %s", code, page)
	}
	if r = upload(t, path, good); r.status != http.StatusGone {
		t.Fatalf("upload to a done link: %d %s", r.status, r.raw)
	}

	// The tenant's staff: both images, the second as uploaded less its
	// metadata; each view audited. Another tenant: 404.
	checkID := chk["id"].(string)
	list := request(t, env.a, http.MethodGet, "/api/v1/checks/"+checkID+"/images", nil).want(t, http.StatusOK)
	data, _ := list.body["data"].([]any)
	if len(data) != 2 || obj(data[0])["n"] != float64(1) || obj(data[1])["n"] != float64(3) || list.body["kept_until"] == nil {
		t.Fatalf("images: %s", list.raw)
	}
	img := getImage(t, env.a, checkID, 3, http.StatusOK)
	if sum := sha256.Sum256(img); hex.EncodeToString(sum[:]) != obj(data[1])["sha256"] || bytes.Contains(img, []byte(marker)) {
		t.Fatalf("image 3: %d bytes, sha256 %x (listed %v), marker kept %v", len(img), sum, obj(data[1])["sha256"], bytes.Contains(img, []byte(marker)))
	}
	if !bytes.HasSuffix(img, []byte{0xFF, 0xD9}) || bytes.Count(img, []byte{0xFF, 0xD8}) != 1 || bytes.Contains(img, []byte("Exif")) {
		t.Fatal("image 3 keeps what follows its end, or a second image")
	}
	if _, err := jpeg.Decode(bytes.NewReader(img)); err != nil {
		t.Fatalf("image 3 is not a JPEG: %v", err)
	}
	getImage(t, env.b, checkID, 3, http.StatusNotFound)
	request(t, env.b, http.MethodGet, "/api/v1/checks/"+checkID+"/images", nil).want(t, http.StatusNotFound)
	getImage(t, env.a, checkID, 2, http.StatusNotFound)
	if n := countRows(t, `SELECT count(*) FROM audit_log WHERE record_id = $1 AND action = 'image.viewed'`, checkID); n != 1 {
		t.Errorf("%d audited views", n)
	}

	// In the console: the case lists the photos; the viewer rotates and
	// zooms by links (no script); the photo is the same bytes; each view
	// is audited with the staff member; another tenant's staff get nothing.
	viewer := staffOn(t, env.a, "viewer-"+uuid.NewString()[:8]+"@photo.test", check.RoleViewer)
	if code, page, _ := viewer.do(http.MethodGet, "/console/customers/"+cid, nil, ""); code != http.StatusOK ||
		!strings.Contains(page, `href="/console/checks/`+checkID+`/images/3"`) || !strings.Contains(page, "kept until") {
		t.Fatalf("the case page: %d %s", code, page)
	}
	code, page, _ := viewer.do(http.MethodGet, "/console/checks/"+checkID+"/images/3?rotate=90&zoom=2", nil, "")
	if code != http.StatusOK || !strings.Contains(page, `class="viewer zoom2"`) || !strings.Contains(page, `class="rot90"`) ||
		!strings.Contains(page, "rotate=180&amp;zoom=2") || !strings.Contains(page, "rotate=90&amp;zoom=3") {
		t.Fatalf("the photo page: %d %s", code, page)
	}
	if code, photo, h := viewer.do(http.MethodGet, "/console/checks/"+checkID+"/images/3/photo", nil, ""); code != http.StatusOK ||
		photo != string(img) || h.Get("Content-Type") != "image/jpeg" || h.Get("Cache-Control") != "no-store" {
		t.Fatalf("the photo in the console: %d %v", code, h)
	}
	if n := countRows(t, `SELECT count(*) FROM audit_log WHERE record_id = $1 AND action = 'image.viewed' AND staff_id IS NOT NULL`, checkID); n != 1 {
		t.Errorf("%d views audited with a staff member", n)
	}
	outsider := staffOn(t, env.b, "outsider-"+uuid.NewString()[:8]+"@photo.test", check.RoleAdmin)
	for _, p := range []string{"/console/checks/" + checkID + "/images/3", "/console/checks/" + checkID + "/images/3/photo"} {
		if code, _, _ := outsider.do(http.MethodGet, p, nil, ""); code != http.StatusNotFound {
			t.Errorf("another tenant's staff on %s: %d", p, code)
		}
	}

	lines := strings.Split(id.MRZ, "\n")
	// The personal number: a BSN on a Dutch passport.
	nowhereAtRest(t, append(lines, id.Fields.OptionalData, marker, hex.EncodeToString(img[100:132]))...)
}

// getImage fetches image n of a check as tenant tn, expecting status.
func getImage(t *testing.T, tn tenant, checkID string, n, status int) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/api/v1/checks/%s/images/%d", env.apiURL, checkID, n), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = tn.host
	req.Header.Set("Authorization", "Bearer "+tn.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("image %d of %s: %d, want %d: %.200s", n, checkID, resp.StatusCode, status, b)
	}
	if status == http.StatusOK && (resp.Header.Get("Content-Type") != "image/jpeg" || resp.Header.Get("Cache-Control") != "no-store") {
		t.Fatalf("image headers: %v", resp.Header)
	}
	return b
}

// pngHeader is a PNG's signature and header chunk claiming w × h pixels:
// a decompression bomb needs no more to be refused.
func pngHeader(w, h uint32, depth byte) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, 2 // RGB
	chunk := append([]byte("IHDR"), ihdr...)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = binary.BigEndian.AppendUint32(out, 13)
	out = append(out, chunk...)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
	return out
}

// jpegBomb is a JPEG whose frame header claims 65 000 × 65 000 pixels.
func jpegBomb(t *testing.T) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	raw := b.Bytes()
	i := bytes.Index(raw, []byte{0xFF, 0xC0})
	binary.BigEndian.PutUint16(raw[i+5:], 65000)
	binary.BigEndian.PutUint16(raw[i+7:], 65000)
	return raw
}

// Bad uploads get a clear 4xx naming the image field, or a retake; never a
// 5xx, never a stuck check.
func TestPhotoUploadRefusals(t *testing.T) {
	t.Parallel()
	good, id := docPhoto(t, 202, mrz.TD1, sharp)
	_, path := photoCustomer(t, env.a, id)
	for _, c := range []struct {
		name   string
		body   []byte
		status int
		says   string
	}{
		{"a PDF", []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n"), http.StatusUnsupportedMediaType, "not a JPEG or PNG"},
		{"an empty file", []byte{}, http.StatusUnprocessableEntity, "empty"},
		{"a 200-megapixel PNG", pngHeader(20000, 10000, 8), http.StatusUnprocessableEntity, "40 megapixels"},
		{"a 36-megapixel 16-bit PNG", pngHeader(6000, 6000, 16), http.StatusUnprocessableEntity, "colour depth"},
		{"a JPEG bomb", jpegBomb(t), http.StatusUnprocessableEntity, "40 megapixels"},
		{"a JPEG cut short in its header", good[:40], http.StatusUnprocessableEntity, "damaged"},
		{"16 MB", append(append([]byte{}, good...), make([]byte, 16<<20)...), http.StatusRequestEntityTooLarge, "15 MB"},
	} {
		r := upload(t, path, c.body)
		errs := obj(r.body["errors"])
		if r.status != c.status || errs["image"] == nil || !strings.Contains(fmt.Sprint(errs["image"]), c.says) {
			t.Errorf("%s: %d %s", c.name, r.status, r.raw)
		}
	}
	// Three images; no image at all; not multipart; a body cut off.
	if r := upload(t, path, good, good, good); r.status != http.StatusUnprocessableEntity {
		t.Errorf("three images: %d %s", r.status, r.raw)
	}
	if r := upload(t, path); r.status != http.StatusUnprocessableEntity || obj(r.body["errors"])["image"] == nil {
		t.Errorf("no image: %d %s", r.status, r.raw)
	}
	if r := requestWith(t, http.MethodPost, path+"/document", "anything.test", "", "image/jpeg", good); r.status != http.StatusUnsupportedMediaType {
		t.Errorf("a bare JPEG body: %d %s", r.status, r.raw)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("image", "cut.jpg")
	w.Write(good)
	cut := body.Bytes()[:body.Len()/2] // no closing boundary: the connection dropped
	if r := requestWith(t, http.MethodPost, path+"/document", "anything.test", "", mw.FormDataContentType(), cut); r.status != http.StatusBadRequest {
		t.Errorf("a cut upload: %d %s", r.status, r.raw)
	}
	// None of these used an attempt.
	if s := requestWith(t, http.MethodGet, path+"/status", "anything.test", "", "", nil); s.body["state"] != "awaiting_photo" || s.body["attempts"] != float64(0) {
		t.Fatalf("after refusals: %s", s.raw)
	}

	// A JPEG whose data is cut (its header whole, no end): refused as
	// damaged, since stripping walks it to its end; no attempt used.
	if r := upload(t, path, good[:len(good)/3]); r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.raw), "damaged") {
		t.Fatalf("truncated JPEG: %d %s", r.status, r.raw)
	}
	// The side of the card without the code: taken, then sent back for a
	// retake.
	if r := upload(t, path, frontSide(t, id)); r.status != http.StatusAccepted {
		t.Fatalf("front side: %d %s", r.status, r.raw)
	}
	whileReading(t, "the retake", func() bool {
		s := requestWith(t, http.MethodGet, path+"/status", "anything.test", "", "", nil).body
		return s["state"] == "retake" && s["attempts"] == float64(1)
	})
	if s := requestWith(t, http.MethodGet, path+"/status", "anything.test", "", "", nil).body; s["reason"] != "mrz_not_found" {
		t.Errorf("front side: %v", s)
	}
}

// frontSide is a photo of the part of a document without its MRZ.
func frontSide(t *testing.T, id docgen.Identity) []byte {
	t.Helper()
	b, err := docgen.WithoutMRZ(id, 12)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// After the tenant's last attempt is sent back, the check completes not
// validated, image_unreadable; a tenant that turned typed MRZs off refuses
// them.
func TestPhotoAttemptsUsedAndTypedOff(t *testing.T) {
	t.Parallel()
	tn, err := newTenant(t.Context(), "Photos Only", "photos-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	tid := uuid.MustParse(tn.id)
	if err := env.admin.SetIDScanMaxAttempts(t.Context(), tid, 2); err != nil {
		t.Fatal(err)
	}
	if err := env.admin.SetIDScanTyped(t.Context(), tid, false); err != nil {
		t.Fatal(err)
	}
	_, id := docPhoto(t, 303, mrz.TD3, sharp)
	cid, path := photoCustomer(t, tn, id)
	waitStatus(t, tn, cid, "awaiting_input")
	if r := requestWith(t, http.MethodPost, path+"/mrz", "anything.test", "", "application/json", map[string]string{"mrz": id.MRZ}); r.status != http.StatusForbidden {
		t.Fatalf("typed MRZ with typing off: %d %s", r.status, r.raw)
	}
	if code, page := getPage(t, path+"?lang=en"); code != http.StatusOK || strings.Contains(page, `name="mrz"`) || !strings.Contains(page, `capture="environment"`) {
		t.Fatalf("photo-only page %d: %s", code, page)
	}
	side := frontSide(t, id)
	for range 2 {
		if r := upload(t, path, side); r.status != http.StatusAccepted {
			t.Fatalf("upload: %d %s", r.status, r.raw)
		}
	}
	chk := waitRead(t, tn, cid, "completed")
	d := obj(chk["data"])
	if chk["validated"] != false || d["reason"] != "image_unreadable" || d["source"] != "photo" || obj(obj(d["checks"])["image_quality"])["result"] != "fail" {
		t.Fatalf("check: %v", chk)
	}
	if im := obj(obj(obj(d["checks"])["image_quality"])["image"]); im["band_found"] != false {
		t.Errorf("the side without the code: measures %v", im)
	}
	if r := upload(t, path, side); r.status != http.StatusGone {
		t.Fatalf("a third upload: %d %s", r.status, r.raw)
	}
}

// waitStatusWithin is waitStatus with its own deadline.
func waitStatusWithin(t *testing.T, tn tenant, id, status string, within time.Duration) map[string]any {
	t.Helper()
	var chk map[string]any
	eventually(t, within, "idscan check "+status, func() bool {
		chk = customerCheck(t, tn, id)
		return chk["status"] == status
	})
	return chk
}

// waitRead waits for a check whose photo is being read to reach status,
// while the reader moves.
// ended are the statuses a check waiting on a read does not leave on its
// own (failed waits for support's retry).
var ended = []check.Status{check.Completed, check.Failed, check.Cancelled, check.Expired}

func waitRead(t *testing.T, tn tenant, id, status string) map[string]any {
	t.Helper()
	var chk map[string]any
	whileReading(t, "idscan check "+status, func() bool {
		chk = customerCheck(t, tn, id)
		if s, _ := chk["status"].(string); s != status && slices.Contains(ended, check.Status(s)) {
			t.Fatalf("idscan check %s, not %s: %v", s, status, chk)
		}
		return chk["status"] == status
	})
	return chk
}

// A passport whose printed date of birth was altered while its MRZ was
// left intact: the MRZ and the customer agree, so the check is validated,
// and visual_zone says consider — the tampering signal a compliance
// officer looks at.
func TestPhotoOfATamperedPage(t *testing.T) {
	t.Parallel()
	_, id := docPhoto(t, 404, mrz.TD3, sharp)
	id.Tampered, id.PrintedBirth = docgen.TamperedBirth, id.Birth.AddDate(-7, 0, 3)
	b, err := docgen.Snapshot(id, 12, sharp, 404)
	if err != nil {
		t.Fatal(err)
	}
	cid, path := photoCustomer(t, env.a, id)
	waitStatus(t, env.a, cid, "awaiting_input")
	if r := upload(t, path, b); r.status != http.StatusAccepted {
		t.Fatalf("upload: %d %s", r.status, r.raw)
	}
	chk := waitRead(t, env.a, cid, "completed")
	d := obj(chk["data"])
	vz := obj(obj(d["checks"])["visual_zone"])
	if chk["validated"] != true || vz["result"] != "consider" || vz["reason"] != "visual_zone_mismatch" || obj(vz["fields"])["birth_date"] != "differs" {
		t.Fatalf("check: %v", chk)
	}
}

// A person stuck on a reflection: after two glare photos the check still
// waits, and the tenant sees both attempts, each with its reason, and how
// many the link still takes.
func TestPhotoAttemptsWhileWaiting(t *testing.T) {
	t.Parallel()
	_, id := docPhoto(t, 606, mrz.TD3, sharp)
	shiny := glarePhoto(t, id)
	cid, path := photoCustomer(t, env.a, id)
	waitStatus(t, env.a, cid, "awaiting_input")
	if d := customerCheck(t, env.a, cid)["data"]; d != nil {
		t.Fatalf("data before any upload: %v", d)
	}
	for n := 1; n <= 2; n++ {
		if r := upload(t, path, shiny); r.status != http.StatusAccepted {
			t.Fatalf("upload %d: %d %s", n, r.status, r.raw)
		}
		photoState(t, path, "retake")
	}
	chk := customerCheck(t, env.a, cid)
	d := obj(chk["data"])
	atts, _ := d["attempts"].([]any)
	if chk["status"] != "awaiting_input" || d["source"] != "photo" || len(atts) != 2 || d["attempts_left"] != float64(3) {
		t.Fatalf("check while waiting: %v", chk)
	}
	for i, a := range atts {
		if at := obj(a); at["n"] != float64(i+1) || at["status"] != "retake" || at["reason"] != "glare" || at["read_at"] == nil {
			t.Fatalf("attempt %d: %v", i+1, at)
		}
	}
}
