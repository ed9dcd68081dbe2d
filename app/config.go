// Package app turns a configuration into running kycflow processes: the
// API server (NewAPI) and the worker (NewWorker). `kycflow api`, `kycflow
// worker` and `kycflow dev` build them here, as do the end-to-end tests;
// the cluster and the chaos campaign run those commands. A dependency
// added to the worker is one edit, in worker.go.
package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/documents"
	"github.com/kycflow/kycflow/providers/idin"
	"github.com/kycflow/kycflow/providers/kvk"
	"github.com/kycflow/kycflow/providers/vies"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
	"github.com/kycflow/kycflow/workflows"
)

// Config is every setting of a kycflow process, as `kycflow` reads them
// from the environment (cmd/kycflow/settings.go names each, with its
// default; the README's configuration table says the same).
type Config struct {
	// DatabaseURL is the api's or the worker's connection; unset, each
	// connects to the local database as its own role (see DatabaseURLFor).
	DatabaseURL      string
	DatabaseAdminURL string
	DBPasswords      store.RolePasswords
	DBMaxConns       int
	TemporalAddress  string
	TemporalNS       string
	HTTPAddr         string
	Limits           api.Limits
	RelayConcurrency int
	RelaySweep       time.Duration
	DataDir          string
	DevPGPort        int
	LogLevel         slog.Level
	PprofAddr        string
	WorkflowPollers  int
	// DevTemporalPragmas: nil keeps devserver.DefaultPragmas.
	DevTemporalPragmas []string
	// APIKey is the tenant's API key `kycflow check review` acts as
	// (KYCFLOW_API_KEY): four eyes tells reviewers apart by their keys.
	APIKey string

	// Providers (activities.go). An empty base URL under `kycflow dev`
	// means: start the provider's sandbox and use it.
	KvKBaseURL, KvKAPIKey, KvKRootCA string
	KvKTimeout                       time.Duration
	KvKRate                          float64
	VIESBaseURL, VIESRequester       string
	VIESTimeout                      time.Duration
	VIESRate                         float64
	VIESConcurrency                  int
	Retry                            workflows.ProviderRetry
	// Where `kycflow dev` and `kycflow sandbox` serve the sandboxes.
	SandboxKvKAddr, SandboxVIESAddr string

	// PublicURL is where people open verification links.
	PublicURL          string
	PublicURLAllowHTTP bool
	// SMTP for link mails; no host: link checks of customers who get mails
	// fail provider_not_configured (`kycflow dev` runs a mail catcher).
	SMTPHost, SMTPUsername, SMTPPassword, SMTPFrom, SMTPTLS string
	SMTPPort                                                int
	// Where `kycflow dev` catches mail (SMTP) and shows it (web).
	DevSMTPAddr, DevMailUIAddr string
	// iDIN broker (CM.com's API); no token: idin is not configured.
	IDINBaseURL, IDINMerchantToken string
	SandboxIDINAddr                string
	// WatchlistRefresh is how often a process looks for new list versions.
	WatchlistRefresh time.Duration
	// WatchlistMaxAge: a loaded list older than this makes /healthz degraded.
	WatchlistMaxAge time.Duration
	// APIWatchlists: kycflow api loads the lists for POST /api/v1/screen.
	APIWatchlists bool
	// HealthAddr is where a process serves /healthz, /readyz and /metrics
	// (see HealthAddrFor; "off": nowhere).
	HealthAddr string
	// Webhooks: the key that seals signing secrets, the private networks
	// sandbox tenants' deliveries may reach (and whether the operator set
	// them at all: `kycflow dev` opens loopback when not), and whether live
	// tenants may use http://.
	WebhookKey       string
	WebhookAllow     []netip.Prefix
	WebhookAllowSet  bool
	WebhookAllowHTTP bool
	// Where `kycflow dev` serves its webhook catcher.
	DevWebhookAddr string
	// FaceModels is the face models' folder (FACE_MODELS): the worker
	// loads them when it first reads a selfie.
	FaceModels string
	// ImageKeys seal idscan photos at rest (IMAGE_KEYS: ID:KEY pairs, the
	// first sealing); empty: photo uploads are off.
	ImageKeys string
	// StaffKey seals the console's staff's second-factor secrets
	// (STAFF_KEY, 32 bytes); empty: the console is off.
	StaffKey string
	// DocumentReaders is how many photos one worker reads at once.
	DocumentReaders int
	// The api processes `kycflow proxy` spreads requests over.
	ProxyUpstreams []string
	// Where `kycflow dev --cluster` lays out its processes' ports.
	ClusterPortBase int

	// Harness is what a test harness puts in place of the outside world;
	// zero in every command.
	Harness Harness
}

// Harness replaces what a process reaches outside itself, for tests that
// run kycflow in process (api/e2e).
type Harness struct {
	// RoleURLs are the database URLs by role, when one process holds both
	// an api and a worker on a database of its own.
	RoleURLs map[string]string
	// WebhookResolve and WebhookDial replace the resolver and the dialer
	// of webhook deliveries (a table of names; a dialer that refuses
	// anything off loopback); WebhookTLS trusts the receivers' test
	// certificates; WebhookTimeout is how long a receiver has.
	WebhookResolve func(ctx context.Context, host string) ([]netip.Addr, error)
	WebhookDial    func(ctx context.Context, network, addr string) (net.Conn, error)
	WebhookTLS     *tls.Config
	WebhookTimeout time.Duration
	// DeliverySchedule replaces the webhook retry schedule (seconds, not
	// days).
	DeliverySchedule *webhook.Schedule
	// MailRootCAs trusts the mail catcher's certificate.
	MailRootCAs *x509.CertPool
	// RelayCallTimeout bounds each of the relay's Temporal calls (0: the
	// relay's default).
	RelayCallTimeout time.Duration
}

// DatabaseURLFor is the connection of a process of role: the harness's,
// else DATABASE_URL, else the local database as that role (the api's
// kycflow_app, the worker's kycflow_worker: each process holds only its
// own privileges).
func (c Config) DatabaseURLFor(role string) string {
	if u := c.Harness.RoleURLs[role]; u != "" {
		return u
	}
	if c.DatabaseURL != "" {
		return c.DatabaseURL
	}
	return "postgres://" + role + "@127.0.0.1:55432/kycflow?sslmode=disable"
}

// HealthAddrFor is where a process serves its operations endpoints:
// HEALTH_ADDR, else a port of its own per role, so that an api and a
// worker on one machine do not collide (dev: loopback only).
func (c Config) HealthAddrFor(role string) string {
	if c.HealthAddr != "" {
		return c.HealthAddr
	}
	switch role {
	case "api":
		return ":8082"
	case "dev":
		return "127.0.0.1:8081"
	}
	return ":8081"
}

// HTTPAddrFor is where the API listens: HTTP_ADDR, else every interface
// for `kycflow api` (a container's port) and loopback only for `kycflow
// dev`.
func (c Config) HTTPAddrFor(dev bool) string {
	switch {
	case c.HTTPAddr != "":
		return c.HTTPAddr
	case dev:
		return "127.0.0.1:8080"
	}
	return ":8080"
}

// CheckPublicURL refuses a PUBLIC_URL that would send verification links
// (credentials, single use) over plain HTTP to another machine: http:// is
// for loopback, or when PUBLIC_URL_ALLOW_HTTP=1 says a TLS proxy sits in
// front on the same host.
func (c Config) CheckPublicURL() error {
	u, err := url.Parse(c.PublicURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("PUBLIC_URL %q is not an http(s) URL", c.PublicURL)
	}
	if u.Scheme == "https" || c.PublicURLAllowHTTP || IsLoopbackHost(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("PUBLIC_URL %q: verification links must use https:// (http:// only for localhost, or with PUBLIC_URL_ALLOW_HTTP=1)", c.PublicURL)
}

// IsLoopbackHost: localhost, a name under .localhost, or a loopback address.
func IsLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

// Logger is the process's log: text on standard error at LOG_LEVEL.
func (c Config) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: c.LogLevel}))
}

// Webhooks is the webhook configuration every process shares: the cipher
// (nil without WEBHOOK_SECRET_KEY) and the guard.
func (c Config) Webhooks() (api.Webhooks, error) {
	g := &webhook.Guard{Allow: c.WebhookAllow, Resolve: c.Harness.WebhookResolve, Dial: c.Harness.WebhookDial}
	w := api.Webhooks{Guard: g, AllowHTTP: c.WebhookAllowHTTP}
	if c.WebhookKey == "" {
		return w, nil
	}
	ci, err := webhook.NewCipher(c.WebhookKey)
	if err != nil {
		return w, fmt.Errorf("WEBHOOK_SECRET_KEY: %w", err)
	}
	w.Cipher = ci
	return w, nil
}

// Images are the keys that seal idscan photos; nil without IMAGE_KEYS.
func (c Config) Images() (*documents.Keys, error) {
	if c.ImageKeys == "" {
		return nil, nil
	}
	k, err := documents.ParseKeys(c.ImageKeys)
	if err != nil {
		return nil, fmt.Errorf("IMAGE_KEYS: %w", err)
	}
	return k, nil
}

// IDINBroker is the configured iDIN broker, or nil without a merchant token.
func (c Config) IDINBroker() idin.Broker {
	if c.IDINMerchantToken == "" {
		return nil
	}
	base := c.IDINBaseURL
	if base == "" {
		base = idin.ProductionBaseURL
	}
	return &idin.Client{BaseURL: base, MerchantToken: c.IDINMerchantToken, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// ProviderSummary is a line per provider for the startup log.
func (c Config) ProviderSummary() string {
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
