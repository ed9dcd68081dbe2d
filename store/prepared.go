package store

import (
	"context"
	"database/sql"
	"fmt"
)

// prepared runs q, whose text never varies with its arguments, on the pool
// as a prepared statement: PostgreSQL parses it once per connection and,
// after a few runs, keeps one generic plan, where an unprepared statement is
// parsed and planned on every run.
func (s *Store) prepared(ctx context.Context, q string, args ...any) error {
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
