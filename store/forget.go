package store

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// Forget (docs/ARCHITECTURE.md): the rule, its versions and its candidates lose their
// content and their evidence links go; episode summaries that quote it are
// rewritten; optionally the source events are redacted (the FTS index, with
// secure-delete, drops their tokens); a suppression fingerprint stops the
// heartbeat from learning it again; the audit row holds ids and a content
// hash, never the content. SQLite's secure_delete overwrites freed bytes,
// and a WAL checkpoint afterwards leaves no copy in the log.

// PreviewForgetRules returns exactly what ForgetRules would remove.
func (s *Store) PreviewForgetRules(ctx context.Context, ids []int64, withEvents bool) (*governance.ForgetPreview, error) {
	return forgetplan.Preview(forgetplan.Rules(ctx, planReader{s.db}, ids, withEvents))
}

// PreviewForgetRule returns exactly what ForgetRule would remove.
func (s *Store) PreviewForgetRule(ctx context.Context, ruleID int64, withEvents bool) (*governance.ForgetPreview, error) {
	return s.PreviewForgetRules(ctx, []int64{ruleID}, withEvents)
}

// PreviewForgetSubject returns exactly what ForgetSubject would remove.
func (s *Store) PreviewForgetSubject(ctx context.Context, projectID int64, subjectID string) (*governance.ForgetPreview, error) {
	return forgetplan.Preview(forgetplan.Subject(ctx, planReader{s.db}, projectID, subjectID))
}

// PreviewForgetCandidate returns exactly what ForgetCandidate would remove.
func (s *Store) PreviewForgetCandidate(ctx context.Context, candidateID int64, withEvents bool) (*governance.ForgetPreview, error) {
	return forgetplan.Preview(forgetplan.Candidate(ctx, planReader{s.db}, candidateID, withEvents))
}

// ForgetRule forgets one rule completely; withEvents also redacts the
// conversation lines it came from.
func (s *Store) ForgetRule(ctx context.Context, actor string, ruleID int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.forgetRules(ctx, "ForgetRule", actor, []int64{ruleID}, withEvents)
}

// ForgetRules forgets several rules in one transaction (one audit row each).
func (s *Store) ForgetRules(ctx context.Context, actor string, ids []int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.forgetRules(ctx, "ForgetRules", actor, ids, withEvents)
}

func (s *Store) forgetRules(ctx context.Context, op, actor string, ids []int64, withEvents bool) (*governance.ForgetReport, error) {
	if len(ids) == 0 {
		return nil, governance.Errorf(governance.EINVALID, "Select at least one rule to forget.")
	}
	return s.forget(ctx, op, func(tx *Tx) (*forgetPlan, error) {
		return planRules(ctx, tx, ids, withEvents)
	}, func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error {
		return auditForget(ctx, tx, r, p.RuleAudits(actor, ids, r)...)
	})
}

// ForgetSubject forgets everything about one subject of a project.
func (s *Store) ForgetSubject(ctx context.Context, actor string, projectID int64, subjectID string) (*governance.ForgetReport, error) {
	actor = forgetplan.ForgetActor(actor, subjectID)
	if err := s.rechainLegacySubject(ctx, "ForgetSubject", actor, projectID, subjectID); err != nil {
		return nil, err
	}
	return s.forget(ctx, "ForgetSubject", func(tx *Tx) (*forgetPlan, error) {
		return planSubject(ctx, tx, projectID, subjectID)
	}, func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error {
		if err := forgetSubjectOutcomes(ctx, tx, projectID, subjectID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM recall_traces WHERE `+subjectTracesWhere, projectID, subjectID); err != nil {
			return fmt.Errorf("store: delete recall traces: %w", err)
		}
		r.RecallTraces = p.RecallTraces
		ref, err := tombstoneSubject(ctx, tx, projectID, subjectID)
		if err != nil {
			return err
		}
		if err := removeSubjectMemberships(ctx, tx, actor, projectID, subjectID, ref); err != nil {
			return err
		}
		return auditForget(ctx, tx, r, p.SubjectAudit(actor, ref, r))
	})
}

// subjectTracesWhere selects a subject's recall traces (project id,
// subject id) through their index (migration 0042), not by reading every
// trace of the project: the forget's plan counts them and the forget
// deletes them inside the writer's turn.
const subjectTracesWhere = `project_id = ? AND subject_id = ?`

// ForgetCandidate forgets a candidate (with its unattached merge group).
func (s *Store) ForgetCandidate(ctx context.Context, actor string, candidateID int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.forget(ctx, "ForgetCandidate", func(tx *Tx) (*forgetPlan, error) {
		return planCandidate(ctx, tx, candidateID, withEvents)
	}, func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error {
		return auditForget(ctx, tx, r, p.CandidateAudit(actor, candidateID, r))
	})
}

// auditForget appends a forget's audit rows and lists them in its report.
func auditForget(ctx context.Context, tx *Tx, r *governance.ForgetReport, entries ...*governance.AuditEntry) error {
	return forgetplan.Audit(r, entries, func(e *governance.AuditEntry) error { return appendAudit(ctx, tx, e) })
}

// forget plans inside one transaction, removes the content, lets audit add
// its rows, commits, and checkpoints the WAL so the log keeps no copy.
func (s *Store) forget(ctx context.Context, op string, plan func(tx *Tx) (*forgetPlan, error),
	audit func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error) (*governance.ForgetReport, error) {
	tx, err := s.begin(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := plan(tx)
	if err != nil {
		return nil, err
	}
	r, applied, err := forgetplan.Apply(p.Plan, func() (*governance.ForgetReport, error) { return applyForget(ctx, tx, p) },
		func(r *governance.ForgetReport) error { return audit(ctx, tx, p, r) })
	if err != nil || !applied {
		return r, err
	}
	if s.BeforeForgetCommit != nil {
		if err := s.BeforeForgetCommit(ctx); err != nil {
			return nil, err
		}
	}
	// The commit keeps this process's writer slot (the deferred Rollback
	// frees it) for the checkpoint: queueing for it again behind every
	// waiting writer doubled a forget's time under load.
	if err := tx.Tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: commit forget: %w", err)
	}
	if s.AfterForgetCommit != nil {
		s.AfterForgetCommit(ctx)
	}
	done, err := s.truncateWALHeld(ctx, forgetScrubWait)
	if err == nil && !done {
		s.scrub.wake(s)
	}
	return r, err
}

// checkpointAfterForget truncates the WAL: the checkpoint overwrites the
// pages the forget freed in the database file with the log's new ones,
// and the truncation drops the log's older frames, which may still hold
// the text. SQLite's TRUNCATE checkpoint holds the write lock while it
// waits for readers still on a snapshot from before the forget; with the
// connections' busy timeout a long search kept every writer waiting up to
// 10 s per attempt (the mixed load at 1M events). So one attempt here
// waits for readers at most forgetScrubWait; when readers still hold old
// snapshots the forget returns and the background scrub retries until the
// log is truncated. Close truncates it too, and after a crash
// RepairInterrupted does (TestCrashAfterForgetCommit).
func (s *Store) checkpointAfterForget(ctx context.Context, op string) error {
	done, err := s.truncateWAL(ctx, op)
	if err != nil || done {
		return err
	}
	s.scrub.wake(s)
	return nil
}

// forgetScrubWait bounds how long a forget's checkpoint holds the writer
// waiting for older readers.
const forgetScrubWait = 200 * time.Millisecond

// truncateWALHeld runs one TRUNCATE checkpoint; the caller holds this
// process's writer slot (so its writers do not refill the log meanwhile).
// It waits at most wait for readers of older snapshots and reports
// whether the log was emptied.
func (s *Store) truncateWALHeld(ctx context.Context, wait time.Duration) (bool, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("store: checkpoint: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, wait.Milliseconds())); err != nil {
		return false, fmt.Errorf("store: checkpoint: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout.Milliseconds()))
	done, _, err := s.checkpointHeld(ctx, conn, "TRUNCATE")
	if err != nil {
		return false, fmt.Errorf("store: checkpoint after forget: %w", err)
	}
	return done, nil
}

// tombstoneSubject replaces the identifiers of a forgotten subject left in
// the session, rule and suppression rows (applyForget has made its events'
// and episodes' ids tombstones and blanked the events' tools and statuses). Then the subject's key is deleted, and the reference the
// audit row names it by can no longer be confirmed. What remains is
// counts, turn numbers, roles, kinds and timestamps (docs/forget.md, "What a
// forget leaves").
func tombstoneSubject(ctx context.Context, tx *Tx, projectID int64, subjectID string) (string, error) {
	key, err := subjectKey(ctx, tx, projectID, subjectID)
	if err != nil {
		return "", err
	}
	ref := forgetplan.SubjectRef(key, subjectID)
	subject := forgetplan.Tombstone(key, forgetplan.SubjectTombstone, subjectID)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE sessions SET session_id = mnemo_tombstone(?, ?, session_id), subject_id = ? WHERE project_id = ? AND subject_id = ?`,
			[]any{key, forgetplan.SessionTombstone, subject, projectID, subjectID}},
		{`UPDATE rules SET subject_id = ? WHERE project_id = ? AND subject_id = ?`, []any{subject, projectID, subjectID}},
		{`UPDATE suppressions SET subject_id = ? WHERE project_id = ? AND subject_id = ?`, []any{subject, projectID, subjectID}},
		{`DELETE FROM subject_keys WHERE project_id = ? AND subject_id = ?`, []any{projectID, subjectID}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return "", fmt.Errorf("store: tombstone subject: %w", err)
		}
	}
	return ref, nil
}
