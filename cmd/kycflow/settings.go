package main

import (
	"fmt"
	"github.com/kycflow/kycflow/engines/face"
	"io"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/kycflow/kycflow/engines/ocrb"
	"github.com/kycflow/kycflow/workflows"
)

// setting is one environment variable: its default (written here and
// nowhere else), the commands that read it, and what it does. The README's
// configuration table says the same (a test keeps the two together), and
// `kycflow <command> --help` prints a command's own.
type setting struct {
	name, def string
	group     string   // database, api, worker, providers, mail, dev
	commands  []string // the commands that read it
	help      string
}

var (
	serving  = []string{"api", "worker", "dev"}
	admin    = []string{"migrate", "tenant", "check", "watchlist", "webhook", "staff"}
	apiSide  = []string{"api", "dev"}
	workSide = []string{"worker", "dev"}
	devOnly  = []string{"dev", "chaos"}
	// The api and check review send reviews to workflows as updates.
	temporalSide = []string{"api", "worker", "dev", "check"}
	sandbox      = []string{"dev", "sandbox"}
)

var settings = []setting{
	// database
	{"DATABASE_URL", "", "database", []string{"api", "worker"}, "the process's connection; unset: the local database as kycflow_app (api) or kycflow_worker (worker)"},
	{"DATABASE_ADMIN_URL", "postgres://postgres@127.0.0.1:55432/kycflow?sslmode=disable", "database", admin, "a superuser, for migrate and the admin commands"},
	{"KYCFLOW_APP_DB_PASSWORD", "", "database", []string{"migrate"}, "password migrate sets on kycflow_app"},
	{"KYCFLOW_WORKER_DB_PASSWORD", "", "database", []string{"migrate"}, "password migrate sets on kycflow_worker"},
	{"DB_MAX_CONNS", "20", "database", serving, "connection pool size per process"},
	{"KYCFLOW_API_KEY", "", "database", []string{"check"}, "the tenant's API key check review decides as (its reviewer is who the key is; four eyes needs another key, or the console)"},
	// api
	{"HTTP_ADDR", "", "api", []string{"api", "dev", "proxy"}, "listen address (api, proxy: :8080; dev: 127.0.0.1:8080)"},
	{"PROXY_UPSTREAMS", "", "api", []string{"proxy"}, "the api processes the proxy spreads requests over: host:port, comma-separated (a name with several addresses reaches each)"},
	{"PUBLIC_URL", "http://localhost:8080", "api", []string{"api", "worker", "dev", "staff"}, "where people open verification links (and staff create's invitation link its scheme and port); https:// unless loopback"},
	{"PUBLIC_URL_ALLOW_HTTP", "", "api", serving, "1: allow an http:// PUBLIC_URL on another host (TLS ends in a proxy on it)"},
	{"RATE_LIMIT", "2000", "api", apiSide, "requests per second per tenant (0: off)"},
	{"IP_RATE_LIMIT", "2000", "api", apiSide, "requests per second per client address, before authentication"},
	{"AUTH_FAILURE_LIMIT", "30", "api", apiSide, "failed authentications per minute per client address"},
	{"VERIFY_RATE_LIMIT", "120", "api", apiSide, "requests per minute per client address on /verify"},
	{"VERIFY_FAILURE_LIMIT", "10", "api", apiSide, "unknown links per minute per client address on /verify"},
	{"SCREEN_CPU_LIMIT", "0.5", "api", apiSide, "CPU-seconds per second a tenant's POST /api/v1/screen may take, per api process (0: off)"},
	{"TRUSTED_PROXIES", "", "api", apiSide, "addresses or CIDR ranges whose X-Forwarded-For names the client"},
	// worker
	{"TEMPORAL_ADDRESS", "127.0.0.1:7233", "worker", temporalSide, "Temporal frontend"},
	{"TEMPORAL_NAMESPACE", "default", "worker", temporalSide, "Temporal namespace"},
	{"RELAY_CONCURRENCY", "2", "worker", workSide, "Temporal calls the outbox relay makes at once"},
	{"RELAY_SWEEP_MS", "1000", "worker", workSide, "the relay's backstop poll, in milliseconds"},
	{"WORKFLOW_POLLERS", "8", "worker", workSide, "workflow task pollers"},
	{"WATCHLIST_REFRESH", "10s", "worker", workSide, "how often the worker looks for new list versions"},
	{"WATCHLIST_MAX_AGE", "48h", "worker", serving, "a loaded list imported longer ago makes /healthz answer degraded (lists are refreshed daily)"},
	{"API_WATCHLISTS", "on", "api", []string{"api"}, "off: this api process loads no watchlist (saving the index's memory) and POST /api/v1/screen answers 503"},
	{"HEALTH_ADDR", "", "worker", serving, "where /healthz, /readyz and /metrics are served (worker: :8081; api: :8082; dev: 127.0.0.1:8081); off: nowhere"},
	{"PROVIDER_RETRY_INITIAL", workflows.DefaultRetryInitial.String(), "worker", workSide, "provider-call backoff start"},
	{"PROVIDER_RETRY_MAX", workflows.DefaultRetryMaximum.String(), "worker", workSide, "provider-call backoff cap"},
	{"PROVIDER_RETRY_WINDOW", workflows.DefaultRetryWindow.String(), "worker", workSide, "how long an outage is retried before the check fails"},
	// providers
	{"KVK_BASE_URL", "", "providers", workSide, "KvK API (https://api.kvk.nl; dev: its sandbox when unset)"},
	{"KVK_API_KEY", "", "providers", workSide, "KvK API key; without it coc checks of Dutch businesses fail provider_not_configured"},
	{"KVK_ROOT_CA", "", "providers", workSide, "PEM file with extra root certificates for the KvK"},
	{"KVK_TIMEOUT", "15s", "providers", workSide, "per KvK call"},
	{"KVK_RATE", "100", "providers", workSide, "KvK calls per second, across all workers"},
	{"VIES_BASE_URL", "", "providers", workSide, "VIES REST (the European Commission's; dev: its sandbox when unset)"},
	{"VIES_REQUESTER", "", "providers", workSide, "your VAT number, for consultation numbers"},
	{"VIES_TIMEOUT", "30s", "providers", workSide, "per VIES call"},
	{"VIES_MS_RATE", "10", "providers", workSide, "VIES consultations per second per member state, across all workers"},
	{"VIES_MS_CONCURRENCY", "2", "providers", workSide, "VIES consultations in flight per member state, across all workers"},
	{"IDIN_BASE_URL", "", "providers", serving, "the iDIN broker (CM.com's API; dev: its sandbox)"},
	{"IDIN_MERCHANT_TOKEN", "", "providers", serving, "iDIN merchant token; without it idin checks fail provider_not_configured"},
	// mail
	{"SMTP_HOST", "", "mail", serving, "mail relay for link mails and (the api) the console's invitations (dev: its mail catcher)"},
	{"SMTP_PORT", "", "mail", serving, "SMTP port (by SMTP_TLS: 587, 465 for tls, 25 for none)"},
	{"SMTP_USERNAME", "", "mail", serving, "SMTP AUTH user"},
	{"SMTP_PASSWORD", "", "mail", serving, "SMTP AUTH password"},
	{"SMTP_TLS", "starttls", "mail", serving, "starttls (mandatory), tls (implicit) or none"},
	{"SMTP_FROM", "kycflow <no-reply@kycflow.localhost>", "mail", serving, "sender of link mails and invitations"},
	// webhooks
	{"WEBHOOK_SECRET_KEY", "", "webhooks", append(slices.Clone(serving), "webhook"), "32 bytes (64 hex digits, or base64) that seal endpoints' signing secrets; unset: webhooks are off (dev: a key kept in KYCFLOW_DATA_DIR)"},
	{"WEBHOOK_ALLOW_NETS", "", "webhooks", append(slices.Clone(serving), "webhook"), "CIDR ranges sandbox tenants' deliveries may reach although private (dev: 127.0.0.0/8,::1/128); unset: none"},
	{"WEBHOOK_ALLOW_HTTP", "", "webhooks", []string{"api", "dev", "webhook"}, "1: live tenants may register http:// endpoints (sandbox tenants always may)"},
	// the console
	{"STAFF_KEY", "", "console", []string{"api", "worker", "dev", "staff"}, "32 bytes (64 hex digits, or base64) that seal the console's staff's second-factor secrets and key the hashes of their passwords, sessions and invitations (staff create and invite need the api's); unset: the console is off (dev: a key kept in KYCFLOW_DATA_DIR)"},
	{"IMAGE_KEYS", "", "documents", serving, "keys sealing idscan photos and typed MRZs at rest: ID:KEY pairs (KEY 32 bytes, hex or base64), comma-separated, the first sealing; unset: photo uploads and typed MRZs are off (dev: a key kept in KYCFLOW_DATA_DIR)"},
	{"DOCUMENT_READERS", "1", "documents", workSide, "photos of documents one worker reads at once (each takes a core for about a second)"},
	{"KYCFLOW_OCRB_FONT", ocrb.DefaultPath, "documents", []string{"worker", "dev", "idscan"}, "the OCR-B font the document reader matches MRZ characters against (Debian package fonts-ocr-b)"},
	{"FACE_MODELS", face.DefaultDir(), "documents", []string{"api", "worker", "dev", "face"}, "the face models' folder (make face-models installs them there): the worker judges selfies with them, the api guides the selfie's live view"},
	// dev and sandboxes
	{"KYCFLOW_DATA_DIR", ".data", "dev", []string{"dev", "chaos", "staff"}, "where PostgreSQL and Temporal keep their data (and dev its keys, which staff create reads without STAFF_KEY)"},
	{"DEV_PG_PORT", "55432", "dev", devOnly, "the local PostgreSQL's port"},
	{"DEV_TEMPORAL_PRAGMAS", "", "dev", devOnly, "SQLite pragmas of the Temporal dev server (set empty for SQLite's defaults)"},
	{"DEV_SMTP_ADDR", "127.0.0.1:1025", "dev", devOnly, "the mail catcher's SMTP"},
	{"DEV_MAIL_UI_ADDR", "127.0.0.1:8025", "dev", devOnly, "the mail catcher's page"},
	{"DEV_WEBHOOK_ADDR", "127.0.0.1:8026", "dev", devOnly, "the webhook catcher (receiver and page)"},
	{"CLUSTER_PORT_BASE", "18080", "dev", devOnly, "dev --cluster: apis on base+1…, their /metrics on base+101…, the workers' on base+111…, Temporal's services on base+150…157"},
	{"SANDBOX_KVK_ADDR", "127.0.0.1:8091", "dev", sandbox, "the KvK sandbox"},
	{"SANDBOX_VIES_ADDR", "127.0.0.1:8092", "dev", sandbox, "the VIES sandbox"},
	{"SANDBOX_IDIN_ADDR", "127.0.0.1:8093", "dev", sandbox, "the iDIN sandbox and its test bank"},
	// every process
	{"LOG_LEVEL", "info", "all", append(slices.Clone(serving), admin...), "debug logs every request (never bodies)"},
	{"PPROF_ADDR", "", "all", serving, "serve Go's pprof here (e.g. 127.0.0.1:6060)"},
}

var groupTitles = map[string]string{
	"database": "Database", "api": "API", "worker": "Worker", "providers": "Providers",
	"mail": "Link mails", "webhooks": "Webhooks", "documents": "Identity documents", "console": "The staff's console", "dev": "Development stack and sandboxes", "all": "Every process",
}

// lookup is a setting's value: the environment's, else its default.
func lookup(name string) string {
	if v, _ := lookupSet(name); v != "" {
		return v
	}
	return find(name).def
}

// lookupSet is a setting's value in the environment, and whether it is set
// there at all (some settings mean something when set empty).
func lookupSet(name string) (string, bool) {
	find(name) // only names in the table
	return os.LookupEnv(name)
}

// find finds a setting; a name missing from the table is a programming
// error.
func find(name string) setting {
	for _, s := range settings {
		if s.name == name {
			return s
		}
	}
	panic("kycflow: setting " + name + " is not in the settings table")
}

// printSettings writes the environment variables command reads.
func printSettings(w io.Writer, command string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Environment (kycflow %s):\n", command)
	group := ""
	for _, s := range settings {
		if !slices.Contains(s.commands, command) {
			continue
		}
		if s.group != group {
			group = s.group
			fmt.Fprintf(tw, "  %s\t\t\n", groupTitles[group])
		}
		def := s.def
		if def == "" {
			def = "—"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", s.name, def, s.help)
	}
	tw.Flush()
}
