package check

import (
	"errors"
	"net/mail"
	"strings"
)

// Role is what a tenant's staff member may do in the console
// (docs/CONSOLE.md).
type Role string

// The roles.
const (
	RoleViewer   Role = "viewer"   // reads everything the console shows
	RoleReviewer Role = "reviewer" // and decides and approves aml hits
	RoleSupport  Role = "support"  // and retries checks, redelivers webhooks
	RoleAdmin    Role = "admin"    // and everything: staff, tenant settings
)

// Roles lists the roles, least first.
var Roles = []Role{RoleViewer, RoleReviewer, RoleSupport, RoleAdmin}

// Valid reports whether r is a role.
func (r Role) Valid() bool {
	for _, v := range Roles {
		if r == v {
			return true
		}
	}
	return false
}

// StaffAction is something a staff member does that a role allows.
type StaffAction string

// The actions roles are checked for.
const (
	ActionDecide    StaffAction = "review.decide" // decide an aml hit, approve another's decision
	ActionAssign    StaffAction = "review.assign" // claim or assign a review
	ActionRetry     StaffAction = "check.retry"   // retry a failed check, queue checks
	ActionRedeliver StaffAction = "webhook.redeliver"
	ActionStaff     StaffAction = "staff.manage" // invite, change and disable staff
	ActionSettings  StaffAction = "settings.manage"
)

// Can reports whether a staff member of role r may do a: viewers nothing,
// reviewers the reviews, support the retries and redeliveries, admins all.
func (r Role) Can(a StaffAction) bool {
	switch r {
	case RoleAdmin:
		return true
	case RoleReviewer:
		return a == ActionDecide || a == ActionAssign
	case RoleSupport:
		return a == ActionRetry || a == ActionRedeliver
	}
	return false
}

// Staff statuses: invited (the invitation not yet accepted), active,
// disabled (signed out everywhere, never signed in again).
const (
	StaffInvited  = "invited"
	StaffActive   = "active"
	StaffDisabled = "disabled"
)

// StaffEmail is a staff member's address as kept: trimmed, lowercased,
// one bare address (no display name) of at most 254 characters.
func StaffEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || len(s) > 254 {
		return "", errors.New("not an email address")
	}
	return s, nil
}
