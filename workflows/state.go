package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
)

// state is the check's status as its workflow knows it. transition is the
// one place the workflow changes a check's status: it writes the store, and
// the status the store then holds becomes the CheckStatus search attribute
// and the answer of the status query, together. (A provider activity
// records its verdict with the status completed in one write; the workflow
// then shows that status.)
type state struct {
	in     CheckInput
	status check.Status // what the status query answers
	shown  check.Status // the CheckStatus search attribute, as last upserted
}

func newState(ctx workflow.Context, in CheckInput) (*state, error) {
	s := &state{in: in, status: check.Queued}
	err := workflow.SetQueryHandler(ctx, QueryStatus, func() (string, error) { return string(s.status), nil })
	return s, err
}

// transition moves the check to `to` from one of `from`, idempotently (a
// replayed or late step changes nothing). applied is false when the store
// held another status (cancelled meanwhile, or finished by a repeated run);
// that status is then the one shown. A move the check's rules do not allow
// is a bug, and panics (failing the workflow task, not the check).
func (s *state) transition(ctx workflow.Context, to check.Status, from []check.Status, cerr *check.Error) (applied bool, err error) {
	for _, f := range from {
		if !check.CanMove(f, to) {
			panic(fmt.Sprintf("check %s: illegal status move %s → %s", s.in.Check.CheckID, f, to))
		}
	}
	res, err := s.write(ctx, to, from, cerr)
	if err != nil {
		return false, err
	}
	if res.Applied || res.Status == to {
		return true, s.show(ctx, to)
	}
	return false, s.show(ctx, res.Status)
}

// write is transition's store write alone (a local activity).
func (s *state) write(ctx workflow.Context, to check.Status, from []check.Status, cerr *check.Error) (activities.SetStatusResult, error) {
	var res activities.SetStatusResult
	err := workflow.ExecuteLocalActivity(ctx, a.SetStatus, activities.SetStatusInput{
		Check: s.in.Check, Status: to, From: from, Error: cerr,
	}).Get(ctx, &res)
	return res, err
}

// show makes a status the store already holds the workflow's: the query's
// answer and the CheckStatus search attribute.
func (s *state) show(ctx workflow.Context, st check.Status) error {
	s.status = st
	if s.shown == st {
		return nil
	}
	s.shown = st
	return workflow.UpsertTypedSearchAttributes(ctx, SACheckStatus.ValueSet(string(st)))
}
