package docimage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// Strip returns b without its metadata, the pixels untouched (no
// re-encoding): a JPEG keeps only what decoding needs — its tables, frame
// and scans, and Adobe's colour transform rewritten as a segment of its
// own making — walked marker by marker to its end (EOI), after which
// nothing is kept (a phone's second, Multi-Picture image, a trailer);
// every application segment (Exif with its GPS position and device, XMP,
// ICC profiles, thumbnails) and comment is dropped, wherever it stands,
// between scans too; a byte where a marker must be makes it refused. A
// PNG keeps its critical chunks and those that say how to render colours,
// dropping text, time and Exif chunks. The orientation the camera
// recorded is read by Inspect first.
func Strip(b []byte, f Format) ([]byte, error) {
	var out []byte
	var err error
	switch f {
	case JPEG:
		out, err = stripJPEG(b)
	case PNG:
		out, err = stripPNG(b)
	default:
		return nil, ErrFormat
	}
	if err != nil {
		return nil, err
	}
	if _, err := Inspect(out); err != nil {
		return nil, fmt.Errorf("after stripping: %w", err)
	}
	return out, nil
}

// frame reports whether m starts a frame (SOF0–15, whose slots DHT, JPG
// and DAC are not frames).
func frame(m byte) bool { return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC }

// The JPEG markers a stripped image keeps, besides SOI, SOS (with its
// scan) and EOI: the frames, the tables (DHT, DAC, DQT), DNL, DRI, DHP
// and EXP.
func keptMarker(m byte) bool {
	return frame(m) || m == 0xC4 || m == 0xCC || m >= 0xDB && m <= 0xDF
}

// adobe is Adobe's APP14 segment as a stripped image keeps it: "Adobe",
// version 100, no flags, and the colour transform of the original (which
// says whether three components are YCbCr or RGB, four YCCK or CMYK);
// nothing else of the original's.
func adobe(transform byte) []byte {
	return []byte{0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, transform}
}

// errStray: a JPEG with something other than a marker where one must be.
var errStray = fmt.Errorf("%w: stray bytes between its segments", ErrCorrupt)

func stripJPEG(b []byte) ([]byte, error) {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return nil, ErrCorrupt
	}
	out := append(make([]byte, 0, len(b)), 0xFF, 0xD8)
	i := 2
	for {
		if i+2 > len(b) {
			return nil, fmt.Errorf("%w: no end of image", ErrCorrupt)
		}
		if b[i] != 0xFF {
			return nil, errStray
		}
		m := b[i+1]
		switch {
		case m == 0xFF: // a fill byte before a marker
			i++
			continue
		case m == 0xD9: // EOI: what follows is not this image
			return append(out, 0xFF, 0xD9), nil
		case m == 0xD8 || m == 0x01 || m >= 0xD0 && m <= 0xD7 || m == 0x00:
			return nil, errStray // SOI again, TEM, a restart or a stuffed byte out of a scan
		}
		if i+4 > len(b) {
			return nil, fmt.Errorf("%w: a segment cut short", ErrCorrupt)
		}
		end := i + 2 + int(binary.BigEndian.Uint16(b[i+2:]))
		if end < i+4 || end > len(b) {
			return nil, fmt.Errorf("%w: a segment cut short", ErrCorrupt)
		}
		switch {
		case m == 0xDA: // SOS: its header, then the entropy-coded data up to the next marker
			end = scanEnd(b, end)
			if end < 0 {
				return nil, fmt.Errorf("%w: a scan with no end", ErrCorrupt)
			}
			out = append(out, b[i:end]...)
		case keptMarker(m):
			out = append(out, b[i:end]...)
		case m == 0xEE && end-i >= 16 && bytes.Equal(b[i+4:i+9], []byte("Adobe")):
			out = append(out, adobe(b[i+15])...)
		case m >= 0xE0 && m <= 0xEF || m == 0xFE || m >= 0xF0 && m <= 0xFD:
			// application segments, comments, extensions: dropped
		default:
			return nil, fmt.Errorf("%w: a reserved marker %#x", ErrCorrupt, m)
		}
		i = end
	}
}

// scanEnd is where the entropy-coded data that starts at i ends: at the
// first marker that is not a restart (RST0–7), a stuffed zero or a fill
// byte; -1 when none comes.
func scanEnd(b []byte, i int) int {
	for ; i+1 < len(b); i++ {
		if b[i] != 0xFF {
			continue
		}
		switch m := b[i+1]; {
		case m == 0x00 || m >= 0xD0 && m <= 0xD7:
			i++
		case m == 0xFF:
		default:
			return i
		}
	}
	return -1
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
