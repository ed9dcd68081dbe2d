package face

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// weights are one model's named arrays, read from the TensorFlow.js form
// the models ship in: a manifest naming each array's shape and
// quantisation, and a binary file of the arrays one after another.
type weights struct {
	model  string
	arrays map[string][]float32
	shapes map[string][]int
}

type manifestGroup struct {
	Paths   []string `json:"paths"`
	Weights []struct {
		Name         string `json:"name"`
		Shape        []int  `json:"shape"`
		Dtype        string `json:"dtype"`
		Quantization *struct {
			Dtype string  `json:"dtype"`
			Scale float64 `json:"scale"`
			Min   float64 `json:"min"`
		} `json:"quantization"`
	} `json:"weights"`
}

// loadWeights reads model from dir, refusing a file whose SHA-256 is not
// the one pinned for it: a model is code, and a changed one is not the
// model its figures were measured with.
func loadWeights(dir, model string) (*weights, error) {
	files := pinned[model]
	manifest, err := readPinned(dir, model+"-weights_manifest.json", files.manifest)
	if err != nil {
		return nil, err
	}
	var groups []manifestGroup
	if err := json.Unmarshal(manifest, &groups); err != nil {
		return nil, fmt.Errorf("face model %s: manifest: %w", model, err)
	}
	if len(groups) != 1 || len(groups[0].Paths) != 1 {
		return nil, fmt.Errorf("face model %s: want one weights file, the manifest names %d groups", model, len(groups))
	}
	bin, err := readPinned(dir, groups[0].Paths[0], files.bin)
	if err != nil {
		return nil, err
	}
	w := &weights{model: model, arrays: map[string][]float32{}, shapes: map[string][]int{}}
	for _, spec := range groups[0].Weights {
		n := 1
		for _, d := range spec.Shape {
			n *= d
		}
		out := make([]float32, n)
		switch {
		case spec.Quantization != nil && spec.Quantization.Dtype == "uint8":
			if len(bin) < n {
				return nil, fmt.Errorf("face model %s: %s runs past the file", model, spec.Name)
			}
			for i, b := range bin[:n] {
				out[i] = float32(float64(b)*spec.Quantization.Scale + spec.Quantization.Min)
			}
			bin = bin[n:]
		case spec.Quantization == nil && spec.Dtype == "float32":
			if len(bin) < 4*n {
				return nil, fmt.Errorf("face model %s: %s runs past the file", model, spec.Name)
			}
			for i := range out {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(bin[4*i:]))
			}
			bin = bin[4*n:]
		default:
			return nil, fmt.Errorf("face model %s: %s: a kind of array this reader does not know", model, spec.Name)
		}
		w.arrays[spec.Name], w.shapes[spec.Name] = out, spec.Shape
	}
	if len(bin) != 0 {
		return nil, fmt.Errorf("face model %s: %d bytes after the last array", model, len(bin))
	}
	return w, nil
}

func readPinned(dir, name, sum string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("face model: %w (make face-models installs them)", err)
	}
	got := sha256.Sum256(b)
	if hex.EncodeToString(got[:]) != sum {
		return nil, fmt.Errorf("face model: %s is not the file kycflow was measured with (sha256 %x)", name, got)
	}
	return b, nil
}

// array is the named array, its shape checked.
func (w *weights) array(name string, shape ...int) ([]float32, error) {
	a, ok := w.arrays[name]
	if !ok {
		return nil, fmt.Errorf("face model %s: no %s", w.model, name)
	}
	if fmt.Sprint(w.shapes[name]) != fmt.Sprint(shape) {
		return nil, fmt.Errorf("face model %s: %s is %v, want %v", w.model, name, w.shapes[name], shape)
	}
	return a, nil
}

// reader collects the first error of a run of lookups, so that a model's
// layers read as a list.
type reader struct {
	w   *weights
	err error
}

func (r *reader) get(name string, shape ...int) []float32 {
	if r.err != nil {
		return nil
	}
	a, err := r.w.array(name, shape...)
	if err != nil {
		r.err = err
	}
	return a
}

// conv reads a k × k convolution of in to out channels.
func (r *reader) conv(prefix string, k, in, out int) *kernel {
	return &kernel{k: k, in: in, out: out, w: r.get(prefix+"/filters", k, k, in, out), bias: r.get(prefix+"/bias", out)}
}

// separable reads a depthwise 3 × 3 and pointwise pair.
func (r *reader) separable(prefix string, in, out int) *separable {
	return &separable{
		depth: r.get(prefix+"/depthwise_filter", 3, 3, in, 1),
		point: &kernel{k: 1, in: in, out: out, w: r.get(prefix+"/pointwise_filter", 1, 1, in, out), bias: r.get(prefix+"/bias", out)},
	}
}
