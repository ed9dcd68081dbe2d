package workflows

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

const historiesDir = "testdata/histories"

// Every recorded history replays against today's workflow code: a change
// that is not deterministic (a reordered step, an activity swapped, its
// input changed) fails here, before it meets running workflows. The
// histories come from the e2e suite, one per distinct path (`make
// histories`); TestRecordedHistoriesKept keeps them from being deleted or
// re-recorded to make this pass.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(historiesDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("%d recorded histories in %s: record them with make histories", len(files), historiesDir)
	}
	logger := sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			for _, wf := range All() {
				r.RegisterWorkflow(wf)
			}
			if err := r.ReplayWorkflowHistoryFromJSONFile(logger, f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// beforeTheRule are the commits that deleted or re-recorded histories
// before TestRecordedHistoriesKept existed (docs/DECISIONS.md, "Recorded
// histories stay"). No other commit may.
var beforeTheRule = map[string]string{
	"7e49f030fd7de212a171ff2b3023be895abf7fa3": "DeliveryWorkflow's dispatcher rewrite: 8 of its 10 deleted histories no longer replay",
}

// A recorded history stays as it was recorded: a workflow change that
// breaks one is versioned (workflow.GetVersion), never re-recorded. The
// SHA256SUMS manifest (which make histories appends to) names every
// history with its hash, so a deleted, re-recorded or unlisted file fails;
// and where the tree is a git checkout, no commit but those in
// beforeTheRule may have deleted or modified a history, so deleting one
// from the manifest as well does not pass either.
func TestRecordedHistoriesKept(t *testing.T) {
	manifest, err := os.ReadFile(filepath.Join(historiesDir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{} // file → sha256
	sc := bufio.NewScanner(bytes.NewReader(manifest))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS: %q is not a sha256sum line", sc.Text())
		}
		listed[name] = sum
	}
	files, err := filepath.Glob(filepath.Join(historiesDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	inTree := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		inTree[name] = true
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		switch want, ok := listed[name]; {
		case !ok:
			t.Errorf("%s is not in SHA256SUMS: a new history is listed there (make histories does it)", name)
		case want != hex.EncodeToString(sum[:]):
			t.Errorf("%s differs from its recording: histories are never re-recorded; version the workflow change instead", name)
		}
	}
	for name := range listed {
		if !inTree[name] {
			t.Errorf("%s is listed in SHA256SUMS but gone: recorded histories stay; version the workflow change instead", name)
		}
	}

	// The commits that ever deleted, renamed or changed a history.
	out, err := exec.Command("git", "log", "--no-renames", "--relative", "--format=commit %H", "--name-status", "--", ".").CombinedOutput()
	if err != nil {
		// An export without .git (a source archive) has only the manifest.
		t.Logf("no git history to check (%v): %s", err, bytes.TrimSpace(out))
		return
	}
	// git log runs in the package directory; --relative and the pathspec
	// keep it to this package, and histories are told by their folder.
	commit := ""
	for line := range strings.Lines(string(out)) {
		line = strings.TrimSpace(line)
		if c, ok := strings.CutPrefix(line, "commit "); ok {
			commit = c
			continue
		}
		status, path, ok := strings.Cut(line, "\t")
		if !ok || !strings.HasPrefix(path, historiesDir+"/") || status == "A" {
			continue
		}
		if status == "M" && path == historiesDir+"/SHA256SUMS" && appendedOnly(t, commit, path) {
			continue // new histories listed after the old
		}
		if _, ok := beforeTheRule[commit]; !ok {
			t.Errorf("commit %.10s %s %s (status %s): recorded histories stay; restore it and version the workflow change instead", commit, map[string]string{"D": "deleted", "M": "changed"}[status], path, status)
		}
	}
}

// appendedOnly reports whether commit changed the file at path (relative
// to this package) only by adding lines after those it had.
func appendedOnly(t *testing.T, commit, path string) bool {
	t.Helper()
	show := func(rev string) ([]byte, error) {
		return exec.Command("git", "show", rev+":./"+path).Output()
	}
	before, err := show(commit + "^")
	if err != nil {
		return false
	}
	after, err := show(commit)
	if err != nil {
		t.Fatalf("git show %.10s:%s: %v", commit, path, err)
	}
	return bytes.HasPrefix(after, before)
}
