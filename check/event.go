package check

import (
	"slices"
	"strings"
)

// EventType names an event: something a tenant hears about (GET /events,
// webhooks). A check's status change is "check." and the new status.
type EventType string

// The record events. Check events are StatusEvent(status).
const (
	BusinessCreated  EventType = "business.created"
	BusinessDeleted  EventType = "business.deleted"
	CustomerCreated  EventType = "customer.created"
	CustomerDeleted  EventType = "customer.deleted"
	CheckReviewed    EventType = "check.reviewed"
	WatchlistUpdated EventType = "watchlist.updated"
	// A staff member's actions on a review in the console.
	ReviewAssigned EventType = "review.assigned"
	ReviewDecided  EventType = "review.decided" // a decision awaiting a second reviewer's approval
	ReviewApproved EventType = "review.approved"
)

// StatusEvent is the event of a check entering a status (the database's
// event triggers spell it the same way).
func StatusEvent(s Status) EventType { return EventType(checkEventPrefix + string(s)) }

const checkEventPrefix = "check."

// eventTypes are all the events there are, in documentation order.
var eventTypes = func() []EventType {
	out := make([]EventType, 0, len(statuses)+9)
	for _, s := range statuses {
		out = append(out, StatusEvent(s))
	}
	return append(out, CheckReviewed, ReviewAssigned, ReviewDecided, ReviewApproved, BusinessCreated, BusinessDeleted, CustomerCreated, CustomerDeleted, WatchlistUpdated)
}()

// EventFilter is a set of event types given by their names, where "*" is
// every event and "check.*" every check event.
type EventFilter struct {
	All    bool
	Checks bool
	Types  []EventType
}

// AllEvents and AllCheckEvents are the two wildcards a filter accepts.
const (
	AllEvents      = "*"
	AllCheckEvents = checkEventPrefix + "*"
)

// ParseEventFilter reads event names; ok is false on the first unknown one,
// which is returned.
func ParseEventFilter(names []string) (f EventFilter, bad string, ok bool) {
	for _, n := range names {
		switch {
		case n == AllEvents:
			f.All = true
		case n == AllCheckEvents || n == checkEventPrefix || n == strings.TrimSuffix(checkEventPrefix, "."):
			f.Checks = true
		case slices.Contains(eventTypes, EventType(n)):
			f.Types = append(f.Types, EventType(n))
		default:
			return EventFilter{}, n, false
		}
	}
	return f, "", true
}

// Matches reports whether the filter takes an event type.
func (f EventFilter) Matches(t EventType) bool {
	return f.All || (f.Checks && strings.HasPrefix(string(t), checkEventPrefix)) || slices.Contains(f.Types, t)
}

// EventNames vets an endpoint's subscription: known types or the
// wildcards ("check" and "check." mean check.*), repeats dropped, none
// meaning every event. bad is the index of the first unknown name, or -1.
func EventNames(names []string) (out []string, bad int) {
	if len(names) == 0 {
		return []string{AllEvents}, -1
	}
	for i, n := range names {
		n = strings.TrimSpace(n)
		f, _, ok := ParseEventFilter([]string{n})
		if !ok {
			return nil, i
		}
		if f.Checks {
			n = AllCheckEvents
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, -1
}
