package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrz"
)

// uploadSet sends each photo of sets `kycflow idscan generate` wrote
// through the API as a person's app would (a new customer named as the
// document says, its idscan link, POST /verify/{token}/document, the
// status polled), then reads the completed check and compares what it
// says with the photo's label: the reader measured through the service,
// not beside it. Photos go one at a time: the figures are the reads', not
// a queue's.
func (b *bencher) uploadSet(ctx context.Context, dirs []string) error {
	b.poll = 20 * time.Millisecond
	for _, dir := range dirs {
		samples, err := docgen.ReadSet(dir)
		if err != nil {
			return err
		}
		by := map[docgen.Profile]*setTally{}
		var order []docgen.Profile
		for _, s := range samples {
			t := by[s.Profile]
			if t == nil {
				t = &setTally{retakes: map[string]int{}}
				by[s.Profile] = t
				order = append(order, s.Profile)
			}
			if err := b.uploadSample(ctx, s, t); err != nil {
				return fmt.Errorf("%s/%s: %w", dir, s.Name, err)
			}
		}
		for _, p := range order {
			fmt.Printf("%s (%s): %s\n", dir, p, by[p])
		}
	}
	return nil
}

// setTally counts one profile's outcomes through the API.
type setTally struct {
	photos, readable int
	// exact: readable photos whose check says what the label's MRZ says;
	// wrong: any photo whose check says something else — the defect;
	// unreadableRead: photos labelled unreadable read all the same.
	exact, wrong, unreadableRead int
	// photoSource: completed checks with data.source "photo" and every
	// sub-check present.
	photoSource, completed int
	retakes                map[string]int // readable photos sent back, by reason
	unreadableRetaken      int
	took                   []time.Duration
	misses                 []string
}

func (t *setTally) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d photos, %d readable: read exactly %d (%.1f %%), wrong reads %d, unreadable yet read %d, unreadable sent back %d; "+
		"completed checks with source photo and every sub-check %d of %d; upload to outcome %s",
		t.photos, t.readable, t.exact, 100*float64(t.exact)/float64(max(t.readable, 1)), t.wrong, t.unreadableRead, t.unreadableRetaken,
		t.photoSource, t.completed, spread(t.took))
	if len(t.retakes) > 0 {
		fmt.Fprintf(&b, "\n  readable photos sent back:")
		for _, r := range slices.Sorted(maps.Keys(t.retakes)) {
			fmt.Fprintf(&b, " %s %d", r, t.retakes[r])
		}
	}
	for _, m := range t.misses {
		fmt.Fprintf(&b, "\n  %s", m)
	}
	return b.String()
}

// uploadSample uploads one labelled photo and scores its outcome.
func (b *bencher) uploadSample(ctx context.Context, s docgen.Sample, t *setTally) error {
	want, err := mrz.Parse(s.MRZ)
	if err != nil {
		return fmt.Errorf("the label's MRZ: %w", err)
	}
	t.photos++
	if s.Readable {
		t.readable++
	}
	given := strings.ToLower(want.GivenNames)
	surname := strings.ToLower(want.Surname)
	// Born as the document says, its century resolved as the check does.
	year, _ := want.BirthDate.BirthYear(time.Now())
	birth, _ := want.BirthDate.Time(year)
	customer := map[string]any{"name": strings.TrimSpace(given + " " + surname), "firstname": given, "lastname": surname,
		"birthdate": birth.Format(time.DateOnly), "email": "upload-set@example.com", "country_code": "NLD", "mails": false,
		"checks": map[string]bool{"idscan": true, "idin": false, "iban": false}}
	took, state, id, err := b.uploadOnceAs(ctx, customer, s.JPEG, b.poll)
	if err != nil {
		return err
	}
	t.took = append(t.took, took)
	if state.State == "retake" {
		if s.Readable {
			t.retakes[state.Reason]++
			t.misses = append(t.misses, s.Name+": retake "+state.Reason)
		} else {
			t.unreadableRetaken++
		}
		return nil
	}
	chk, err := b.completedIDScan(ctx, id)
	if err != nil {
		return err
	}
	t.completed++
	d := chk.Data
	if d.Source == check.SourcePhoto && complete(d.Checks) {
		t.photoSource++
	}
	got := []string{deref(d.DocumentCode), deref(d.IssuingState), deref(d.DocumentNumber), deref(d.Surname), deref(d.GivenNames),
		deref(d.Nationality), deref(d.Sex), yymmdd(deref(d.BirthDate)), yymmdd(deref(d.ExpiryDate))}
	exp := []string{want.DocumentCode, want.IssuingState, want.DocumentNumber, want.Surname, want.GivenNames, want.Nationality, want.Sex, want.BirthDate.Raw, want.ExpiryDate.Raw}
	switch {
	case !slices.Equal(got, exp):
		t.wrong++
		t.misses = append(t.misses, fmt.Sprintf("%s: WRONG read %q, want %q", s.Name, got, exp))
	case !s.Readable:
		t.unreadableRead++
		t.misses = append(t.misses, s.Name+": read, though unreadable ("+s.Why+")")
	default:
		t.exact++
	}
	return nil
}

// yymmdd is a date the API writes as YYYY-MM-DD the way an MRZ does.
func yymmdd(date string) string {
	if d := strings.ReplaceAll(date, "-", ""); len(d) == 8 {
		return d[2:]
	}
	return date
}

// idscanCheck is what the upload set reads of an idscan check.
type idscanCheck struct {
	Status check.Status     `json:"status"`
	Data   check.IDScanData `json:"data"`
}

// complete reports whether the sub-checks every photo read reports are
// there, each clear, consider or fail.
func complete(c check.IDScanChecks) bool {
	for _, s := range []*check.SubCheck{c.ImageQuality, c.MRZRead, c.CheckDigits, c.DocumentExpired, c.DataComparison, c.DocumentAccepted} {
		if s == nil || s.Result != check.Clear && s.Result != check.Consider && s.Result != check.Fail {
			return false
		}
	}
	return true
}

// deref is a field of the check's data, "" when null.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// completedIDScan polls customer id until its idscan check completes (the
// link's "done" comes just before the check's result is written).
func (b *bencher) completedIDScan(ctx context.Context, id string) (*idscanCheck, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var out struct {
			Check json.RawMessage `json:"idscan_check"`
		}
		if _, err := b.do(ctx, http.MethodGet, b.base+"/customers/"+id, nil, &out); err != nil {
			return nil, err
		}
		var chk idscanCheck
		if err := json.Unmarshal(out.Check, &chk); err != nil {
			return nil, err
		}
		if chk.Status == check.Completed {
			return &chk, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("customer %s: idscan check %q after 30 s", id, chk.Status)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(b.poll):
		}
	}
}
