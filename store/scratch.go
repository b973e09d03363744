package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// Who owns an eval scratch project, and the copies of live projects'
// events in them (docs/evals.md, "Scratch projects").

// ClaimScratch records holder's lease on the scratch projects whose slug
// starts with prefix (a CLI run's), until ttl from now. Lease times keep
// sub-second precision: a lease is seconds long in tests.
func (s *Store) ClaimScratch(ctx context.Context, prefix, holder string, ttl time.Duration) error {
	tx, err := s.begin(ctx, "ClaimScratch")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO scratch_leases (prefix, holder, expires_at) VALUES (?, ?, ?)`,
		prefix, holder, s.Now().Add(ttl).UTC().Format(time.RFC3339Nano)); err != nil {
		return mapError(err, "Scratch lease "+prefix)
	}
	return tx.Commit()
}

// RenewScratch extends prefix's lease to ttl from now; false, and nothing
// renewed, once it has expired or is gone.
func (s *Store) RenewScratch(ctx context.Context, prefix string, ttl time.Duration) (bool, error) {
	tx, err := s.begin(ctx, "RenewScratch")
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var exp string
	err = tx.QueryRowContext(ctx, `SELECT expires_at FROM scratch_leases WHERE prefix = ?`, prefix).Scan(&exp)
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: renew scratch lease: %w", err)
	}
	now := s.Now()
	if !parseTime(exp).After(now) {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE scratch_leases SET expires_at = ? WHERE prefix = ?`,
		now.Add(ttl).UTC().Format(time.RFC3339Nano), prefix); err != nil {
		return false, fmt.Errorf("store: renew scratch lease: %w", err)
	}
	return true, tx.Commit()
}

// ReleaseScratch drops prefix's lease.
func (s *Store) ReleaseScratch(ctx context.Context, prefix string) error {
	tx, err := s.begin(ctx, "ReleaseScratch")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM scratch_leases WHERE prefix = ?`, prefix); err != nil {
		return fmt.Errorf("store: release scratch lease: %w", err)
	}
	return tx.Commit()
}

// RemoveOrphanScratch deletes the scratch projects, and copy records, no
// live run owns (evalrow.OrphanScratch): the runner removes a run's scratch
// projects when it ends, and a CLI run its own, unless the process died
// first. It reads the slugs before the owners: a project seen was created
// after its owner's row or lease, which the later reads then see unless
// it ended. It returns how many runs it cleaned up after.
func (s *Store) RemoveOrphanScratch(ctx context.Context) (int64, error) {
	var (
		slugs  []string
		leases = map[string]time.Time{}
		live   = map[int64]bool{}
	)
	if err := queryAll(ctx, s.db, `SELECT slug FROM projects WHERE scratch = 1 AND substr(slug, 1, ?) = ?
		UNION SELECT prefix FROM eval_copies`, []any{len(evalrow.ScratchPrefix), evalrow.ScratchPrefix}, func(r scanner) error {
		var slug string
		err := r.Scan(&slug)
		slugs = append(slugs, slug)
		return err
	}); err != nil {
		return 0, fmt.Errorf("store: find orphan scratch projects: %w", err)
	}
	if err := queryAll(ctx, s.db, `SELECT prefix, expires_at FROM scratch_leases`, nil, func(r scanner) error {
		var prefix, exp string
		err := r.Scan(&prefix, &exp)
		leases[prefix] = parseTime(exp)
		return err
	}); err != nil {
		return 0, fmt.Errorf("store: find scratch leases: %w", err)
	}
	if err := queryAll(ctx, s.db, `SELECT id FROM eval_runs WHERE status IN ('queued', 'running')`, nil, func(r scanner) error {
		var id int64
		err := r.Scan(&id)
		live[id] = true
		return err
	}); err != nil {
		return 0, fmt.Errorf("store: find live eval runs: %w", err)
	}
	now := s.Now()
	orphans := evalrow.OrphanScratch(slugs, live, leases, now)
	for i, prefix := range orphans {
		if err := s.DeleteScratchProjects(ctx, prefix); err != nil {
			return int64(i), err
		}
	}
	// Expired leases have nothing left to guard.
	var expired []string
	for prefix, exp := range leases {
		if !exp.After(now) {
			expired = append(expired, prefix)
		}
	}
	if len(expired) == 0 {
		return int64(len(orphans)), nil
	}
	tx, err := s.begin(ctx, "RemoveOrphanScratch")
	if err != nil {
		return int64(len(orphans)), err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM scratch_leases WHERE prefix IN (SELECT value FROM json_each(?))`, listArg(expired)); err != nil {
		return int64(len(orphans)), fmt.Errorf("store: remove expired scratch leases: %w", err)
	}
	return int64(len(orphans)), tx.Commit()
}

// CopyEvents copies the events of live project sourceID that are not
// redacted into scratch project scratchID (flagged scratch, its slug
// starting with prefix, a run's) and records the copy (eval_copies,
// migration 0039), all in one transaction: written transactions take
// turns, so a forget of the source either committed before (the copy
// reads what it left) or comes after and forgets the copy of what it
// forgets (forgetCopies). It returns how many events it wrote; ids the
// scratch project holds already are skipped (a resumed run).
func (s *Store) CopyEvents(ctx context.Context, prefix string, sourceID, scratchID int64) (int, error) {
	_, runID, ok := evalrow.ScratchOwner(prefix)
	if !ok {
		return 0, governance.Errorf(governance.EINVALID, "A scratch prefix must name a run.")
	}
	tx, err := s.begin(ctx, "CopyEvents")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var (
		slug    string
		scratch bool
	)
	err = tx.QueryRowContext(ctx, `SELECT slug, scratch FROM projects WHERE id = ?`, scratchID).Scan(&slug, &scratch)
	if isNoRows(err) {
		return 0, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return 0, fmt.Errorf("store: copy events: %w", err)
	}
	if !scratch || !strings.HasPrefix(slug, prefix) {
		return 0, governance.Errorf(governance.EFORBIDDEN, "Project %s is not a scratch project of this run.", slug)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO eval_copies (prefix, source_project_id, run_id) VALUES (?, ?, ?)
		ON CONFLICT (prefix, source_project_id) DO NOTHING`, prefix, sourceID, nullRun(runID)); err != nil {
		return 0, fmt.Errorf("store: record event copy: %w", err)
	}
	var events []*governance.Event
	if err := queryAll(ctx, tx, `SELECT `+eventColumns+` FROM events e WHERE e.project_id = ? AND e.redacted = 0 ORDER BY e.seq`,
		[]any{sourceID}, func(r scanner) error {
			e, err := scanEvent(r)
			if err != nil {
				return err
			}
			events = append(events, evalrow.EventCopy(e))
			return nil
		}); err != nil {
		return 0, fmt.Errorf("store: copy events: %w", err)
	}
	res, err := ingestEvents(ctx, tx, scratchID, events)
	if err != nil {
		return 0, err
	}
	return res.Inserted, tx.Commit()
}

// EventCopyForgets returns, for each live project the run of prefix copied
// events from, how many forgets have reached the copy so far.
func (s *Store) EventCopyForgets(ctx context.Context, prefix string) (map[int64]int, error) {
	out := map[int64]int{}
	if err := queryAll(ctx, s.db, `SELECT source_project_id, forgets FROM eval_copies WHERE prefix = ?`, []any{prefix}, func(r scanner) error {
		var (
			id int64
			n  int
		)
		err := r.Scan(&id, &n)
		out[id] = n
		return err
	}); err != nil {
		return nil, fmt.Errorf("store: find eval copies: %w", err)
	}
	return out, nil
}

// nullRun is a copy record's run: NULL for a CLI run.
func nullRun(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// forgetCopies forgets, inside a forget's transaction and before it
// changes its own projects, the copy of what it forgets in every eval
// scratch project of a run that copied one of its projects' events
// (forgetplan.Mirror), and counts the forget on that copy record. The
// rest of the run's scratch data stays and the run goes on; the run's
// stored results lose their details (a case may quote copied text no
// fingerprint names) and those it stores afterwards are withheld
// (SaveEvalResult). A project's deletion removes the copies' scratch
// projects whole (removeCopies): everything in the copy goes with it.
func forgetCopies(ctx context.Context, tx *Tx, p *forgetPlan) error {
	if p.Scope != nil && p.SubjectID == "" {
		return removeCopies(ctx, tx, p.Projects())
	}
	type record struct {
		prefix string
		source int64
	}
	var records []record
	if err := queryAll(ctx, tx, `SELECT prefix, source_project_id FROM eval_copies
		WHERE source_project_id IN (SELECT value FROM json_each(?)) ORDER BY prefix, source_project_id`,
		[]any{listArg(p.Projects())}, func(r scanner) error {
			var c record
			err := r.Scan(&c.prefix, &c.source)
			records = append(records, c)
			return err
		}); err != nil {
		return fmt.Errorf("store: find eval copies: %w", err)
	}
	for _, c := range records {
		scratch, err := queryIDs(ctx, tx, `SELECT id FROM projects WHERE scratch = 1 AND substr(slug, 1, ?) = ? ORDER BY id`,
			len(c.prefix), c.prefix)
		if err != nil {
			return fmt.Errorf("store: find eval copies: %w", err)
		}
		reached := false
		for _, id := range scratch {
			// An event's copy has its id.
			copiesOf := func(seqs []int64) ([]int64, error) {
				copies, err := queryIDs(ctx, tx, `SELECT c.seq FROM events s JOIN events c ON c.project_id = ? AND c.id = s.id
					WHERE s.project_id = ? AND s.seq IN (SELECT value FROM json_each(?)) ORDER BY c.seq`, id, c.source, listArg(seqs))
				if err != nil {
					return nil, fmt.Errorf("store: find event copies: %w", err)
				}
				return copies, nil
			}
			mp, err := forgetplan.Mirror(ctx, planReader{tx}, p.Plan, c.source, id, copiesOf)
			if err != nil {
				return err
			}
			if mp.Empty() {
				continue
			}
			reached = true
			if _, err := applyForget(ctx, tx, &forgetPlan{Plan: mp, mirror: true}); err != nil {
				return err
			}
			if mp.SubjectID != "" {
				if err := forgetSubjectOutcomes(ctx, tx, id, mp.SubjectID); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `DELETE FROM recall_traces WHERE `+subjectTracesWhere, id, mp.SubjectID); err != nil {
					return fmt.Errorf("store: delete recall traces: %w", err)
				}
				if _, err := tombstoneSubject(ctx, tx, id, mp.SubjectID); err != nil {
					return err
				}
			}
		}
		if !reached {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE eval_copies SET forgotten = 1, forgets = forgets + 1
			WHERE prefix = ? AND source_project_id = ?`, c.prefix, c.source); err != nil {
			return fmt.Errorf("store: mark eval copies: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE eval_results SET detail = '{}' WHERE detail <> '{}'
			AND run_id IN (SELECT run_id FROM eval_copies WHERE prefix = ?)`, c.prefix); err != nil {
			return fmt.Errorf("store: withhold eval results: %w", err)
		}
	}
	return nil
}

// removeCopies removes, inside a project deletion's transaction, the
// scratch projects holding copies of the projects' events, marks their
// copy records forgotten and empties the details of their runs' stored
// results. It runs before the deletion rewrites the full-text indexes,
// which then drop the copies' terms too.
func removeCopies(ctx context.Context, tx *Tx, projects []int64) error {
	var prefixes []string
	if err := queryAll(ctx, tx, `SELECT DISTINCT prefix FROM eval_copies WHERE source_project_id IN (SELECT value FROM json_each(?))`,
		[]any{listArg(projects)}, func(r scanner) error {
			var p string
			err := r.Scan(&p)
			prefixes = append(prefixes, p)
			return err
		}); err != nil {
		return fmt.Errorf("store: find eval copies: %w", err)
	}
	for _, prefix := range prefixes {
		var doomed []*governance.Project
		if err := queryAll(ctx, tx, `SELECT id, slug FROM projects WHERE scratch = 1 AND substr(slug, 1, ?) = ?`,
			[]any{len(prefix), prefix}, func(r scanner) error {
				p := &governance.Project{}
				err := r.Scan(&p.ID, &p.Slug)
				doomed = append(doomed, p)
				return err
			}); err != nil {
			return fmt.Errorf("store: find eval copies: %w", err)
		}
		for _, p := range doomed {
			if err := deleteProjectRows(ctx, tx, p, false); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE eval_copies SET forgotten = 1, forgets = forgets + 1 WHERE prefix = ?`, prefix); err != nil {
			return fmt.Errorf("store: mark eval copies: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE eval_results SET detail = '{}' WHERE detail <> '{}'
			AND run_id IN (SELECT run_id FROM eval_copies WHERE prefix = ?)`, prefix); err != nil {
			return fmt.Errorf("store: withhold eval results: %w", err)
		}
	}
	return nil
}

// copyForgotten reports, inside a result's write, whether a forget removed
// a copy the run made: the result's detail is then withheld.
func copyForgotten(ctx context.Context, tx *Tx, runID int64) (bool, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM eval_copies WHERE run_id = ? AND forgotten = 1`, runID).Scan(&n); err != nil {
		return false, fmt.Errorf("store: check eval copies: %w", err)
	}
	return n > 0, nil
}
