package main

import (
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/workflows"
)

// loadConfig reads the settings (settings.go has every name, default and
// meaning).
func loadConfig() (app.Config, error) {
	c := app.Config{
		DatabaseURL:        lookup("DATABASE_URL"),
		DatabaseAdminURL:   lookup("DATABASE_ADMIN_URL"),
		DBPasswords:        store.RolePasswords{App: lookup("KYCFLOW_APP_DB_PASSWORD"), Worker: lookup("KYCFLOW_WORKER_DB_PASSWORD")},
		TemporalAddress:    lookup("TEMPORAL_ADDRESS"),
		TemporalNS:         lookup("TEMPORAL_NAMESPACE"),
		HTTPAddr:           lookup("HTTP_ADDR"),
		DataDir:            lookup("KYCFLOW_DATA_DIR"),
		APIKey:             lookup("KYCFLOW_API_KEY"),
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
		ImageKeys:          lookup("IMAGE_KEYS"),
		FaceModels:         lookup("FACE_MODELS"),
		StaffKey:           lookup("STAFF_KEY"),
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
	_, c.WebhookAllowSet = lookupSet("WEBHOOK_ALLOW_NETS")
	c.RelayConcurrency = num("RELAY_CONCURRENCY")
	c.WorkflowPollers = num("WORKFLOW_POLLERS")
	c.DocumentReaders = num("DOCUMENT_READERS")
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
