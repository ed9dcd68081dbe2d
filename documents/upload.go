package documents

import (
	"crypto/sha256"
	"encoding/hex"

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
// camera recorded).
func (k *Keys) OpenImage(ref check.Ref, row store.DocumentImage) (Image, error) {
	b, err := k.Open(row.KeyID, row.Sealed, context(ref, row.SHA256))
	if err != nil {
		return Image{}, err
	}
	f := docimage.JPEG
	if row.ContentType == docimage.PNG.ContentType() {
		f = docimage.PNG
	}
	return Image{Bytes: b, Info: docimage.Info{Format: f, Width: row.Width, Height: row.Height, Orientation: row.Orientation}}, nil
}
