package main

import (
	"context"
	"errors"
	"flag"
	"os"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/engines/faceeval"
)

func faceEval(fs *flag.FlagSet) runFunc {
	dir := fs.String("dir", "", "a folder of labelled face photos (its labels.tsv: file, person)")
	models := fs.String("models", lookup("FACE_MODELS"), "the face models' folder")
	return func(ctx context.Context, _ app.Config, args []string) error {
		if len(args) > 0 || *dir == "" || *models == "" {
			return errors.New("face eval takes --dir DIR and --models DIR")
		}
		e, err := face.Load(*models)
		if err != nil {
			return err
		}
		photos, err := faceeval.ReadLabels(*dir)
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
