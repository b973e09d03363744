package postgres

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
// transaction (as in the SQLite store's admin.go). What each change
// checks and audits is shared with it (store/internal/admin); the SQL is
// this file's.

// lockAdmins serialises the changes that could leave no enabled
// administrator: two transactions demoting the last two administrators
// would each still count the other under read committed.
const lockAdmins = 4

// CreateAccountBy inserts an account with its memberships; actor's audit
// row is written in the same transaction.
func (s *Store) CreateAccountBy(ctx context.Context, actor string, a *governance.Account) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if err := createAccount(ctx, tx, a); err != nil {
		return err
	}
	if err := appendAudit(ctx, tx, admin.AccountCreated(actor, a)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// UpdateAccount changes an account's password, administrator role or
// state. A new password or disabling ends every session of the account.
// The last enabled administrator can be neither demoted nor disabled
// (ECONFLICT): the check and the change share one transaction, and an
// advisory lock makes concurrent demotions on any instance take turns.
func (s *Store) UpdateAccount(ctx context.Context, actor string, id int64, upd governance.AccountUpdate) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if upd.IsAdmin != nil || upd.Disabled != nil {
		if err := tx.lock(ctx, lockAdmins); err != nil {
			return err
		}
	}
	var a admin.Account
	err = tx.QueryRow(ctx, `SELECT username, is_admin, disabled_at IS NOT NULL FROM accounts WHERE id = $1 FOR UPDATE`, id).
		Scan(&a.Username, &a.Admin, &a.Disabled)
	if isNoRows(err) {
		return governance.Errorf(governance.ENOTFOUND, "Account not found.")
	}
	if err != nil {
		return fmt.Errorf("postgres: update account: %w", err)
	}
	steps, lastAdminCheck, invalid := admin.AccountUpdate(actor, a, upd)
	if lastAdminCheck {
		var others int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM accounts WHERE is_admin AND disabled_at IS NULL AND id <> $1`, id).
			Scan(&others); err != nil {
			return fmt.Errorf("postgres: count administrators: %w", err)
		}
		if others == 0 {
			return admin.ErrLastAdmin
		}
	}
	if invalid != nil {
		return invalid
	}
	for _, step := range steps {
		var err error
		switch {
		case step.PasswordHash != nil:
			_, err = tx.Exec(ctx, `UPDATE accounts SET password_hash = $1, session_gen = session_gen + 1, updated_at = $2 WHERE id = $3`,
				*step.PasswordHash, tx.now, id)
		case step.Admin != nil:
			_, err = tx.Exec(ctx, `UPDATE accounts SET is_admin = $1, updated_at = $2 WHERE id = $3`, *step.Admin, tx.now, id)
		case step.Disabled != nil:
			at := any(nil)
			if *step.Disabled {
				at = tx.now
			}
			_, err = tx.Exec(ctx, `UPDATE accounts SET disabled_at = $1, session_gen = session_gen + 1, updated_at = $2 WHERE id = $3`,
				at, tx.now, id)
		}
		if err != nil {
			return fmt.Errorf("postgres: update account (%s): %w", step.Audit.Action, err)
		}
		if err := appendAudit(ctx, tx, step.Audit); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// SetMembershipBy gives an account a role in a project (replacing the one
// it had there), with actor's audit row.
func (s *Store) SetMembershipBy(ctx context.Context, actor string, m governance.Membership) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
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
	return tx.Commit(ctx)
}

// RemoveMembershipBy takes an account's role in a project away, with
// actor's audit row; ENOTFOUND when it had none.
func (s *Store) RemoveMembershipBy(ctx context.Context, actor string, accountID, projectID int64) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	username, err := accountName(ctx, tx, accountID)
	if err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, `DELETE FROM memberships WHERE account_id = $1 AND project_id = $2`, accountID, projectID)
	if err != nil {
		return fmt.Errorf("postgres: remove membership: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return governance.Errorf(governance.ENOTFOUND, "Membership not found.")
	}
	if err := appendAudit(ctx, tx, admin.MembershipRemoved(actor, username, projectID)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func accountName(ctx context.Context, tx *Tx, id int64) (string, error) {
	var name string
	err := tx.QueryRow(ctx, `SELECT username FROM accounts WHERE id = $1`, id).Scan(&name)
	if isNoRows(err) {
		return "", governance.Errorf(governance.ENOTFOUND, "Account not found.")
	}
	if err != nil {
		return "", fmt.Errorf("postgres: find account: %w", err)
	}
	return name, nil
}

// CreateProjectBy inserts a project (never a scratch one), with actor's
// audit row; a taken slug is ECONFLICT.
func (s *Store) CreateProjectBy(ctx context.Context, actor string, p *governance.Project) error {
	if err := admin.ValidateNewProject(p); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	err = tx.QueryRow(ctx, `
		INSERT INTO projects (slug, name, description, auto_activate, scratch, created_at)
		VALUES ($1, $2, $3, $4, false, $5) RETURNING id`,
		p.Slug, p.Name, p.Description, p.AutoActivate, tx.now).Scan(&p.ID)
	if err != nil {
		return mapError(err, "Project "+p.Slug)
	}
	p.Scratch, p.CreatedAt = false, tx.now
	if err := appendAudit(ctx, tx, admin.ProjectCreated(actor, p)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// UpdateProject changes a project's name, description or review policy,
// with one audit row per kind of change.
func (s *Store) UpdateProject(ctx context.Context, actor string, id int64, upd governance.ProjectUpdate) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	p, err := scanProject(tx.QueryRow(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = $1 FOR UPDATE`, id))
	if isNoRows(err) {
		return governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return fmt.Errorf("postgres: update project: %w", err)
	}
	steps, err := admin.ProjectUpdate(actor, p, upd)
	if err != nil {
		return err
	}
	for _, step := range steps {
		var err error
		if step.Rename {
			_, err = tx.Exec(ctx, `UPDATE projects SET name = $1, description = $2 WHERE id = $3`, step.Name, step.Description, id)
		} else {
			_, err = tx.Exec(ctx, `UPDATE projects SET auto_activate = $1 WHERE id = $2`, *step.AutoActivate, id)
		}
		if err != nil {
			return fmt.Errorf("postgres: update project (%s): %w", step.Audit.Action, err)
		}
		if err := appendAudit(ctx, tx, step.Audit); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// PreviewDeleteProject counts exactly what DeleteProject would remove.
func (s *Store) PreviewDeleteProject(ctx context.Context, id int64) (*governance.ProjectDeletion, error) {
	p, err := s.FindProjectByID(ctx, id)
	if err != nil {
		return nil, err
	}
	return countProject(ctx, s.pool, p)
}

// DeleteProject removes a project and every row of every layer that
// belongs to it, leaving no copy behind, as a forget does: the content is
// first forgotten by the forget's own code (events redacted with their
// words, audit reasons on its rules and candidates blanked, quotes in
// stored eval results replaced), the reasons of the project's other audit
// rows are blanked, then the rows go, and the tables are rewritten
// (VACUUM FULL) after the commit. The audit row holds the counts and a
// SHA-256 of the content, never the content.
func (s *Store) DeleteProject(ctx context.Context, actor string, id int64) (*governance.ProjectDeletion, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	p, err := scanProject(tx.QueryRow(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = $1 FOR UPDATE`, id))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: delete project: %w", err)
	}
	// No ingest into the project while it goes, and no beat.
	if err := tx.lockProjectIngest(ctx, p.ID); err != nil {
		return nil, err
	}
	if _, err := lockForgetGeneration(ctx, tx, p.ID); err != nil {
		return nil, err
	}
	d, err := countProject(ctx, tx, p)
	if err != nil {
		return nil, err
	}
	plan, err := planProject(ctx, tx, "FOR UPDATE", p.ID)
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
	if _, err := tx.Exec(ctx, `UPDATE audit_reasons SET reason = $1 WHERE reason <> $1 AND audit_id IN (SELECT id FROM audit WHERE project_id = $2)`,
		governance.RedactedText, p.ID); err != nil {
		return nil, fmt.Errorf("postgres: redact audit reasons: %w", err)
	}
	if err := deleteProjectRows(ctx, tx, p); err != nil {
		return nil, err
	}
	if err := appendAudit(ctx, tx, admin.ProjectDeleted(actor, p, d)); err != nil {
		return nil, err
	}
	sc, err := recordScrub(ctx, tx, vacuumTables, append([]int64{p.ID}, plan.scratch...))
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("postgres: commit project deletion: %w", err)
	}
	if err := s.runScrub(ctx, sc); err != nil {
		return d, err
	}
	return d, nil
}

// countProject counts what deleting p removes.
func countProject(ctx context.Context, q dbtx, p *governance.Project) (*governance.ProjectDeletion, error) {
	d := &governance.ProjectDeletion{Project: p}
	err := q.QueryRow(ctx, `
		SELECT
			(SELECT count(*) FROM events WHERE project_id = $1),
			(SELECT count(*) FROM sessions WHERE project_id = $1),
			(SELECT count(*) FROM episodes WHERE project_id = $1),
			(SELECT count(*) FROM candidates WHERE project_id = $1),
			(SELECT count(*) FROM rules WHERE project_id = $1),
			(SELECT count(*) FROM rule_versions WHERE rule_id IN (SELECT id FROM rules WHERE project_id = $1)),
			(SELECT count(*) FROM suppressions WHERE project_id = $1),
			(SELECT count(*) FROM recall_traces WHERE project_id = $1),
			(SELECT count(*) FROM api_tokens WHERE project_id = $1),
			(SELECT count(*) FROM memberships WHERE project_id = $1),
			(SELECT count(*) FROM sources WHERE project_id = $1),
			(SELECT count(*) FROM audit_reasons WHERE reason <> $2 AND audit_id IN (SELECT id FROM audit WHERE project_id = $1))`,
		p.ID, governance.RedactedText).Scan(&d.Events, &d.Sessions, &d.Episodes, &d.Candidates, &d.Rules, &d.RuleVersions,
		&d.Suppressions, &d.RecallTraces, &d.Tokens, &d.Memberships, &d.Sources, &d.AuditReasons)
	if err != nil {
		return nil, fmt.Errorf("postgres: count project: %w", err)
	}
	return d, nil
}

// deleteProjectRows deletes every row that belongs to project p, in an
// order the foreign keys accept; identity sequences never hand the
// deleted ids out again. Audit rows stay.
func deleteProjectRows(ctx context.Context, tx *Tx, p *governance.Project) error {
	for _, q := range append(slices.Concat(deleteProjectOutcomes, skillProjectDeletes),
		`DELETE FROM recall_traces WHERE project_id = $1`,
		`DELETE FROM evidence WHERE candidate_id IN (SELECT id FROM candidates WHERE project_id = $1)`,
		`DELETE FROM candidates WHERE project_id = $1`,
		`UPDATE rules SET supersedes = NULL, superseded_by = NULL WHERE project_id = $1 AND (supersedes IS NOT NULL OR superseded_by IS NOT NULL)`,
		`DELETE FROM rule_versions WHERE rule_id IN (SELECT id FROM rules WHERE project_id = $1)`,
		`DELETE FROM rules WHERE project_id = $1`,
		`DELETE FROM rejected_classes WHERE project_id = $1`,
		`DELETE FROM suppressions WHERE project_id = $1`,
		`DELETE FROM episodes WHERE project_id = $1`,
		`DELETE FROM checkpoints WHERE project_id = $1`,
		`DELETE FROM sessions WHERE project_id = $1`,
		`DELETE FROM events WHERE project_id = $1`,
		`DELETE FROM api_tokens WHERE project_id = $1`,
		`DELETE FROM memberships WHERE project_id = $1`,
		`DELETE FROM sources WHERE project_id = $1`,
		`DELETE FROM recall_rule_counts WHERE project_id = $1`,
		`DELETE FROM forget_generations WHERE project_id = $1`,
		`DELETE FROM forget_keys WHERE project_id = $1`,
		`DELETE FROM subject_keys WHERE project_id = $1`,
		`DELETE FROM projects WHERE id = $1`,
	) {
		if _, err := tx.Exec(ctx, q, p.ID); err != nil {
			return fmt.Errorf("postgres: delete project %s: %w", p.Slug, err)
		}
	}
	return nil
}

// DeleteScratchProjects removes every scratch project (flagged
// governance.Project.Scratch when created) whose slug starts with prefix,
// the run's own; a project that is not flagged is never touched, whatever
// its slug.
func (s *Store) DeleteScratchProjects(ctx context.Context, prefix string) error {
	if prefix == "" {
		return governance.Errorf(governance.EINVALID, "A scratch prefix must name a run.")
	}
	ids, err := queryIDs(ctx, s.pool, `SELECT id FROM projects WHERE scratch AND left(slug, $1) = $2 ORDER BY id`,
		[]any{len([]rune(prefix)), prefix})
	if err != nil {
		return fmt.Errorf("postgres: find scratch projects: %w", err)
	}
	for _, id := range ids {
		// Gone meanwhile: another cleanup, or a forget removing copies.
		if err := s.DeleteScratchProject(ctx, id); err != nil && governance.ErrorCode(err) != governance.ENOTFOUND {
			return err
		}
	}
	// The run's copy records go with its scratch projects (a case's own
	// prefix is longer than the run's, so its cleanup keeps them).
	if _, err := s.pool.Exec(ctx, `DELETE FROM eval_copies WHERE left(prefix, $1) = $2`, len([]rune(prefix)), prefix); err != nil {
		return fmt.Errorf("postgres: remove eval copies: %w", err)
	}
	return nil
}

// DeleteScratchProject removes a project an eval run created, with every
// row of every layer that belongs to it (audit rows stay). It refuses any
// project that was not created as a scratch project (EFORBIDDEN).
func (s *Store) DeleteScratchProject(ctx context.Context, projectID int64) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	var (
		slug    string
		scratch bool
	)
	err = tx.QueryRow(ctx, `SELECT slug, scratch FROM projects WHERE id = $1 FOR UPDATE`, projectID).Scan(&slug, &scratch)
	if isNoRows(err) {
		return governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return fmt.Errorf("postgres: delete scratch project: %w", err)
	}
	if !scratch {
		return governance.Errorf(governance.EFORBIDDEN, "Project %s is not an eval scratch project.", slug)
	}
	if err := tx.lockProjectIngest(ctx, projectID); err != nil {
		return err
	}
	if err := deleteProjectRows(ctx, tx, &governance.Project{ID: projectID, Slug: slug}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// jsonDetails is an audit row's details as JSON ("" for none).
var jsonDetails = auditlog.Details
