package postgres

// SQL helpers of the memory and governance part of the store (rules,
// candidates, episodes, the heartbeat), the counterparts of the SQLite
// store's store/sql.go: one interface for the pool and a transaction, row
// iteration, capped counts and the conversions of lists and JSON columns.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// dbtx is the pool or a transaction: a read helper runs outside a
// transaction (a page) or inside one (a change repeating the same read, a
// beat's snapshot).
type dbtx interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// queryAll runs a query on q and calls fn for every row.
func queryAll(ctx context.Context, q dbtx, query string, args []any, fn func(pgx.Row) error) error {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("postgres: query: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// queryIDs runs a query returning one id a row.
func queryIDs(ctx context.Context, q dbtx, query string, args []any) ([]int64, error) {
	var ids []int64
	err := queryAll(ctx, q, query, args, func(r pgx.Row) error {
		var id int64
		err := r.Scan(&id)
		ids = append(ids, id)
		return err
	})
	return ids, err
}

// countRows counts the rows of from matching w; with countCap > 0 it stops
// countCap rows past the page, as the SQLite store's countQuery does.
func countRows(ctx context.Context, q dbtx, from string, w *where, offset, limit, countCap int) (int, error) {
	query, args := `SELECT count(*) FROM `+from+` WHERE `+w.String(), w.args
	if countCap > 0 {
		args = append(append([]any{}, w.args...), max(offset, 0)+limit+countCap)
		query = fmt.Sprintf(`SELECT count(*) FROM (SELECT 1 FROM %s WHERE %s LIMIT $%d) c`, from, w.String(), len(args))
	}
	var n int
	if err := q.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count: %w", err)
	}
	return n, nil
}

// strs converts a list of a string type (statuses, kinds) for ANY($n).
func strs[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

// jsonList is the JSON text of a list column (findings), [] for none.
func jsonList[T any](list []T) string {
	if list == nil {
		list = []T{}
	}
	b, _ := json.Marshal(list)
	return string(b)
}

// likeEscape escapes ILIKE's wildcards (the default escape is \).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// mustJSON is the JSON of an audit row's details ("" for none).
func mustJSON(v any) (string, error) {
	if v == nil {
		return "", nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}
