package workflows

import (
	"log/slog"
	"path/filepath"
	"testing"

	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// Every recorded history replays against today's workflow code: a change
// that is not deterministic (a reordered step, a GetVersion gate removed,
// an activity swapped) fails here, before it meets running workflows. The
// histories come from the e2e suite, one per distinct path (`make
// histories`), and include the paths gated by GetVersion.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("%d recorded histories in testdata/histories: record them with make histories", len(files))
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
