package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// The keys of tombstones (governance/forgetplan, migration 0014).

// forgetKey returns the project's event-tombstone key, made on first use.
func forgetKey(ctx context.Context, tx *Tx, projectID int64) ([]byte, error) {
	k, err := forgetplan.NewKey()
	if err != nil {
		return nil, err
	}
	if err := tx.QueryRow(ctx, `INSERT INTO forget_keys (project_id, key) VALUES ($1, $2)
		ON CONFLICT (project_id) DO UPDATE SET key = forget_keys.key RETURNING key`, projectID, k).Scan(&k); err != nil {
		return nil, fmt.Errorf("postgres: forget key: %w", err)
	}
	return k, nil
}

// subjectKey returns the key of a project's subject, made on first use.
func subjectKey(ctx context.Context, tx *Tx, projectID int64, subjectID string) ([]byte, error) {
	k, err := forgetplan.NewKey()
	if err != nil {
		return nil, err
	}
	if err := tx.QueryRow(ctx, `INSERT INTO subject_keys (project_id, subject_id, key) VALUES ($1, $2, $3)
		ON CONFLICT (project_id, subject_id) DO UPDATE SET key = subject_keys.key RETURNING key`, projectID, subjectID, k).Scan(&k); err != nil {
		return nil, fmt.Errorf("postgres: subject key: %w", err)
	}
	return k, nil
}

// rewriteCol is a column tombstoneRows rewrites: value gives the new value
// from the old; assign, when set, is the assignment's right-hand side,
// with %s for the new value (else the new value itself).
type rewriteCol struct {
	name   string
	value  func(old string) string
	assign string
}

// tombstoneOf rewrites a column to its tombstone under key.
func tombstoneOf(name string, key []byte, prefix string) rewriteCol {
	return rewriteCol{name: name, value: func(old string) string { return forgetplan.Tombstone(key, prefix, old) }}
}

// fixed rewrites a column to v.
func fixed(name, v string) rewriteCol {
	return rewriteCol{name: name, value: func(string) string { return v }}
}

// rewriteRows rewrites cols in the rows of table (aliased t) that cond
// selects, with args from $1: one read of the key column (of keyType) and
// the old values, then one UPDATE joined with the new ones (tombstones are
// made in Go, where the key is); set adds plain assignments. It returns
// how many rows it changed.
func rewriteRows(ctx context.Context, tx *Tx, table, keyCol, keyType string, cols []rewriteCol, set, cond string, args ...any) (int64, error) {
	sel := "t." + keyCol + "::text"
	for _, c := range cols {
		sel += ", t." + c.name
	}
	rows, err := tx.Query(ctx, `SELECT `+sel+` FROM `+table+` t WHERE `+cond, args...)
	if err != nil {
		return 0, fmt.Errorf("postgres: tombstone %s: %w", table, err)
	}
	var (
		keys []string
		vals = make([][]string, len(cols))
	)
	for rows.Next() {
		var k string
		old := make([]string, len(cols))
		dest := []any{&k}
		for i := range old {
			dest = append(dest, &old[i])
		}
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return 0, fmt.Errorf("postgres: tombstone %s: %w", table, err)
		}
		keys = append(keys, k)
		for i, c := range cols {
			vals[i] = append(vals[i], c.value(old[i]))
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("postgres: tombstone %s: %w", table, err)
	}
	if len(keys) == 0 {
		return 0, nil
	}
	// The arrays come after cond's arguments, so cond applies again.
	params := append(append([]any{}, args...), keys)
	arrays, names, assign := []string{fmt.Sprintf("$%d::text[]", len(params))}, []string{"k"}, []string{}
	if set != "" {
		assign = append(assign, set)
	}
	for i, c := range cols {
		params = append(params, vals[i])
		arrays = append(arrays, fmt.Sprintf("$%d::text[]", len(params)))
		names = append(names, fmt.Sprintf("c%d", i))
		v := fmt.Sprintf("u.c%d", i)
		if c.assign != "" {
			v = fmt.Sprintf(c.assign, v)
		}
		assign = append(assign, c.name+" = "+v)
	}
	tag, err := tx.Exec(ctx, `UPDATE `+table+` t SET `+strings.Join(assign, ", ")+`
		FROM unnest(`+strings.Join(arrays, ", ")+`) AS u(`+strings.Join(names, ", ")+`)
		WHERE t.`+keyCol+` = u.k::`+keyType+` AND `+cond, params...)
	if err != nil {
		return 0, fmt.Errorf("postgres: tombstone %s: %w", table, err)
	}
	return tag.RowsAffected(), nil
}
