package documents

import (
	"bytes"
	"errors"
	"image"
	"image/jpeg"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/docimage"
)

const (
	keyA = "k1:" + "0101010101010101010101010101010101010101010101010101010101010101"
	keyB = "k2:AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=" // 32 bytes of 2, base64
)

// The first key seals; every listed key opens what it sealed; a key no
// longer listed opens nothing.
func TestKeysRotate(t *testing.T) {
	old, err := ParseKeys(keyA)
	if err != nil {
		t.Fatal(err)
	}
	id, sealed := old.Seal([]byte("photo"), "ctx")
	if id != "k1" || bytes.Contains(sealed, []byte("photo")) {
		t.Fatalf("sealed with %q: %x", id, sealed)
	}
	rotated, err := ParseKeys(keyB + ", " + keyA)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := rotated.Open(id, sealed, "ctx"); err != nil || string(plain) != "photo" {
		t.Fatalf("the old key's image after rotation: %q %v", plain, err)
	}
	if id2, _ := rotated.Seal([]byte("photo"), "ctx"); id2 != "k2" {
		t.Fatalf("new images sealed with %q, want the first key", id2)
	}
	retired, err := ParseKeys(keyB)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := retired.Open(id, sealed, "ctx"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("a retired key's image: %v", err)
	}
}

// A sealed image opens only for its own tenant, check and content, and
// not when a byte of it changed.
func TestSealedImageBoundToItsRow(t *testing.T) {
	k, err := ParseKeys(keyA)
	if err != nil {
		t.Fatal(err)
	}
	ref := check.Ref{TenantID: uuid.New(), CheckID: uuid.New()}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 10, 20)), nil); err != nil {
		t.Fatal(err)
	}
	im := Image{Bytes: jpg.Bytes(), Info: docimage.Info{Format: docimage.JPEG, Width: 10, Height: 20, Orientation: 6}}
	row := k.SealImage(ref, im)
	if row.ContentType != "image/jpeg" || row.Bytes != len(im.Bytes) || row.Orientation != 6 || len(row.SHA256) != 32 || bytes.Contains(row.Sealed, im.Bytes) {
		t.Fatalf("row %+v", row)
	}
	back, err := k.OpenImage(ref, row)
	if err != nil || !bytes.Equal(back.Bytes, im.Bytes) || back.Info != im.Info {
		t.Fatalf("opened %+v %v", back, err)
	}
	// An image stored with metadata (before the stripping knew its
	// layout: here a comment after the scan) is opened without it.
	eoi := len(im.Bytes) - 2
	old := Image{Bytes: bytes.Join([][]byte{im.Bytes[:eoi], {0xFF, 0xFE, 0, 10}, []byte("GPS 52.3"), im.Bytes[eoi:]}, nil), Info: im.Info}
	if back, err := k.OpenImage(ref, k.SealImage(ref, old)); err != nil || !bytes.Equal(back.Bytes, im.Bytes) {
		t.Fatalf("an image stored with metadata, opened: %v (%d bytes, want %d)", err, len(back.Bytes), len(im.Bytes))
	}
	other := ref
	other.CheckID = uuid.New()
	if _, err := k.OpenImage(other, row); err == nil {
		t.Error("an image opened on another check's row")
	}
	tampered := row
	tampered.Sealed = append([]byte(nil), row.Sealed...)
	tampered.Sealed[len(tampered.Sealed)-1] ^= 1
	if _, err := k.OpenImage(ref, tampered); err == nil {
		t.Error("a tampered image opened")
	}
}

func TestParseKeysRefuses(t *testing.T) {
	for _, spec := range []string{"", " , ", "nokey", ":" + strings.Repeat("01", 32), "k1:short", "k1:" + strings.Repeat("01", 32) + ",k1:" + strings.Repeat("02", 32),
		"a b:" + strings.Repeat("01", 32)} {
		if _, err := ParseKeys(spec); err == nil {
			t.Errorf("ParseKeys(%q) took it", spec)
		}
	}
}

// Take refuses what docimage refuses and strips the metadata of what it
// takes: an Exif segment and a comment carrying a GPS position are gone,
// the image still decodes.
func TestTake(t *testing.T) {
	if _, err := Take([]byte("%PDF-1.7")); !errors.Is(err, docimage.ErrFormat) {
		t.Errorf("a PDF: %v", err)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 32, 24)), nil); err != nil {
		t.Fatal(err)
	}
	seg := func(kind byte, payload string) []byte {
		return append([]byte{0xFF, kind, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}, payload...)
	}
	raw := b.Bytes()
	withGPS := append(append(append([]byte{0xFF, 0xD8}, seg(0xE1, "Exif\x00\x00GPS 52.37N 4.89E")...), seg(0xFE, "GPS 52.37N 4.89E")...), raw[2:]...)
	im, err := Take(withGPS)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(im.Bytes, []byte("52.37N")) || im.Info.Width != 32 || im.Info.Height != 24 || im.Info.Format != docimage.JPEG {
		t.Fatalf("taken: %d bytes, %+v, position kept %v", len(im.Bytes), im.Info, bytes.Contains(im.Bytes, []byte("52.37N")))
	}
	if _, err := jpeg.Decode(bytes.NewReader(im.Bytes)); err != nil {
		t.Fatalf("stripped image does not decode: %v", err)
	}
}
