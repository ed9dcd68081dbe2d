package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/lib/pq"
	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// AppRole is the role the api and worker connect as: it owns nothing and has
// no BYPASSRLS, so row-level security always applies to it.
const AppRole = "kycflow_app"

// Migrate brings the schema up to date. It must run as the schema owner (a
// role with BYPASSRLS, or a superuser, so the relay's outbox functions see every
// tenant's rows). It creates AppRole when missing, with appPassword when given.
func Migrate(ctx context.Context, ownerDSN, appPassword string) error {
	s, err := Open(ctx, ownerDSN, 2)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.ensureAppRole(ctx, appPassword); err != nil {
		return err
	}
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, s.db.DB, sub)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

func (s *Store) ensureAppRole(ctx context.Context, password string) error {
	var exists bool
	if err := s.db.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, AppRole); err != nil {
		return classify(err)
	}
	stmt := "ALTER ROLE " + pq.QuoteIdentifier(AppRole)
	if !exists {
		stmt = "CREATE ROLE " + pq.QuoteIdentifier(AppRole)
	}
	stmt += " LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE"
	if password != "" {
		stmt += " PASSWORD " + pq.QuoteLiteral(password)
	}
	if _, err := s.db.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("ensure role %s: %w", AppRole, err)
	}
	return nil
}
