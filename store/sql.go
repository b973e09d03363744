package store

// The store's SQL helpers, all in this file: the querier every read helper
// takes, row iteration, pages and capped counts, lists bound as one
// parameter, and the conversions of times, nullable ids and id lists.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// querier is what read helpers need. The statement cache (s.read), a *Tx
// and a *sql.DB all have it, so a preview reads outside a transaction and
// the change itself repeats the same read inside one.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var (
	_ querier = (*stmtCache)(nil)
	_ querier = (*Tx)(nil)
	_ querier = (*sql.DB)(nil)
)

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// queryAll runs a query on q and calls fn for every row.
func queryAll(ctx context.Context, q querier, query string, args []any, fn func(scanner) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("store: query: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// pageIDs runs a read query returning one id a row.
func (s *Store) pageIDs(ctx context.Context, query string, args []any) ([]int64, error) {
	return queryIDs(ctx, s.read, query, args...)
}

// queryIDs runs a query on q returning one id a row.
func queryIDs(ctx context.Context, q querier, query string, args ...any) ([]int64, error) {
	var ids []int64
	err := queryAll(ctx, q, query, args, func(r scanner) error {
		var id int64
		err := r.Scan(&id)
		ids = append(ids, id)
		return err
	})
	return ids, err
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// pageSQL ends a query with its page; pageArgs gives the two arguments.
// They are parameters, not text, so every page of a query is one statement
// (the statement cache holds a bounded set).
const pageSQL = " LIMIT ? OFFSET ?"

// pageArgs returns a copy of args followed by the LIMIT and OFFSET of a
// page; limit <= 0 means no limit.
func pageArgs(args []any, limit, offset int) []any {
	if limit <= 0 {
		limit = -1
	}
	return append(append(make([]any, 0, len(args)+2), args...), limit, max(offset, 0))
}

// countQuery counts the rows of from matching cond; with countCap > 0 it
// stops countCap rows past the page (the bound is a parameter, countArgs).
func countQuery(from, cond string, countCap int) string {
	if countCap > 0 {
		return `SELECT COUNT(*) FROM (SELECT 1 FROM ` + from + ` WHERE ` + cond + ` LIMIT ?)`
	}
	return `SELECT COUNT(*) FROM ` + from + ` WHERE ` + cond
}

// countArgs are the arguments of countQuery: args, then the bound.
func countArgs(args []any, offset, limit, countCap int) []any {
	if countCap <= 0 {
		return args
	}
	return append(append(make([]any, 0, len(args)+1), args...), max(offset, 0)+limit+countCap)
}

// listArg passes a list of any length as ONE parameter, a JSON array, which
// the query reads with json_each:
//
//	WHERE r.id IN (SELECT value FROM json_each(?))
//
// so the query text, and its cached statement, is the same for every
// length, and no list runs into SQLite's limit on parameters. An empty list
// matches nothing. JSON integers come back as INTEGER and strings as TEXT,
// so they compare with the columns as bound values would.
func listArg[T ~int64 | ~string](list []T) string {
	b, _ := json.Marshal(nonNil(list))
	return string(b)
}

// ftsPhrase quotes a term as an FTS5 phrase, for MATCH.
func ftsPhrase(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }

// likeEscape escapes LIKE's wildcards; the query says ESCAPE '\'.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// placeholders is "?,?,…" for a list whose length is fixed in the code (a
// constant set of statuses); lists that vary go through listArg.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// parseSeqs reads a group_concat of integers.
func parseSeqs(s string) []int64 {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := make([]int64, 0, len(parts))
	for _, p := range parts {
		var v int64
		fmt.Sscan(p, &v)
		out = append(out, v)
	}
	return out
}

// nullInt stores an unset id (0) as NULL.
func nullInt(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

// Times are stored as UTC RFC 3339 text.
const timeLayout = time.RFC3339

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func formatTimePtr(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return formatTime(*t)
}

func parseTime(s string) time.Time {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		t, _ = time.Parse(time.RFC3339Nano, s)
	}
	return t.UTC()
}

// NullTime scans a nullable RFC 3339 column.
type NullTime struct{ Time *time.Time }

// Scan implements sql.Scanner.
func (n *NullTime) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		n.Time = nil
	case string:
		t := parseTime(x)
		n.Time = &t
	case []byte:
		t := parseTime(string(x))
		n.Time = &t
	default:
		return fmt.Errorf("store: cannot scan %T into time", v)
	}
	return nil
}
