package check

import "slices"

// Status is where a check stands.
type Status string

// The statuses.
const (
	Queued        Status = "queued"         // committed; its workflow is (about to be) started
	Running       Status = "running"        // its workflow is working on it
	AwaitingInput Status = "awaiting_input" // waiting for the person on the verification link
	Completed     Status = "completed"      // answered: validated is true or false
	Failed        Status = "failed"         // the provider step failed after its retries; support can retry
	Expired       Status = "expired"        // the verification link expired unused
	Cancelled     Status = "cancelled"      // superseded by a newer check, or its record deleted
	// AwaitingReview: an aml check's alerting hits wait for a compliance
	// officer's decisions (review.go).
	AwaitingReview Status = "awaiting_review"
)

// statuses in documentation order.
var statuses = []Status{Queued, Running, AwaitingInput, AwaitingReview, Completed, Failed, Expired, Cancelled}

// Final reports whether nothing more happens to a check in this status.
func (s Status) Final() bool {
	return s == Completed || s == Expired || s == Cancelled
}

// Unfinished are the statuses a newer check of the same type supersedes and
// a delete cancels.
var Unfinished = []Status{Queued, Running, AwaitingInput, AwaitingReview, Failed}

// moves are the allowed status changes. A failed check goes back to queued
// when a retry is requested through the API (the workflow then sets it
// running), or straight to running on a retry signal.
var moves = map[Status][]Status{
	Queued:         {Running, Cancelled},
	Running:        {AwaitingInput, AwaitingReview, Completed, Failed, Cancelled},
	AwaitingInput:  {AwaitingReview, Completed, Failed, Expired, Cancelled}, // review: a selfie's face match between the thresholds
	AwaitingReview: {Completed, Expired, Cancelled},
	Failed:         {Queued, Running, Cancelled},
}

// CanMove reports whether a check may go from one status to another.
func CanMove(from, to Status) bool { return slices.Contains(moves[from], to) }
