package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// prepared runs q, whose text never varies with its arguments, on the pool
// as a prepared statement: PostgreSQL parses it once per connection and,
// after a few runs, keeps one generic plan, where an unprepared statement is
// parsed and planned on every run. In tx (not nil) it runs unprepared:
// preparing on the pool would need a second connection while tx holds one,
// and enough transactions doing so at once would wait on each other.
func (s *Store) prepared(ctx context.Context, tx *sqlx.Tx, q string, args ...any) error {
	if tx != nil {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}
	stmt, err := s.statement(ctx, q)
	if err != nil {
		return err
	}
	_, err = stmt.ExecContext(ctx, args...)
	return err
}

// statement is q prepared on the pool, prepared on first use. database/sql
// prepares it again on each connection that runs it.
func (s *Store) statement(ctx context.Context, q string) (*sql.Stmt, error) {
	if stmt, ok := s.stmts.Load(q); ok {
		return stmt.(*sql.Stmt), nil
	}
	stmt, err := s.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if prev, loaded := s.stmts.LoadOrStore(q, stmt); loaded {
		stmt.Close()
		return prev.(*sql.Stmt), nil
	}
	return stmt, nil
}
