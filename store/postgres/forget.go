package postgres

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// Forget (docs/forget.md, "Forget on PostgreSQL"), with the SQLite store's
// guarantees: the rule, its versions and its candidates lose their content
// and their evidence links go; episode summaries that quote it are
// rewritten; optionally the source events are redacted; every words column
// (the full-text entries) of what changed is emptied or rewritten with it;
// a suppression fingerprint stops the heartbeat from learning it again,
// and the forget generation (raised by triggers on redaction and
// suppression, inside the forget's transaction) makes a beat running
// meanwhile drop its work; the audit row holds ids and a content hash,
// never the content. After the commit the touched tables are rewritten
// (VACUUM FULL, vacuum.go), so no old row version keeps the bytes in the
// table, TOAST or index files.

// PreviewForgetRules returns exactly what ForgetRules would remove.
func (s *Store) PreviewForgetRules(ctx context.Context, ids []int64, withEvents bool) (*governance.ForgetPreview, error) {
	return forgetplan.Preview(forgetplan.Rules(ctx, planReader{s.pool, ""}, ids, withEvents))
}

// PreviewForgetRule returns exactly what ForgetRule would remove.
func (s *Store) PreviewForgetRule(ctx context.Context, ruleID int64, withEvents bool) (*governance.ForgetPreview, error) {
	return s.PreviewForgetRules(ctx, []int64{ruleID}, withEvents)
}

// PreviewForgetSubject returns exactly what ForgetSubject would remove.
func (s *Store) PreviewForgetSubject(ctx context.Context, projectID int64, subjectID string) (*governance.ForgetPreview, error) {
	return forgetplan.Preview(forgetplan.Subject(ctx, planReader{s.pool, ""}, projectID, subjectID))
}

// PreviewForgetCandidate returns exactly what ForgetCandidate would remove.
func (s *Store) PreviewForgetCandidate(ctx context.Context, candidateID int64, withEvents bool) (*governance.ForgetPreview, error) {
	return forgetplan.Preview(forgetplan.Candidate(ctx, planReader{s.pool, ""}, candidateID, withEvents))
}

// ForgetRule forgets one rule completely; withEvents also redacts the
// conversation lines it came from.
func (s *Store) ForgetRule(ctx context.Context, actor string, ruleID int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.ForgetRules(ctx, actor, []int64{ruleID}, withEvents)
}

// ForgetRules forgets several rules in one transaction (one audit row each).
func (s *Store) ForgetRules(ctx context.Context, actor string, ids []int64, withEvents bool) (*governance.ForgetReport, error) {
	if len(ids) == 0 {
		return nil, governance.Errorf(governance.EINVALID, "Select at least one rule to forget.")
	}
	return s.forget(ctx, withEvents, func(tx *Tx) ([]int64, error) {
		return queryIDs(ctx, tx, `SELECT DISTINCT project_id FROM rules WHERE id = ANY($1) ORDER BY project_id`, []any{ids})
	}, func(tx *Tx) (*forgetPlan, error) {
		return planRules(ctx, tx, "FOR UPDATE", ids, withEvents)
	}, func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error {
		return auditForget(ctx, tx, r, p.RuleAudits(actor, ids, r)...)
	})
}

// ForgetSubject forgets everything about one subject of a project.
func (s *Store) ForgetSubject(ctx context.Context, actor string, projectID int64, subjectID string) (*governance.ForgetReport, error) {
	actor = forgetplan.ForgetActor(actor, subjectID)
	if err := s.rechainLegacySubject(ctx, actor, projectID, subjectID); err != nil {
		return nil, err
	}
	return s.forget(ctx, true, func(tx *Tx) ([]int64, error) {
		return queryIDs(ctx, tx, `SELECT id FROM projects WHERE id = $1`, []any{projectID})
	}, func(tx *Tx) (*forgetPlan, error) {
		return planSubject(ctx, tx, "FOR UPDATE", projectID, subjectID)
	}, func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error {
		if err := forgetSubjectOutcomes(ctx, tx, p, projectID, subjectID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM recall_traces WHERE project_id = $1 AND subject_id = $2`, projectID, subjectID); err != nil {
			return fmt.Errorf("postgres: delete recall traces: %w", err)
		}
		r.RecallTraces = p.RecallTraces
		ref, err := tombstoneSubject(ctx, tx, p)
		if err != nil {
			return err
		}
		if err := removeSubjectMemberships(ctx, tx, actor, p, ref); err != nil {
			return err
		}
		return auditForget(ctx, tx, r, p.SubjectAudit(actor, ref, r))
	})
}

// ForgetCandidate forgets a candidate (with its unattached merge group).
func (s *Store) ForgetCandidate(ctx context.Context, actor string, candidateID int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.forget(ctx, withEvents, func(tx *Tx) ([]int64, error) {
		return queryIDs(ctx, tx, `SELECT project_id FROM candidates WHERE id = $1`, []any{candidateID})
	}, func(tx *Tx) (*forgetPlan, error) {
		return planCandidate(ctx, tx, "FOR UPDATE", candidateID, withEvents)
	}, func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error {
		return auditForget(ctx, tx, r, p.CandidateAudit(actor, candidateID, r))
	})
}

// auditForget appends a forget's audit rows and lists them in its report.
func auditForget(ctx context.Context, tx *Tx, r *governance.ForgetReport, entries ...*governance.AuditEntry) error {
	return forgetplan.Audit(r, entries, func(e *governance.AuditEntry) error { return appendAudit(ctx, tx, e) })
}

// forget locks the forget generation of the projects it touches, plans
// inside the same transaction, removes the content, lets audit add its
// rows, commits, and then rewrites the tables it touched (vacuum; the
// rewrite is recorded in the transaction, so a crash before it ends
// leaves it to RepairInterrupted: recordScrub). The
// generation lock comes first, before anything is read: a beat of the
// project (ApplyBeatPlan takes the same lock) either committed before, and
// the plan sees what it wrote, or waits for this commit and then drops
// its work (docs/heartbeat.md, "A forget wins over a beat").
//
// A forget that redacts events (events: a subject forget, or a rule or
// candidate forget with its lines) takes the projects' ingest locks
// before that, the lock every ingest and import of a project holds for
// its whole transaction (lockProjectIngest): an import in flight commits
// first and the plan, read after, covers the lines it wrote — read
// committed, a plan made meanwhile would not see them, and the forget
// would commit with them left whole. An ingest that starts meanwhile
// waits for the forget and then writes after it (a forgotten event sent
// again is dropped by its tombstone). Ingest takes no lock of its own for
// this: its throughput is unchanged.
func (s *Store) forget(ctx context.Context, events bool, projects func(tx *Tx) ([]int64, error), plan func(tx *Tx) (*forgetPlan, error),
	audit func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error) (*governance.ForgetReport, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	ids, err := projects(tx)
	if err != nil {
		return nil, err
	}
	// Ascending, ingest locks before generations (as DeleteProject): two
	// forgets lock in one order.
	for _, id := range ids {
		if events {
			if err := tx.lockProjectIngest(ctx, id); err != nil {
				return nil, err
			}
		}
	}
	for _, id := range ids {
		if _, err := lockForgetGeneration(ctx, tx, id); err != nil {
			return nil, err
		}
	}
	p, err := plan(tx)
	if err != nil {
		return nil, err
	}
	r, applied, err := forgetplan.Apply(p.Plan, func() (*governance.ForgetReport, error) { return applyForget(ctx, tx, p) },
		func(r *governance.ForgetReport) error { return audit(ctx, tx, p, r) })
	if err != nil || !applied {
		return r, err
	}
	if p.changed["embeddings"], err = embeddingsDeleted(ctx, tx); err != nil {
		return nil, err
	}
	sc, err := recordScrub(ctx, tx, forgetTables(p), append(ids, p.scratch...))
	if err != nil {
		return nil, err
	}
	if s.BeforeForgetCommit != nil {
		if err := s.BeforeForgetCommit(ctx); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("postgres: commit forget: %w", err)
	}
	if s.AfterForgetCommit != nil {
		s.AfterForgetCommit(ctx)
	}
	if err := s.runScrub(ctx, sc); err != nil {
		return r, err
	}
	return r, nil
}

// tombstoneSubject replaces the identifiers of a forgotten subject left in
// the session, rule and suppression rows (applyForget has made its events'
// and episodes' ids tombstones and blanked the events' tools and
// statuses), then deletes the subject's key: the reference the audit row
// names it by can no longer be confirmed. What remains is counts, turn
// numbers, roles, kinds and timestamps (docs/forget.md, "What a forget leaves").
func tombstoneSubject(ctx context.Context, tx *Tx, p *forgetPlan) (string, error) {
	key, err := subjectKey(ctx, tx, p.ProjectID, p.SubjectID)
	if err != nil {
		return "", err
	}
	ref := forgetplan.SubjectRef(key, p.SubjectID)
	subject := forgetplan.Tombstone(key, forgetplan.SubjectTombstone, p.SubjectID)
	n, err := rewriteRows(ctx, tx, "sessions", "session_id", "text", []rewriteCol{
		tombstoneOf("session_id", key, forgetplan.SessionTombstone), fixed("subject_id", subject),
	}, "", `t.project_id = $1 AND t.subject_id = $2`, p.ProjectID, p.SubjectID)
	if err != nil {
		return "", err
	}
	p.changed["sessions"] = n > 0
	for _, q := range []struct{ table, sql string }{
		{"rules", `UPDATE rules SET subject_id = $3 WHERE project_id = $1 AND subject_id = $2`},
		{"suppressions", `UPDATE suppressions SET subject_id = $3 WHERE project_id = $1 AND subject_id = $2`},
	} {
		if err := p.exec(ctx, tx, q.table, q.sql, p.ProjectID, p.SubjectID, subject); err != nil {
			return "", fmt.Errorf("postgres: tombstone subject: %w", err)
		}
	}
	if err := p.exec(ctx, tx, "subject_keys", `DELETE FROM subject_keys WHERE project_id = $1 AND subject_id = $2`, p.ProjectID, p.SubjectID); err != nil {
		return "", fmt.Errorf("postgres: tombstone subject: %w", err)
	}
	return ref, nil
}

// removeSubjectMemberships ends, in a subject forget's transaction, the
// memberships that bind accounts to the forgotten subject in the project,
// with forgetplan.MembershipAudit's row (why: forgetplan/membership.go).
func removeSubjectMemberships(ctx context.Context, tx *Tx, actor string, p *forgetPlan, ref string) error {
	tag, err := tx.Exec(ctx, `DELETE FROM memberships WHERE project_id = $1 AND role = 'member' AND subject_id = $2`, p.ProjectID, p.SubjectID)
	if err != nil {
		return fmt.Errorf("postgres: remove the subject's memberships: %w", err)
	}
	p.changed["memberships"] = tag.RowsAffected() > 0
	if e := forgetplan.MembershipAudit(actor, p.ProjectID, ref, tag.RowsAffected()); e != nil {
		return appendAudit(ctx, tx, e)
	}
	return nil
}

// embeddingsDeleted reports whether the transaction deleted vectors: the
// triggers of migration 0017 delete a memory's vector with its text, so a
// forget changes the embeddings table without a statement of its own.
// The server counts the rows a transaction deleted, per table
// (pg_stat_get_xact_tuples_deleted; a count not yet reported from an
// earlier transaction of the connection would only add a rewrite); with
// counting off (track_counts, on by default) every forget rewrites the
// table.
func embeddingsDeleted(ctx context.Context, tx *Tx) (bool, error) {
	var deleted bool
	if err := tx.QueryRow(ctx, `SELECT pg_stat_get_xact_tuples_deleted('embeddings'::regclass) > 0
		OR NOT current_setting('track_counts')::boolean`).Scan(&deleted); err != nil {
		return false, fmt.Errorf("postgres: embeddings deleted: %w", err)
	}
	return deleted, nil
}
