package mrzeval

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrz"
)

// LabelsFile is the labels of a folder of documents kycflow did not make:
// one JSON object per line, for each image the MRZ a person read off it.
const LabelsFile = "labels.jsonl"

// labelled is one line of LabelsFile (the fields the evaluation reads).
type labelled struct {
	File             string   `json:"file"`
	Format           string   `json:"format"`
	MRZ              []string `json:"mrz"`
	CheckDigitsValid bool     `json:"check_digits_valid"`
	Conformant       *bool    `json:"icao_conformant"`
	Expect           string   `json:"expect"`
	Kind             string   `json:"kind"`
}

// ReadLabelled reads a folder of labelled images kycflow did not make —
// scans, renders and photos of real documents — as samples: each image's
// profile is "real " and its kind (scan, photo, specimen-render). An
// image counts as readable when a person reads it ("expect": "read"),
// its MRZ is one Doc 9303 allows and every check digit holds: what the
// reader must read exactly. The others must never be read: a read of an
// MRZ whose check digits fail can only be a wrong one.
func ReadLabelled(dir string) ([]docgen.Sample, error) {
	f, err := os.Open(filepath.Join(dir, LabelsFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []docgen.Sample
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; lines.Scan(); n++ {
		if len(bytes.TrimSpace(lines.Bytes())) == 0 {
			continue
		}
		var l labelled
		if err := json.Unmarshal(lines.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("mrzeval: %s line %d: %w", LabelsFile, n, err)
		}
		if l.File != filepath.Base(l.File) || l.File == "" || len(l.MRZ) == 0 {
			return nil, fmt.Errorf("mrzeval: %s line %d: no file in %s, or no MRZ", LabelsFile, n, dir)
		}
		img, err := os.ReadFile(filepath.Join(dir, l.File))
		if err != nil {
			return nil, err
		}
		s := docgen.Sample{Name: l.File, JPEG: img, MRZ: strings.Join(l.MRZ, "\n"), Identity: docgen.Identity{Format: mrz.Format(l.Format)},
			Profile: docgen.Profile("real " + cmp.Or(l.Kind, "unknown")), Readable: l.Expect == "read"}
		switch {
		case !s.Readable:
			s.Why = "illegible"
		case !l.CheckDigitsValid:
			s.Readable, s.Why = false, "check digits fail"
		case l.Conformant != nil && !*l.Conformant:
			s.Readable, s.Why = false, "not Doc 9303"
		}
		out = append(out, s)
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("mrzeval: %s in %s names no image", LabelsFile, dir)
	}
	return out, nil
}
