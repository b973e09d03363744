package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
	"github.com/mnemo-console/mnemo/store/internal/admin"
	"github.com/mnemo-console/mnemo/store/internal/auditlog"
)

// Administration from the browser: accounts, memberships and projects
// changed by an administrator, each change and its audit row in one
// transaction. What each change checks and audits is shared with the
// PostgreSQL store (store/internal/admin); the SQL is this file's.

// CreateAccountBy inserts an account with its memberships; actor's audit
// row is written in the same transaction.
func (s *Store) CreateAccountBy(ctx context.Context, actor string, a *governance.Account) error {
	tx, err := s.begin(ctx, "CreateAccountBy")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := createAccount(ctx, tx, a); err != nil {
		return err
	}
	if err := appendAudit(ctx, tx, admin.AccountCreated(actor, a)); err != nil {
		return err
	}
	return tx.Commit()
}

// UpdateAccount changes an account's password, administrator role or
// state. A new password or disabling ends every session of the account.
// The last enabled administrator can be neither demoted nor disabled
// (ECONFLICT): the check and the change share one transaction.
func (s *Store) UpdateAccount(ctx context.Context, actor string, id int64, upd governance.AccountUpdate) error {
	tx, err := s.begin(ctx, "UpdateAccount")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var a admin.Account
	err = tx.QueryRowContext(ctx, `SELECT username, is_admin, disabled_at IS NOT NULL FROM accounts WHERE id = ?`, id).
		Scan(&a.Username, &a.Admin, &a.Disabled)
	if isNoRows(err) {
		return governance.Errorf(governance.ENOTFOUND, "Account not found.")
	}
	if err != nil {
		return fmt.Errorf("store: update account: %w", err)
	}
	steps, lastAdminCheck, invalid := admin.AccountUpdate(actor, a, upd)
	if lastAdminCheck {
		var others int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM accounts WHERE is_admin = 1 AND disabled_at IS NULL AND id <> ?`, id).
			Scan(&others); err != nil {
			return fmt.Errorf("store: count administrators: %w", err)
		}
		if others == 0 {
			return admin.ErrLastAdmin
		}
	}
	if invalid != nil {
		return invalid
	}
	now := formatTime(tx.now)
	for _, step := range steps {
		var err error
		switch {
		case step.PasswordHash != nil:
			_, err = tx.ExecContext(ctx, `UPDATE accounts SET password_hash = ?, session_gen = session_gen + 1, updated_at = ? WHERE id = ?`,
				*step.PasswordHash, now, id)
		case step.Admin != nil:
			_, err = tx.ExecContext(ctx, `UPDATE accounts SET is_admin = ?, updated_at = ? WHERE id = ?`, *step.Admin, now, id)
		case step.Disabled != nil:
			at := any(nil)
			if *step.Disabled {
				at = now
			}
			_, err = tx.ExecContext(ctx, `UPDATE accounts SET disabled_at = ?, session_gen = session_gen + 1, updated_at = ? WHERE id = ?`,
				at, now, id)
		}
		if err != nil {
			return fmt.Errorf("store: update account (%s): %w", step.Audit.Action, err)
		}
		if err := appendAudit(ctx, tx, step.Audit); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SetMembershipBy gives an account a role in a project (replacing the one
// it had there), with actor's audit row.
func (s *Store) SetMembershipBy(ctx context.Context, actor string, m governance.Membership) error {
	tx, err := s.begin(ctx, "SetMembershipBy")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	username, err := accountName(ctx, tx, m.AccountID)
	if err != nil {
		return err
	}
	if err := setMembership(ctx, tx, m); err != nil {
		return err
	}
	ref := ""
	if m.Role == governance.ProjectMember {
		// The audit names a subject by its keyed reference, which the
		// subject's forget makes unconfirmable (tombstone.go).
		key, err := subjectKey(ctx, tx, m.ProjectID, m.SubjectID)
		if err != nil {
			return err
		}
		ref = forgetplan.SubjectRef(key, m.SubjectID)
	}
	if err := appendAudit(ctx, tx, admin.MembershipSet(actor, username, m, ref)); err != nil {
		return err
	}
	return tx.Commit()
}

// RemoveMembershipBy takes an account's role in a project away, with
// actor's audit row; ENOTFOUND when it had none.
func (s *Store) RemoveMembershipBy(ctx context.Context, actor string, accountID, projectID int64) error {
	tx, err := s.begin(ctx, "RemoveMembershipBy")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	username, err := accountName(ctx, tx, accountID)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM memberships WHERE account_id = ? AND project_id = ?`, accountID, projectID)
	if err != nil {
		return fmt.Errorf("store: remove membership: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return governance.Errorf(governance.ENOTFOUND, "Membership not found.")
	}
	if err := appendAudit(ctx, tx, admin.MembershipRemoved(actor, username, projectID)); err != nil {
		return err
	}
	return tx.Commit()
}

func accountName(ctx context.Context, tx *Tx, id int64) (string, error) {
	var name string
	err := tx.QueryRowContext(ctx, `SELECT username FROM accounts WHERE id = ?`, id).Scan(&name)
	if isNoRows(err) {
		return "", governance.Errorf(governance.ENOTFOUND, "Account not found.")
	}
	if err != nil {
		return "", fmt.Errorf("store: find account: %w", err)
	}
	return name, nil
}

// CreateProjectBy inserts a project (never a scratch one), with actor's
// audit row; a taken slug is ECONFLICT.
func (s *Store) CreateProjectBy(ctx context.Context, actor string, p *governance.Project) error {
	if err := admin.ValidateNewProject(p); err != nil {
		return err
	}
	tx, err := s.begin(ctx, "CreateProjectBy")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `
		INSERT INTO projects (slug, name, description, auto_activate, scratch, created_at)
		VALUES (?, ?, ?, ?, 0, ?)`,
		p.Slug, p.Name, p.Description, p.AutoActivate, formatTime(tx.now))
	if err != nil {
		return mapError(err, "Project "+p.Slug)
	}
	p.ID, _ = res.LastInsertId()
	p.Scratch, p.CreatedAt = false, tx.now
	if err := appendAudit(ctx, tx, admin.ProjectCreated(actor, p)); err != nil {
		return err
	}
	return tx.Commit()
}

// UpdateProject changes a project's name, description or review policy,
// with one audit row per kind of change.
func (s *Store) UpdateProject(ctx context.Context, actor string, id int64, upd governance.ProjectUpdate) error {
	tx, err := s.begin(ctx, "UpdateProject")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := scanProject(tx.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = ?`, id))
	if isNoRows(err) {
		return governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return fmt.Errorf("store: update project: %w", err)
	}
	steps, err := admin.ProjectUpdate(actor, p, upd)
	if err != nil {
		return err
	}
	for _, step := range steps {
		var err error
		if step.Rename {
			_, err = tx.ExecContext(ctx, `UPDATE projects SET name = ?, description = ? WHERE id = ?`, step.Name, step.Description, id)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE projects SET auto_activate = ? WHERE id = ?`, *step.AutoActivate, id)
		}
		if err != nil {
			return fmt.Errorf("store: update project (%s): %w", step.Audit.Action, err)
		}
		if err := appendAudit(ctx, tx, step.Audit); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// PreviewDeleteProject counts exactly what DeleteProject would remove.
func (s *Store) PreviewDeleteProject(ctx context.Context, id int64) (*governance.ProjectDeletion, error) {
	p, err := s.FindProjectByID(ctx, id)
	if err != nil {
		return nil, err
	}
	return countProject(ctx, s.db, p)
}

// DeleteProject removes a project and every row of every layer that
// belongs to it, leaving no copy behind, as a forget does: the content is
// first forgotten by the forget's own code (events redacted with their
// full-text terms, audit reasons on its rules and candidates blanked,
// quotes in stored eval results replaced), the reasons of the project's
// other audit rows are blanked, then the rows go. The audit row holds the
// counts and a SHA-256 of the content, never the content; the WAL is
// checkpointed afterwards.
func (s *Store) DeleteProject(ctx context.Context, actor string, id int64) (*governance.ProjectDeletion, error) {
	tx, err := s.begin(ctx, "DeleteProject")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := scanProject(tx.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = ?`, id))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("store: delete project: %w", err)
	}
	d, err := countProject(ctx, tx, p)
	if err != nil {
		return nil, err
	}
	plan, err := planProject(ctx, tx, p.ID)
	if err != nil {
		return nil, err
	}
	if !plan.Empty() {
		r, err := applyForget(ctx, tx, plan)
		if err != nil {
			return nil, err
		}
		d.ContentHash = r.ContentHash
	}
	if _, err := tx.ExecContext(ctx, `UPDATE audit_reasons SET reason = ? WHERE reason <> ? AND audit_id IN (SELECT id FROM audit WHERE project_id = ?)`,
		governance.RedactedText, governance.RedactedText, p.ID); err != nil {
		return nil, fmt.Errorf("store: redact audit reasons: %w", err)
	}
	if err := deleteProjectRows(ctx, tx, p, false); err != nil {
		return nil, err
	}
	if err := appendAudit(ctx, tx, admin.ProjectDeleted(actor, p, d)); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: commit project deletion: %w", err)
	}
	if err := s.checkpointAfterForget(ctx, "DeleteProject"); err != nil {
		return d, err
	}
	return d, nil
}

// countProject counts what deleting p removes.
func countProject(ctx context.Context, q querier, p *governance.Project) (*governance.ProjectDeletion, error) {
	d := &governance.ProjectDeletion{Project: p}
	err := q.QueryRowContext(ctx, `
		SELECT
			(SELECT COUNT(*) FROM events WHERE project_id = ?1),
			(SELECT COUNT(*) FROM sessions WHERE project_id = ?1),
			(SELECT COUNT(*) FROM episodes WHERE project_id = ?1),
			(SELECT COUNT(*) FROM candidates WHERE project_id = ?1),
			(SELECT COUNT(*) FROM rules WHERE project_id = ?1),
			(SELECT COUNT(*) FROM rule_versions WHERE rule_id IN (SELECT id FROM rules WHERE project_id = ?1)),
			(SELECT COUNT(*) FROM suppressions WHERE project_id = ?1),
			(SELECT COUNT(*) FROM recall_traces WHERE project_id = ?1),
			(SELECT COUNT(*) FROM api_tokens WHERE project_id = ?1),
			(SELECT COUNT(*) FROM memberships WHERE project_id = ?1),
			(SELECT COUNT(*) FROM sources WHERE project_id = ?1),
			(SELECT COUNT(*) FROM audit_reasons WHERE reason <> ?2 AND audit_id IN (SELECT id FROM audit WHERE project_id = ?1))`,
		p.ID, governance.RedactedText).Scan(&d.Events, &d.Sessions, &d.Episodes, &d.Candidates, &d.Rules, &d.RuleVersions,
		&d.Suppressions, &d.RecallTraces, &d.Tokens, &d.Memberships, &d.Sources, &d.AuditReasons)
	if err != nil {
		return nil, fmt.Errorf("store: count project: %w", err)
	}
	return d, nil
}

// deleteProjectRows deletes every row that belongs to project p, in an
// order the foreign keys accept; ids of the deleted rows are never handed
// out again (AUTOINCREMENT, migration 0025). Audit rows stay.
func deleteProjectRows(ctx context.Context, tx *Tx, p *governance.Project, rebuild bool) error {
	for _, q := range append(slices.Concat(deleteProjectOutcomes, skillProjectDeletes),
		`DELETE FROM recall_traces WHERE project_id = ?`,
		`DELETE FROM evidence WHERE candidate_id IN (SELECT id FROM candidates WHERE project_id = ?)`,
		`DELETE FROM candidates WHERE project_id = ?`,
		`UPDATE rules SET supersedes = NULL, superseded_by = NULL WHERE project_id = ?`,
		`DELETE FROM rule_versions WHERE rule_id IN (SELECT id FROM rules WHERE project_id = ?)`,
		`DELETE FROM rules WHERE project_id = ?`,
		`DELETE FROM rejected_classes WHERE project_id = ?`,
		`DELETE FROM suppressions WHERE project_id = ?`,
		`DELETE FROM episodes WHERE project_id = ?`,
		`DELETE FROM checkpoints WHERE project_id = ?`,
		`DELETE FROM sessions WHERE project_id = ?`,
		`events`,
		`DELETE FROM api_tokens WHERE project_id = ?`,
		`DELETE FROM memberships WHERE project_id = ?`,
		`DELETE FROM sources WHERE project_id = ?`,
		`DELETE FROM recall_rule_counts WHERE project_id = ?`,
		`DELETE FROM forget_keys WHERE project_id = ?`,
		`DELETE FROM subject_keys WHERE project_id = ?`,
		`DELETE FROM projects WHERE id = ?`,
	) {
		if q == "events" {
			if err := deleteProjectEvents(ctx, tx, p, rebuild); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.ExecContext(ctx, q, p.ID); err != nil {
			return fmt.Errorf("store: delete project %s: %w", p.Slug, err)
		}
	}
	return nil
}

// deleteProjectEvents deletes p's events and their terms from the word
// index: the terms in one statement (one flush of the index, where the
// row trigger flushed once an event), or none of them when the caller
// rebuilds the index before it commits (rebuild). The events' row trigger
// stands aside meanwhile (ingest_mode.batch, migration 0058).
func deleteProjectEvents(ctx context.Context, tx *Tx, p *governance.Project, rebuild bool) error {
	if err := setIndexBatch(ctx, tx, true); err != nil {
		return err
	}
	queries := []string{
		`INSERT INTO events_words (events_words, rowid, scope, terms)
			SELECT 'delete', seq, scope, terms FROM events_terms WHERE seq IN (SELECT seq FROM events WHERE project_id = ?)`,
		`INSERT INTO event_index_versions (project_id, version) VALUES (?, 1)
			ON CONFLICT (project_id) DO UPDATE SET version = version + 1`,
		`DELETE FROM events WHERE project_id = ?`,
	}
	if rebuild {
		queries = queries[1:]
	}
	for _, q := range queries {
		if _, err := tx.ExecContext(ctx, q, p.ID); err != nil {
			return fmt.Errorf("store: delete the events of project %s: %w", p.Slug, err)
		}
	}
	return setIndexBatch(ctx, tx, false)
}

// jsonDetails is an audit row's details as JSON ("" for none).
var jsonDetails = auditlog.Details
