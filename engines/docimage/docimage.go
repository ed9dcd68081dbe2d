// Package docimage takes a photo of a document in: it says what it is and
// whether kycflow accepts it (JPEG or PNG, within the byte and pixel
// limits), reads the orientation the camera recorded, strips every
// metadata segment before anything is stored (a phone's photo carries its
// GPS position, the device, the time), and decodes it upright and scaled
// down for reading. It decodes nothing it has not measured first, so a
// decompression bomb is refused by its header.
package docimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
)

// Format is an accepted image format.
type Format string

// The formats accepted.
const (
	JPEG Format = "jpeg"
	PNG  Format = "png"
)

// ContentType is f's media type.
func (f Format) ContentType() string { return "image/" + string(f) }

// Limits bound what is accepted: a phone's photo is at most a few
// megabytes and 12–50 megapixels; a scan can be larger in bytes.
const (
	MaxBytes  = 15 << 20
	MaxPixels = 40_000_000
	// MaxDecode bounds the memory a decode may take: the image as the
	// decoder builds it (its bytes a pixel are its depth and layout's) and
	// the reader's grey copies. A 12-megapixel phone photo takes 60 MB; a
	// 16-bit PNG under the pixel limit could take half a gigabyte.
	MaxDecode = 256 << 20
)

// The errors Inspect returns; the API maps them to 415 and 422.
var (
	// ErrFormat: not a JPEG or PNG image (a PDF, an HEIC, a text).
	ErrFormat = errors.New("not a JPEG or PNG image")
	// ErrPixels: more pixels than MaxPixels, or more than decoding them
	// in MaxDecode allows.
	ErrPixels = errors.New("too many pixels")
	// ErrCorrupt: a JPEG or PNG whose header or data cannot be read
	// (truncated, damaged).
	ErrCorrupt = errors.New("the image cannot be read")
)

// Info is what Inspect learnt of an image without decoding it.
type Info struct {
	Format        Format
	Width, Height int
	// Orientation is the EXIF orientation (1–8; 1 upright), 1 when none.
	Orientation int
}

// Sniff says which accepted format b is, by its first bytes.
func Sniff(b []byte) (Format, error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG, nil
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, nil
	}
	return "", ErrFormat
}

// Inspect reads b's format, size and orientation, and refuses what it does
// not accept.
func Inspect(b []byte) (Info, error) {
	f, err := Sniff(b)
	if err != nil {
		return Info{}, err
	}
	var cfg image.Config
	switch f {
	case JPEG:
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(b))
	case PNG:
		cfg, err = png.DecodeConfig(bytes.NewReader(b))
	}
	if err != nil {
		return Info{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, ErrCorrupt
	}
	px := int64(cfg.Width) * int64(cfg.Height)
	if px > MaxPixels {
		return Info{}, fmt.Errorf("%w: %d × %d", ErrPixels, cfg.Width, cfg.Height)
	}
	if cost := px * (decodedBytes(b, f) + grayCopies); cost > MaxDecode {
		return Info{}, fmt.Errorf("%w: %d × %d would take %d MiB to decode", ErrPixels, cfg.Width, cfg.Height, cost>>20)
	}
	info := Info{Format: f, Width: cfg.Width, Height: cfg.Height, Orientation: 1}
	if f == JPEG {
		if o := exifOrientation(b); o >= 1 && o <= 8 {
			info.Orientation = o
		}
	}
	return info, nil
}

// grayCopies are the bytes a pixel the reader's grey image and its turned
// copy take beside the decoded one.
const grayCopies = 2

// decodedBytes is what Go's decoder allocates a pixel for b (at most):
// a PNG by its colour type and depth (16-bit colour: 8; transparency
// makes grey 8-bit colour), a JPEG by its components, four times over
// for a progressive one (it keeps every coefficient until the last scan).
func decodedBytes(b []byte, f Format) int64 {
	if f == PNG {
		depth, colour := b[24], b[25] // IHDR, which DecodeConfig has read
		switch {
		case colour == 3: // paletted
			return 1
		case depth == 16:
			return 8
		}
		return 4
	}
	for _, seg := range jpegSegments(b) {
		if m := seg.marker; frame(m) && len(seg.data) >= 6 {
			n := int64(max(seg.data[5], 1))
			if m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE { // progressive
				return n * 5
			}
			return n
		}
	}
	return 4
}

// exifOrientation reads the Orientation tag (0x0112) of a JPEG's Exif
// segment; 0 when there is none.
func exifOrientation(b []byte) int {
	for _, seg := range jpegSegments(b) {
		if seg.marker != 0xE1 || !bytes.HasPrefix(seg.data, []byte("Exif\x00\x00")) {
			continue
		}
		tiff := seg.data[6:]
		if len(tiff) < 8 {
			return 0
		}
		var bo binary.ByteOrder
		switch string(tiff[:2]) {
		case "II":
			bo = binary.LittleEndian
		case "MM":
			bo = binary.BigEndian
		default:
			return 0
		}
		ifd := int(bo.Uint32(tiff[4:8]))
		if ifd < 8 || ifd+2 > len(tiff) {
			return 0
		}
		n := int(bo.Uint16(tiff[ifd:]))
		for i := range n {
			e := ifd + 2 + 12*i
			if e+12 > len(tiff) {
				return 0
			}
			if bo.Uint16(tiff[e:]) == 0x0112 && bo.Uint16(tiff[e+2:]) == 3 {
				return int(bo.Uint16(tiff[e+8:]))
			}
		}
		return 0
	}
	return 0
}

// segment is one JPEG marker segment before the image data.
type segment struct {
	marker     byte
	start, end int // the whole segment, marker included
	data       []byte
}

// jpegSegments are b's marker segments up to the first scan (SOS); reading
// stops at anything it does not understand.
func jpegSegments(b []byte) []segment {
	var out []segment
	i := 2 // after SOI
	for i+4 <= len(b) && b[i] == 0xFF {
		m := b[i+1]
		if m == 0xFF { // fill byte
			i++
			continue
		}
		if m == 0xDA || m == 0xD9 { // SOS, EOI: the rest is image data
			break
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			break
		}
		out = append(out, segment{marker: m, start: i, end: i + 2 + n, data: b[i+4 : i+2+n]})
		i += 2 + n
	}
	return out
}
