package docimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"testing"
)

func sample(w, h int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = uint8(i * 7)
	}
	return g
}

// exifSegment is an APP1 Exif segment with an orientation and a GPS
// latitude-like value, as phones write them.
func exifSegment(orientation uint16) []byte {
	tiff := []byte("II*\x00\x08\x00\x00\x00")
	entry := func(tag, typ uint16, count uint32, value uint32) []byte {
		b := make([]byte, 12)
		binary.LittleEndian.PutUint16(b, tag)
		binary.LittleEndian.PutUint16(b[2:], typ)
		binary.LittleEndian.PutUint32(b[4:], count)
		binary.LittleEndian.PutUint32(b[8:], value)
		return b
	}
	tiff = append(tiff, 2, 0)
	tiff = append(tiff, entry(0x0112, 3, 1, uint32(orientation))...)
	tiff = append(tiff, entry(0x8825, 4, 1, 0x1234)...) // GPS IFD pointer
	tiff = append(tiff, 0, 0, 0, 0)
	tiff = append(tiff, []byte("GPSLatitude 52.3676 Apple iPhone")...)
	data := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(data)+2))
	return append(seg, data...)
}

// A phone's JPEG: its orientation is read, and stripping leaves no Exif,
// no comment, and the same pixels.
func TestJPEGMetadataStripped(t *testing.T) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, sample(40, 20), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	plain := buf.Bytes()
	com := []byte{0xFF, 0xFE, 0, 14}
	com = append(com, []byte("owner: Jan!!")...)
	photo := append(append(append([]byte{0xFF, 0xD8}, exifSegment(6)...), com...), plain[2:]...)
	info, err := Inspect(photo)
	if err != nil || info.Format != JPEG || info.Width != 40 || info.Height != 20 || info.Orientation != 6 {
		t.Fatalf("inspect: %+v %v", info, err)
	}
	stripped, err := Strip(photo, JPEG)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"Exif", "GPSLatitude", "Apple", "owner"} {
		if bytes.Contains(stripped, []byte(leak)) {
			t.Errorf("%q survives stripping", leak)
		}
	}
	a, err := DecodeGray(photo, info)
	if err != nil {
		t.Fatal(err)
	}
	info.Orientation = 6 // Strip drops the tag; the orientation travels beside the image
	b, err := DecodeGray(stripped, info)
	if err != nil || !bytes.Equal(a.Pix, b.Pix) || a.Rect.Dx() != 20 || a.Rect.Dy() != 40 {
		t.Fatalf("the stripped image decodes to other pixels, or not upright: %v", err)
	}
}

// pngChunk is one PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	b := make([]byte, 8, 12+len(data))
	binary.BigEndian.PutUint32(b, uint32(len(data)))
	copy(b[4:], typ)
	b = append(b, data...)
	crc := crc32.ChecksumIEEE(b[4:])
	return binary.BigEndian.AppendUint32(b, crc)
}

func TestPNGMetadataStripped(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, sample(10, 10)); err != nil {
		t.Fatal(err)
	}
	p := buf.Bytes()
	// After IHDR (8 + 25 bytes): a text chunk and an Exif chunk.
	photo := append(append(append(append([]byte{}, p[:33]...), pngChunk("tEXt", []byte("Author\x00Jan de Vries"))...), pngChunk("eXIf", []byte("MM\x00*GPS"))...), p[33:]...)
	if _, err := Inspect(photo); err != nil {
		t.Fatal(err)
	}
	stripped, err := Strip(photo, PNG)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(stripped, []byte("Jan de Vries")) || bytes.Contains(stripped, []byte("eXIf")) || !bytes.Equal(stripped, p) {
		t.Fatalf("stripped PNG: %q", stripped)
	}
}

// What is not accepted is refused before anything is decoded.
func TestRefused(t *testing.T) {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, 20000)
	binary.BigEndian.PutUint32(ihdr[4:], 10000) // 200 megapixels
	ihdr[8], ihdr[9] = 8, 0
	bomb := append(append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...), pngChunk("IEND", nil)...)
	var buf bytes.Buffer
	jpeg.Encode(&buf, sample(64, 64), nil)
	for name, c := range map[string]struct {
		b    []byte
		want error
	}{
		"a PDF":                  {[]byte("%PDF-1.7\n1 0 obj"), ErrFormat},
		"nothing":                {nil, ErrFormat},
		"200 megapixels":         {bomb, ErrPixels},
		"a truncated JPEG":       {buf.Bytes()[:20], ErrCorrupt},
		"a PNG signature alone ": {[]byte("\x89PNG\r\n\x1a\n"), ErrCorrupt},
	} {
		if _, err := Inspect(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	// A JPEG whose header is whole but whose data is cut fails to decode,
	// clearly.
	cut := buf.Bytes()[:len(buf.Bytes())/2]
	if info, err := Inspect(cut); err == nil {
		if _, err := DecodeGray(cut, info); !errors.Is(err, ErrCorrupt) {
			t.Errorf("a half JPEG decoded: %v", err)
		}
	}
}

// Orientations turn the image upright, and Shrink averages.
func TestOrientAndShrink(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	copy(g.Pix, []uint8{1, 2, 3, 4, 5, 6}) // rows 1 2 3 / 4 5 6
	for o, want := range map[int][]uint8{
		1: {1, 2, 3, 4, 5, 6},
		3: {6, 5, 4, 3, 2, 1},
		6: {4, 1, 5, 2, 6, 3}, // 90° clockwise: 2 × 3
		8: {3, 6, 2, 5, 1, 4},
		2: {3, 2, 1, 6, 5, 4},
	} {
		if got := Orient(g, o); !bytes.Equal(got.Pix, want) {
			t.Errorf("orientation %d: %v, want %v", o, got.Pix, want)
		}
	}
	s := Shrink(sample(4, 4), 2)
	if s.Rect.Dx() != 2 || s.Pix[0] != uint8((0+7+28+35)/4) {
		t.Fatalf("shrink: %v", s.Pix)
	}
}
