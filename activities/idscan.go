package activities

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/language"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/engines/namematch"
	"github.com/kycflow/kycflow/store"
)

// IDScanVerify checks the MRZ the person typed (or an app sent): every
// check digit holds, the document has not expired and is one the tenant
// accepts, and its name and date of birth are the customer's. The
// document's fields are written onto the customer, and the typed MRZ is
// dropped from the link: what remains is what data shows. Runs as a local
// activity (no network).
func (a *Activities) IDScanVerify(ctx context.Context, in LinkInput) (CheckResult, error) {
	cs, done, err := a.loadOpen(ctx, in.Check)
	if err != nil || done {
		return recorded(cs), err
	}
	l, err := a.Store.GetLink(ctx, in.Check)
	if err != nil {
		return CheckResult{}, wrap(err, "load link")
	}
	var sub check.IDScanSubmission
	if l.Submission != nil {
		if err := json.Unmarshal(l.Submission, &sub); err != nil {
			return CheckResult{}, wrap(err, "read submission")
		}
	}
	if a.Documents == nil || a.Documents.Keys == nil {
		return CheckResult{}, NotConfigured("IMAGE_KEYS", check.IDScan)
	}
	text, err := a.Documents.Keys.OpenMRZ(in.Check, sub)
	if err != nil {
		return CheckResult{}, wrap(err, "open the typed MRZ")
	}
	settings, err := a.Store.IDScanSettings(ctx, in.Check.TenantID)
	if err != nil {
		return CheckResult{}, wrap(err, "load idscan settings")
	}
	d, id := verifyMRZ(text, cs.Customer, settings, time.Now())
	d.Source = check.SourceTyped
	validated := d.Reason == nil
	// The MRZ's optional data (a Dutch passport's BSN) is never kept: the
	// typed MRZ goes with the result, in one transaction.
	return a.completeUpdate(ctx, in.Check, &validated, d, store.CheckUpdate{Identity: id, DropSubmission: true})
}

// verifyMRZ decides an idscan check from an MRZ's text; the identity is
// what the document says (nil when the MRZ cannot be trusted). The caller
// sets Source, and for a photo the image sub-checks and the attempts.
func verifyMRZ(text string, c *store.Customer, settings store.IDScanSettings, now time.Time) (check.IDScanData, *store.Identity) {
	d := check.IDScanData{Outcome: check.OutcomeChecked, Errors: []check.IDScanError{}, Corrections: []check.MRZCorrection{}, Attempts: []check.IDScanAttempt{}}
	fail := func(reason, msg string) {
		if d.Reason == nil {
			d.Reason, d.Message = &reason, &msg
		}
	}
	doc, err := mrz.Parse(text)
	if err != nil {
		fail(check.ReasonUnreadable, "The submitted text is not a machine-readable zone.")
		d.Checks.CheckDigits = sub(check.Fail, check.ReasonUnreadable)
		return d, nil
	}
	for _, c := range doc.Corrections {
		d.Corrections = append(d.Corrections, check.MRZCorrection{Field: string(c.Field), Line: c.Line, Pos: c.Pos, From: c.From, To: c.To})
	}
	typ := documentType(doc.DocumentCode)
	d.Format, d.DocumentCode, d.DocumentType = ptr(string(doc.Format)), nonEmpty(doc.DocumentCode), &typ
	d.IssuingState, d.DocumentNumber = nonEmpty(doc.IssuingState), nonEmpty(doc.DocumentNumber)
	d.Surname, d.GivenNames, d.Nationality = nonEmpty(doc.Surname), nonEmpty(doc.GivenNames), nonEmpty(doc.Nationality)
	d.Sex = nonEmpty(doc.Sex)
	birth, birthOK := resolveBirth(doc.BirthDate, now)
	if birthOK {
		d.BirthDate = ptr(birth.Format(time.DateOnly))
	}
	expiry, expiryOK := resolveExpiry(doc.ExpiryDate, now)
	if expiryOK {
		d.ExpiryDate = ptr(expiry.Format(time.DateOnly))
		exp := doc.Expired(now)
		d.Expired = &exp
	}

	d.Checks.CheckDigits = sub(check.Clear, "")
	for _, e := range doc.Validate() {
		d.Errors = append(d.Errors, check.IDScanError{Field: string(e.Field), Kind: string(e.Kind), Message: e.Error()})
		if e.Kind == mrz.KindCheckDigit {
			fail(check.ReasonCheckDigit, e.Error())
		}
	}
	if len(d.Errors) > 0 {
		fail(check.ReasonInvalidDocument, d.Errors[0].Message)
		d.Checks.CheckDigits = sub(check.Fail, *d.Reason)
		return d, nil // nothing from a document that does not verify goes onto the record
	}
	if accepted(settings.Documents, doc) {
		d.Checks.DocumentAccepted = sub(check.Clear, "")
	} else {
		d.Checks.DocumentAccepted = sub(check.Fail, check.ReasonDocumentRefused)
		fail(check.ReasonDocumentRefused, "This tenant does not accept this document ("+doc.DocumentCode+" of "+doc.IssuingState+").")
	}
	switch {
	case d.Expired == nil:
	case *d.Expired:
		d.Checks.DocumentExpired = sub(check.Fail, check.ReasonDocumentExpired)
		fail(check.ReasonDocumentExpired, "The document expired on "+*d.ExpiryDate+".")
	default:
		d.Checks.DocumentExpired = sub(check.Clear, "")
	}
	score := personNameScore(c, doc.Surname, doc.GivenNames)
	d.NameMatchScore = &score
	d.Checks.DataComparison = sub(check.Clear, "")
	if score < namematch.Threshold {
		d.Checks.DataComparison = sub(check.Fail, check.ReasonNameMismatch)
		fail(check.ReasonNameMismatch, "The name on the document does not match the customer's name.")
	}
	if c.Birthdate != nil && birthOK {
		same := c.Birthdate.Format(time.DateOnly) == birth.Format(time.DateOnly)
		d.BirthdateMatch = &same
		if !same {
			if d.Checks.DataComparison.Result == check.Clear {
				d.Checks.DataComparison = sub(check.Fail, check.ReasonBirthdateMismatch)
			}
			fail(check.ReasonBirthdateMismatch, "The date of birth on the document is not the customer's.")
		}
	}
	if d.Reason != nil {
		return d, nil
	}
	id := &store.Identity{Gender: gender(doc.Sex), NationalityID: nationalityID(doc.Nationality),
		DocumentNumber: nonEmpty(doc.DocumentNumber), DocumentType: &typ}
	if birthOK {
		id.Birthdate = &birth
	}
	if expiryOK {
		id.DocumentExpiration = &expiry
	}
	return d, id
}

// sub is a sub-check's verdict; reason "" for none.
func sub(r check.SubResult, reason string) *check.SubCheck {
	s := &check.SubCheck{Result: r}
	if reason != "" {
		s.Reason = &reason
	}
	return s
}

// accepted reports whether the tenant accepts doc: every document when
// the list is nil, else one whose entry names its document code ("P",
// "ID", or "I" for every code starting with I), optionally with its
// issuing state ("P:NLD").
func accepted(list []string, doc *mrz.Document) bool {
	if list == nil {
		return true
	}
	for _, e := range list {
		code, state, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(e)), ":")
		if code == "" || !strings.HasPrefix(doc.DocumentCode, code) {
			continue
		}
		if state == "" || state == doc.IssuingState {
			return true
		}
	}
	return false
}

func resolveBirth(dt mrz.Date, now time.Time) (time.Time, bool) {
	if !dt.Complete() {
		return time.Time{}, false
	}
	y, ok := dt.BirthYear(now)
	if !ok {
		return time.Time{}, false
	}
	return dt.Time(y)
}

func resolveExpiry(dt mrz.Date, now time.Time) (time.Time, bool) {
	y, ok := dt.ExpiryYear(now)
	if !ok {
		return time.Time{}, false
	}
	return dt.Time(y)
}

// documentType maps an ICAO document code to the document_type table.
func documentType(code string) int {
	switch {
	case strings.HasPrefix(code, "P"):
		return check.DocumentTypePassport
	case strings.HasPrefix(code, "I"), strings.HasPrefix(code, "A"), strings.HasPrefix(code, "C"):
		return check.DocumentTypeIDCard
	case strings.HasPrefix(code, "V"):
		return check.DocumentTypeVisa
	}
	return check.DocumentTypeOther
}

// gender is the record's value for an MRZ sex: male, female or unspecified.
func gender(sex string) *string {
	switch sex {
	case "M":
		return ptr("male")
	case "F":
		return ptr("female")
	}
	return ptr("unspecified")
}

// mrzStates are ICAO codes that are not ISO 3166-1 alpha-3 but name a
// country (Doc 9303 part 3): Germany's "D" and the British nationality
// codes. Other non-ISO codes (UTO, XXA stateless, UNO, EUE, …) have no
// nationality_id.
var mrzStates = map[string]string{"D": "DEU", "GBD": "GBR", "GBN": "GBR", "GBO": "GBR", "GBP": "GBR", "GBS": "GBR"}

// nationalityID is the ISO 3166-1 numeric code of an MRZ nationality.
func nationalityID(code string) *int {
	if iso, ok := mrzStates[code]; ok {
		code = iso
	}
	if len(code) != 3 {
		return nil
	}
	r, err := language.ParseRegion(code)
	if err != nil || r.M49() == 0 || r.ISO3() != code {
		return nil
	}
	n := r.M49()
	return &n
}

// personNameScore compares the document's name with the customer's: the
// whole name in either order (MRZ names are surname first), or, when the
// record has a last name, the surname alone together with the first given
// name or initial — documents carry middle names records often leave out.
// Accents, case, spaces and hyphens do not count: MRZs transliterate.
func personNameScore(c *store.Customer, surname, given string) float64 {
	full := c.Name
	if c.FirstName != nil && c.LastName != nil {
		full = *c.FirstName + " " + *c.LastName
	}
	best := max(namematch.JaroWinkler(compact(full), compact(given+" "+surname)),
		namematch.JaroWinkler(compact(full), compact(surname+" "+given)))
	if c.LastName != nil {
		firstGiven, _, _ := strings.Cut(strings.TrimSpace(given), " ")
		s := namematch.JaroWinkler(compact(*c.LastName), compact(surname))
		switch {
		case c.FirstName != nil:
			first, _, _ := strings.Cut(strings.TrimSpace(*c.FirstName), " ")
			s = min(s, namematch.JaroWinkler(compact(first), compact(firstGiven)))
		case c.Initials != nil && firstGiven != "":
			if !strings.HasPrefix(compact(*c.Initials), compact(firstGiven)[:1]) {
				s = 0
			}
		default:
			s = 0
		}
		best = max(best, s)
	}
	return check.RoundScore(best)
}

// compact folds a name to upper-case ASCII letters only.
func compact(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	folded, _, _ := transform.String(t, s)
	var b strings.Builder
	for _, r := range strings.ToUpper(folded) {
		if r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
