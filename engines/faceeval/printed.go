package faceeval

import (
	"fmt"
	"image"
	"io"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/engines/selfie"
)

// EvaluatePrinted is the face match as the worker makes it: each photo printed
// grey as a generated passport's portrait, the page photographed by a
// phone and decoded as an upload is, its portrait found as Decide finds
// it; against every other photo framed as a selfie camera frames a face.
// A photo whose portrait or selfie face is not found is undetected (its
// pairs are not scored). PerFace times a document's portrait search.
func EvaluatePrinted(e *face.Engine, dir string, photos []Photo) (Report, error) {
	r := Report{Mode: Printed}
	portraits := make([][]float32, len(photos))
	selfies := make([][]float32, len(photos))
	for i, p := range photos {
		im, err := decode(filepath.Join(dir, p.File))
		if err != nil {
			return r, err
		}
		r.Photos++
		if f, _, ok := e.Largest(framed(im), face.DefaultMinScore); ok {
			selfies[i] = f.Descriptor
		}
		doc, err := printPortrait(im, uint64(i))
		if err != nil {
			return r, err
		}
		start := time.Now()
		if f, ok := selfie.Portrait(e, doc); ok {
			portraits[i] = f.Descriptor
		}
		r.PerFace = append(r.PerFace, time.Since(start))
		if portraits[i] == nil || selfies[i] == nil {
			r.NoFace++
		}
	}
	for i := range photos {
		for j := range photos {
			if i != j { // a print of the selfie itself is no pair
				r.pair(photos[i].Person == photos[j].Person, portraits[i], selfies[j])
			}
		}
	}
	r.EER, r.EERThreshold = equalError(r.Genuine, r.Impostor)
	return r, nil
}

// printPortrait is a phone's photo of a generated passport (valid, its
// holder drawn from seed) printing im as its portrait, decoded grey as
// the worker decodes an upload.
func printPortrait(im image.Image, seed uint64) (image.Image, error) {
	id := docgen.RandomIdentity(rand.New(rand.NewPCG(seed, 53)), mrz.TD3)
	id.Portrait = im
	b, err := docgen.Snapshot(id, 12, docgen.SharpPhone, seed)
	if err != nil {
		return nil, err
	}
	return docimage.DecodeGray(b, docimage.Info{Format: docimage.JPEG, Orientation: 1})
}

// Summary is a report at a tenant's thresholds (similarities; a pair's
// similarity is one less its distance): how many pairs, the share of
// impostor pairs cleared (FMR) and of genuine pairs not cleared (FNMR;
// Rejected those of them under the fail threshold, the rest left for a
// reviewer), the equal error rate, and the photos whose face was not
// found. The names are kycflow face eval --json's.
type Summary struct {
	Genuine    int     `json:"genuine"`
	Impostor   int     `json:"impostor"`
	Threshold  float64 `json:"threshold"`
	FMR        float64 `json:"fmr"`
	FNMR       float64 `json:"fnmr"`
	EER        float64 `json:"eer"`
	Undetected int     `json:"undetected"`
	Fail       float64 `json:"fail_threshold"`
	Rejected   float64 `json:"rejected"`
}

// Summarize is r at t.
func Summarize(r Report, t selfie.Thresholds) Summary {
	fnmr, fmr := Rates(r.Genuine, r.Impostor, 1-t.Clear)
	rejected, _ := Rates(r.Genuine, r.Impostor, 1-t.Fail)
	return Summary{Genuine: len(r.Genuine), Impostor: len(r.Impostor), Threshold: t.Clear, FMR: fmr, FNMR: fnmr, EER: r.EER,
		Undetected: r.NoFace, Fail: t.Fail, Rejected: rejected}
}

// PrintSummaries writes each report at t.
func PrintSummaries(w io.Writer, reports []Report, t selfie.Thresholds) {
	fmt.Fprintf(w, "at the thresholds (clear at similarity %.2f, fail under %.2f):\n", t.Clear, t.Fail)
	for _, r := range reports {
		if len(r.Genuine) == 0 || len(r.Impostor) == 0 {
			fmt.Fprintf(w, "  %s: no pairs to score; %d photos undetected\n", r.Mode, r.NoFace)
			continue
		}
		s := Summarize(r, t)
		fmt.Fprintf(w, "  %s: false match %.2f %%, false non-match %.1f %% (refused %.1f %%, the rest for review); equal error %.1f %%; %d photos undetected\n",
			r.Mode, 100*s.FMR, 100*s.FNMR, 100*s.Rejected, 100*s.EER, s.Undetected)
	}
}
