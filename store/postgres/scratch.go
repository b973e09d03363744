package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// Who owns an eval scratch project, and the copies of live projects'
// events in them, as SQLite's store/scratch.go (docs/evals.md,
// "Scratch projects"). Lease times are the store's clock (Now), with
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
// live run owns (evalrow.OrphanScratch), reading the slugs before their
// owners as SQLite's does. It returns how many runs it cleaned up after.
func (s *Store) RemoveOrphanScratch(ctx context.Context) (int64, error) {
	var (
		slugs  []string
		leases = map[string]time.Time{}
		live   = map[int64]bool{}
	)
	if err := queryAll(ctx, s.pool, `SELECT slug FROM projects WHERE scratch AND left(slug, $1) = $2
		UNION SELECT prefix FROM eval_copies`, []any{len(evalrow.ScratchPrefix), evalrow.ScratchPrefix}, func(r pgx.Row) error {
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
	orphans := evalrow.OrphanScratch(slugs, live, leases, now)
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

// CopyEvents copies the events of live project sourceID that are not
// redacted into scratch project scratchID (flagged scratch, its slug
// starting with prefix, a run's) and records the copy (eval_copies,
// migration 0023), all in one transaction, as SQLite's store. It holds the
// source's forget-generation lock, which a forget takes before it reads:
// a forget of the source either committed before (the copy reads what it
// left) or waits, and then forgets the copy of what it forgets
// (forgetCopies).
func (s *Store) CopyEvents(ctx context.Context, prefix string, sourceID, scratchID int64) (int, error) {
	_, runID, ok := evalrow.ScratchOwner(prefix)
	if !ok {
		return 0, governance.Errorf(governance.EINVALID, "A scratch prefix must name a run.")
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.rollback()
	if _, err := lockForgetGeneration(ctx, tx, sourceID); err != nil {
		return 0, err
	}
	var (
		slug    string
		scratch bool
	)
	err = tx.QueryRow(ctx, `SELECT slug, scratch FROM projects WHERE id = $1 FOR SHARE`, scratchID).Scan(&slug, &scratch)
	if isNoRows(err) {
		return 0, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: copy events: %w", err)
	}
	if !scratch || !strings.HasPrefix(slug, prefix) {
		return 0, governance.Errorf(governance.EFORBIDDEN, "Project %s is not a scratch project of this run.", slug)
	}
	var run *int64
	if runID != 0 {
		run = &runID
	}
	if _, err := tx.Exec(ctx, `INSERT INTO eval_copies (prefix, source_project_id, run_id) VALUES ($1, $2, $3)
		ON CONFLICT (prefix, source_project_id) DO NOTHING`, prefix, sourceID, run); err != nil {
		return 0, fmt.Errorf("postgres: record event copy: %w", err)
	}
	if err := tx.lockProjectIngest(ctx, scratchID); err != nil {
		return 0, err
	}
	var events []*governance.Event
	if err := queryAll(ctx, tx, `SELECT `+eventColumns+` FROM events e WHERE e.project_id = $1 AND NOT e.redacted ORDER BY e.seq`,
		[]any{sourceID}, func(r pgx.Row) error {
			e, err := scanEvent(r)
			if err != nil {
				return err
			}
			events = append(events, evalrow.EventCopy(e))
			return nil
		}); err != nil {
		return 0, fmt.Errorf("postgres: copy events: %w", err)
	}
	res, err := insertEvents(ctx, tx, scratchID, events)
	if err != nil {
		return 0, err
	}
	return res.Inserted, tx.Commit(ctx)
}

// EventCopyForgets returns, for each live project the run of prefix copied
// events from, how many forgets have reached the copy so far.
func (s *Store) EventCopyForgets(ctx context.Context, prefix string) (map[int64]int, error) {
	out := map[int64]int{}
	if err := queryAll(ctx, s.pool, `SELECT source_project_id, forgets FROM eval_copies WHERE prefix = $1`, []any{prefix}, func(r pgx.Row) error {
		var (
			id int64
			n  int
		)
		err := r.Scan(&id, &n)
		out[id] = n
		return err
	}); err != nil {
		return nil, fmt.Errorf("postgres: find eval copies: %w", err)
	}
	return out, nil
}

// forgetCopies forgets, inside a forget's transaction (which holds its
// projects' forget-generation locks) and before it changes its own
// projects, the copy of what it forgets in every eval scratch project of a
// run that copied one of its projects' events (forgetplan.Mirror), as
// SQLite's store: each scratch project is locked (its row, its ingest and
// its forget generation, so a beat of it drops work that read what goes),
// the record counts the forget and is marked before the results change (a
// result's write locks the run's records, copyForgotten, so it either
// commits before the update of the results or waits and sees the mark).
// p.scratch collects the scratch projects changed, whose partitions the
// forget's rewrite then covers. A project's deletion removes the copies'
// scratch projects whole (removeCopies).
func forgetCopies(ctx context.Context, tx *Tx, p *forgetPlan) error {
	if p.Scope != nil && p.SubjectID == "" {
		return removeCopies(ctx, tx, p, p.Projects())
	}
	type record struct {
		prefix string
		source int64
	}
	var records []record
	if err := queryAll(ctx, tx, `SELECT prefix, source_project_id FROM eval_copies WHERE source_project_id = ANY($1)
		ORDER BY prefix, source_project_id`, []any{p.Projects()}, func(r pgx.Row) error {
		var c record
		err := r.Scan(&c.prefix, &c.source)
		records = append(records, c)
		return err
	}); err != nil {
		return fmt.Errorf("postgres: find eval copies: %w", err)
	}
	for _, c := range records {
		// FOR SHARE keeps the projects from their run's cleanup meanwhile,
		// and lets a beat of them insert rows that reference them.
		scratch, err := queryIDs(ctx, tx, `SELECT id FROM projects WHERE scratch AND left(slug, $1) = $2 ORDER BY id FOR SHARE`,
			[]any{len([]rune(c.prefix)), c.prefix})
		if err != nil {
			return fmt.Errorf("postgres: find eval copies: %w", err)
		}
		reached := false
		for _, id := range scratch {
			if err := tx.lockProjectIngest(ctx, id); err != nil {
				return err
			}
			if _, err := lockForgetGeneration(ctx, tx, id); err != nil {
				return err
			}
			// An event's copy has its id.
			copiesOf := func(seqs []int64) ([]int64, error) {
				copies, err := queryIDs(ctx, tx, `SELECT c.seq FROM events s JOIN events c ON c.project_id = $1 AND c.id = s.id
					WHERE s.project_id = $2 AND s.seq = ANY($3) ORDER BY c.seq`, []any{id, c.source, seqs})
				if err != nil {
					return nil, fmt.Errorf("postgres: find event copies: %w", err)
				}
				return copies, nil
			}
			mp, err := newForgetPlan(forgetplan.Mirror(ctx, planReader{tx, "FOR UPDATE"}, p.Plan, c.source, id, copiesOf))
			if err != nil {
				return err
			}
			if mp.Empty() {
				continue
			}
			reached = true
			mp.mirror = true
			if _, err := applyForget(ctx, tx, mp); err != nil {
				return err
			}
			if mp.SubjectID != "" {
				if err := forgetSubjectOutcomes(ctx, tx, mp, id, mp.SubjectID); err != nil {
					return err
				}
				if err := mp.exec(ctx, tx, "recall_traces", `DELETE FROM recall_traces WHERE project_id = $1 AND subject_id = $2`, id, mp.SubjectID); err != nil {
					return fmt.Errorf("postgres: delete recall traces: %w", err)
				}
				if _, err := tombstoneSubject(ctx, tx, mp); err != nil {
					return err
				}
			}
			for t, changed := range mp.changed {
				p.changed[t] = p.changed[t] || changed
			}
			p.scratch = append(p.scratch, id)
		}
		if !reached {
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE eval_copies SET forgotten = true, forgets = forgets + 1
			WHERE prefix = $1 AND source_project_id = $2`, c.prefix, c.source); err != nil {
			return fmt.Errorf("postgres: mark eval copies: %w", err)
		}
		if err := p.exec(ctx, tx, "eval_results", `UPDATE eval_results SET detail = '{}' WHERE detail <> '{}'
			AND run_id IN (SELECT run_id FROM eval_copies WHERE prefix = $1)`, c.prefix); err != nil {
			return fmt.Errorf("postgres: withhold eval results: %w", err)
		}
	}
	return nil
}

// removeCopies removes, inside a project deletion's transaction (which
// holds the project's forget-generation lock), the scratch projects
// holding copies of the projects' events, marks their copy records
// forgotten and empties the details of their runs' stored results;
// p.scratch collects the removed projects, whose partitions the rewrite
// then covers. The record is marked before the results change, as in
// forgetCopies.
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
		if _, err := tx.Exec(ctx, `UPDATE eval_copies SET forgotten = true, forgets = forgets + 1 WHERE prefix = $1`, prefix); err != nil {
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
