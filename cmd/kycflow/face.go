package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/engines/faceeval"
	"github.com/kycflow/kycflow/engines/selfie"
)

// labelledFaces reads the engine's models and a folder's labelled photos,
// what both face evaluations start from.
func labelledFaces(dir, models, cmd string) (*face.Engine, []faceeval.Photo, error) {
	if dir == "" || models == "" {
		return nil, nil, errors.New(cmd + " takes --dir DIR and --models DIR")
	}
	e, err := face.Load(models)
	if err != nil {
		return nil, nil, err
	}
	photos, err := faceeval.ReadLabels(dir)
	return e, photos, err
}

func faceEval(fs *flag.FlagSet) runFunc {
	dir := fs.String("dir", "", "a folder of labelled face photos (its labels.tsv: file, person; or a folder per person)")
	models := fs.String("models", lookup("FACE_MODELS"), "the face models' folder")
	printed := fs.Bool("printed", true, "also each photo printed as a generated passport's portrait against the others as selfies (slower)")
	clear := fs.Float64("clear", selfie.DefaultThresholds.Clear, "the similarity a match is clear at (the service's default)")
	fail := fs.Float64("fail", selfie.DefaultThresholds.Fail, "the similarity under which a match fails (the service's default)")
	asJSON := fs.Bool("json", false, "print the rates at the thresholds as JSON: the photo-against-photo figures, printed and every mode's")
	return func(ctx context.Context, _ app.Config, args []string) error {
		if len(args) > 0 {
			return errors.New("face eval takes no arguments")
		}
		if *fail > *clear {
			return errors.New("face eval: --fail must not be above --clear")
		}
		e, photos, err := labelledFaces(*dir, *models, "face eval")
		if err != nil {
			return err
		}
		reports, err := faceeval.Evaluate(e, *dir, photos)
		if err != nil {
			return err
		}
		if *printed {
			r, err := faceeval.EvaluatePrinted(e, *dir, photos)
			if err != nil {
				return err
			}
			reports = append(reports, r)
		}
		t := selfie.Thresholds{Clear: *clear, Fail: *fail}
		if *asJSON {
			return json.NewEncoder(os.Stdout).Encode(evalJSON(reports, t))
		}
		faceeval.Print(os.Stdout, reports, []float64{0.5, 0.55, 0.6})
		faceeval.PrintSummaries(os.Stdout, reports, t)
		return nil
	}
}

// faceEvalJSON is face eval --json: the photo-against-photo figures (faces
// found as the worker finds a selfie's) at the top, the printed portraits'
// and every mode's beside them.
type faceEvalJSON struct {
	faceeval.Summary
	Printed *faceeval.Summary                  `json:"printed,omitempty"`
	Modes   map[faceeval.Mode]faceeval.Summary `json:"modes"`
}

func evalJSON(reports []faceeval.Report, t selfie.Thresholds) faceEvalJSON {
	out := faceEvalJSON{Modes: map[faceeval.Mode]faceeval.Summary{}}
	for _, r := range reports {
		s := faceeval.Summarize(r, t)
		out.Modes[r.Mode] = s
		switch r.Mode {
		case faceeval.Framed:
			out.Summary = s
		case faceeval.Printed:
			out.Printed = &s
		}
	}
	return out
}

func faceLiveness(fs *flag.FlagSet) runFunc {
	dir := fs.String("dir", "", "a folder of labelled face photos of people in several poses (its labels.tsv: file, person; or a folder per person)")
	models := fs.String("models", lookup("FACE_MODELS"), "the face models' folder")
	attempts := fs.Int("attempts", 3, "challenges a person answers, each from another of their photos")
	seed := fs.Uint64("seed", 1, "the challenges' random seed")
	return func(ctx context.Context, _ app.Config, args []string) error {
		if len(args) > 0 {
			return errors.New("face liveness takes no arguments")
		}
		e, photos, err := labelledFaces(*dir, *models, "face liveness")
		if err != nil {
			return err
		}
		r, err := faceeval.Liveness(e, *dir, photos, *attempts, rand.New(rand.NewPCG(*seed, 7)))
		if err != nil {
			return err
		}
		faceeval.PrintLiveness(os.Stdout, r)
		return nil
	}
}
