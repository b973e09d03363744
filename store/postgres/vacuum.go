package postgres

import (
	"context"
	"errors"
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
// docs/forget.md, "Forget on PostgreSQL".

// vacuumTables are the tables a forget may change, in the order they are
// rewritten.
var vacuumTables = []string{"rules", "rule_versions", "candidates", "evidence", "episodes", "events",
	"embeddings", "audit_reasons", "eval_results", "eval_runs", "recall_traces", "sessions", "suppressions", "subject_keys",
	"memberships", "recall_outcomes", "outcome_reviews", "eval_suites",
	"skills", "skill_versions", "skill_files", "skill_evidence", "skill_procedures"}

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

// scrub is the rewrite a transaction that removed content owes after its
// commit: tables, in the partitions of projects. recordScrub keeps it in
// pending_scrubs (migration 0030) inside that transaction, so it commits
// with the removal; runScrub deletes the record once the rewrite is done.
// A process killed in between (the commit done, the rewrite not) leaves
// the record, and RepairInterrupted rewrites the tables at the restart
// (finishScrubs; TestCrashAfterForgetCommit).
type scrub struct {
	id       int64
	tables   []string
	projects []int64
}

// recordScrub records, in tx, the rewrite of tables (projects' rows).
func recordScrub(ctx context.Context, tx *Tx, tables []string, projects []int64) (*scrub, error) {
	sc := &scrub{tables: tables, projects: projects}
	if err := tx.QueryRow(ctx, `INSERT INTO pending_scrubs (tables, projects) VALUES (COALESCE($1::text[], '{}'), COALESCE($2::bigint[], '{}')) RETURNING id`,
		tables, projects).Scan(&sc.id); err != nil {
		return nil, fmt.Errorf("postgres: record scrub: %w", err)
	}
	return sc, nil
}

// runScrub rewrites sc's tables (vacuumAfterForget) and then deletes its
// record; a rewrite that failed, or kept rows an older transaction could
// still see, leaves the record for the next RepairInterrupted.
func (s *Store) runScrub(ctx context.Context, sc *scrub) error {
	if err := s.vacuumAfterForget(ctx, sc.tables, sc.projects); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM pending_scrubs WHERE id = $1`, sc.id); err != nil {
		return fmt.Errorf("postgres: finish scrub: %w", err)
	}
	return nil
}

// finishScrubs runs the rewrites still recorded — of forgets, project
// deletions and re-chains whose process stopped after the commit — as
// one: each table once, over all their projects. It returns how many
// records it finished; past snapshotWait behind an older transaction it
// keeps them for the next repair and reports no error. A record of an instance's rewrite still in
// progress is rewritten twice; the second costs time, not correctness.
func (s *Store) finishScrubs(ctx context.Context) (int64, error) {
	var (
		ids      []int64
		tables   []string
		projects []int64
		seen     = map[string]bool{}
	)
	if err := queryAll(ctx, s.pool, `SELECT id, tables, projects FROM pending_scrubs ORDER BY id`, nil, func(r pgx.Row) error {
		var (
			id int64
			ts []string
			ps []int64
		)
		if err := r.Scan(&id, &ts, &ps); err != nil {
			return err
		}
		ids = append(ids, id)
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				tables = append(tables, t)
			}
		}
		projects = append(projects, ps...)
		return nil
	}); err != nil {
		return 0, fmt.Errorf("postgres: find pending scrubs: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	var older *olderSnapshotError
	if err := s.vacuumAfterForget(ctx, tables, projects); errors.As(err, &older) {
		// Rewritten, perhaps with the old rows a transaction still running
		// could see: the records stay for the next repair, and this one
		// does not fail (a failed repair keeps an instance from leading).
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM pending_scrubs WHERE id = ANY($1)`, ids); err != nil {
		return 0, fmt.Errorf("postgres: finish scrubs: %w", err)
	}
	return int64(len(ids)), nil
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
		return &olderSnapshotError{pid: pid}
	}
	return nil
}

// olderSnapshotError is vacuumAfterForget's error when it rewrote the
// tables past snapshotWait while a transaction older than the forget was
// still running.
type olderSnapshotError struct{ pid int32 }

func (e *olderSnapshotError) Error() string {
	return fmt.Sprintf("postgres: vacuum after forget: backend %d ran a transaction older than the forget for %v; "+
		"the rewritten tables may keep the forgotten rows until they are rewritten again (VACUUM FULL) after it ends", e.pid, snapshotWait)
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
