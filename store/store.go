// Package store implements governance's persistence on one SQLite file
// (modernc.org/sqlite, no cgo) with embedded, numbered SQL migrations.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is the SQLite database behind the console.
type Store struct {
	db *sql.DB
	// read runs read queries through prepared statements.
	read *stmtCache
	path string
	// Now returns the current time; tests replace it.
	Now func() time.Time
	// BeforeCommit, when set, runs just before a beat's transaction commits;
	// an error aborts the beat. Tests use it to inject a crash.
	BeforeCommit func(ctx context.Context) error
	// writer is held by this process's one writing transaction or
	// statement. SQLite admits one writer at a time and its busy handler
	// polls with growing sleeps, so under load a waiting writer can lose
	// the lock to newer ones until busy_timeout runs out. Queueing here
	// first hands the lock over in arrival order and lets a waiter give up
	// when its context ends; busy_timeout still covers other processes
	// (the CLI next to a running console).
	writer chan struct{}
}

// DSN returns the connection string for path with every per-connection
// pragma in it, so each pooled connection gets them.
func DSN(path string) string {
	q := url.Values{}
	for _, p := range []string{
		"foreign_keys(1)",
		"busy_timeout(10000)",
		"journal_mode(WAL)",
		"synchronous(NORMAL)",
		"secure_delete(1)",
		"temp_store(MEMORY)",
		"cache_size(-32000)",
	} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path and applies pending migrations.
func Open(ctx context.Context, path string) (*Store, error) {
	registerFunctions()
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxIdleTime(0)
	s := &Store{db: db, read: &stmtCache{db: db}, path: path, Now: time.Now, writer: make(chan struct{}, 1)}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database after a final WAL checkpoint.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return nil
	}
	s.read.close()
	_, _ = s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return s.db.Close()
}

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// DB exposes the handle for benchmarks and tests in other packages.
func (s *Store) DB() *sql.DB { return s.db }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// CurrentTime is the store's clock, Now, for callers that reach the store
// through an interface.
func (s *Store) CurrentTime() time.Time { return s.Now() }

// Checkpoint runs a WAL checkpoint that truncates the log.
func (s *Store) Checkpoint(ctx context.Context) error {
	_, err := s.exec(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// lockWriter waits for this process's writer slot; the returned func
// gives it back.
func (s *Store) lockWriter(ctx context.Context) (func(), error) {
	select {
	case s.writer <- struct{}{}:
		return func() { <-s.writer }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("store: waiting to write: %w", context.Cause(ctx))
	}
}

// exec runs one writing statement outside a transaction.
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	unlock, err := s.lockWriter(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return s.db.ExecContext(ctx, query, args...)
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("store: create schema_migrations: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if err := s.migrateFile(ctx, name); err != nil {
			return fmt.Errorf("store: migration %s: %w", name, err)
		}
	}
	return nil
}

func (s *Store) migrateFile(ctx context.Context, name string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrationFS.ReadFile(name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, name, formatTime(s.Now())); err != nil {
		return err
	}
	return tx.Commit()
}

// Tx wraps a transaction with the time it started, so every row written in
// one transaction carries the same timestamp.
type Tx struct {
	*sql.Tx
	store  *Store
	now    time.Time
	unlock func()
}

// BeginTx starts an immediate (write-locking) transaction. It holds the
// process's writer slot until Commit or Rollback, so a goroutine must
// not begin a second write while its transaction is open.
func (s *Store) BeginTx(ctx context.Context, opts *sql.TxOptions) (*Tx, error) {
	unlock, err := s.lockWriter(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		unlock()
		return nil, fmt.Errorf("store: begin: %w", err)
	}
	return &Tx{Tx: tx, store: s, now: s.Now().UTC().Truncate(time.Second), unlock: sync.OnceFunc(unlock)}, nil
}

// Commit commits the transaction and frees the writer slot.
func (t *Tx) Commit() error {
	defer t.unlock()
	return t.Tx.Commit()
}

// Rollback abandons the transaction (a no-op after Commit) and frees the
// writer slot.
func (t *Tx) Rollback() error {
	defer t.unlock()
	return t.Tx.Rollback()
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// nextID is the SQL for a new row's id in table: past every id the table
// has used, also when its newest rows were deleted (see raiseIDFloor).
func nextID(table string) string {
	return `(SELECT MAX(COALESCE((SELECT MAX(id) FROM ` + table + `), 0), ` +
		`COALESCE((SELECT id FROM id_floors WHERE tbl = '` + table + `'), 0)) + 1)`
}

// raiseIDFloor records the highest id table has used, before rows of it
// are deleted, so nextID never hands those ids out again.
func raiseIDFloor(ctx context.Context, tx *Tx, tables ...string) error {
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, `INSERT INTO id_floors (tbl, id) SELECT ?, COALESCE(MAX(id), 0) FROM `+t+` WHERE true
			ON CONFLICT (tbl) DO UPDATE SET id = MAX(id, excluded.id)`, t); err != nil {
			return fmt.Errorf("store: id floor of %s: %w", t, err)
		}
	}
	return nil
}

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
