package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// prepared runs q, whose text never varies with its arguments, as a prepared
// statement: PostgreSQL parses it once per connection and, after a few runs,
// keeps one generic plan, where an unprepared statement is parsed and planned
// on every run. In tx when tx is not nil, else on the pool.
func (s *Store) prepared(ctx context.Context, tx *sqlx.Tx, q string, args ...any) error {
	stmt, err := s.statement(ctx, q)
	if err != nil {
		return err
	}
	if tx != nil {
		// Closed with the transaction; reuses the connection's own copy.
		stmt = tx.StmtContext(ctx, stmt)
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
