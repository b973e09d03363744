package store

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStmts bounds the statement cache. Queries bind their values,
// pages, count bounds and lists (one JSON parameter, see listArg) as
// parameters, so the product's read queries form a fixed set well below
// it; a query past the bound runs unprepared and nothing already cached is
// closed (statements close only with the store).
const maxCachedStmts = 512

// stmtCache prepares each distinct read query once (database/sql then keeps
// it prepared on every connection that runs it), so busy pages skip
// SQLite's parser, which otherwise costs a fifth of a page's CPU.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// stmt returns the cached statement of query, preparing it the first time;
// nil (and no error) when the cache is full and query is not in it.
func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	st, full := c.m[query], len(c.m) >= maxCachedStmts
	c.mu.Unlock()
	if st != nil || full {
		return st, nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[query]; old != nil {
		st.Close()
		return old, nil
	}
	if len(c.m) >= maxCachedStmts {
		st.Close()
		return nil, nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = st
	return st, nil
}

// QueryContext runs a read query through its cached statement.
func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs a one-row read query through its cached statement.
func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := c.stmt(ctx, query)
	if err != nil || st == nil {
		// Uncached, or let database/sql report the same error through the Row.
		return c.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// close closes every cached statement when the store closes (statements in
// use close when released).
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		st.Close()
		delete(c.m, q)
	}
}
