// Package workflows holds the check workflow: one durable workflow per check,
// its signals, search attributes and retry policies. Workflows are
// deterministic: no I/O, no clocks but workflow.Now, ids only in their input.
package workflows

import (
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
)

// All are the workflows a worker runs (and the replay tests replay).
func All() []any {
	return []any{CheckWorkflow, RescreenWorkflow, HousekeepingWorkflow, DispatchWorkflow, DeliveryWorkflow}
}

// TaskQueue is the queue every check workflow and activity runs on, but
// the reading of document photos.
const TaskQueue = "kycflow-checks"

// DocumentsTaskQueue is the queue idscan photos are read on: its workers
// bound how many reads run at once, so a burst of uploads never takes the
// cores other checks need.
const DocumentsTaskQueue = "kycflow-documents"

// Signal and query names.
const (
	// SignalRetry resumes a failed check; support staff send it.
	SignalRetry = "retry"
	// SignalVerification tells an idin/idscan check that the person
	// submitted through its link; the submission itself is in the store.
	SignalVerification = "verification-result"
	// SignalDocument tells an idscan check that the person uploaded a
	// photo of their document; the images stay in the store.
	SignalDocument = "document-uploaded"
	// QueryStatus answers the check's current status.
	QueryStatus = "status"
)

// RetryRequest is the `retry` signal's payload. ID names the request (the
// outbox row that carried it) so a redelivered duplicate is ignored; a signal
// without payload (sent from the Temporal UI) always counts.
type RetryRequest struct {
	ID string
}

// VerificationResult is the verification-result signal's payload: the id
// of the request that carried it, nothing personal.
type VerificationResult struct {
	ID string
}

// RetryWindow is how long a failed check waits for a retry signal.
const RetryWindow = 30 * 24 * time.Hour

// Search attributes (Keyword) that operators filter on in the Temporal UI.
// None holds personal data. Each is declared once, through keyword, so the
// names registered on the server are the keys' own.
var (
	SATenantID    = keyword("TenantId")
	SASubjectKind = keyword("SubjectKind")
	SASubjectID   = keyword("SubjectId")
	SACheckType   = keyword("CheckType")
	SACheckStatus = keyword("CheckStatus")
	// Webhook deliveries carry TenantId too.
	SAWebhookEndpointID = keyword("WebhookEndpointId")
	SADeliveryStatus    = keyword("DeliveryStatus")
)

// searchAttributes are the keys declared above, in declaration order (Go
// initialises a package's variables in that order).
var searchAttributes []temporal.SearchAttributeKeyKeyword

func keyword(name string) temporal.SearchAttributeKeyKeyword {
	k := temporal.NewSearchAttributeKeyKeyword(name)
	searchAttributes = append(searchAttributes, k)
	return k
}

// SearchAttributeNames lists the keys to register on the server.
func SearchAttributeNames() []string {
	names := make([]string, len(searchAttributes))
	for i, k := range searchAttributes {
		names[i] = k.GetName()
	}
	return names
}

// WorkflowID is the deterministic id of a check's workflow, so a repeated
// start of the same check is harmless.
func WorkflowID(checkID uuid.UUID) string { return "check-" + checkID.String() }
