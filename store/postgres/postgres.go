// Package postgres implements the console's persistence on PostgreSQL
// (driver pgx v5, native pool), for deployments that outgrow one SQLite
// file: several console instances on one database. Its methods have the
// names and signatures of the SQLite store's (package store), so both
// satisfy the interfaces the use cases declare; the conformance suite in
// store/storetest runs the same tests against both.
//
// It implements everything the console needs; docs/store.md, "PostgreSQL",
// describes how it differs from the SQLite store.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/lifecycle"
	"github.com/mnemo-console/mnemo/store/internal/auditlog"
	"github.com/mnemo-console/mnemo/store/internal/migration"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is the PostgreSQL database behind the console.
type Store struct {
	pool *pgxpool.Pool
	// audit is the audit key the chain is sealed with (SetAuditKey; nil
	// until then).
	audit atomic.Pointer[auditlog.Key]
	// plans is a second, smaller pool whose connections keep the plans of
	// their prepared statements (plan_cache_mode auto: after five runs the
	// server may keep a generic plan instead of planning every run, which
	// cost more than running most of a page's statements). Only reads
	// whose plan locks nothing a forget's rewrite may hold beyond what a
	// custom plan would go through it: statements on tables that are not
	// partitioned, and statements on events or episodes whose projects
	// are written into their text (projectIs), so that any plan of them,
	// generic or not, is pruned to those projects' partitions when it is
	// made (docs/store.md, "PostgreSQL").
	plans *pgxpool.Pool
	// Now returns the current time; tests replace it.
	Now func() time.Time
	// BeforeCommit, when set, runs just before a beat's transaction
	// commits; an error aborts the beat. Tests use it to inject a crash.
	BeforeCommit func(ctx context.Context) error
	// BeforeForgetCommit, when set, runs just before a forget's
	// transaction commits; tests use it to kill the process there.
	BeforeForgetCommit func(ctx context.Context) error
	// AfterForgetCommit, when set, runs after a forget's transaction has
	// committed and before the rewrite of the tables it touched
	// (vacuum.go); tests use it to kill the process there.
	AfterForgetCommit func(ctx context.Context)
	// Embedder, when set, turns recall's semantic channel on: the task is
	// embedded and the scope's closest memories (vectors the heartbeat's
	// backfill stored for this model) are fused with the words' ranking.
	Embedder governance.Embedder
	// statsFrom is the table size (planner estimate) from which search
	// weighs words by the column statistics instead of counting (see idf).
	statsFrom float64
	// windows keeps the ranked windows of recent searches, valid while
	// their project's events are unchanged (search_window.go); nil: none.
	windows *searchWindows
	// stats keeps the words' statistics search last read (search_stats.go).
	stats statsCache
	// The reviewer actions of the rule lifecycle (ApproveRule, HoldRule,
	// RestoreRule, ...), shared with the SQLite store over this store's
	// SQL (rule_lifecycle.go).
	lifecycle.RuleActions[ruleTx]
}

// Advisory lock keys: one namespace (the first key) for the store's
// singletons, one second key per purpose; and a namespace of its own for
// the per-project ingest lock, whose second key is the project id.
const (
	lockNamespace  = 0x6d6e656d // "mnem"
	lockMigrate    = 1
	lockAudit      = 2
	lockSessionKey = 3

	lockIngestNamespace = 0x6d6e6569 // "mnei"
	// lockSkillsNamespace: one project's skill changes (store/postgres/skill.go).
	lockSkillsNamespace = 0x6d6e6573 // "mnes"
)

// defaultMaxConns is the pool size of an instance whose URL names none.
const defaultMaxConns = 16

// Open connects to the database at url (postgres://…) and applies pending
// migrations. Several instances may open one database at once: migrations
// run under an advisory lock.
func Open(ctx context.Context, url string) (*Store, error) {
	return open(ctx, url, "")
}

// open is Open applying only the migrations named before stop (all when
// stop is ""); benchmarks compare a schema with the one before it.
func open(ctx context.Context, url, stop string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse url: %w", err)
	}
	// Times come back in UTC whatever the server's TimeZone.
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	// Every statement is planned with its values. A cached generic plan of
	// a query on a partitioned table (events) locks all its partitions
	// when it runs, before pruning them, so a page of one project would
	// wait for a forget's rewrite of another project's partition; a plan
	// made with the project id prunes the others unlocked (vacuum.go).
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	if !strings.Contains(url, "pool_max_conns") {
		// pgxpool's default is max(4, cores). A page waits for a free
		// connection behind every ingest or forget transaction that holds
		// one; with 50 page clients and 8 writers over two instances on 2
		// cores, 16 a pool served 1.35× the pages of 4 and cut the page
		// p95 under writes by a third, at 0.78× that phase's ingest
		// (docs/store.md, "PostgreSQL"). The
		// URL's pool_max_conns overrides it.
		cfg.MaxConns = defaultMaxConns
	}
	plansCfg := cfg.Copy()
	plansCfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "auto"
	plansCfg.MaxConns = max(2, cfg.MaxConns/2)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	plans, err := pgxpool.NewWithConfig(ctx, plansCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	s := &Store{pool: pool, plans: plans, Now: time.Now, statsFrom: 10_000, windows: newSearchWindows(maxSearchWindows)}
	s.RuleActions = lifecycle.NewRuleActions[ruleTx](ruleStore{s}, gate.Patterns)
	if err := s.migrate(ctx, stop); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the pools.
func (s *Store) Close() error {
	if s != nil && s.pool != nil {
		s.pool.Close()
		s.plans.Close()
	}
	return nil
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// CurrentTime is the store's clock, Now.
func (s *Store) CurrentTime() time.Time { return s.Now() }

// Pool exposes the pool for tests in other packages.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

func (s *Store) migrate(ctx context.Context, stop string) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, lockNamespace, lockMigrate); err != nil {
		return fmt.Errorf("postgres: migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, $2)`, lockNamespace, lockMigrate)
	// The migrations the database applied are checked against the shipped
	// files first (migration.Check): an edited or renamed one refuses the
	// start, and one applied before checksums were kept gets its checksum
	// recorded.
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL, checksum text NOT NULL DEFAULT '')`,
		`ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text NOT NULL DEFAULT ''`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("postgres: create schema_migrations: %w", err)
		}
	}
	files, err := migration.Files(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	applied := map[string]string{}
	rows, err := conn.Query(ctx, `SELECT name, checksum FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("postgres: read schema_migrations: %w", err)
	}
	for rows.Next() {
		var name, sum string
		if err := rows.Scan(&name, &sum); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: read schema_migrations: %w", err)
		}
		applied[name] = sum
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: read schema_migrations: %w", err)
	}
	record, err := migration.Check(applied, files)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	for _, f := range record {
		if _, err := conn.Exec(ctx, `UPDATE schema_migrations SET checksum = $1 WHERE name = $2 AND checksum = ''`, f.Sum, f.Name); err != nil {
			return fmt.Errorf("postgres: record the checksum of %s: %w", f.Name, err)
		}
	}
	for _, f := range files {
		if stop != "" && path.Base(f.Name) >= stop {
			break
		}
		if _, done := applied[f.Name]; done {
			continue
		}
		if err := s.migrateFile(ctx, conn.Conn(), f); err != nil {
			return fmt.Errorf("postgres: migration %s: %w", f.Name, err)
		}
	}
	return nil
}

func (s *Store) migrateFile(ctx context.Context, conn *pgx.Conn, f migration.File) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE name = $1`, f.Name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	// No arguments: the simple protocol, which runs every statement of the file.
	if _, err := tx.Exec(ctx, string(f.Body)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (name, applied_at, checksum) VALUES ($1, $2, $3)`, f.Name, s.Now().UTC(), f.Sum); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Tx is a transaction with the time it started, so every row written in
// one transaction carries the same timestamp.
type Tx struct {
	pgx.Tx
	now   time.Time
	store *Store
}

// begin starts a read-committed transaction. Writes that must not
// interleave across instances take an advisory lock inside it (lock).
func (s *Store) begin(ctx context.Context) (*Tx, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: begin: %w", err)
	}
	return &Tx{Tx: tx, now: s.Now().UTC().Truncate(time.Second), store: s}, nil
}

// rollback ends a transaction that was not committed; after Commit it
// does nothing.
func (t *Tx) rollback() { _ = t.Rollback(context.Background()) }

// lock takes a transaction-level advisory lock, held until the
// transaction ends, across every instance on the database.
func (t *Tx) lock(ctx context.Context, key int32) error {
	if _, err := t.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockNamespace, key); err != nil {
		return fmt.Errorf("postgres: lock: %w", err)
	}
	return nil
}

// lockProjectIngest serialises the ingest transactions of one project
// across instances. An event's seq is drawn when it is inserted, and the
// heartbeat consolidates a project's events past its checkpoint seq: were
// two transactions of one project to interleave, the one that drew the
// lower seqs could commit after the heartbeat had moved the checkpoint
// past the other's, and its events would never be consolidated. Under the
// lock a project's seqs are drawn in commit order; projects still ingest
// concurrently. (Ids past 2³¹ share a key with a lower one: they only
// queue behind each other.)
func (t *Tx) lockProjectIngest(ctx context.Context, projectID int64) error {
	if _, err := t.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockIngestNamespace, int32(projectID)); err != nil {
		return fmt.Errorf("postgres: ingest lock: %w", err)
	}
	return nil
}

// utc normalises a time the way both backends store it: UTC, whole seconds.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

var errNoRows = pgx.ErrNoRows

func isNoRows(err error) bool { return errors.Is(err, errNoRows) }

// page returns the LIMIT/OFFSET clause of a page, numbering its
// parameters after args; limit <= 0 means no limit.
func page(args []any, limit, offset int) (string, []any) {
	args = append(args, max(offset, 0))
	clause := fmt.Sprintf(" OFFSET $%d", len(args))
	if limit > 0 {
		args = append(args, limit)
		clause = fmt.Sprintf(" LIMIT $%d", len(args)) + clause
	}
	return clause, args
}
