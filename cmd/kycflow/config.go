package main

import (
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/workflows"
)

// config is read from the environment; see the README's configuration table.
type config struct {
	// DatabaseURL is the api's or the worker's connection; unset, each
	// command connects as its own role (databaseURL).
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

	// Providers (see providers.go). An empty base URL under `kycflow dev`
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
	// WatchlistRefresh is how often the worker looks for new list versions.
	WatchlistRefresh time.Duration
	// WatchlistMaxAge: a loaded list older than this makes /healthz degraded.
	WatchlistMaxAge time.Duration
	// APIWatchlists: kycflow api loads the lists for POST /api/v1/screen.
	APIWatchlists bool
	// HealthAddr is where a process serves /healthz, /readyz and /metrics
	// (see healthAddr; "off": nowhere).
	HealthAddr string
	// Webhooks: the key that seals signing secrets, the private networks
	// deliveries may reach, and whether live tenants may use http://.
	WebhookKey       string
	WebhookAllow     []netip.Prefix
	WebhookAllowHTTP bool
	// Where `kycflow dev` serves its webhook catcher.
	DevWebhookAddr string
	// The api processes `kycflow proxy` spreads requests over.
	ProxyUpstreams []string
	// Where `kycflow dev --cluster` lays out its processes' ports.
	ClusterPortBase int
}

// loadConfig reads the settings (settings.go has every name, default and
// meaning).
func loadConfig() (config, error) {
	c := config{
		DatabaseURL:        lookup("DATABASE_URL"),
		DatabaseAdminURL:   lookup("DATABASE_ADMIN_URL"),
		DBPasswords:        store.RolePasswords{App: lookup("KYCFLOW_APP_DB_PASSWORD"), Worker: lookup("KYCFLOW_WORKER_DB_PASSWORD")},
		TemporalAddress:    lookup("TEMPORAL_ADDRESS"),
		TemporalNS:         lookup("TEMPORAL_NAMESPACE"),
		HTTPAddr:           lookup("HTTP_ADDR"),
		DataDir:            lookup("KYCFLOW_DATA_DIR"),
		PprofAddr:          lookup("PPROF_ADDR"),
		KvKBaseURL:         lookup("KVK_BASE_URL"),
		KvKAPIKey:          lookup("KVK_API_KEY"),
		KvKRootCA:          lookup("KVK_ROOT_CA"),
		VIESBaseURL:        lookup("VIES_BASE_URL"),
		VIESRequester:      lookup("VIES_REQUESTER"),
		SandboxKvKAddr:     lookup("SANDBOX_KVK_ADDR"),
		SandboxVIESAddr:    lookup("SANDBOX_VIES_ADDR"),
		PublicURL:          lookup("PUBLIC_URL"),
		PublicURLAllowHTTP: lookup("PUBLIC_URL_ALLOW_HTTP") == "1",
		SMTPHost:           lookup("SMTP_HOST"),
		SMTPUsername:       lookup("SMTP_USERNAME"),
		SMTPPassword:       lookup("SMTP_PASSWORD"),
		SMTPFrom:           lookup("SMTP_FROM"),
		SMTPTLS:            lookup("SMTP_TLS"),
		DevSMTPAddr:        lookup("DEV_SMTP_ADDR"),
		DevMailUIAddr:      lookup("DEV_MAIL_UI_ADDR"),
		IDINBaseURL:        lookup("IDIN_BASE_URL"),
		IDINMerchantToken:  lookup("IDIN_MERCHANT_TOKEN"),
		SandboxIDINAddr:    lookup("SANDBOX_IDIN_ADDR"),
		WebhookKey:         lookup("WEBHOOK_SECRET_KEY"),
		WebhookAllowHTTP:   lookup("WEBHOOK_ALLOW_HTTP") == "1",
		DevWebhookAddr:     lookup("DEV_WEBHOOK_ADDR"),
		HealthAddr:         lookup("HEALTH_ADDR"),
	}
	if v, ok := lookupSet("DEV_TEMPORAL_PRAGMAS"); ok {
		c.DevTemporalPragmas = strings.Fields(v)
		if c.DevTemporalPragmas == nil {
			c.DevTemporalPragmas = []string{} // set but empty: SQLite's own defaults
		}
	}
	var err error
	num := func(name string) int {
		v := lookup(name)
		if v == "" {
			return 0 // no default here: the component's own
		}
		n, perr := strconv.Atoi(v)
		if (perr != nil || n < 0) && err == nil {
			err = fmt.Errorf("%s must be a non-negative integer, got %q", name, v)
		}
		return n
	}
	dur := func(name string) time.Duration {
		v := lookup(name)
		d, perr := time.ParseDuration(v)
		if (perr != nil || d <= 0) && err == nil {
			err = fmt.Errorf("%s must be a positive duration such as 30s or 24h, got %q", name, v)
		}
		return d
	}
	c.DBMaxConns = num("DB_MAX_CONNS")
	c.Limits.Tenant = float64(num("RATE_LIMIT"))
	c.Limits.IP = float64(num("IP_RATE_LIMIT"))
	c.Limits.AuthFailures = float64(num("AUTH_FAILURE_LIMIT"))
	c.Limits.Verify = float64(num("VERIFY_RATE_LIMIT"))
	c.Limits.VerifyFailures = float64(num("VERIFY_FAILURE_LIMIT"))
	if v, perr := strconv.ParseFloat(lookup("SCREEN_CPU_LIMIT"), 64); perr != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		if err == nil {
			err = fmt.Errorf("SCREEN_CPU_LIMIT must be a non-negative number such as 0.5, got %q", lookup("SCREEN_CPU_LIMIT"))
		}
	} else {
		c.Limits.ScreenCPU = v
	}
	// nets reads a list of addresses and CIDR ranges.
	nets := func(name string) []netip.Prefix {
		var out []netip.Prefix
		for _, p := range strings.FieldsFunc(lookup(name), func(r rune) bool { return r == ',' || r == ' ' }) {
			prefix, perr := netip.ParsePrefix(p)
			if perr != nil {
				if a, aerr := netip.ParseAddr(p); aerr == nil {
					prefix, perr = a.Prefix(a.BitLen())
				}
			}
			if perr != nil && err == nil {
				err = fmt.Errorf("%s: %q is neither an address nor a CIDR range", name, p)
			}
			out = append(out, prefix)
		}
		return out
	}
	c.Limits.TrustedProxies = nets("TRUSTED_PROXIES")
	c.ProxyUpstreams = strings.FieldsFunc(lookup("PROXY_UPSTREAMS"), func(r rune) bool { return r == ',' || r == ' ' })
	c.WebhookAllow = nets("WEBHOOK_ALLOW_NETS")
	c.RelayConcurrency = num("RELAY_CONCURRENCY")
	c.WorkflowPollers = num("WORKFLOW_POLLERS")
	c.DevPGPort = num("DEV_PG_PORT")
	c.ClusterPortBase = num("CLUSTER_PORT_BASE")
	c.RelaySweep = time.Duration(num("RELAY_SWEEP_MS")) * time.Millisecond
	c.KvKRate = float64(num("KVK_RATE"))
	c.VIESRate = float64(num("VIES_MS_RATE"))
	c.VIESConcurrency = num("VIES_MS_CONCURRENCY")
	c.SMTPPort = num("SMTP_PORT")
	c.KvKTimeout = dur("KVK_TIMEOUT")
	c.VIESTimeout = dur("VIES_TIMEOUT")
	c.WatchlistRefresh = dur("WATCHLIST_REFRESH")
	c.WatchlistMaxAge = dur("WATCHLIST_MAX_AGE")
	switch v := lookup("API_WATCHLISTS"); v {
	case "on", "off":
		c.APIWatchlists = v == "on"
	default:
		if err == nil {
			err = fmt.Errorf("API_WATCHLISTS must be on or off, got %q", v)
		}
	}
	c.Retry = workflows.ProviderRetry{
		Initial: dur("PROVIDER_RETRY_INITIAL"),
		Maximum: dur("PROVIDER_RETRY_MAX"),
		Window:  dur("PROVIDER_RETRY_WINDOW"),
	}
	if err != nil {
		return c, err
	}
	if err := c.LogLevel.UnmarshalText([]byte(lookup("LOG_LEVEL"))); err != nil {
		return c, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	return c, nil
}

// databaseURL is DATABASE_URL, or the local database as role (the api's
// kycflow_app, the worker's kycflow_worker: each process holds only its
// own privileges).
func (c config) databaseURL(role string) string {
	if c.DatabaseURL != "" {
		return c.DatabaseURL
	}
	return "postgres://" + role + "@127.0.0.1:55432/kycflow?sslmode=disable"
}

// healthAddr is where a process serves its operations endpoints:
// HEALTH_ADDR, else a port of its own per role, so that an api and a
// worker on one machine do not collide (dev: loopback only).
func (c config) healthAddr(role string) string {
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

// httpAddr is where the API listens: HTTP_ADDR, else every interface for
// `kycflow api` (a container's port) and loopback only for `kycflow dev`.
func (c config) httpAddr(dev bool) string {
	switch {
	case c.HTTPAddr != "":
		return c.HTTPAddr
	case dev:
		return "127.0.0.1:8080"
	}
	return ":8080"
}

// checkPublicURL refuses a PUBLIC_URL that would send verification links
// (credentials, single use) over plain HTTP to another machine: http:// is
// for loopback, or when PUBLIC_URL_ALLOW_HTTP=1 says a TLS proxy sits in
// front on the same host.
func (c config) checkPublicURL() error {
	u, err := url.Parse(c.PublicURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("PUBLIC_URL %q is not an http(s) URL", c.PublicURL)
	}
	if u.Scheme == "https" || c.PublicURLAllowHTTP || isLoopbackHost(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("PUBLIC_URL %q: verification links must use https:// (http:// only for localhost, or with PUBLIC_URL_ALLOW_HTTP=1)", c.PublicURL)
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

func (c config) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: c.LogLevel}))
}
