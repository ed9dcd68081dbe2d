// Package api is kycflow's HTTP API: routes, request validation at the edge,
// tenant and key authentication, error mapping and JSON shapes. It never
// calls a provider or Temporal itself: checks reach workflows through the
// outbox, and reviews through the Reviewer it is given.
package api

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/kycflow/kycflow/api/verify"
	"github.com/kycflow/kycflow/docs"
	"github.com/kycflow/kycflow/documents"
	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/ops"
	"github.com/kycflow/kycflow/providers/idin"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

// Config configures the API.
type Config struct {
	Store  *store.Store
	Logger *slog.Logger
	// Limits are the request budgets (zero: no limits).
	Limits Limits
	// PublicURL is where people reach this API's verification pages
	// (links are {PublicURL}/verify/{token}); default http://localhost:8080.
	PublicURL string
	// IDIN is the iDIN broker the idin pages start bank transactions with;
	// nil: idin links show "not available".
	IDIN idin.Broker
	// Webhooks configures webhook endpoints.
	Webhooks Webhooks
	// Reviews sends reviews of aml hits to the checks' workflows; nil:
	// reviews answer 503.
	Reviews Reviewer
	// Screener answers POST /api/v1/screen; nil: it answers 503.
	Screener screening.Screener
	// Probes answer /healthz and /readyz (the same as on the process's
	// operations address).
	Probes ops.Probes
	// Metrics records every answered request; nil: none.
	Metrics *metrics.Metrics
	// Images seal idscan photos; nil: photo uploads answer 503 and the
	// checks' images cannot be shown.
	Images *documents.Keys
	// Faces loads the face engine that guides the selfie's live view;
	// nil: the person takes each frame by hand.
	Faces func() (*face.Engine, error)
	// Console serves /console/ (api/console); nil: not served.
	Console http.Handler
}

// consoleBusy answers a client past its budget on the console.
func consoleBusy(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusTooManyRequests)
	w.Write([]byte("Too many requests: wait a minute and try again.\n"))
}

// Server holds the API's dependencies.
type Server struct {
	store *store.Store
	log   *slog.Logger
	// publicURL has no trailing slash.
	publicURL string

	hooks                   Webhooks
	reviews                 Reviewer
	screener                screening.Screener
	probes                  ops.Probes
	metrics                 *metrics.Metrics
	limits                  Limits
	tenants                 sync.Map // tenant id → *rate.Limiter
	apiBudget, verifyBudget addressBudget
	screenBudget            *cpuBudget // nil: off
	images                  *documents.Keys
}

const principalKey = "principal"

// New builds the Echo server with every route.
func New(cfg Config) *echo.Echo {
	s := &Server{store: cfg.Store, log: cfg.Logger, publicURL: strings.TrimSuffix(cfg.PublicURL, "/"), limits: cfg.Limits,
		apiBudget:    addressBudget{all: perSecond(cfg.Limits.IP), fails: perMinute(cfg.Limits.AuthFailures)},
		verifyBudget: addressBudget{all: perMinute(cfg.Limits.Verify), fails: perMinute(cfg.Limits.VerifyFailures)},
		screenBudget: newCPUBudget(cfg.Limits.ScreenCPU)}
	s.hooks, s.reviews, s.screener, s.metrics, s.probes, s.images = cfg.Webhooks, cfg.Reviews, cfg.Screener, cfg.Metrics, cfg.Probes, cfg.Images
	if s.hooks.Guard == nil {
		s.hooks.Guard = &webhook.Guard{}
	}
	if s.publicURL == "" {
		s.publicURL = "http://localhost:8080"
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	e.IPExtractor = ipExtractor(cfg.Limits.TrustedProxies)
	e.Pre(middleware.RemoveTrailingSlash()) // /api/v1/businesses/ is the list too
	e.Use(requestIDs, secureHeaders)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.log.Error("panic", "request_id", requestID(c), "error", err, "stack", string(stack))
			return errServer
		},
	}))
	e.Use(s.accessLog)
	// After accessLog, which turns errors into answers: the guard must see
	// which requests failed authentication.
	e.Use(s.guardAPI)

	e.GET("/healthz", s.health)
	e.GET("/readyz", s.ready)
	// The contract, for client generators and validators: public, like the
	// document in the repository.
	e.GET("/api/v1/openapi.yaml", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/yaml", docs.OpenAPI)
	})

	// The pages people open from verification links: the token is the only
	// credential, so no tenant key and no Host-based tenant.
	vh := verify.New(cfg.Store, s.log, cfg.IDIN, s.publicURL, cfg.Images, cfg.Faces)
	pages, guard := echo.WrapHandler(vh), s.guardPages(vh.Busy, http.StatusNotFound)
	e.GET("/verify/:token", pages, guard)
	e.POST("/verify/:token", pages, guard)
	e.POST("/verify/:token/mrz", pages, guard)
	e.POST("/verify/:token/idin", pages, guard)
	e.GET("/verify/:token/return", pages, guard)
	e.POST("/verify/:token/document", pages, guard)
	e.POST("/verify/:token/selfie", pages, guard)
	e.POST("/verify/:token/selfie/look", pages, guard)
	e.GET("/verify/:token/status", pages, guard)
	e.GET("/verify/assets/capture.js", pages)
	e.GET("/verify/assets/selfie.js", pages)

	// The tenant's staff's console, on the tenant's own host (the tenant
	// is the host's; the session is the credential).
	if cfg.Console != nil {
		con, busy := echo.WrapHandler(cfg.Console), s.guardPages(consoleBusy, http.StatusNotFound, http.StatusUnauthorized)
		e.GET("/console", con, busy) // the home page (trailing slashes are removed before routing)
		e.GET("/console/*", con, busy)
		e.POST("/console/*", con, busy)
	}

	// Authentication is route middleware, not group middleware: Echo gives a
	// group with middleware catch-all routes, which would turn 405s into 404s.
	v1 := &routes{g: e.Group("/api/v1"), mw: []echo.MiddlewareFunc{s.authenticate, s.rateLimit, s.idempotent}}
	anyDelete := []string{http.MethodGet, http.MethodPost, http.MethodDelete}
	v1.POST("/businesses/create", s.createBusiness)
	v1.POST("/businesses/:id/check", s.checkBusiness)
	v1.GET("/businesses", s.listBusinesses)
	v1.GET("/businesses/:id", getSubject(s.store.GetBusiness, func(b store.BusinessWithChecks) any { return toBusiness(b) }))
	v1.Match(anyDelete, "/businesses/:id/delete", deleteSubject(s.store.DeleteBusiness))
	v1.POST("/customers/create", s.createCustomer)
	v1.POST("/customers/:id/check", s.checkCustomer)
	v1.GET("/customers", s.listCustomers)
	v1.GET("/customers/:id", getSubject(s.store.GetCustomer, func(c store.CustomerWithChecks) any { return toCustomer(c) }))
	v1.Match(anyDelete, "/customers/:id/delete", deleteSubject(s.store.DeleteCustomer))
	v1.POST("/checks/:id/retry", s.retryCheck)
	v1.POST("/checks/:id/review", s.reviewCheck)
	v1.GET("/checks/:id/images", s.listImages)
	v1.GET("/checks/:id/images/:n", s.getImage)
	v1.GET("/reviews", s.listReviews)
	v1.POST("/screen", s.screen)
	v1.GET("/watchlists", s.listWatchlists)
	v1.GET("/events", s.listEvents)
	v1.GET("/events/:id", s.getEvent)
	v1.POST("/events/:id/redeliver", s.redeliver)
	v1.POST("/webhooks", s.createWebhook)
	v1.GET("/webhooks", s.listWebhooks)
	v1.GET("/webhooks/:id", s.getWebhook)
	v1.DELETE("/webhooks/:id", s.deleteWebhook)
	v1.POST("/webhooks/:id/rotate-secret", s.rotateSecret)
	v1.GET("/webhooks/:id/deliveries", s.listDeliveries)
	return e
}

// routes registers handlers with the same middleware.
type routes struct {
	g  *echo.Group
	mw []echo.MiddlewareFunc
}

func (r *routes) GET(path string, h echo.HandlerFunc)  { r.g.GET(path, h, r.mw...) }
func (r *routes) POST(path string, h echo.HandlerFunc) { r.g.POST(path, h, r.mw...) }
func (r *routes) DELETE(path string, h echo.HandlerFunc) {
	r.g.DELETE(path, h, r.mw...)
}
func (r *routes) Match(methods []string, path string, h echo.HandlerFunc) {
	r.g.Match(methods, path, h, r.mw...)
}

// authenticate resolves the tenant from the Host header, then requires a
// bearer key of that same tenant.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		auth := c.Request().Header.Get(echo.HeaderAuthorization)
		scheme, key, ok := strings.Cut(strings.TrimSpace(auth), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			key = "" // still resolve the host: an unknown tenant is 404 whatever the key
		}
		p, err := s.store.Authenticate(c.Request().Context(), store.NormalizeHost(c.Request().Host), store.HashKey(strings.TrimSpace(key)))
		if err != nil {
			return err
		}
		c.Set(principalKey, p)
		return next(c)
	}
}

func principal(c echo.Context) store.Principal {
	p, _ := c.Get(principalKey).(store.Principal)
	return p
}

// accessLog logs each request at debug level and server errors at error
// level, with the request id and route, never bodies or query strings.
func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		status := c.Response().Status
		s.metrics.Request(c.Path(), c.Request().Method, status, time.Since(start))
		lvl := slog.LevelDebug
		if status >= 500 {
			lvl = slog.LevelError
		}
		if s.log.Enabled(c.Request().Context(), lvl) {
			s.log.Log(c.Request().Context(), lvl, "request", "request_id", requestID(c), "method", c.Request().Method,
				"route", c.Path(), "status", status, "duration_ms", time.Since(start).Milliseconds())
		}
		return nil
	}
}

// health is /healthz: the process is alive (degraded: a stale list).
func (s *Server) health(c echo.Context) error {
	code, body := s.probes.Health()
	return c.JSON(code, body)
}

// ready is /readyz: the database and Temporal answer.
func (s *Server) ready(c echo.Context) error {
	code, body := s.probes.Ready(c.Request().Context())
	return c.JSON(code, body)
}

// pathID parses the :id parameter; anything but a UUID is simply not found.
func pathID(c echo.Context) (uuid.UUID, error) {
	s := c.Param("id")
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return uuid.Nil, errNotFound
	}
	return id, nil
}
