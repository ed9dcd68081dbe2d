package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// PageQuery asks for one keyset page, newest first. At most one of After
// (items older than this id: the next page) and Before (items newer: the
// previous page) is set.
type PageQuery struct {
	After  *uuid.UUID
	Before *uuid.UUID
	Limit  int
	// OldestFirst turns the order (a queue's): the next page is newer.
	OldestFirst bool
}

// Page is one page of rows plus whether pages exist on either side.
type Page[T any] struct {
	Items   []T
	HasNext bool
	HasPrev bool
}

// listPage runs a keyset page over `table` for a tenant. args[0] is the tenant
// id ($1); where holds extra conditions on $2.. (args[1:]). Rows are selected with `cols` into T and must
// expose their id through idOf.
func listPage[T any](ctx context.Context, tx *sqlx.Tx, table, cols, where string, args []any, q PageQuery, idOf func(T) uuid.UUID) (Page[T], error) {
	var p Page[T]
	base := fmt.Sprintf("FROM %s WHERE tenant_id = $1%s", table, where)
	cursorArg := fmt.Sprintf("$%d", len(args)+1)
	query := "SELECT " + cols + " " + base
	// Newest first: the next page holds smaller ids; oldest first, larger.
	next, prev, forward, backward := " < ", " > ", " ORDER BY id DESC", " ORDER BY id ASC"
	if q.OldestFirst {
		next, prev, forward, backward = prev, next, backward, forward
	}
	order := forward
	switch {
	case q.After != nil:
		query += " AND id" + next + cursorArg
		args = append(args, *q.After)
	case q.Before != nil:
		query += " AND id" + prev + cursorArg
		order = backward
		args = append(args, *q.Before)
	}
	query += order + fmt.Sprintf(" LIMIT %d", q.Limit+1)
	if err := tx.SelectContext(ctx, &p.Items, query, args...); err != nil {
		return p, fmt.Errorf("list %s: %w", table, err)
	}
	more := len(p.Items) > q.Limit
	if more {
		p.Items = p.Items[:q.Limit]
	}
	if q.Before != nil {
		slices.Reverse(p.Items)
		p.HasPrev = more
	} else {
		p.HasNext = more
	}
	if len(p.Items) == 0 || (q.After == nil && q.Before == nil) {
		return p, nil
	}
	// The far side of a cursor is checked, not assumed: rows may have been deleted.
	probe, op := idOf(p.Items[0]), prev
	if q.Before != nil {
		probe, op = idOf(p.Items[len(p.Items)-1]), next
	}
	var exists bool
	eargs := append(args[:len(args)-1:len(args)-1], probe)
	if err := tx.GetContext(ctx, &exists, "SELECT EXISTS (SELECT 1 "+base+" AND id"+op+cursorArg+")", eargs...); err != nil {
		return p, fmt.Errorf("list %s: %w", table, err)
	}
	if q.Before != nil {
		p.HasNext = exists
	} else {
		p.HasPrev = exists
	}
	return p, nil
}
