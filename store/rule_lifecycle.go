package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// The reviewer actions that move a rule through its lifecycle
// (ApproveRule, HoldRule, RestoreRule, ...) are lifecycle.RuleActions,
// embedded in Store and shared with the PostgreSQL store; here are their
// SQL (ruleTx) and their transactions (ruleStore).

// ruleStore opens the lifecycle's write transactions.
type ruleStore struct{ *Store }

func (rs ruleStore) Update(ctx context.Context, op string, fn func(tx ruleTx) error) error {
	tx, err := rs.begin(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(ruleTx{tx}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit rule change: %w", err)
	}
	return nil
}

// ruleTx is the SQL of each step of the lifecycle (lifecycle.Tx).
type ruleTx struct{ *Tx }

func (tx ruleTx) Now() time.Time { return tx.now }

func (tx ruleTx) LockRule(ctx context.Context, id int64) (*governance.Rule, error) {
	return findRuleIn(ctx, tx.Tx, id)
}

func (tx ruleTx) SetRuleStatus(ctx context.Context, id int64, from, to governance.RuleStatus) (bool, error) {
	return tx.one(ctx, "set rule status", `UPDATE rules SET status = ?, updated_at = ? WHERE id = ? AND status = ?`,
		to, formatTime(tx.now), id, from)
}

func (tx ruleTx) SetCandidates(ctx context.Context, ruleID int64, from []governance.CandidateStatus, to governance.CandidateStatus,
	reason *string, unlink bool) (int64, error) {
	var why sql.NullString
	if reason != nil {
		why = sql.NullString{String: *reason, Valid: true}
	}
	res, err := tx.ExecContext(ctx, `
		UPDATE candidates SET status = ?, status_reason = COALESCE(?, status_reason),
			rule_id = CASE WHEN ? THEN NULL ELSE rule_id END, updated_at = ?
		WHERE rule_id = ? AND status IN (SELECT value FROM json_each(?))`,
		to, why, unlink, formatTime(tx.now), ruleID, listArg(from))
	if err != nil {
		return 0, fmt.Errorf("store: set candidates of rule %d: %w", ruleID, err)
	}
	return res.RowsAffected()
}

func (tx ruleTx) CountCandidates(ctx context.Context, ruleID int64) (all, held int, err error) {
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(status = 'held'), 0) FROM candidates WHERE rule_id = ?`,
		ruleID).Scan(&all, &held); err != nil {
		return 0, 0, fmt.Errorf("store: count candidates: %w", err)
	}
	return all, held, nil
}

func (tx ruleTx) RuleOfCandidates(ctx context.Context, ids []int64) (int64, error) {
	var n int
	var owner int64
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(DISTINCT COALESCE(rule_id, 0)), COALESCE(MAX(rule_id), 0) FROM candidates
		WHERE id IN (SELECT value FROM json_each(?))`, listArg(ids)).Scan(&n, &owner); err != nil {
		return 0, fmt.Errorf("store: rule of candidates: %w", err)
	}
	if n != 1 {
		return 0, nil
	}
	return owner, nil
}

func (tx ruleTx) SetSupersedes(ctx context.Context, newerID, oldID int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE rules SET supersedes = ?, updated_at = ? WHERE id = ?`,
		oldID, formatTime(tx.now), newerID); err != nil {
		return fmt.Errorf("store: link replacement: %w", err)
	}
	return nil
}

func (tx ruleTx) Supersede(ctx context.Context, oldID, newerID int64, from governance.RuleStatus) (bool, error) {
	return tx.one(ctx, "supersede rule", `UPDATE rules SET status = 'superseded', superseded_by = ?, superseded_from = ?, updated_at = ?
		WHERE id = ? AND status = ?`,
		newerID, from, formatTime(tx.now), oldID, from)
}

func (tx ruleTx) SupersededFrom(ctx context.Context, id int64) (governance.RuleStatus, error) {
	var from string
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(superseded_from, '') FROM rules WHERE id = ?`, id).Scan(&from); err != nil {
		return "", fmt.Errorf("store: superseded rule %d: %w", id, err)
	}
	return governance.RuleStatus(from), nil
}

func (tx ruleTx) Unsupersede(ctx context.Context, id int64, to governance.RuleStatus) (bool, error) {
	ok, err := tx.one(ctx, "restore superseded rule", `UPDATE rules SET status = ?, superseded_by = NULL, superseded_from = NULL, updated_at = ?
		WHERE id = ? AND status = 'superseded'`, to, formatTime(tx.now), id)
	if err != nil || !ok {
		return ok, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE rules SET supersedes = NULL, updated_at = ? WHERE supersedes = ?`, formatTime(tx.now), id); err != nil {
		return false, fmt.Errorf("store: unlink replacement of rule %d: %w", id, err)
	}
	return true, nil
}

func (tx ruleTx) SetPaused(ctx context.Context, id int64, paused bool) error {
	_, err := tx.one(ctx, "pause rule", `UPDATE rules SET paused = ?, updated_at = ? WHERE id = ?`, paused, formatTime(tx.now), id)
	return err
}

func (tx ruleTx) SetExpiry(ctx context.Context, id int64, at *time.Time) error {
	_, err := tx.one(ctx, "set rule expiry", `UPDATE rules SET expires_at = ?, updated_at = ? WHERE id = ?`,
		formatTimePtr(at), formatTime(tx.now), id)
	return err
}

func (tx ruleTx) AppendAudit(ctx context.Context, e *governance.AuditEntry) error {
	return appendAudit(ctx, tx.Tx, e)
}

// one runs a statement that changes one row; false when it changed none.
func (tx ruleTx) one(ctx context.Context, what, q string, args ...any) (bool, error) {
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return false, fmt.Errorf("store: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (tx ruleTx) LastRuleAudit(ctx context.Context, ruleID int64) (*governance.AuditEntry, error) {
	e, _, err := scanAudit(tx.QueryRowContext(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+`
		WHERE a.object_type = 'rule' AND a.object_id = ? ORDER BY a.id DESC LIMIT 1`, strconv.FormatInt(ruleID, 10)))
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: last audit row of rule %d: %w", ruleID, err)
	}
	return e, nil
}

func (tx ruleTx) RuleVersions(ctx context.Context, ruleID int64) ([]*governance.RuleVersion, error) {
	return findVersionsOf(ctx, tx.Tx, []int64{ruleID})
}
