package main

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"os"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/engines/faceeval"
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
	dir := fs.String("dir", "", "a folder of labelled face photos (its labels.tsv: file, person)")
	models := fs.String("models", lookup("FACE_MODELS"), "the face models' folder")
	return func(ctx context.Context, _ app.Config, args []string) error {
		if len(args) > 0 {
			return errors.New("face eval takes no arguments")
		}
		e, photos, err := labelledFaces(*dir, *models, "face eval")
		if err != nil {
			return err
		}
		reports, err := faceeval.Evaluate(e, *dir, photos)
		if err != nil {
			return err
		}
		faceeval.Print(os.Stdout, reports, []float64{0.5, 0.55, 0.6})
		return nil
	}
}

func faceLiveness(fs *flag.FlagSet) runFunc {
	dir := fs.String("dir", "", "a folder of labelled face photos of people in several poses (its labels.tsv: file, person)")
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
