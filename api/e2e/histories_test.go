package e2e

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/kycflow/kycflow/workflows"
)

// recordHistories writes, into dir, one history of each distinct path the
// suite's workflows took (workflow type, check type, final status and the
// kinds of events on the way), for the replay tests in workflows
// (`make histories` adds new paths; a path recorded before keeps its
// file). Histories hold ids and verdicts only.
func recordHistories(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	seen := map[string]bool{}
	var token []byte
	for {
		page, err := env.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", NextPageToken: token})
		if err != nil {
			return err
		}
		for _, ex := range page.Executions {
			var h historypb.History
			kinds := map[string]bool{}
			it := env.client.GetWorkflowHistory(ctx, ex.Execution.WorkflowId, ex.Execution.RunId, false, 0)
			for it.HasNext() {
				e, err := it.Next()
				if err != nil {
					return err
				}
				h.Events = append(h.Events, e)
				kinds[strings.TrimPrefix(e.EventType.String(), "EVENT_TYPE_")] = true
				// A photo's path has the same kinds of events as a typed
				// MRZ's: its signal tells them apart.
				if sig := e.GetWorkflowExecutionSignaledEventAttributes(); sig != nil && sig.GetSignalName() == workflows.SignalDocument {
					kinds["DOCUMENT_UPLOADED"] = true
				}
			}
			checkType, status := "", ""
			if sa := ex.SearchAttributes.GetIndexedFields(); sa != nil {
				checkType, status = string(sa[workflows.SACheckType.GetName()].GetData()), string(sa[workflows.SACheckStatus.GetName()].GetData())
				status += string(sa[workflows.SADeliveryStatus.GetName()].GetData())
			}
			var ks []string
			for k := range kinds {
				ks = append(ks, k)
			}
			slices.Sort(ks)
			key := fmt.Sprintf("%s|%s|%s|%s|%s", ex.Type.Name, checkType, status, ex.Status, strings.Join(ks, ","))
			if seen[key] {
				continue
			}
			seen[key] = true
			raw, err := protojson.Marshal(&h)
			if err != nil {
				return err
			}
			// Named by the path's key: a path recorded before keeps its
			// file (older histories are the point of replaying).
			sum := sha256.Sum256([]byte(key))
			name := fmt.Sprintf("%s-%s-%s-%x.json", strings.ToLower(ex.Type.Name), strings.Trim(strings.ToLower(checkType+"-"+status), `"-`),
				strings.ToLower(strings.TrimPrefix(ex.Status.String(), "WORKFLOW_EXECUTION_STATUS_")), sum[:4])
			path := filepath.Join(dir, strings.ReplaceAll(name, `"`, ""))
			if _, err := os.Stat(path); err == nil {
				continue
			}
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				return err
			}
			// Listed with its hash: workflows' TestRecordedHistoriesKept
			// fails if it is ever deleted or recorded again.
			if err := appendSum(filepath.Join(dir, "SHA256SUMS"), filepath.Base(path), raw); err != nil {
				return err
			}
		}
		if token = page.NextPageToken; len(token) == 0 {
			return nil
		}
	}
}

// appendSum adds a sha256sum line for a new history to the manifest.
func appendSum(manifest, name string, raw []byte) error {
	f, err := os.OpenFile(manifest, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%x  %s\n", sha256.Sum256(raw), name)
	return errors.Join(err, f.Close())
}
