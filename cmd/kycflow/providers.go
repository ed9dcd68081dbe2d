package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/providers/idin"
	"github.com/kycflow/kycflow/providers/kvk"
	"github.com/kycflow/kycflow/providers/mail"
	"github.com/kycflow/kycflow/engines/vatnum"
	"github.com/kycflow/kycflow/providers/vies"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

// activities builds the worker's activities with the provider clients the
// configuration names. Without KVK_API_KEY the KvK is not configured (coc
// checks of Dutch businesses fail with provider_not_configured); VIES needs
// no key and defaults to the real service.
func (c config) activities(s *store.Store) (*activities.Activities, error) {
	a := &activities.Activities{Store: s, Limits: activities.NewLimits(s, c.KvKRate, c.VIESRate, c.VIESConcurrency),
		PublicURL: strings.TrimSuffix(c.PublicURL, "/")}
	if c.SMTPHost != "" {
		m, err := mail.New(mail.Config{Host: c.SMTPHost, Port: c.SMTPPort, Username: c.SMTPUsername,
			Password: c.SMTPPassword, From: c.SMTPFrom, TLS: c.SMTPTLS})
		if err != nil {
			return nil, fmt.Errorf("SMTP settings: %w", err)
		}
		a.Mailer = m
	}
	if c.KvKAPIKey != "" {
		a.KvK = &kvk.Client{BaseURL: c.KvKBaseURL, APIKey: c.KvKAPIKey, Timeout: c.KvKTimeout}
		if c.KvKRootCA != "" {
			pool, err := kvk.NewRootCAs(c.KvKRootCA)
			if err != nil {
				return nil, fmt.Errorf("KVK_ROOT_CA: %w", err)
			}
			a.KvK.RootCAs = pool
		}
	}
	a.IDIN = c.idinBroker()
	hooks, err := c.webhooks()
	if err != nil {
		return nil, err
	}
	if hooks.Cipher != nil {
		a.Webhooks = &activities.Webhooks{Sender: &webhook.Sender{Guard: hooks.Guard}, Cipher: hooks.Cipher}
	}
	a.VIES = &vies.Client{BaseURL: c.VIESBaseURL, HTTP: &http.Client{Timeout: c.VIESTimeout}}
	if c.VIESRequester != "" {
		n, err := vatnum.Validate(c.VIESRequester, "")
		if err != nil {
			return nil, fmt.Errorf("VIES_REQUESTER %q: %w", c.VIESRequester, err)
		}
		a.VIESRequester = &vies.Requester{MemberStateCode: n.CountryCode, Number: n.Number}
	}
	return a, nil
}

// idinBroker is the configured iDIN broker, or nil without a merchant token.
func (c config) idinBroker() idin.Broker {
	if c.IDINMerchantToken == "" {
		return nil
	}
	base := c.IDINBaseURL
	if base == "" {
		base = idin.ProductionBaseURL
	}
	return &idin.Client{BaseURL: base, MerchantToken: c.IDINMerchantToken, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// providerSummary is a line per provider for the startup log.
func (c config) providerSummary() string {
	kvkURL := c.KvKBaseURL
	if kvkURL == "" {
		kvkURL = kvk.DefaultBaseURL
	}
	viesURL := c.VIESBaseURL
	if viesURL == "" {
		viesURL = vies.DefaultBaseURL
	}
	var b strings.Builder
	if c.KvKAPIKey == "" {
		b.WriteString("KvK not configured (set KVK_API_KEY)")
	} else {
		fmt.Fprintf(&b, "KvK %s", kvkURL)
	}
	fmt.Fprintf(&b, "; VIES %s", viesURL)
	if c.IDINMerchantToken == "" {
		b.WriteString("; iDIN not configured (set IDIN_MERCHANT_TOKEN)")
	} else {
		fmt.Fprintf(&b, "; iDIN %s", c.IDINBaseURL)
	}
	if c.SMTPHost == "" {
		b.WriteString("; mail not configured (set SMTP_HOST)")
	} else {
		fmt.Fprintf(&b, "; SMTP %s:%d", c.SMTPHost, c.SMTPPort)
	}
	return b.String()
}
