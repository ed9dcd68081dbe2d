package activities

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/documents"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/engines/mrzread"
	"github.com/kycflow/kycflow/store"
)

// DocumentReader reads the photos of idscan uploads: the keys that open
// them, the reader, and the face engine selfies are judged with (loaded
// when first needed: most workers never read a selfie).
type DocumentReader struct {
	Keys   *documents.Keys
	Reader mrzread.Reader
	Faces  func() (*face.Engine, error)
}

// IDScanReadInput names the check whose next upload to read.
type IDScanReadInput struct {
	Check check.Ref
}

// IDScanReadResult is what became of an upload, ids and codes only: the
// check's outcome when it ended (Done), else the attempt sent back for a
// retake and why, and whether another upload waits to be read (More).
// Outcome "none": no upload was waiting (a repeated signal).
type IDScanReadResult struct {
	CheckResult
	Done    bool
	Attempt int
	Outcome string // check.AttemptRead, AttemptRetake, or "none"
	Reason  string `json:",omitempty"`
	More    bool   `json:",omitempty"`
}

// IDScanRead reads the check's oldest unread upload. A photo read with
// confidence decides the check like a typed MRZ, with the image
// sub-checks; a photo that cannot be read is a retake, and the check ends
// `image_unreadable` when it was the last attempt the tenant allows. The
// images are erased at once when the tenant keeps none. It runs on the
// documents task queue, whose workers bound how many reads run at once.
func (a *Activities) IDScanRead(ctx context.Context, in IDScanReadInput) (IDScanReadResult, error) {
	cs, done, err := a.loadOpen(ctx, in.Check)
	if err != nil {
		return IDScanReadResult{}, err
	}
	if done { // decided, or put in review, by an earlier try
		res, err := a.inReview(ctx, cs)
		return IDScanReadResult{CheckResult: res, Done: true}, err
	}
	if a.Documents == nil || a.Documents.Keys == nil {
		return IDScanReadResult{}, NotConfigured("IMAGE_KEYS", check.IDScan)
	}
	att, rows, err := a.Store.NextDocument(ctx, in.Check)
	if errors.Is(err, store.ErrNotFound) {
		return a.readSelfie(ctx, in.Check)
	}
	if err != nil {
		return IDScanReadResult{}, wrap(err, "load upload")
	}
	settings, err := a.Store.IDScanSettings(ctx, in.Check.TenantID)
	if err != nil {
		return IDScanReadResult{}, wrap(err, "load idscan settings")
	}
	stop := heartbeat(ctx)
	read, err := a.readUpload(ctx, in.Check, rows)
	stop()
	if err != nil {
		return IDScanReadResult{}, err
	}
	q, _ := json.Marshal(read.Quality)
	out := IDScanReadResult{Attempt: att.N, Outcome: check.AttemptRetake, Reason: retakeReason(read.Reason)}
	if read.Outcome == mrzread.Read {
		out.Outcome, out.Reason = check.AttemptRead, ""
	}
	finish := func() error {
		unread, err := a.Store.FinishDocument(ctx, in.Check, att.N, out.Outcome, nonEmpty(out.Reason), q, settings.Retention == 0)
		if err != nil {
			return wrap(err, "record the upload's outcome")
		}
		out.More = unread > 0
		return nil
	}
	if out.Outcome == check.AttemptRetake && att.N < settings.MaxAttempts {
		if err := finish(); err != nil { // the person takes another photo, or sent it already
			return IDScanReadResult{}, err
		}
		return out, nil
	}
	attempts, err := a.Store.DocumentAttempts(ctx, in.Check)
	if err != nil {
		return IDScanReadResult{}, wrap(err, "load uploads")
	}
	for i := range attempts { // this one's outcome, recorded below
		if attempts[i].N == att.N {
			attempts[i].Status, attempts[i].Reason, attempts[i].ReadAt = out.Outcome, nonEmpty(out.Reason), ptr(time.Now().UTC())
		}
	}
	var d check.IDScanData
	var id *store.Identity
	if out.Outcome == check.AttemptRead {
		d, id = verifyMRZ(read.MRZ, cs.Customer, settings, time.Now())
		d.Checks.ImageQuality, d.Checks.MRZRead = sub(check.Clear, ""), sub(check.Clear, "")
		d.Checks.MRZRead.Read = &check.ReadMeasures{Agreement: round3(read.Agreement), Settled: read.Open}
		d.Checks.VisualZone = visualZone(read.Zone)
	} else { // the last attempt the tenant allows
		d = check.IDScanData{Outcome: check.OutcomeChecked, Errors: []check.IDScanError{}, Corrections: []check.MRZCorrection{}}
		msg := "No photo of the document could be read."
		d.Reason, d.Message = ptr(check.ReasonImageUnreadable), &msg
		d.Checks.ImageQuality = sub(check.Fail, out.Reason)
		d.Checks.MRZRead = sub(check.Fail, check.ReasonImageUnreadable)
	}
	d.Checks.ImageQuality.Image = imageMeasures(read.Quality)
	d.Source, d.Attempts = check.SourcePhoto, store.AttemptsData(attempts)
	validated := d.Reason == nil
	if validated && out.Outcome == check.AttemptRead && settings.Selfie != check.SelfieOff {
		return out, a.awaitSelfie(ctx, in.Check, att.N, q, draft{Data: d, Identity: id})
	}
	// The check first: a retried activity finds it done; the upload's
	// outcome then.
	res, err := a.completeWith(ctx, in.Check, &validated, d, nil, id)
	if err != nil {
		return IDScanReadResult{}, err
	}
	out.CheckResult, out.Done = res, true
	return out, finish()
}

// readUpload opens an upload's images and reads them: the first read, else
// the first image's retake. Only a failure of the reader itself (Tesseract
// missing or failing) is an error, retried; an image that does not decode
// is a retake.
func (a *Activities) readUpload(ctx context.Context, ref check.Ref, rows []store.DocumentImage) (mrzread.Result, error) {
	var first mrzread.Result
	for i, row := range rows {
		im, err := a.Documents.Keys.OpenImage(ref, row) // stripped again: a stored image that no longer strips is a retake
		var res mrzread.Result
		if err == nil {
			res, err = a.Documents.Reader.Photo(ctx, im.Bytes, im.Info)
		}
		switch {
		case errors.Is(err, docimage.ErrCorrupt), errors.Is(err, docimage.ErrFormat):
			res = mrzread.Result{Outcome: mrzread.Retake, Reason: mrzread.Unreadable}
		case err != nil:
			return first, err
		}
		if res.Outcome == mrzread.Read {
			return res, nil
		}
		if i == 0 {
			first = res
		}
	}
	return first, nil
}

// visualZone is the visual_zone sub-check: consider when a printed field
// differs from the MRZ, clear when one was read and none differs, nil when
// the page was not read.
func visualZone(z *mrzread.VisualZone) *check.SubCheck {
	if z == nil || !z.Read() {
		return nil
	}
	s := sub(check.Clear, "")
	if z.Differs() {
		s = sub(check.Consider, check.ReasonVisualZoneMismatch)
	}
	s.Fields = &check.ZoneFields{Name: zoneFinding(z.Name), BirthDate: zoneFinding(z.BirthDate)}
	return s
}

func zoneFinding(f mrzread.Finding) string {
	switch f {
	case mrzread.Agrees:
		return check.ZoneAgrees
	case mrzread.Differs:
		return check.ZoneDiffers
	}
	return check.ZoneNotRead
}

// retakeReason is the domain's word (check.Retake…) for the reader's
// reason.
func retakeReason(r mrzread.Reason) string {
	switch r {
	case mrzread.NotFound:
		return check.RetakeNotFound
	case mrzread.TooSmall:
		return check.RetakeTooSmall
	case mrzread.TooDark:
		return check.RetakeTooDark
	case mrzread.Blurred:
		return check.RetakeBlurred
	case mrzread.Glare:
		return check.RetakeGlare
	}
	return check.RetakeUnreadable
}

// imageMeasures is what the reader measured, as the check's data shows it.
func imageMeasures(q mrzread.Quality) *check.ImageMeasures {
	return &check.ImageMeasures{Width: q.Width, Height: q.Height, Brightness: round3(q.Brightness), BandFound: q.BandFound,
		CharHeight: round3(q.CharHeight), Sharpness: round3(q.Sharpness), Glare: round3(q.Glare)}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
