package documents

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/store"
)

// Image is an uploaded image that passed docimage's checks, its metadata
// stripped: what is stored (sealed) and read.
type Image struct {
	Bytes []byte
	Info  docimage.Info
}

// Take checks an uploaded file (docimage's errors say what is wrong with
// it) and strips its metadata: the GPS position, the device and the time a
// phone records never reach the store. The orientation the camera
// recorded is kept in Info.
func Take(b []byte) (Image, error) {
	info, err := docimage.Inspect(b)
	if err != nil {
		return Image{}, err
	}
	stripped, err := docimage.Strip(b, info.Format)
	if err != nil {
		return Image{}, err
	}
	return Image{Bytes: stripped, Info: info}, nil
}

// context binds a sealed image to its tenant, check and content.
func context(ref check.Ref, sum []byte) string {
	return ref.TenantID.String() + "/" + ref.CheckID.String() + "/" + hex.EncodeToString(sum)
}

// SealImage makes im the store's row for ref's check (AddDocument numbers it).
func (k *Keys) SealImage(ref check.Ref, im Image) store.DocumentImage {
	sum := sha256.Sum256(im.Bytes)
	id, sealed := k.Seal(im.Bytes, context(ref, sum[:]))
	return store.DocumentImage{
		ContentType: im.Info.Format.ContentType(), Bytes: len(im.Bytes), Width: im.Info.Width, Height: im.Info.Height,
		Orientation: im.Info.Orientation, SHA256: sum[:], KeyID: id, Sealed: sealed,
	}
}

// OpenImage opens a stored image of ref's check, and gives it back with
// what the store recorded of it (its format, size and the orientation the
// camera recorded). It is stripped again as it is opened: an image stored
// before the stripping knew a layout (an APP segment after the scan, a
// second image after the end) keeps its metadata at rest until its
// retention ends, but gives none of it to anyone.
func (k *Keys) OpenImage(ref check.Ref, row store.DocumentImage) (Image, error) {
	b, err := k.Open(row.KeyID, row.Sealed, context(ref, row.SHA256))
	if err != nil {
		return Image{}, err
	}
	f := docimage.JPEG
	if row.ContentType == docimage.PNG.ContentType() {
		f = docimage.PNG
	}
	if b, err = docimage.Strip(b, f); err != nil {
		return Image{}, fmt.Errorf("documents: a stored image: %w", err)
	}
	return Image{Bytes: b, Info: docimage.Info{Format: f, Width: row.Width, Height: row.Height, Orientation: row.Orientation}}, nil
}

// mrzContext binds a sealed MRZ to its tenant and check.
func mrzContext(ref check.Ref) string {
	return "typed mrz/" + ref.TenantID.String() + "/" + ref.CheckID.String()
}

// SealMRZ is a typed MRZ as the link keeps it until the check reads it:
// sealed, bound to its check.
func (k *Keys) SealMRZ(ref check.Ref, text string) check.IDScanSubmission {
	id, sealed := k.Seal([]byte(text), mrzContext(ref))
	return check.IDScanSubmission{KeyID: id, Sealed: sealed}
}

// OpenMRZ is the MRZ a submission holds (one of before the sealing as it
// was).
func (k *Keys) OpenMRZ(ref check.Ref, sub check.IDScanSubmission) (string, error) {
	if sub.Sealed == nil {
		return sub.MRZ, nil
	}
	plain, err := k.Open(sub.KeyID, sub.Sealed, mrzContext(ref))
	return string(plain), err
}

// draftContext binds a sealed draft result to its tenant and check.
func draftContext(ref check.Ref) string {
	return "idscan draft/" + ref.TenantID.String() + "/" + ref.CheckID.String()
}

// SealDraft seals the result a read document gives, kept until the
// selfie completes the check.
func (k *Keys) SealDraft(ref check.Ref, plain []byte) (keyID string, sealed []byte) {
	return k.Seal(plain, draftContext(ref))
}

// OpenDraft opens what SealDraft sealed.
func (k *Keys) OpenDraft(ref check.Ref, keyID string, sealed []byte) ([]byte, error) {
	return k.Open(keyID, sealed, draftContext(ref))
}
