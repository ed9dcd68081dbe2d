package main

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kycflow/kycflow/workflows"
)

// config is read from the environment; see the README's configuration table.
type config struct {
	DatabaseURL      string
	DatabaseAdminURL string
	AppDBPassword    string
	DBMaxConns       int
	TemporalAddress  string
	TemporalNS       string
	HTTPAddr         string
	RateLimit        float64
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
	PublicURL string
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
}

func loadConfig() (config, error) {
	c := config{
		DatabaseURL:       env("DATABASE_URL", "postgres://kycflow_app@127.0.0.1:55432/kycflow?sslmode=disable"),
		DatabaseAdminURL:  env("DATABASE_ADMIN_URL", "postgres://postgres@127.0.0.1:55432/kycflow?sslmode=disable"),
		AppDBPassword:     os.Getenv("KYCFLOW_APP_DB_PASSWORD"),
		TemporalAddress:   env("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
		TemporalNS:        env("TEMPORAL_NAMESPACE", "default"),
		HTTPAddr:          env("HTTP_ADDR", ":8080"),
		DataDir:           env("KYCFLOW_DATA_DIR", ".data"),
		PprofAddr:         os.Getenv("PPROF_ADDR"),
		KvKBaseURL:        os.Getenv("KVK_BASE_URL"),
		KvKAPIKey:         os.Getenv("KVK_API_KEY"),
		KvKRootCA:         os.Getenv("KVK_ROOT_CA"),
		VIESBaseURL:       os.Getenv("VIES_BASE_URL"),
		VIESRequester:     os.Getenv("VIES_REQUESTER"),
		SandboxKvKAddr:    env("SANDBOX_KVK_ADDR", "127.0.0.1:8091"),
		SandboxVIESAddr:   env("SANDBOX_VIES_ADDR", "127.0.0.1:8092"),
		PublicURL:         env("PUBLIC_URL", "http://localhost:8080"),
		SMTPHost:          os.Getenv("SMTP_HOST"),
		SMTPUsername:      os.Getenv("SMTP_USERNAME"),
		SMTPPassword:      os.Getenv("SMTP_PASSWORD"),
		SMTPFrom:          env("SMTP_FROM", "kycflow <no-reply@kycflow.localhost>"),
		SMTPTLS:           env("SMTP_TLS", "starttls"),
		DevSMTPAddr:       env("DEV_SMTP_ADDR", "127.0.0.1:1025"),
		DevMailUIAddr:     env("DEV_MAIL_UI_ADDR", "127.0.0.1:8025"),
		IDINBaseURL:       os.Getenv("IDIN_BASE_URL"),
		IDINMerchantToken: os.Getenv("IDIN_MERCHANT_TOKEN"),
		SandboxIDINAddr:   env("SANDBOX_IDIN_ADDR", "127.0.0.1:8093"),
	}
	if v, ok := os.LookupEnv("DEV_TEMPORAL_PRAGMAS"); ok {
		c.DevTemporalPragmas = strings.Fields(v)
		if c.DevTemporalPragmas == nil {
			c.DevTemporalPragmas = []string{} // set but empty: SQLite's own defaults
		}
	}
	var err error
	num := func(name string, def int) int {
		if err != nil {
			return def
		}
		v := os.Getenv(name)
		if v == "" {
			return def
		}
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 0 {
			err = fmt.Errorf("%s must be a non-negative integer, got %q", name, v)
		}
		return n
	}
	c.DBMaxConns = num("DB_MAX_CONNS", 20)
	c.RateLimit = float64(num("RATE_LIMIT", 2000))
	c.RelayConcurrency = num("RELAY_CONCURRENCY", 2)
	c.WorkflowPollers = num("WORKFLOW_POLLERS", 8)
	c.DevPGPort = num("DEV_PG_PORT", 55432)
	c.RelaySweep = time.Duration(num("RELAY_SWEEP_MS", 1000)) * time.Millisecond
	c.KvKRate = float64(num("KVK_RATE", 100))
	c.VIESRate = float64(num("VIES_MS_RATE", 10))
	c.VIESConcurrency = num("VIES_MS_CONCURRENCY", 2)
	c.SMTPPort = num("SMTP_PORT", 587)
	dur := func(name string, def time.Duration) time.Duration {
		v := os.Getenv(name)
		if err != nil || v == "" {
			return def
		}
		d, perr := time.ParseDuration(v)
		if perr != nil || d <= 0 {
			err = fmt.Errorf("%s must be a positive duration such as 30s or 24h, got %q", name, v)
		}
		return d
	}
	c.KvKTimeout = dur("KVK_TIMEOUT", 15*time.Second)
	c.VIESTimeout = dur("VIES_TIMEOUT", 30*time.Second)
	c.WatchlistRefresh = dur("WATCHLIST_REFRESH", 10*time.Second)
	c.Retry = workflows.ProviderRetry{
		Initial: dur("PROVIDER_RETRY_INITIAL", workflows.DefaultRetryInitial),
		Maximum: dur("PROVIDER_RETRY_MAX", workflows.DefaultRetryMaximum),
		Window:  dur("PROVIDER_RETRY_WINDOW", workflows.DefaultRetryWindow),
	}
	if err != nil {
		return c, err
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("LOG_LEVEL", "info"))); err != nil {
		return c, fmt.Errorf("LOG_LEVEL: %w", err)
	}
	return c, nil
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func (c config) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: c.LogLevel}))
}
