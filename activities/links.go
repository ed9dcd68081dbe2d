package activities

import (
	"context"
	"errors"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/eu"
	"github.com/kycflow/kycflow/providers/mail"
	"github.com/kycflow/kycflow/store"
)

// LinkMailer sends verification-link mails (providers/mail.Mailer).
type LinkMailer interface {
	SendLink(ctx context.Context, lm mail.LinkMail) error
}

// LinkInput names an idin or idscan check.
type LinkInput struct {
	Check check.Ref
}

// LinkResult is the state of the check's link the workflow acts on: when it
// expires, whether the person already submitted, and how many photos they
// uploaded that wait to be read (an upload can come before the workflow
// exists, when its signal finds no one to tell).
type LinkResult struct {
	ExpiresAt time.Time
	Used      bool
	Unread    int `json:",omitempty"`
}

// PrepareLink makes sure the check has a link in the person's hands. A link
// the API already handed to the tenant (customers without mails) is used as
// is; otherwise a link is issued and mailed. A retried attempt issues a new
// token, so only the link in the last mail works. Runs as a regular
// activity: the mail server is a provider like any other.
func (a *Activities) PrepareLink(ctx context.Context, in LinkInput) (_ LinkResult, err error) {
	defer lastAnswer(ctx, check.ProviderMail, &err)
	if in.Check.Type == check.IDIN && a.IDIN == nil {
		return LinkResult{}, NotConfigured("iDIN", check.IDIN)
	}
	cs, done, err := a.loadOpen(ctx, in.Check)
	if err != nil || done {
		return LinkResult{Used: true}, err
	}
	l, err := a.Store.GetLink(ctx, in.Check)
	switch {
	case err == nil && (l.UsedAt != nil || !cs.Customer.Mails):
		out := LinkResult{ExpiresAt: l.ExpiresAt, Used: l.UsedAt != nil}
		if in.Check.Type == check.IDScan && !out.Used {
			if out.Unread, err = a.Store.UnreadDocuments(ctx, in.Check); err != nil {
				return LinkResult{}, wrap(err, "count uploads")
			}
		}
		return out, nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return LinkResult{}, wrap(err, "load link")
	}
	if a.Mailer == nil {
		return LinkResult{}, NotConfigured("Mail (SMTP)", in.Check.Type)
	}
	token, l, err := a.Store.IssueLink(ctx, in.Check)
	if err != nil {
		return LinkResult{}, wrap(err, "issue link")
	}
	if token == "" { // used or revoked meanwhile
		return LinkResult{ExpiresAt: l.ExpiresAt, Used: l.UsedAt != nil}, nil
	}
	tenant, err := a.Store.TenantName(ctx, in.Check.TenantID)
	if err != nil {
		return LinkResult{}, wrap(err, "load tenant")
	}
	defer heartbeat(ctx)()
	err = a.Mailer.SendLink(ctx, mail.LinkMail{To: cs.Customer.Email, Name: cs.Customer.Name, TenantName: tenant,
		Purpose: mailPurpose(in.Check.Type), URL: a.PublicURL + "/verify/" + token, ExpiresAt: l.ExpiresAt, Lang: langOf(cs.Customer)})
	if err != nil {
		if ctx.Err() != nil {
			return LinkResult{}, err
		}
		msg := "The verification link mail could not be delivered to the customer's address."
		if !mail.IsPermanent(err) {
			msg = "The mail server could not be reached or refused the mail for now."
		}
		return LinkResult{}, ProviderError(check.ProviderMail, "SMTP", msg, mail.IsPermanent(err), 0, err)
	}
	return LinkResult{ExpiresAt: l.ExpiresAt}, nil
}

// mailPurpose is what the mail tells the person to do on the link.
func mailPurpose(t check.Type) mail.Purpose {
	if t == check.IDIN {
		return mail.PurposeBank
	}
	return mail.PurposeDocument
}

// ExpireResult tells whether the check expired.
type ExpireResult struct {
	Applied bool
	Status  check.Status
}

// ExpireLink ends a check whose link expired unused (`expired`). When the
// person submitted just in time, nothing changes and the workflow goes on to
// verify the submission. Runs as a local activity.
func (a *Activities) ExpireLink(ctx context.Context, in LinkInput) (ExpireResult, error) {
	applied, status, err := a.Store.ExpireCheck(ctx, in.Check)
	if err != nil {
		return ExpireResult{}, wrap(err, "expire check")
	}
	return ExpireResult{Applied: applied, Status: status}, nil
}

// langOf picks the mail and page language: Dutch for Dutch customers.
func langOf(c *store.Customer) string {
	if c.CountryID == eu.NetherlandsNumeric {
		return "nl"
	}
	return "en"
}
