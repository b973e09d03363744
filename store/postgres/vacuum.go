package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// After a forget or a project deletion the old versions of the changed
// rows are still in the table files (PostgreSQL writes a new row version
// on every UPDATE and only marks the old one dead), and a GIN index keeps
// an entry for every lexeme it ever held. A plain VACUUM marks that space
// reusable without overwriting it, so the store rewrites each table the
// forget touched with VACUUM FULL: a new file holding only the live rows,
// its TOAST table and every index rebuilt, the old files unlinked. It runs
// after the forget's transaction (VACUUM cannot run inside one) and takes
// each table's exclusive lock while it copies it: writers and readers of
// that table wait, on every instance, for as long as the copy takes
// (about a second per hundred thousand events on the development
// machine). A partitioned table (events, migration 0018) is rewritten
// partition by partition, and only the partitions that hold the projects
// the forget touched: the other projects' rows are neither copied nor
// locked. What the write-ahead log, replicas and backups still hold is in
// docs/ARCHITECTURE.md ("Forget").

// vacuumTables are the tables a forget may change, in the order they are
// rewritten.
var vacuumTables = []string{"rules", "rule_versions", "candidates", "evidence", "episodes", "events",
	"embeddings", "audit_reasons", "eval_results", "recall_traces", "sessions", "suppressions", "subject_keys",
	"memberships"}

// forgetTables are the tables forget plan p changed rows of (evidence
// goes with its candidates; a subject's recall traces are deleted; the
// vectors of changed memories go by trigger, embeddingsDeleted).
func forgetTables(p *forgetPlan) []string {
	touched := map[string]bool{"evidence": p.changed["candidates"], "recall_traces": p.RecallTraces > 0}
	var out []string
	for _, t := range vacuumTables {
		if p.changed[t] || touched[t] {
			out = append(out, t)
		}
	}
	return out
}

// snapshotWait bounds how long a forget waits for the transactions that
// started before it to end before it rewrites the tables.
const snapshotWait = 30 * time.Second

// vacuumAfterForget rewrites tables (VACUUM FULL) — of a partitioned
// table, the partitions that hold projects' rows —, one statement each,
// outside any transaction, once no other transaction of the database that
// began before now (by the server's clock: the forget has committed) is
// running. VACUUM FULL copies every row version some running
// transaction may still see, the forgotten ones included, so a snapshot
// older than the forget (a long report, pg_dump, an autovacuum ANALYZE)
// would carry the old rows into the new files; so does a transaction of
// any other database of the server that holds a transaction id older than
// the forget's commit (a write, a migration): the server keeps every row
// version such a transaction id may not yet see as dead, whatever its
// database (measured: one such transaction in another database made the
// rewrite keep the forgotten rows, TestForgetLeavesNoBytes beside
// TestEventsPartitionMigration). The wait sees other roles'
// transactions only when the store's role may read their activity
// (superuser or pg_read_all_stats). Past snapshotWait the tables are
// rewritten anyway and an error names the backend that held them.
func (s *Store) vacuumAfterForget(ctx context.Context, tables []string, projects []int64) error {
	var (
		pid      int32
		since    time.Time
		deadline = time.Now().Add(snapshotWait)
	)
	if err := s.pool.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&since); err != nil {
		return fmt.Errorf("postgres: vacuum after forget: %w", err)
	}
	for {
		err := s.pool.QueryRow(ctx, `SELECT COALESCE(min(pid), 0) FROM pg_stat_activity
			WHERE pid <> pg_backend_pid() AND xact_start < $1
				AND (backend_xid IS NOT NULL OR (datname = current_database() AND backend_xmin IS NOT NULL))`,
			since).Scan(&pid)
		if err != nil {
			return fmt.Errorf("postgres: vacuum after forget: %w", err)
		}
		if pid == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	var rels []string
	for _, t := range tables {
		parts, err := partitionsOf(ctx, s.pool, t, projects)
		if err != nil {
			return fmt.Errorf("postgres: vacuum after forget: %w", err)
		}
		rels = append(rels, parts...)
	}
	for _, t := range rels {
		if _, err := s.pool.Exec(ctx, `VACUUM (FULL) `+t); err != nil {
			return fmt.Errorf("postgres: vacuum %s after forget: %w", t, err)
		}
	}
	if pid != 0 {
		return fmt.Errorf("postgres: vacuum after forget: backend %d ran a transaction older than the forget for %v; "+
			"the rewritten tables may keep the forgotten rows until they are rewritten again (VACUUM FULL) after it ends", pid, snapshotWait)
	}
	return nil
}

// partitionsOf returns the relations that hold the rows of projects in
// table: the table itself unless it is partitioned; else the partitions
// whose bounds take one of the project ids (hash partitions by project_id:
// the server's own satisfies_hash_partition decides, so no row needs to
// be left to find them), quoted for a statement.
func partitionsOf(ctx context.Context, q dbtx, table string, projects []int64) ([]string, error) {
	var parts []string
	err := queryAll(ctx, q, `
		SELECT quote_ident(c.relname) FROM pg_class c
		WHERE c.oid = $1::regclass AND c.relkind <> 'p'
		UNION
		SELECT quote_ident(c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid,
			LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid), 'modulus (\d+), remainder (\d+)') m,
			unnest($2::bigint[]) AS p(id)
		WHERE i.inhparent = $1::regclass AND satisfies_hash_partition($1::regclass, m[1]::int, m[2]::int, p.id)
		ORDER BY 1`, []any{table, projects}, func(r pgx.Row) error {
		var name string
		err := r.Scan(&name)
		parts = append(parts, name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("partitions of %s: %w", table, err)
	}
	return parts, nil
}
