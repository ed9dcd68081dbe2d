package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/api/console"
	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/ops"
	"github.com/kycflow/kycflow/providers/mail"
	"github.com/kycflow/kycflow/reviews"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
)

// API is a built api process: its handler and what it holds.
type API struct {
	Store   *store.Store // as kycflow_app
	Lists   *screening.Lists
	Metrics *metrics.Metrics
	Probes  ops.Probes
	Handler http.Handler
	closers
}

// NewAPI builds the api: its database pool (as kycflow_app), Temporal (aml
// reviews are Updates of the check's workflow), the watchlist index for
// POST /api/v1/screen (sh's, or its own with API_WATCHLISTS on, refreshed
// until ctx ends) and the handler. Close releases what it opened.
func NewAPI(ctx context.Context, cfg Config, sh Shared) (_ *API, err error) {
	a := &API{}
	defer func() {
		if err != nil {
			a.close()
		}
	}()
	if err := cfg.CheckPublicURL(); err != nil {
		return nil, err
	}
	if err := sh.fill(cfg, "api", &a.closers); err != nil {
		return nil, err
	}
	log := sh.Logger
	if a.Store, err = openStore(ctx, cfg, store.AppRole, &a.closers); err != nil {
		return nil, err
	}
	a.Lists, a.Metrics = sh.Lists, sh.Metrics
	if a.Lists == nil && cfg.APIWatchlists { // the workers rescreen; an api only screens
		a.Lists = newLists(a.Store, log, false)
		go a.Lists.Run(ctx, cfg.WatchlistRefresh, nil)
		a.Metrics.Lists(a.Lists.Versions)
	}
	hooks, err := cfg.Webhooks()
	if err != nil {
		return nil, err
	}
	if hooks.Cipher == nil {
		log.Warn("webhooks are off: set WEBHOOK_SECRET_KEY to let tenants register endpoints")
	}
	// Every request authenticates: repeats are answered from memory, which
	// a key's revocation clears on every api process within a second.
	a.Store.CacheAuthentications(ctx, func(err error) { log.Warn("authentication cache listener", "error", err) })
	a.Metrics.Creates(a.Store.CreateStats)
	a.Probes = probes(cfg, a.Store, sh.Temporal, a.Lists)
	images, err := cfg.Images()
	if err != nil {
		return nil, err
	}
	if images == nil {
		log.Warn("idscan photo uploads are off: set IMAGE_KEYS (the workers' too)")
	}
	if cfg.StaffKey == "" {
		log.Warn("the console is off: set STAFF_KEY")
	}
	reviewer := reviews.Client{Store: a.Store, Temporal: sh.Temporal}
	public, err := url.Parse(cfg.PublicURL)
	if err != nil {
		return nil, fmt.Errorf("PUBLIC_URL: %w", err)
	}
	ccfg := console.Config{Store: a.Store, Log: log, Key: cfg.StaffKey, Reviews: reviewer, Images: images, PublicURL: public}
	if m, err := cfg.mailer(); err != nil {
		return nil, err
	} else if m != nil {
		ccfg.Invitations = invitations{mailer: m, store: a.Store}
	} else {
		log.Warn("the console's invitations are not mailed (no SMTP_HOST): an admin passes each link on")
	}
	con, err := console.New(ccfg)
	if err != nil {
		return nil, fmt.Errorf("STAFF_KEY: %w", err)
	}
	conf := api.Config{Store: a.Store, Logger: log, Limits: cfg.Limits, PublicURL: cfg.PublicURL, IDIN: cfg.IDINBroker(), Webhooks: hooks,
		Reviews: reviewer, Probes: a.Probes, Metrics: a.Metrics, Images: images, Console: con,
		Faces: faceLoader(cfg.FaceModels)}
	if a.Lists != nil {
		conf.Screener = a.Lists
	}
	a.Handler = api.New(conf)
	return a, nil
}

// Close releases the pool and clients the api opened.
func (a *API) Close() { a.close() }

// Serve serves the api on ln until ctx ends, then shuts down gracefully.
func (a *API) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: a.Handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
		IdleTimeout: 30 * time.Second} // kycflow proxy closes its idle connections sooner
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("api: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// invitations mails the console's invitation links, in the tenant's
// name, through the link mailer.
type invitations struct {
	mailer *mail.Mailer
	store  *store.Store
}

func (i invitations) Invite(ctx context.Context, inv console.Invitation) error {
	name, err := i.store.TenantName(ctx, inv.TenantID)
	if err != nil {
		return err
	}
	return i.mailer.SendLink(ctx, mail.LinkMail{To: inv.To, TenantName: name, Purpose: mail.PurposeConsole, URL: inv.URL,
		ExpiresAt: inv.ExpiresAt, Lang: inv.Lang, Role: inv.Role})
}
