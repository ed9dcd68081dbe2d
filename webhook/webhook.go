// Package webhook is kycflow's webhook client as a self-contained library:
// the signature scheme (Sign, Verify), the guard that keeps deliveries off
// private networks (Guard), the sender (Sender), the retry schedule, the
// encryption of signing secrets at rest (Cipher), and the words for a
// delivery's state. It knows nothing of the store or of Temporal.
package webhook

import (
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Status is where a delivery stands.
type Status string

// The delivery statuses.
const (
	Pending   Status = "pending"   // not attempted yet (or waiting behind an earlier event of its subject)
	Retrying  Status = "retrying"  // attempted and failed; another attempt is scheduled
	Delivered Status = "delivered" // the receiver answered 2xx
	Failed    Status = "failed"    // given up: the window ran out, or the receiver answered 410
	Cancelled Status = "cancelled" // the endpoint was deleted or disabled before delivery
)

// Final reports whether nothing more happens to a delivery in this status.
func (s Status) Final() bool { return s == Delivered || s == Failed || s == Cancelled }

// Timeout is how long a receiver has to answer.
const Timeout = 10 * time.Second

// Schedule is when a failed delivery is tried again: after each of Waits
// in turn, then every Every, while within Window of the first attempt.
// While an endpoint is failing, one of its waiting deliveries is tried at
// least every Probe, so its recovery is noticed (and its backlog sent)
// soon after it comes back.
type Schedule struct {
	Waits  []time.Duration
	Every  time.Duration
	Window time.Duration
	Probe  time.Duration
}

// DefaultSchedule: about 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, then every
// 12 h, for 3 days; a failing endpoint probed every 5 minutes.
var DefaultSchedule = Schedule{
	Waits:  []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour},
	Every:  12 * time.Hour,
	Window: 72 * time.Hour,
	Probe:  5 * time.Minute,
}

// Next is when to try again after `attempts` failed attempts, the first
// made at `first` and the last at `last`; ok is false when that would fall
// outside the window.
func (s Schedule) Next(first, last time.Time, attempts int) (at time.Time, ok bool) {
	wait := s.Every
	if attempts >= 1 && attempts <= len(s.Waits) {
		wait = s.Waits[attempts-1]
	}
	at = last.Add(wait)
	return at, !at.After(first.Add(s.Window))
}

// MaxDescription is the longest endpoint description accepted (characters).
const MaxDescription = 500

// MaxEndpoints is how many endpoints a tenant may have.
const MaxEndpoints = 16

// MaxURL is the longest endpoint URL accepted (bytes).
const MaxURL = 2048

// MaxResponse is how much of a receiver's answer is kept (bytes).
const MaxResponse = 1024

// SecretOverlap is how long a rotated-out secret keeps signing.
const SecretOverlap = 24 * time.Hour

// Headers sent with every delivery.
const (
	HeaderEventID   = "Kycflow-Event-Id"
	HeaderEventType = "Kycflow-Event-Type"
	HeaderSignature = "Kycflow-Signature"
)

// Ref names one delivery: the delivery workflow's input and the outbox
// payload that starts it. Ids only.
type Ref struct {
	TenantID   uuid.UUID `json:"tenant_id"`
	DeliveryID uuid.UUID `json:"delivery_id"`
	EndpointID uuid.UUID `json:"endpoint_id"`
	EventID    uuid.UUID `json:"event_id"`
	// Number is 1 for an event's first delivery to the endpoint, then
	// counts redeliveries.
	Number int `json:"number"`
}

// WorkflowID says what the delivery is, without personal data:
// webhook-<endpoint id>-<event id>, and -<n> for the n-th redelivery.
func (r Ref) WorkflowID() string {
	id := "webhook-" + r.EndpointID.String() + "-" + r.EventID.String()
	if r.Number > 1 {
		id += "-" + strconv.Itoa(r.Number)
	}
	return id
}
