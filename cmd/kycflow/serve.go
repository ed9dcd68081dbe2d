package main

import (
	"context"
	"fmt"
	"net"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/store"
)

func runMigrate(ctx context.Context, cfg app.Config, _ []string) error {
	if err := store.Migrate(ctx, cfg.DatabaseAdminURL, cfg.DBPasswords); err != nil {
		return err
	}
	fmt.Println("schema up to date")
	return nil
}

func runAPI(ctx context.Context, cfg app.Config, _ []string) error {
	if !cfg.APIWatchlists {
		app.CollectAt(app.GCAPI)
	}
	a, err := app.NewAPI(ctx, cfg, app.Shared{})
	if err != nil {
		return err
	}
	defer a.Close()
	log := cfg.Logger()
	go app.ServeOps(ctx, cfg.HealthAddrFor("api"), a.Probes, a.Metrics, log)
	ln, err := net.Listen("tcp", cfg.HTTPAddrFor(false))
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}
	log.Info("api listening", "addr", ln.Addr().String())
	return a.Serve(ctx, ln)
}

func runWorker(ctx context.Context, cfg app.Config, _ []string) error {
	app.CollectAt(app.GCWorker)
	w, err := app.NewWorker(ctx, cfg, app.Shared{})
	if err != nil {
		return err
	}
	defer w.Close()
	go app.ServeOps(ctx, cfg.HealthAddrFor("worker"), w.Probes, w.Metrics, cfg.Logger())
	return w.Run(ctx)
}
