package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"mime/multipart"
	"strings"
	"time"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/engines/faceeval"
	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/engines/selfie"
)

// sitter is a person of a labelled faces folder, posed as a selfie camera
// frames them: the photos the bench answers challenges with.
type sitter struct {
	name   string
	photos []faceeval.Posed
}

// sitters reads the people of a faces folder (labels.tsv: file, person)
// with three photos or more the live view takes.
func sitters(dir, models string) ([]sitter, error) {
	if models == "" {
		models = face.DefaultDir()
	}
	e, err := face.Load(models)
	if err != nil {
		return nil, err
	}
	photos, err := faceeval.ReadLabels(dir)
	if err != nil {
		return nil, err
	}
	people, by, err := faceeval.PosePeople(e, dir, photos)
	if err != nil {
		return nil, err
	}
	var out []sitter
	for _, p := range people {
		if len(by[p]) >= 3 {
			out = append(out, sitter{p, by[p]})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no person with three photos the live view takes", dir)
	}
	return out, nil
}

// selfieFairness measures a selfie's time from upload to outcome, and what
// selfies cost other checks, on a tenant that asks for a selfie: each a
// new customer whose document is a generated passport printing one of the
// person's photos, read; then the challenge's frames, the person's other
// photos in the poses it asks (or, where none shows a step, the first
// repeated, which fails liveness: the time is the same), posted as an app
// does, and the link's status polled until the selfie's outcome. First
// twelve one after another, nothing else running; then the iban check end
// to end at concurrency 1, idle and while inFlight selfies are kept in
// flight.
func (b *bencher) selfieFairness(ctx context.Context, dir, models string, inFlight int, dur time.Duration) error {
	people, err := sitters(dir, models)
	if err != nil {
		return err
	}
	return b.fairness(ctx, "selfies", inFlight, dur, func(ctx context.Context, i int, poll time.Duration) (outcome, error) {
		return b.selfieOnce(ctx, people[i%len(people)], uint64(i), poll)
	})
}

// selfieOnce is one person's document read, then their selfie: the time
// from the selfie's upload to its outcome, and the selfie's state then
// (done, or retake and the reason; "unanswered" where the person's photos
// showed no step the challenge drew).
func (b *bencher) selfieOnce(ctx context.Context, p sitter, seed uint64, poll time.Duration) (outcome, error) {
	var id docgen.Identity
	for s := seed; ; s++ {
		id = docgen.RandomIdentity(rand.New(rand.NewPCG(s, 41)), mrz.TD3)
		if id.Expiry.After(time.Now().AddDate(1, 0, 0)) {
			break
		}
	}
	// The portrait is the person's last photo; the frames start from the
	// first, so no frame is the printed picture itself.
	id.Portrait = p.photos[len(p.photos)-1].Photo
	photo, err := docgen.Snapshot(id, 12, docgen.SharpPhone, seed)
	if err != nil {
		return outcome{}, err
	}
	given, surname := strings.ToLower(id.Fields.GivenNames), strings.ToLower(id.Fields.Surname)
	customer := map[string]any{"name": given + " " + surname, "firstname": given, "lastname": surname,
		"birthdate": id.Birth.Format(time.DateOnly), "email": "selfie@example.com", "country_code": "NLD", "mails": false,
		"checks": map[string]bool{"idscan": true, "idin": false, "iban": false}}
	_, st, _, err := b.uploadOnceAs(ctx, customer, photo, poll)
	if err != nil {
		return outcome{}, err
	}
	if st.State != "selfie" || st.Selfie == nil || st.Selfie.State != "awaiting" {
		return outcome{}, fmt.Errorf("the document was not read for a selfie (state %s, reason %s): is the tenant's --idscan-selfie on?", st.State, st.Reason)
	}
	steps := make([]selfie.Step, len(st.Selfie.Steps))
	for i, s := range st.Selfie.Steps {
		steps[i] = selfie.Step(s)
	}
	frames, answered := faceeval.Answer(p.photos[0], p.photos[:len(p.photos)-1], steps)
	if !answered {
		frames = make([]image.Image, len(steps)+1)
		for i := range frames {
			frames[i] = p.photos[0].Image
		}
	}
	body, ct, err := selfieBody(st.Selfie.Nonce, frames)
	if err != nil {
		return outcome{}, err
	}
	start := time.Now()
	if err := b.post(ctx, st.path+"/selfie", body, ct); err != nil {
		return outcome{}, err
	}
	now, err := b.awaitLink(ctx, st.path, poll, func(now linkState) (bool, error) {
		switch {
		case now.Selfie == nil:
			return false, errors.New("a status without its selfie")
		case now.Selfie.State == "done", now.Selfie.State == "retake":
			return true, nil
		}
		return now.Selfie.State == "awaiting" && now.Selfie.Attempts > st.Selfie.Attempts, nil // sent back
	})
	if err != nil {
		return outcome{}, err
	}
	state := now.Selfie.State
	if now.Selfie.Reason != nil {
		state += " " + *now.Selfie.Reason
	}
	if !answered {
		state += " unanswered"
	}
	return outcome{time.Since(start), state}, nil
}

// selfieBody is the multipart body an app posts to /verify/{token}/selfie:
// the challenge's nonce and the frames as JPEG.
func selfieBody(nonce string, frames []image.Image) ([]byte, string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("nonce", nonce)
	for i, f := range frames {
		w, err := mw.CreateFormFile("frame", fmt.Sprintf("frame-%d.jpg", i))
		if err != nil {
			return nil, "", err
		}
		if err := jpeg.Encode(w, f, &jpeg.Options{Quality: 90}); err != nil {
			return nil, "", err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, "", err
	}
	return body.Bytes(), mw.FormDataContentType(), nil
}
