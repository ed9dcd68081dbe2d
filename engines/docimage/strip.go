package docimage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// Strip returns b without its metadata, the pixels untouched (no
// re-encoding): a JPEG keeps only what decoding needs (its tables, frame
// and scans, and Adobe's colour-transform segment), dropping every other
// application segment — Exif with its GPS position and device, XMP, ICC
// profiles, thumbnails — and comments; a PNG keeps its critical chunks and
// those that say how to render colours, dropping text, time and Exif
// chunks. The orientation the camera recorded is read by Inspect first.
func Strip(b []byte, f Format) ([]byte, error) {
	var out []byte
	switch f {
	case JPEG:
		out = stripJPEG(b)
	case PNG:
		var err error
		if out, err = stripPNG(b); err != nil {
			return nil, err
		}
	default:
		return nil, ErrFormat
	}
	if _, err := Inspect(out); err != nil {
		return nil, fmt.Errorf("after stripping: %w", err)
	}
	return out, nil
}

func stripJPEG(b []byte) []byte {
	segs := jpegSegments(b)
	out := make([]byte, 0, len(b))
	out = append(out, 0xFF, 0xD8)
	end := 2
	for _, s := range segs {
		end = s.end
		app := s.marker >= 0xE0 && s.marker <= 0xEF
		if (app && s.marker != 0xEE) || s.marker == 0xFE {
			continue
		}
		out = append(out, b[s.start:s.end]...)
	}
	return append(out, b[end:]...)
}

// pngKept are the chunks a stripped PNG keeps.
var pngKept = []string{"IHDR", "PLTE", "tRNS", "IDAT", "IEND", "gAMA", "cHRM", "sRGB", "sBIT"}

func stripPNG(b []byte) ([]byte, error) {
	const sig = 8
	out := append(make([]byte, 0, len(b)), b[:sig]...)
	for i := sig; i < len(b); {
		if i+12 > len(b) {
			return nil, ErrCorrupt
		}
		n := int(binary.BigEndian.Uint32(b[i:]))
		if n < 0 || i+12+n > len(b) {
			return nil, ErrCorrupt
		}
		typ := string(b[i+4 : i+8])
		if slices.Contains(pngKept, typ) {
			out = append(out, b[i:i+12+n]...)
		}
		i += 12 + n
		if typ == "IEND" {
			break
		}
	}
	if !bytes.Contains(out, []byte("IEND")) {
		return nil, ErrCorrupt
	}
	return out, nil
}
