package check

import "time"

// How an idscan check's MRZ reached kycflow (data.source).
const (
	SourcePhoto = "photo" // read from a photo of the document
	SourceTyped = "typed" // typed by the person, or sent by an app that read the chip
)

// SubResult is a sub-check's verdict, as identity-document services
// report them.
type SubResult string

// The verdicts.
const (
	Clear    SubResult = "clear"    // nothing found
	Consider SubResult = "consider" // a signal a person should look at
	Fail     SubResult = "fail"     // the check does not pass
)

// SubCheck is one sub-check of an idscan check.
type SubCheck struct {
	Result SubResult `json:"result"`
	// Reason is a code for anything but clear (docs/IDSCAN.md lists them).
	Reason *string `json:"reason"`
	// Image is what the reader measured of the photo (image_quality of a
	// photo only).
	Image *ImageMeasures `json:"image,omitempty"`
	// Read is how surely the MRZ was read (mrz_read of a photo only).
	Read *ReadMeasures `json:"read,omitempty"`
	// Fields are what the printed page said of each field compared with
	// the MRZ (visual_zone only).
	Fields *ZoneFields `json:"fields,omitempty"`
	// Face is face_match's similarity and thresholds.
	Face *FaceMeasures `json:"face,omitempty"`
	// Review is the decision on a face_match between the thresholds (four
	// eyes: pending until a second reviewer approves it).
	Review *HitReview `json:"review,omitempty"`
}

// ZoneFields are a passport page's printed fields as compared with its
// MRZ, each ZoneAgrees, ZoneDiffers or ZoneNotRead.
type ZoneFields struct {
	Name      string `json:"name"` // surname and first given name
	BirthDate string `json:"birth_date"`
}

// What became of a printed field (visual_zone.fields).
const (
	ZoneAgrees  = "agrees"   // printed as the MRZ has it
	ZoneDiffers = "differs"  // the page was legible and prints something else
	ZoneNotRead = "not_read" // not read with confidence either way
)

// ReasonVisualZoneMismatch is visual_zone's reason when the printed page
// and the MRZ disagree: a tampering signal (consider, not fail: the check
// stays validated, for a person to look at).
const ReasonVisualZoneMismatch = "visual_zone_mismatch"

// ImageMeasures are the reader's measurements of a photo (the image read,
// upright and at most 2 400 pixels on its longer side).
type ImageMeasures struct {
	Width      int     `json:"width"`
	Height     int     `json:"height"`
	Brightness float64 `json:"brightness"`  // mean grey level, 0–255
	BandFound  bool    `json:"band_found"`  // the MRZ band was found
	CharHeight float64 `json:"char_height"` // the MRZ's capitals, pixels
	Sharpness  float64 `json:"sharpness"`   // edge strength against contrast, 0–1: low when blurred
	Glare      float64 `json:"glare"`       // share of the band's character columns a reflection washed out
}

// ReadMeasures say how the MRZ was read from a photo.
type ReadMeasures struct {
	// Agreement is the share of characters the two readers (Tesseract
	// and the OCR-B matcher) read alike, 0–1.
	Agreement float64 `json:"agreement"`
	// Settled is how many characters they left in doubt, settled by the
	// check digits and the fields' rules.
	Settled int `json:"settled"`
}

// IDScanChecks are an idscan check's sub-checks; nil where one does not
// apply (image_quality and mrz_read for a typed MRZ) or was not reached.
type IDScanChecks struct {
	ImageQuality     *SubCheck `json:"image_quality"`
	MRZRead          *SubCheck `json:"mrz_read"`
	CheckDigits      *SubCheck `json:"check_digits"`
	DocumentExpired  *SubCheck `json:"document_expired"`
	DataComparison   *SubCheck `json:"data_comparison"`
	DocumentAccepted *SubCheck `json:"document_accepted"`
	// VisualZone compares a passport's printed name and date of birth
	// with its MRZ; nil where the page was not read (typed MRZs, card
	// backs, which print no name, pages not legible).
	VisualZone *SubCheck `json:"visual_zone"`
	// FaceDetected, Liveness and FaceMatch are the selfie's, when the
	// tenant asks for one (check/selfie.go).
	FaceDetected *SubCheck `json:"face_detected,omitempty"`
	Liveness     *SubCheck `json:"liveness,omitempty"`
	FaceMatch    *SubCheck `json:"face_match,omitempty"`
}

// Attempt statuses: an uploaded photo is being read, was read, or was sent
// back for a retake.
const (
	AttemptReading = "reading"
	AttemptRead    = "read"
	AttemptRetake  = "retake"
)

// Retake reasons: why a photo could not be read, in words a person can
// act on (docs/IDSCAN.md).
const (
	RetakeNotFound   = "mrz_not_found" // no MRZ in the photo: the wrong side, or out of the frame
	RetakeTooSmall   = "too_small"     // the document too far away
	RetakeTooDark    = "too_dark"
	RetakeBlurred    = "blurred"
	RetakeGlare      = "glare"      // a reflection on the MRZ
	RetakeUnreadable = "unreadable" // found, but not read with confidence, or the file is damaged
)

// IDScanAttempt is one upload's outcome in data.attempts.
type IDScanAttempt struct {
	N          int        `json:"n"`
	Status     string     `json:"status"`
	Reason     *string    `json:"reason"`
	Images     int        `json:"images"`
	UploadedAt time.Time  `json:"uploaded_at"`
	ReadAt     *time.Time `json:"read_at"`
}

// IDScanWaiting is the `data` of an idscan check still in awaiting_input
// once a photo was uploaded: each upload so far, and how many more the
// link takes, so support can tell a person stuck on glare from one who
// never opened the link. The check's result replaces it.
type IDScanWaiting struct {
	Source       string          `json:"source"` // SourcePhoto
	Attempts     []IDScanAttempt `json:"attempts"`
	AttemptsLeft int             `json:"attempts_left"`
	// SelfieAttempts are the selfie's, once the document is read and the
	// tenant asks for one.
	SelfieAttempts []SelfieAttempt `json:"selfie_attempts,omitempty"`
}

// DefaultMaxAttempts is how many photos a person may upload for one check
// unless the tenant says otherwise.
const DefaultMaxAttempts = 5
