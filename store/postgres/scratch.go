package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// Who owns an eval scratch project, and the copies of live projects'
// events in them, as SQLite's store/scratch.go (docs/ARCHITECTURE.md,
// "Eval scratch projects"). Lease times are the store's clock (Now), with
// sub-second precision: instances sharing a database need clocks closer
// than a lease's renewal margin (two thirds of it).

// ClaimScratch records holder's lease on the scratch projects whose slug
// starts with prefix (a CLI run's), until ttl from now.
func (s *Store) ClaimScratch(ctx context.Context, prefix, holder string, ttl time.Duration) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO scratch_leases (prefix, holder, expires_at) VALUES ($1, $2, $3)`,
		prefix, holder, s.Now().Add(ttl).UTC()); err != nil {
		return mapError(err, "Scratch lease "+prefix)
	}
	return nil
}

// RenewScratch extends prefix's lease to ttl from now; false, and nothing
// renewed, once it has expired or is gone.
func (s *Store) RenewScratch(ctx context.Context, prefix string, ttl time.Duration) (bool, error) {
	now := s.Now().UTC()
	tag, err := s.pool.Exec(ctx, `UPDATE scratch_leases SET expires_at = $1 WHERE prefix = $2 AND expires_at > $3`,
		now.Add(ttl), prefix, now)
	if err != nil {
		return false, fmt.Errorf("postgres: renew scratch lease: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// ReleaseScratch drops prefix's lease.
func (s *Store) ReleaseScratch(ctx context.Context, prefix string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM scratch_leases WHERE prefix = $1`, prefix); err != nil {
		return fmt.Errorf("postgres: release scratch lease: %w", err)
	}
	return nil
}

// RemoveOrphanScratch deletes the scratch projects, and copy records, no
// live run owns (evals.OrphanScratch), reading the slugs before their
// owners as SQLite's does. It returns how many runs it cleaned up after.
func (s *Store) RemoveOrphanScratch(ctx context.Context) (int64, error) {
	var (
		slugs  []string
		leases = map[string]time.Time{}
		live   = map[int64]bool{}
	)
	if err := queryAll(ctx, s.pool, `SELECT slug FROM projects WHERE scratch AND left(slug, $1) = $2
		UNION SELECT prefix FROM eval_copies`, []any{len(evals.ScratchPrefix), evals.ScratchPrefix}, func(r pgx.Row) error {
		var slug string
		err := r.Scan(&slug)
		slugs = append(slugs, slug)
		return err
	}); err != nil {
		return 0, fmt.Errorf("postgres: find orphan scratch projects: %w", err)
	}
	if err := queryAll(ctx, s.pool, `SELECT prefix, expires_at FROM scratch_leases`, nil, func(r pgx.Row) error {
		var (
			prefix string
			exp    time.Time
		)
		err := r.Scan(&prefix, &exp)
		leases[prefix] = exp
		return err
	}); err != nil {
		return 0, fmt.Errorf("postgres: find scratch leases: %w", err)
	}
	ids, err := queryIDs(ctx, s.pool, `SELECT id FROM eval_runs WHERE status IN ('queued', 'running')`, nil)
	if err != nil {
		return 0, fmt.Errorf("postgres: find live eval runs: %w", err)
	}
	for _, id := range ids {
		live[id] = true
	}
	now := s.Now()
	orphans := evals.OrphanScratch(slugs, live, leases, now)
	for i, prefix := range orphans {
		if err := s.DeleteScratchProjects(ctx, prefix); err != nil {
			return int64(i), err
		}
	}
	// Expired leases have nothing left to guard.
	if _, err := s.pool.Exec(ctx, `DELETE FROM scratch_leases WHERE expires_at <= $1`, now.UTC()); err != nil {
		return int64(len(orphans)), fmt.Errorf("postgres: remove expired scratch leases: %w", err)
	}
	return int64(len(orphans)), nil
}

// RecordEventCopy records that the scratch projects of prefix hold copies
// of project sourceID's events (eval_copies, migration 0023). It takes the
// project's forget-generation lock first, as a forget does before it
// reads: a forget in flight commits before the record (and the copy then
// reads what it left), and a later forget sees the record and removes the
// copies.
func (s *Store) RecordEventCopy(ctx context.Context, prefix string, sourceID int64) error {
	_, runID, ok := evals.ScratchOwner(prefix)
	if !ok {
		return governance.Errorf(governance.EINVALID, "A scratch prefix must name a run.")
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if _, err := lockForgetGeneration(ctx, tx, sourceID); err != nil {
		return err
	}
	var run *int64
	if runID != 0 {
		run = &runID
	}
	if _, err := tx.Exec(ctx, `INSERT INTO eval_copies (prefix, source_project_id, run_id) VALUES ($1, $2, $3)
		ON CONFLICT (prefix, source_project_id) DO NOTHING`, prefix, sourceID, run); err != nil {
		return fmt.Errorf("postgres: record event copy: %w", err)
	}
	return tx.Commit(ctx)
}

// removeCopies removes, inside a forget's transaction (which holds the
// projects' forget-generation locks), the scratch projects holding copies
// of the projects' events, marks their copy records forgotten and empties
// the details of their runs' stored results; p.scratch collects the
// removed projects, whose partitions the forget's rewrite then covers. The
// record is marked before the results change: a result's write locks the
// run's records (copyForgotten), so it either commits before the update
// of the results or waits and sees the mark.
func removeCopies(ctx context.Context, tx *Tx, p *forgetPlan, projects []int64) error {
	var prefixes []string
	if err := queryAll(ctx, tx, `SELECT DISTINCT prefix FROM eval_copies WHERE source_project_id = ANY($1) ORDER BY prefix`,
		[]any{projects}, func(r pgx.Row) error {
			var prefix string
			err := r.Scan(&prefix)
			prefixes = append(prefixes, prefix)
			return err
		}); err != nil {
		return fmt.Errorf("postgres: find eval copies: %w", err)
	}
	for _, prefix := range prefixes {
		if _, err := tx.Exec(ctx, `UPDATE eval_copies SET forgotten = true WHERE prefix = $1`, prefix); err != nil {
			return fmt.Errorf("postgres: mark eval copies: %w", err)
		}
		tag, err := tx.Exec(ctx, `UPDATE eval_results SET detail = '{}' WHERE detail <> '{}'
			AND run_id IN (SELECT run_id FROM eval_copies WHERE prefix = $1)`, prefix)
		if err != nil {
			return fmt.Errorf("postgres: withhold eval results: %w", err)
		}
		p.changed["eval_results"] = p.changed["eval_results"] || tag.RowsAffected() > 0
		var doomed []*governance.Project
		if err := queryAll(ctx, tx, `SELECT id, slug FROM projects WHERE scratch AND left(slug, $1) = $2 ORDER BY id FOR UPDATE`,
			[]any{len([]rune(prefix)), prefix}, func(r pgx.Row) error {
				sp := &governance.Project{}
				err := r.Scan(&sp.ID, &sp.Slug)
				doomed = append(doomed, sp)
				return err
			}); err != nil {
			return fmt.Errorf("postgres: find eval copies: %w", err)
		}
		for _, sp := range doomed {
			if err := tx.lockProjectIngest(ctx, sp.ID); err != nil {
				return err
			}
			if err := deleteProjectRows(ctx, tx, sp); err != nil {
				return err
			}
			p.scratch = append(p.scratch, sp.ID)
			for _, t := range vacuumTables {
				p.changed[t] = true
			}
		}
	}
	return nil
}

// copyForgotten reports, inside a result's write, whether a forget removed
// a copy the run made (the result's detail is then withheld). It locks the
// run's copy records until the write commits: a forget marking them waits.
func copyForgotten(ctx context.Context, tx *Tx, runID int64) (bool, error) {
	var forgotten bool
	err := tx.QueryRow(ctx, `SELECT COALESCE(bool_or(forgotten), false) FROM
		(SELECT forgotten FROM eval_copies WHERE run_id = $1 FOR SHARE) c`, runID).Scan(&forgotten)
	if err != nil {
		return false, fmt.Errorf("postgres: check eval copies: %w", err)
	}
	return forgotten, nil
}
