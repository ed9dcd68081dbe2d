package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
)

// readUnread is the change (GetVersion) that reads uploads found unread in
// the store without waiting for their signals: a photo uploaded before the
// workflow started had its signal dropped, and was never read.
const readUnread = "read-unread-uploads"

// runLink runs an idin or idscan check: the person gets a link (from the
// tenant, or by mail), the check waits in awaiting_input for the
// verification-result signal (a typed MRZ, a bank's return) or, for
// idscan, the document-uploaded signal, until the link expires
// (`expired`); then the submission is verified. An upload is read on the
// documents task queue: a retake leaves the check waiting for the next
// one. Submissions never enter the history: the steps read them from the
// store.
func runLink(ctx workflow.Context, st *state) (activities.CheckResult, error) {
	in := st.in
	lin := activities.LinkInput{Check: in.Check}
	var link activities.LinkResult
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, providerOptions(in.Retry)), a.PrepareLink, lin).Get(ctx, &link); err != nil {
		return activities.CheckResult{}, err
	}
	lctx := workflow.WithLocalActivityOptions(ctx, storeOptions)
	if !link.Used {
		applied, err := st.transition(lctx, check.AwaitingInput, []check.Status{check.Running}, nil)
		if err != nil {
			return activities.CheckResult{}, err
		}
		if !applied {
			return activities.CheckResult{Status: st.status}, nil
		}
		// Uploads the store holds unread are read without waiting for
		// their signals, which may have come before the workflow did.
		unread := workflow.GetVersion(ctx, readUnread, workflow.DefaultVersion, 1) == 1 && link.Unread > 0
		for {
			upload := unread
			if !unread {
				var ended *activities.ExpireResult
				var err error
				upload, ended, err = awaitSubmission(ctx, in, link)
				if err != nil {
					return activities.CheckResult{}, err
				}
				if ended != nil {
					return activities.CheckResult{Status: ended.Status}, nil
				}
				if !upload {
					break
				}
			}
			var read activities.IDScanReadResult
			if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, readOptions(in.Retry)), a.IDScanRead,
				activities.IDScanReadInput{Check: in.Check}).Get(ctx, &read); err != nil {
				return activities.CheckResult{}, err
			}
			if read.Done {
				return read.CheckResult, nil
			}
			unread = read.More
		}
	}
	var out activities.CheckResult
	var err error
	switch in.Check.Type {
	case check.IDScan:
		err = workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, offlineOptions), a.IDScanVerify, lin).Get(ctx, &out)
	case check.IDIN:
		err = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, providerOptions(in.Retry)), a.IDINVerify, lin).Get(ctx, &out)
	default:
		err = activities.NotConfigured("A provider", in.Check.Type)
	}
	return out, err
}

// readWindow is the least time a read may take from its upload, waiting
// included: the documents queue runs a few reads at a time, so under a
// burst of uploads a read waits its turn behind others' — a wait that a
// short provider retry window must not turn into a failed check.
const readWindow = time.Hour

// readOptions are IDScanRead's: on the documents queue, two minutes a try
// (a read runs seconds; past that it is stuck), retried as a provider call
// is, within the provider window or readWindow, the longer.
func readOptions(r ProviderRetry) workflow.ActivityOptions {
	o := providerOptions(r)
	o.TaskQueue, o.StartToCloseTimeout = DocumentsTaskQueue, 2*time.Minute
	o.ScheduleToCloseTimeout = max(o.ScheduleToCloseTimeout, readWindow)
	return o
}

// awaitSubmission waits for a submission — the verification-result
// signal, or (upload true) the document-uploaded signal — or the link's
// expiry. A non-nil *ExpireResult means the check ended without a
// submission (expired, or cancelled meanwhile).
func awaitSubmission(ctx workflow.Context, in CheckInput, link activities.LinkResult) (upload bool, ended *activities.ExpireResult, err error) {
	ch := workflow.GetSignalChannel(ctx, SignalVerification)
	docs := workflow.GetSignalChannel(ctx, SignalDocument)
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	timer := workflow.NewTimer(timerCtx, link.ExpiresAt.Sub(workflow.Now(ctx)))
	for {
		submitted, timedOut := false, false
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) {
			var v VerificationResult
			c.Receive(ctx, &v)
			submitted = true
		})
		sel.AddReceive(docs, func(c workflow.ReceiveChannel, _ bool) {
			var v VerificationResult
			c.Receive(ctx, &v)
			submitted, upload = true, true
		})
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		if timer != nil {
			sel.AddFuture(timer, func(workflow.Future) { timedOut = true })
		}
		sel.Select(ctx)
		switch {
		case ctx.Err() != nil:
			return false, nil, temporal.NewCanceledError()
		case submitted:
			return upload, nil, nil
		case timedOut:
			var res activities.ExpireResult
			err := workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, storeOptions), a.ExpireLink,
				activities.LinkInput{Check: in.Check}).Get(ctx, &res)
			if err != nil {
				return false, nil, err
			}
			if res.Applied || res.Status != check.AwaitingInput {
				return false, &res, nil
			}
			// Submitted just in time: its signal is on the way.
			timer = nil
		}
	}
}
