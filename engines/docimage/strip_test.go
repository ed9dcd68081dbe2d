package docimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"runtime"
	"testing"
)

// plainJPEG is a small image as Go's encoder writes it: SOI, DQT, SOF0,
// DHT, SOS and its scan, EOI — no metadata.
func plainJPEG(t testing.TB) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, sample(40, 20), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// segmentOf is a marker segment with data.
func segmentOf(marker byte, data string) []byte {
	seg := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(data)+2))
	return append(seg, data...)
}

// metadataFree says what, if anything, of b is not a bare JPEG: an APPn
// segment other than the Adobe one Strip writes, a comment, a stray byte,
// or anything after EOI. It walks b as a decoder does, scans included.
func metadataFree(b []byte) error {
	if !bytes.HasPrefix(b, []byte{0xFF, 0xD8}) {
		return errors.New("no SOI")
	}
	for i := 2; ; {
		if i+2 > len(b) || b[i] != 0xFF {
			return fmt.Errorf("no marker at %d", i)
		}
		m := b[i+1]
		if m == 0xD9 {
			if i+2 != len(b) {
				return fmt.Errorf("%d bytes after EOI", len(b)-i-2)
			}
			return nil
		}
		if i+4 > len(b) {
			return errors.New("cut short")
		}
		end := i + 2 + int(binary.BigEndian.Uint16(b[i+2:]))
		if end > len(b) {
			return errors.New("cut short")
		}
		switch {
		case m == 0xEE && !bytes.Equal(b[i:end], adobe(b[min(i+15, end-1)])):
			return fmt.Errorf("an APP14 of another's making at %d", i)
		case m >= 0xE0 && m <= 0xEF && m != 0xEE, m == 0xFE:
			return fmt.Errorf("marker %#x at %d", m, i)
		}
		if m == 0xDA { // the scan: up to a marker that is no restart, stuffed zero or fill
			for ; ; end++ {
				if end+1 >= len(b) {
					return errors.New("a scan with no end")
				}
				if n := b[end+1]; b[end] == 0xFF && n != 0 && n != 0xFF && (n < 0xD0 || n > 0xD7) {
					break
				}
			}
		}
		i = end
	}
}

// Metadata wherever a phone or an attacker puts it: before the frame,
// after the scan, between the scans of a progressive image, after EOI (a
// Multi-Picture phone's second image, with its own Exif), behind a stray
// byte. None of it is in what is kept, and the pixels are the same.
func TestStripEveryLayout(t *testing.T) {
	plain := plainJPEG(t)
	exif := exifSegment(1)
	xmp := segmentOf(0xE1, "http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>GPSLatitude Apple</x:xmpmeta>")
	com := segmentOf(0xFE, "Make: Apple, Model: iPhone 15")
	mpf := segmentOf(0xE2, "MPF\x00 GPSLatitude second image index")
	eoi := len(plain) - 2
	sos := bytes.Index(plain, []byte{0xFF, 0xDA})
	dqtEnd := 2 + 2 + int(binary.BigEndian.Uint16(plain[4:]))
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	second := cat(plain[:2], exifSegment(3), plain[2:])
	for name, photo := range map[string][]byte{
		"Exif and a comment first":   cat(plain[:2], exif, com, plain[2:]),
		"an APP1 after the scan":     cat(plain[:eoi], xmp, plain[eoi:]),
		"a second JPEG after EOI":    cat(plain[:2], mpf, plain[2:], second),
		"a trailer after EOI":        cat(plain, []byte("GPSLatitude Apple trailer")),
		"an APP1 before the scan":    cat(plain[:sos], exif, plain[sos:]),
		"fill bytes before a marker": cat(plain[:sos], []byte{0xFF, 0xFF}, exif, plain[sos:]),
		"an Adobe segment with more": cat(plain[:2], segmentOf(0xEE, "Adobe\x00\x64\x00\x00\x00\x00\x01GPSLatitude Apple"), plain[2:]),
	} {
		t.Run(name, func(t *testing.T) {
			stripped, err := Strip(photo, JPEG)
			if err != nil {
				t.Fatal(err)
			}
			if err := metadataFree(stripped); err != nil {
				t.Fatal(err)
			}
			for _, leak := range []string{"Exif", "GPSLatitude", "Apple", "iPhone", "MPF", "xmpmeta"} {
				if bytes.Contains(stripped, []byte(leak)) {
					t.Errorf("%q survives stripping", leak)
				}
			}
			if a, b := decodes(t, plain), decodes(t, stripped); !bytes.Equal(a, b) {
				t.Error("the stripped image decodes to other pixels")
			}
		})
	}
	// A stray byte where a marker must be (after DQT, then an APP1) is
	// refused, not copied with what follows.
	stray := cat(plain[:dqtEnd], []byte{0x00}, exif, plain[dqtEnd:])
	if out, err := Strip(stray, JPEG); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a stray byte after DQT: %v (kept %d bytes)", err, len(out))
	}
	if _, err := Strip(plain[:eoi], JPEG); !errors.Is(err, ErrCorrupt) {
		t.Errorf("no EOI: %v", err)
	}
}

// A progressive image's scans, and the tables between them, are kept; an
// APP segment between its scans is not.
func TestStripProgressive(t *testing.T) {
	plain := plainJPEG(t)
	sos := bytes.Index(plain, []byte{0xFF, 0xDA})
	dht := bytes.Index(plain, []byte{0xFF, 0xC4})
	eoi := len(plain) - 2
	// Two scans: the same scan written twice with a DHT and an APP1
	// between them is not a valid image, but a valid walk: what Strip
	// keeps of it is every scan and table, and no APP1.
	photo := bytes.Join([][]byte{plain[:eoi], plain[dht:sos], exifSegment(1), plain[sos:eoi], {0xFF, 0xD9}}, nil)
	out, err := stripJPEG(photo)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(out, []byte{0xFF, 0xDA}) != 2 || bytes.Contains(out, []byte("Exif")) || metadataFree(out) != nil {
		t.Fatalf("progressive: %d scans kept, metadata: %v", bytes.Count(out, []byte{0xFF, 0xDA}), metadataFree(out))
	}
}

func decodes(t testing.TB, b []byte) []byte {
	t.Helper()
	info, err := Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	g, err := DecodeGray(b, info)
	if err != nil {
		t.Fatal(err)
	}
	return g.Pix
}

// Whatever the bytes, what Strip keeps of a JPEG has no APPn segment but
// its own Adobe one, no comment and nothing after EOI; stripping it again
// changes nothing.
func FuzzStrip(f *testing.F) {
	plain := plainJPEG(f)
	eoi := len(plain) - 2
	f.Add(plain)
	f.Add(bytes.Join([][]byte{plain[:2], exifSegment(6), plain[2:]}, nil))
	f.Add(bytes.Join([][]byte{plain[:eoi], segmentOf(0xE1, "Exif\x00\x00GPS"), plain[eoi:]}, nil))
	f.Add(bytes.Join([][]byte{plain, plain}, nil))
	f.Add(bytes.Join([][]byte{plain[:2], segmentOf(0xEE, "Adobe\x00\x64\x00\x00\x00\x00\x02"), plain[2:]}, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := stripJPEG(b)
		if err != nil {
			return
		}
		if err := metadataFree(out); err != nil {
			t.Fatalf("kept: %v", err)
		}
		again, err := stripJPEG(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("stripped twice: %v, %d → %d bytes", err, len(out), len(again))
		}
	})
}

// What a decode allocates stays within what Inspect counts for it, for
// each kind of image Go's decoders build (a 16-bit RGBA PNG takes eight
// bytes a pixel); an image whose count exceeds MaxDecode is refused by its
// header, under the pixel limit too.
func TestDecodeMemoryBounded(t *testing.T) {
	const w, h = 600, 400
	rgba16 := image.NewRGBA64(image.Rect(0, 0, w, h))
	gray16 := image.NewGray16(image.Rect(0, 0, w, h))
	nrgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	pal := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	ycc := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio444)
	for i := range rgba16.Pix {
		rgba16.Pix[i] = uint8(i)
	}
	encode := func(f Format, img image.Image) []byte {
		var buf bytes.Buffer
		var err error
		if f == PNG {
			err = png.Encode(&buf, img)
		} else {
			err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95})
		}
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for name, b := range map[string][]byte{
		"16-bit RGBA PNG": encode(PNG, rgba16), "16-bit grey PNG": encode(PNG, gray16), "8-bit RGBA PNG": encode(PNG, nrgba),
		"paletted PNG": encode(PNG, pal), "grey PNG": encode(PNG, sample(w, h)), "colour JPEG": encode(JPEG, ycc), "grey JPEG": encode(JPEG, sample(w, h)),
	} {
		f, _ := Sniff(b)
		if _, err := Inspect(b); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := DecodeGray(b, Info{Format: f, Width: w, Height: h, Orientation: 6}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		counted := int64(w*h) * (decodedBytes(b, f) + grayCopies)
		if took := int64(after.TotalAlloc - before.TotalAlloc); took > counted+256<<10 {
			t.Errorf("%s: decoding took %d KiB, counted %d KiB", name, took>>10, counted>>10)
		}
	}
	// The crafted one: a 16-bit RGB PNG of 36 megapixels (under the pixel
	// limit), its header alone.
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, 6000)
	binary.BigEndian.PutUint32(ihdr[4:], 6000)
	ihdr[8], ihdr[9] = 16, 2
	crafted := append(append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...), pngChunk("IEND", nil)...)
	if _, err := Inspect(crafted); !errors.Is(err, ErrPixels) {
		t.Errorf("a 36-megapixel 16-bit PNG: %v", err)
	}
	ihdr[8], ihdr[9] = 8, 0 // the same size in 8-bit grey is taken
	if _, err := Inspect(append(append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...), pngChunk("IEND", nil)...)); err != nil {
		t.Errorf("a 36-megapixel grey PNG: %v", err)
	}
}

// The grey level of a colour image is color.GrayModel's, to the bit.
func TestGrayAsGrayModel(t *testing.T) {
	img := image.NewNRGBA64(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*37 + i/5)
	}
	g := gray(img)
	for y := range 64 {
		for x := range 64 {
			if want := color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y; g.GrayAt(x, y).Y != want {
				t.Fatalf("(%d, %d): %d, want %d", x, y, g.GrayAt(x, y).Y, want)
			}
		}
	}
}
