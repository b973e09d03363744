// Package store implements governance's persistence on one SQLite file
// (modernc.org/sqlite, no cgo) with embedded, numbered SQL migrations.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/lifecycle"
	"github.com/mnemo-console/mnemo/store/internal/auditlog"
	"github.com/mnemo-console/mnemo/store/internal/migration"
	"github.com/mnemo-console/mnemo/store/internal/outcome"
	"github.com/mnemo-console/mnemo/store/internal/pagescrub"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is the SQLite database behind the console.
type Store struct {
	db *sql.DB
	// audit is the audit key the chain is sealed with (SetAuditKey; nil
	// until then).
	audit atomic.Pointer[auditlog.Key]
	// read runs read queries through prepared statements.
	read *stmtCache
	path string
	// Now returns the current time; tests replace it.
	Now func() time.Time
	// BeforeCommit, when set, runs just before a beat's transaction commits;
	// an error aborts the beat. Tests use it to inject a crash.
	BeforeCommit func(ctx context.Context) error
	// Embedder, when set, turns recall's semantic channel on: the task is
	// embedded and the scope's closest memories (vectors the heartbeat's
	// backfill stored for this model) are fused with the words' ranking.
	Embedder governance.Embedder
	// BeforeForgetCommit, when set, runs just before a forget's
	// transaction commits; tests use it to kill the process there.
	BeforeForgetCommit func(ctx context.Context) error
	// AfterForgetCommit, when set, runs after a forget's transaction has
	// committed and before the WAL checkpoint that overwrites the old
	// pages; tests use it to kill the process there.
	AfterForgetCommit func(ctx context.Context)
	// writer is held by this process's one writing transaction or
	// statement. SQLite admits one writer at a time and its busy handler
	// polls with growing sleeps, so under load a waiting writer can lose
	// the lock to newer ones until busy_timeout runs out. Queueing here
	// first hands the lock over in arrival order and lets a waiter give up
	// when its context ends; busy_timeout still covers other processes
	// (the CLI next to a running console).
	writer chan struct{}
	// termStats caches recall's document frequencies per recall scope.
	termStats termStats
	// heavy admits the few reads that walk the full-text indexes at
	// once (heavy.go).
	heavy chan struct{}
	// The reviewer actions of the rule lifecycle (ApproveRule, HoldRule,
	// RestoreRule, ...), shared with the PostgreSQL store over this
	// store's SQL (rule_lifecycle.go).
	lifecycle.RuleActions[ruleTx]
	// scrub truncates the WAL in the background when a forget could not
	// (forget.go, checkpointAfterForget).
	scrub scrubber
	// outcomes writes concurrent outcome reports together (outcome.go).
	outcomes outcome.Batcher[*governance.OutcomeReport]
	// wal is the log as the checkpoints see it: how far its pages have
	// been scrubbed, what the last checkpoint left (checkpoint.go); the
	// writer slot guards it.
	wal *pagescrub.Log
	// noPageScrub: checkpoints copy the log's pages unscrubbed
	// (NoPageScrub).
	noPageScrub bool
	// queues counts the waiters of the writer and the heavy-read slots
	// and reports their turns (queue.go).
	queues queueStats
}

// busyTimeout is how long a connection waits for another's lock.
const busyTimeout = 10 * time.Second

// DSN returns the connection string for path with every per-connection
// pragma in it, so each pooled connection gets them.
func DSN(path string) string {
	q := url.Values{}
	for _, p := range []string{
		"foreign_keys(1)",
		fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()),
		"journal_mode(WAL)",
		"synchronous(NORMAL)",
		"secure_delete(1)",
		// Every checkpoint is the store's, after the log's pages are
		// scrubbed (checkpoint.go).
		"wal_autocheckpoint(0)",
		"temp_store(MEMORY)",
		"cache_size(-32000)",
	} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path and applies pending migrations.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	registerFunctions()
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxIdleTime(0)
	s := &Store{db: db, read: &stmtCache{db: db}, path: path, Now: time.Now, writer: make(chan struct{}, 1), wal: pagescrub.NewLog(path)}
	for _, o := range opts {
		o(s)
	}
	s.RuleActions = lifecycle.NewRuleActions[ruleTx](ruleStore{s}, gate.Patterns)
	s.scrub.init()
	s.heavy = make(chan struct{}, heavyReads)
	var tables int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&tables); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// A new file has every page of it go through the log's scrub; without
	// the scrub, pages written from now on are swept the next time it is
	// on.
	swept := ""
	switch {
	case s.noPageScrub:
		swept = `DELETE FROM settings WHERE key = 'pages_swept'`
	case tables == 0:
		swept = `INSERT INTO settings (key, value) VALUES ('pages_swept', '1') ON CONFLICT (key) DO NOTHING`
	}
	if swept != "" {
		if _, err := db.ExecContext(ctx, swept); err != nil {
			db.Close()
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
	}
	// Migrations may have written a long log (a re-index): it is scrubbed
	// and copied now rather than by the first commit.
	s.checkpointAfterCommit(ctx)
	// An error leaves the sweep to the next Open (it is recorded only
	// when done); the log's pages are scrubbed meanwhile all the same.
	if !s.noPageScrub {
		s.scrub.wg.Add(1)
		go func() {
			defer s.scrub.wg.Done()
			_ = s.sweepPages(s.scrub.ctx)
		}()
	}
	return s, nil
}

// Close closes the database after a final WAL checkpoint.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return nil
	}
	s.scrub.stop()
	s.read.close()
	if unlock, err := s.lockWriter(context.Background(), "Close"); err == nil {
		if conn, err := s.db.Conn(context.Background()); err == nil {
			_, _, _ = s.checkpointHeld(context.Background(), conn, "TRUNCATE")
			conn.Close()
		}
		unlock()
	}
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
	unlock, err := s.lockWriter(ctx, "Checkpoint")
	if err != nil {
		return err
	}
	defer unlock()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	defer conn.Close()
	_, _, err = s.checkpointHeld(ctx, conn, "TRUNCATE")
	return err
}

// lockWriter waits for this process's writer slot for the store method
// op (queue.go); the returned func gives it back.
func (s *Store) lockWriter(ctx context.Context, op string) (func(), error) {
	unlock, err := s.acquire(ctx, QueueWriter, s.writer, op)
	if err != nil {
		return nil, fmt.Errorf("store: waiting to write: %w", err)
	}
	return unlock, nil
}

// exec runs one writing statement outside a transaction, for the store
// method op.
func (s *Store) exec(ctx context.Context, op, query string, args ...any) (sql.Result, error) {
	unlock, err := s.lockWriter(ctx, op)
	if err != nil {
		return nil, err
	}
	defer unlock()
	res, err := s.db.ExecContext(ctx, query, args...)
	if err == nil {
		s.checkpointAfterCommit(ctx)
	}
	return res, err
}

func (s *Store) migrate(ctx context.Context) error { return s.migrateBefore(ctx, "") }

// migrateBefore applies the pending migrations whose names sort before
// stop ("": all of them); tests build an older schema with it. First the
// migrations the database applied are checked against the shipped files
// (migration.Check): an edited or renamed one refuses the start, and one
// applied before checksums were kept gets its checksum recorded.
func (s *Store) migrateBefore(ctx context.Context, stop string) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL, checksum TEXT NOT NULL DEFAULT '')`); err != nil {
		return fmt.Errorf("store: create schema_migrations: %w", err)
	}
	var hasSum int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('schema_migrations') WHERE name = 'checksum'`).Scan(&hasSum); err != nil {
		return fmt.Errorf("store: read schema_migrations: %w", err)
	}
	if hasSum == 0 {
		if _, err := s.db.ExecContext(ctx, `ALTER TABLE schema_migrations ADD COLUMN checksum TEXT NOT NULL DEFAULT ''`); err != nil {
			return fmt.Errorf("store: add the migrations' checksums: %w", err)
		}
	}
	files, err := migration.Files(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	applied := map[string]string{}
	if err := queryAll(ctx, s.db, `SELECT name, checksum FROM schema_migrations`, nil, func(r scanner) error {
		var name, sum string
		err := r.Scan(&name, &sum)
		applied[name] = sum
		return err
	}); err != nil {
		return fmt.Errorf("store: read schema_migrations: %w", err)
	}
	record, err := migration.Check(applied, files)
	if err != nil {
		return fmt.Errorf("store: %s: %w", s.path, err)
	}
	for _, f := range record {
		if _, err := s.db.ExecContext(ctx, `UPDATE schema_migrations SET checksum = ? WHERE name = ? AND checksum = ''`, f.Sum, f.Name); err != nil {
			return fmt.Errorf("store: record the checksum of %s: %w", f.Name, err)
		}
	}
	for _, f := range files {
		if stop != "" && f.Name >= stop {
			break
		}
		if _, done := applied[f.Name]; done {
			continue
		}
		if err := s.migrateFile(ctx, f); err != nil {
			return fmt.Errorf("store: migration %s: %w", f.Name, err)
		}
	}
	return nil
}

// migrateFile applies one migration, unless it already has been, in one
// transaction. Foreign keys are off while it runs, as SQLite's procedure for
// rebuilding a table requires (dropping a table others reference would
// otherwise fail or cascade), and must hold again before it commits.
func (s *Store) migrateFile(ctx context.Context, f migration.File) (err error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer func() {
		if _, onErr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`); onErr != nil {
			// A connection without foreign keys must not go back to the pool.
			conn.Raw(func(any) error { return driver.ErrBadConn })
			err = errors.Join(err, onErr)
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, f.Name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil // another process applied it meanwhile
	}
	if _, err := tx.ExecContext(ctx, string(f.Body)); err != nil {
		return err
	}
	var violation string
	err = tx.QueryRowContext(ctx, `SELECT "table" || ' row ' || COALESCE(rowid, '?') || ' references ' || parent FROM pragma_foreign_key_check`).Scan(&violation)
	if err == nil {
		return fmt.Errorf("foreign key broken: %s", violation)
	}
	if !isNoRows(err) {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at, checksum) VALUES (?, ?, ?)`, f.Name, formatTime(s.Now()), f.Sum); err != nil {
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
	// swept: the term statistics were checked after the commit.
	swept bool
}

// BeginTx starts an immediate (write-locking) transaction. It holds the
// process's writer slot until Commit or Rollback, so a goroutine must
// not begin a second write while its transaction is open.
func (s *Store) BeginTx(ctx context.Context, opts *sql.TxOptions) (*Tx, error) {
	return s.beginTx(ctx, "BeginTx", opts)
}

// begin is BeginTx for the store method op.
func (s *Store) begin(ctx context.Context, op string) (*Tx, error) { return s.beginTx(ctx, op, nil) }

func (s *Store) beginTx(ctx context.Context, op string, opts *sql.TxOptions) (*Tx, error) {
	unlock, err := s.lockWriter(ctx, op)
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
	err := t.Tx.Commit()
	if err == nil {
		t.store.checkpointAfterCommit(context.Background())
	}
	t.unlock()
	if err == nil {
		t.swept = true
		t.store.sweepTermStats(context.Background())
	}
	return err
}

// Rollback abandons the transaction (a no-op after Commit) and frees the
// writer slot.
func (t *Tx) Rollback() error {
	err := t.Tx.Rollback()
	t.unlock()
	// A transaction committed through its *sql.Tx (a forget keeps the
	// writer slot past its commit) has its cached term counts swept here.
	if errors.Is(err, sql.ErrTxDone) && !t.swept {
		t.swept = true
		t.store.sweepTermStats(context.Background())
	}
	return err
}
