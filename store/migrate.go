package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"fmt"
	"io/fs"

	"github.com/lib/pq"
	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// The database roles (docs/SECURITY.md has the whole matrix).
const (
	// OwnerRole owns the schema and every object in it, and is who the
	// SECURITY DEFINER functions run as. It cannot log in, is no superuser,
	// and has BYPASSRLS only so those narrow functions can answer across
	// tenants (the tables force row-level security on everyone else).
	OwnerRole = "kycflow_owner"
	// AppRole is the API's role: it owns nothing, has no BYPASSRLS, and
	// reaches keys and link tokens only through definer functions.
	AppRole = "kycflow_app"
	// WorkerRole is the worker's role: the check activities' reads and
	// writes, the watchlists, and the outbox relay's two functions.
	WorkerRole = "kycflow_worker"
)

// RolePasswords are set on the login roles by Migrate; empty leaves a role's
// password as it is (none on a new role: for trust or peer authentication).
type RolePasswords struct {
	App, Worker string
}

// Migrate brings the schema up to date. adminDSN must be a superuser (it
// creates the roles, one of them with BYPASSRLS): it prepares the roles and
// the schema's ownership, then runs the migrations as OwnerRole, so what they
// create is owned by that role and never by a superuser.
func Migrate(ctx context.Context, adminDSN string, pw RolePasswords) error {
	s, err := Open(ctx, adminDSN, 1)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.ensureRoles(ctx, pw); err != nil {
		return err
	}
	if err := s.handOver(ctx); err != nil {
		return err
	}
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	conn, err := pq.NewConnector(withBinaryParameters(adminDSN))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	db := sql.OpenDB(asRole{conn, OwnerRole})
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

func (s *Store) ensureRoles(ctx context.Context, pw RolePasswords) error {
	roles := []struct{ name, attrs, password string }{
		{OwnerRole, "NOLOGIN NOSUPERUSER BYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION", ""},
		{AppRole, "LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION", pw.App},
		{WorkerRole, "LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION", pw.Worker},
	}
	for _, r := range roles {
		var exists bool
		if err := s.db.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, r.name); err != nil {
			return classify(err)
		}
		stmt := "ALTER ROLE "
		if !exists {
			stmt = "CREATE ROLE "
		}
		stmt += pq.QuoteIdentifier(r.name) + " " + r.attrs
		if r.password != "" {
			stmt += " PASSWORD " + pq.QuoteLiteral(r.password)
		}
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("ensure role %s: %w", r.name, err)
		}
	}
	return nil
}

// handOver gives the schema and everything in it to OwnerRole (databases
// migrated before the owner role existed belong to the superuser), and closes
// the database to everyone but the three roles: no temporary objects (the
// stuff of search_path attacks), no creating in public, no connecting.
func (s *Store) handOver(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DO $do$
DECLARE
    r record;
    owner constant text := '`+OwnerRole+`';
BEGIN
    EXECUTE format('ALTER SCHEMA public OWNER TO %I', owner);
    -- Tables first: their sequences and indexes follow them.
    FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c
             WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
               AND pg_get_userbyid(c.relowner) <> owner
             ORDER BY c.relkind = 'S' LOOP
        IF r.relkind = 'S' THEN
            IF pg_get_userbyid((SELECT relowner FROM pg_class WHERE oid = r.name)) <> owner THEN
                EXECUTE format('ALTER SEQUENCE %s OWNER TO %I', r.name, owner);
            END IF;
        ELSE
            EXECUTE format('ALTER TABLE %s OWNER TO %I', r.name, owner);
        END IF;
    END LOOP;
    FOR r IN SELECT p.oid::regprocedure AS name FROM pg_proc p
             WHERE p.pronamespace = 'public'::regnamespace AND pg_get_userbyid(p.proowner) <> owner LOOP
        EXECUTE format('ALTER FUNCTION %s OWNER TO %I', r.name, owner);
    END LOOP;
    EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I, %I', current_database(), '`+AppRole+`', '`+WorkerRole+`');
    REVOKE ALL ON SCHEMA public FROM PUBLIC;
    EXECUTE format('GRANT USAGE ON SCHEMA public TO %I, %I', '`+AppRole+`', '`+WorkerRole+`');
END $do$`)
	if err != nil {
		return fmt.Errorf("hand the schema to %s: %w", OwnerRole, err)
	}
	return nil
}

// asRole opens every connection as role (SET ROLE), so that all a
// migration creates is owned by it, whichever pooled connection runs it.
type asRole struct {
	driver.Connector
	role string
}

func (c asRole) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("driver cannot run SET ROLE")
	}
	if _, err := ex.ExecContext(ctx, "SET ROLE "+pq.QuoteIdentifier(c.role), nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("set role %s: %w", c.role, err)
	}
	return conn, nil
}
