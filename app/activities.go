package app

import (
	"sync"

	"fmt"
	"github.com/kycflow/kycflow/engines/face"
	"net/http"
	"strings"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/engines/vatnum"
	"github.com/kycflow/kycflow/providers/kvk"
	"github.com/kycflow/kycflow/providers/mail"
	"github.com/kycflow/kycflow/providers/vies"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

// mailer is the SMTP mailer the settings name; nil without SMTP_HOST.
func (c Config) mailer() (*mail.Mailer, error) {
	if c.SMTPHost == "" {
		return nil, nil
	}
	m, err := mail.New(mail.Config{Host: c.SMTPHost, Port: c.SMTPPort, Username: c.SMTPUsername,
		Password: c.SMTPPassword, From: c.SMTPFrom, TLS: c.SMTPTLS, RootCAs: c.Harness.MailRootCAs})
	if err != nil {
		return nil, fmt.Errorf("SMTP settings: %w", err)
	}
	return m, nil
}

// activities builds the worker's activities with the provider clients the
// configuration names. Without KVK_API_KEY the KvK is not configured (coc
// checks of Dutch businesses fail with provider_not_configured); VIES needs
// no key and defaults to the real service.
func (c Config) activities(s *store.Store) (*activities.Activities, error) {
	a := &activities.Activities{Store: s, Limits: activities.NewLimits(s, c.KvKRate, c.VIESRate, c.VIESConcurrency),
		PublicURL: strings.TrimSuffix(c.PublicURL, "/")}
	m, err := c.mailer()
	if err != nil {
		return nil, err
	}
	a.Mailer = m
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
	a.IDIN = c.IDINBroker()
	keys, err := c.Images()
	if err != nil {
		return nil, err
	}
	if keys != nil {
		a.Documents = &activities.DocumentReader{Keys: keys, Faces: faceLoader(c.FaceModels)}
	}
	hooks, err := c.Webhooks()
	if err != nil {
		return nil, err
	}
	if hooks.Cipher != nil {
		a.Webhooks = &activities.Webhooks{Cipher: hooks.Cipher,
			Sender: &webhook.Sender{Guard: hooks.Guard, TLS: c.Harness.WebhookTLS, Timeout: c.Harness.WebhookTimeout}}
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

// faceLoader loads the face models from dir once, when first asked: most
// workers never read a selfie, and the models take 30 MB.
func faceLoader(dir string) func() (*face.Engine, error) {
	if dir == "" {
		dir = face.DefaultDir()
	}
	return sync.OnceValues(func() (*face.Engine, error) { return face.Load(dir) })
}
