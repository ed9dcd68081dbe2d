package mrzread

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Tesseract runs the tesseract command (Debian's tesseract-ocr, 5.x) on
// one image at a time: a process of its own per read, so a malformed
// image that crashes the OCR library crashes that process only, its memory
// ends with it, and a read that hangs is killed at Timeout
// (docs/DECISIONS.md says why not the library through cgo).
type Tesseract struct {
	// Path is the command ("" : tesseract on PATH).
	Path string
	// Timeout bounds one read (0: 20 s).
	Timeout time.Duration
}

// readNice is the niceness Tesseract runs at.
const readNice = 10

// ErrNoTesseract: the tesseract command is not installed.
var ErrNoTesseract = errors.New("the tesseract command is not installed (Debian package tesseract-ocr)")

// mrzAlphabet is every character an MRZ holds.
const mrzAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"

// ocrLine is one line tesseract read: its words run together, their
// lowest confidence (0–100), its middle's row in the image, and the words
// apart.
type ocrLine struct {
	text  string
	conf  float64
	mid   float64
	words []ocrWord
	// The box around its words.
	left, top, bottom float64
}

// ocrWord is a word tesseract read and how sure it was (0–100).
type ocrWord struct {
	text string
	conf float64
}

// readMRZ OCRs png (a binarised MRZ band) as a block of text in the MRZ's
// alphabet, without dictionaries (an MRZ is no language).
func (t Tesseract) readMRZ(ctx context.Context, png []byte) ([]ocrLine, error) {
	return t.run(ctx, png, "--psm", "6", "-l", "eng",
		"-c", "tessedit_char_whitelist="+mrzAlphabet, "-c", "load_system_dawg=0", "-c", "load_freq_dawg=0")
}

// readText OCRs png (a page of print) as scattered lines of text.
func (t Tesseract) readText(ctx context.Context, png []byte) ([]ocrLine, error) {
	return t.run(ctx, png, "--psm", "11", "-l", "eng")
}

// run runs tesseract on png with args, its output as TSV.
func (t Tesseract) run(ctx context.Context, png []byte, args ...string) ([]ocrLine, error) {
	path := t.Path
	if path == "" {
		path = "tesseract"
	}
	if _, err := exec.LookPath(path); err != nil {
		return nil, ErrNoTesseract
	}
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append(append([]string{"stdin", "stdout"}, args...), "tsv")...)
	// One thread: the worker bounds how many reads run at once.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdin = bytes.NewReader(png)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Start()
	if err == nil {
		// Below the process's own priority: a read yields the core to the
		// checks and requests that are waited on more closely.
		syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, readNice) //nolint:errcheck // a read at the usual priority still reads
		err = cmd.Wait()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("tesseract: no answer within %s", timeout)
		}
		return nil, fmt.Errorf("tesseract: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return parseTSV(out.Bytes()), nil
}

// parseTSV gathers tesseract's words (TSV level 5) into lines.
func parseTSV(b []byte) []ocrLine {
	type key struct{ block, par, line int }
	var order []key
	lines := map[key]*ocrLine{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		num := func(i int) int { n, _ := strconv.Atoi(f[i]); return n }
		k := key{num(2), num(3), num(4)}
		conf, _ := strconv.ParseFloat(f[10], 64)
		left, top, height := float64(num(6)), float64(num(7)), float64(num(9))
		text := strings.TrimSpace(f[11])
		if text == "" {
			continue
		}
		l := lines[k]
		if l == nil {
			l = &ocrLine{conf: 100, mid: top + height/2, left: left, top: top, bottom: top + height}
			lines[k] = l
			order = append(order, k)
		}
		l.left, l.top, l.bottom = min(l.left, left), min(l.top, top), max(l.bottom, top+height)
		l.text += text
		l.conf = min(l.conf, conf)
		l.words = append(l.words, ocrWord{text, conf})
	}
	slices.SortFunc(order, func(a, b key) int {
		if a.block != b.block {
			return a.block - b.block
		}
		if a.par != b.par {
			return a.par - b.par
		}
		return a.line - b.line
	})
	out := make([]ocrLine, 0, len(order))
	for _, k := range order {
		out = append(out, *lines[k])
	}
	return out
}
