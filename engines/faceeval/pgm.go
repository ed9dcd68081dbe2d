package faceeval

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
)

// Binary PGM (P5, 8 bits), the format of the ORL faces and other academic
// sets, read where JPEG and PNG are.
func init() { image.RegisterFormat("pgm", "P5", decodePGM, configPGM) }

// pgmHeader reads "P5 width height maxval" and the one whitespace byte
// after it; # comments may stand between the fields.
func pgmHeader(r *bufio.Reader) (w, h int, err error) {
	var vals [3]int
	magic := make([]byte, 2)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "P5" {
		return 0, 0, errors.New("pgm: not a binary PGM")
	}
	for i := range vals {
		for {
			c, err := r.ReadByte()
			if err != nil {
				return 0, 0, fmt.Errorf("pgm header: %w", err)
			}
			if c == '#' {
				if _, err := r.ReadString('\n'); err != nil {
					return 0, 0, fmt.Errorf("pgm header: %w", err)
				}
				continue
			}
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				r.UnreadByte()
				break
			}
		}
		if _, err := fmt.Fscan(r, &vals[i]); err != nil {
			return 0, 0, fmt.Errorf("pgm header: %w", err)
		}
	}
	if _, err := r.ReadByte(); err != nil {
		return 0, 0, fmt.Errorf("pgm header: %w", err)
	}
	w, h = vals[0], vals[1]
	if w <= 0 || h <= 0 || w*h > 1<<26 || vals[2] <= 0 || vals[2] > 255 {
		return 0, 0, fmt.Errorf("pgm: %d × %d, maxval %d: not an 8-bit image kycflow reads", w, h, vals[2])
	}
	return w, h, nil
}

func decodePGM(r io.Reader) (image.Image, error) {
	br := bufio.NewReader(r)
	w, h, err := pgmHeader(br)
	if err != nil {
		return nil, err
	}
	im := image.NewGray(image.Rect(0, 0, w, h))
	if _, err := io.ReadFull(br, im.Pix); err != nil {
		return nil, fmt.Errorf("pgm pixels: %w", err)
	}
	return im, nil
}

func configPGM(r io.Reader) (image.Config, error) {
	w, h, err := pgmHeader(bufio.NewReader(r))
	if err != nil {
		return image.Config{}, err
	}
	return image.Config{ColorModel: color.GrayModel, Width: w, Height: h}, nil
}
