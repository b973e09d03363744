// Package baseline is the reference the retrieval benchmarks of the eval
// runner measure recall against, the same for every store backend: a
// bare SQLite FTS5 table, whatever database the console runs on, so a
// figure on PostgreSQL and one on SQLite compare to one yardstick.
package baseline

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// FTS5 is the reference a retrieval benchmark measures recall against: a bare SQLite FTS5 table (tokenize 'porter unicode61', one row a
// document) in a temporary database of its own, queried with an OR of the
// question's words and ordered by FTS5's bm25 — what an application gets
// from SQLite with no retrieval work of its own.
type FTS5 struct {
	db  *sql.DB
	dir string
}

// Open creates an empty baseline in a new temporary directory under dir
// ("" for the system's); Close removes it.
func Open(ctx context.Context, dir string) (*FTS5, error) {
	tmp, err := os.MkdirTemp(dir, "mnemo-baseline-")
	if err != nil {
		return nil, fmt.Errorf("baseline: baseline directory: %w", err)
	}
	db, err := sql.Open("sqlite", filepath.Join(tmp, "baseline.db")+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("baseline: open baseline: %w", err)
	}
	db.SetMaxOpenConns(1)
	b := &FTS5{db: db, dir: tmp}
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, text, tokenize = 'porter unicode61')`); err != nil {
		b.Close()
		return nil, fmt.Errorf("baseline: create baseline: %w", err)
	}
	return b, nil
}

// Add indexes documents: ids[i] names texts[i].
func (b *FTS5) Add(ctx context.Context, ids, texts []string) error {
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO docs (id, text) VALUES (?, ?)`, ids[i], texts[i]); err != nil {
			return fmt.Errorf("baseline: baseline insert: %w", err)
		}
	}
	return tx.Commit()
}

// Search returns the ids of the best limit documents for an OR of the
// query's words (runs of letters and digits), best first; ties go to the
// document added first.
func (b *FTS5) Search(ctx context.Context, query string, limit int) ([]string, error) {
	var words []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !seen[w] {
			seen[w] = true
			words = append(words, `"`+w+`"`)
		}
	}
	if len(words) == 0 {
		return nil, nil
	}
	rows, err := b.db.QueryContext(ctx, `SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid LIMIT ?`,
		strings.Join(words, " OR "), limit)
	if err != nil {
		return nil, fmt.Errorf("baseline: baseline search: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// Close closes the baseline and removes its files.
func (b *FTS5) Close() error {
	err := b.db.Close()
	if rmErr := os.RemoveAll(b.dir); err == nil {
		err = rmErr
	}
	return err
}
