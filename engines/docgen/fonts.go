package docgen

import (
	"image"
	"image/color"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Go's own fonts for the printed text: parsed once, they never fail.
var goFonts = sync.OnceValue(func() [3]*opentype.Font {
	var out [3]*opentype.Font
	for i, ttf := range [][]byte{goregular.TTF, gobold.TTF, gomono.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			panic("docgen: Go font: " + err.Error())
		}
		out[i] = f
	}
	return out
})

// Text styles.
const (
	regular = iota
	bold
	mono
)

// face returns a face of style at size pixels per em.
func face(style int, sizePx float64) font.Face {
	f, err := opentype.NewFace(goFonts()[style], &opentype.FaceOptions{Size: sizePx, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		panic("docgen: Go font face: " + err.Error())
	}
	return f
}

// text draws s with its baseline's left end at (x, y).
func text(dst *image.RGBA, fc font.Face, x, y float64, ink color.Color, s string) {
	d := font.Drawer{Dst: dst, Src: image.NewUniform(ink), Face: fc, Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(y * 64)}}
	d.DrawString(s)
}

// textWidth is the advance of s in fc, in pixels.
func textWidth(fc font.Face, s string) float64 {
	return float64(font.MeasureString(fc, s)) / 64
}
