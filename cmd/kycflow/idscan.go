package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrzeval"
	"github.com/kycflow/kycflow/engines/mrzread"
)

func idscanGenerate(fs *flag.FlagSet) runFunc {
	n := fs.Int("n", 20, "photos to generate")
	seed := fs.Int64("seed", 1, "generator seed (the same seed gives the same photos)")
	profile := fs.String("profile", "phone", "clean, phone (degraded as phones degrade), hard (unreadable) or tampered (clean, a passport's printed surname or birth date not its MRZ's)")
	out := fs.String("out", "", "directory to write NAME.jpg and labels.json to (created)")
	return func(ctx context.Context, _ app.Config, args []string) error {
		if len(args) > 0 || *n < 1 || *out == "" {
			return errors.New("idscan generate takes --out DIR, --n N (1 or more), --seed and --profile")
		}
		samples, err := docgen.Generate(*seed, *n, docgen.Profile(*profile))
		if err != nil {
			return err
		}
		if err := docgen.WriteSet(*out, samples); err != nil {
			return err
		}
		fmt.Printf("%d %s photos (seed %d) and labels.json in %s\n", len(samples), *profile, *seed, *out)
		return nil
	}
}

func idscanEval(fs *flag.FlagSet) runFunc {
	dir := fs.String("dir", "", "a set kycflow idscan generate wrote, or a folder of labelled images of real documents (its labels.jsonl); default: generate one in memory")
	n := fs.Int("n", 40, "photos per profile to generate")
	seed := fs.Int64("seed", 1, "generator seed")
	profiles := fs.String("profiles", "clean,phone,hard", "profiles to generate, comma-separated")
	verbose := fs.Bool("v", false, "list every readable photo not read exactly")
	heights := fs.Bool("heights", false, "print the glyphs' measured heights by character (the separation study) instead")
	return func(ctx context.Context, _ app.Config, args []string) error {
		if len(args) > 0 {
			return errors.New("idscan eval takes flags only")
		}
		var samples []docgen.Sample
		if *dir != "" {
			read := docgen.ReadSet
			if _, err := os.Stat(filepath.Join(*dir, mrzeval.LabelsFile)); err == nil {
				read = mrzeval.ReadLabelled
			}
			var err error
			if samples, err = read(*dir); err != nil {
				return err
			}
		} else {
			for p := range strings.SplitSeq(*profiles, ",") {
				set, err := docgen.Generate(*seed, *n, docgen.Profile(strings.TrimSpace(p)))
				if err != nil {
					return err
				}
				samples = append(samples, set...)
			}
		}
		if *heights {
			h, err := mrzeval.StudyHeights(ctx, mrzread.Reader{}, samples)
			if err != nil {
				return err
			}
			h.Print(os.Stdout)
			return nil
		}
		reports, err := mrzeval.Evaluate(ctx, mrzread.Reader{}, samples)
		if err != nil {
			return err
		}
		for _, r := range reports {
			r.Print(os.Stdout, *verbose)
		}
		// Tesseract's own memory is a child process's, not counted here.
		var self syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &self) == nil {
			fmt.Printf("peak RSS of this process: %.0f MB (the photos held in memory included)\n", float64(self.Maxrss)/1024)
		}
		return nil
	}
}
