package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-console/mnemo/governance"
)

// The reviewer actions that move a rule through its lifecycle
// (ApproveRule, HoldRule, RestoreRule, ...) are lifecycle.RuleActions,
// embedded in Store and shared with the SQLite store; here are their SQL
// (ruleTx) and their transactions (ruleStore). A change locks the rule's
// row (FOR UPDATE), so two instances changing one rule take turns and the
// second sees the first's result.

// ruleStore opens the lifecycle's write transactions.
type ruleStore struct{ *Store }

func (rs ruleStore) Update(ctx context.Context, op string, fn func(tx ruleTx) error) error {
	tx, err := rs.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if err := fn(ruleTx{tx}); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: commit rule change: %w", err)
	}
	return nil
}

// ruleTx is the SQL of each step of the lifecycle (lifecycle.Tx).
type ruleTx struct{ *Tx }

func (tx ruleTx) Now() time.Time { return tx.now }

func (tx ruleTx) LockRule(ctx context.Context, id int64) (*governance.Rule, error) {
	return findRuleIn(ctx, tx.Tx, id, "FOR UPDATE")
}

func (tx ruleTx) SetRuleStatus(ctx context.Context, id int64, from, to governance.RuleStatus) (bool, error) {
	n, err := tx.exec(ctx, "set rule status", `UPDATE rules SET status = $1, updated_at = $2 WHERE id = $3 AND status = $4`,
		string(to), tx.now, id, string(from))
	return n == 1, err
}

func (tx ruleTx) SetCandidates(ctx context.Context, ruleID int64, from []governance.CandidateStatus, to governance.CandidateStatus,
	reason *string, unlink bool) (int64, error) {
	in := make([]string, len(from))
	for i, st := range from {
		in[i] = string(st)
	}
	return tx.exec(ctx, "set candidates", `
		UPDATE candidates SET status = $1, status_reason = COALESCE($2, status_reason),
			rule_id = CASE WHEN $3 THEN NULL ELSE rule_id END, updated_at = $4
		WHERE rule_id = $5 AND status = ANY($6)`,
		string(to), reason, unlink, tx.now, ruleID, in)
}

func (tx ruleTx) CountCandidates(ctx context.Context, ruleID int64) (all, held int, err error) {
	if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status = 'held') FROM candidates WHERE rule_id = $1`,
		ruleID).Scan(&all, &held); err != nil {
		return 0, 0, fmt.Errorf("postgres: count candidates: %w", err)
	}
	return all, held, nil
}

func (tx ruleTx) RuleOfCandidates(ctx context.Context, ids []int64) (int64, error) {
	var n int
	var owner int64
	if err := tx.QueryRow(ctx, `SELECT count(DISTINCT COALESCE(rule_id, 0)), COALESCE(max(rule_id), 0) FROM candidates
		WHERE id = ANY($1)`, ids).Scan(&n, &owner); err != nil {
		return 0, fmt.Errorf("postgres: rule of candidates: %w", err)
	}
	if n != 1 {
		return 0, nil
	}
	return owner, nil
}

func (tx ruleTx) SetSupersedes(ctx context.Context, newerID, oldID int64) error {
	_, err := tx.exec(ctx, "link replacement", `UPDATE rules SET supersedes = $1, updated_at = $2 WHERE id = $3`, oldID, tx.now, newerID)
	return err
}

func (tx ruleTx) Supersede(ctx context.Context, oldID, newerID int64, from governance.RuleStatus) (bool, error) {
	n, err := tx.exec(ctx, "supersede rule", `UPDATE rules SET status = 'superseded', superseded_by = $1, superseded_from = $4, updated_at = $2
		WHERE id = $3 AND status = $4`,
		newerID, tx.now, oldID, string(from))
	return n == 1, err
}

func (tx ruleTx) SupersededFrom(ctx context.Context, id int64) (governance.RuleStatus, error) {
	var from string
	if err := tx.QueryRow(ctx, `SELECT COALESCE(superseded_from, '') FROM rules WHERE id = $1`, id).Scan(&from); err != nil {
		return "", fmt.Errorf("postgres: superseded rule %d: %w", id, err)
	}
	return governance.RuleStatus(from), nil
}

func (tx ruleTx) Unsupersede(ctx context.Context, id int64, to governance.RuleStatus) (bool, error) {
	n, err := tx.exec(ctx, "restore superseded rule", `UPDATE rules SET status = $1, superseded_by = NULL, superseded_from = NULL, updated_at = $2
		WHERE id = $3 AND status = 'superseded'`, string(to), tx.now, id)
	if err != nil || n != 1 {
		return false, err
	}
	_, err = tx.exec(ctx, "unlink replacement", `UPDATE rules SET supersedes = NULL, updated_at = $1 WHERE supersedes = $2`, tx.now, id)
	return err == nil, err
}

func (tx ruleTx) SetPaused(ctx context.Context, id int64, paused bool) error {
	_, err := tx.exec(ctx, "pause rule", `UPDATE rules SET paused = $1, updated_at = $2 WHERE id = $3`, paused, tx.now, id)
	return err
}

func (tx ruleTx) SetExpiry(ctx context.Context, id int64, at *time.Time) error {
	_, err := tx.exec(ctx, "set rule expiry", `UPDATE rules SET expires_at = $1, updated_at = $2 WHERE id = $3`, at, tx.now, id)
	return err
}

func (tx ruleTx) AppendAudit(ctx context.Context, e *governance.AuditEntry) error {
	return appendAudit(ctx, tx.Tx, e)
}

// exec runs one statement and returns how many rows it changed.
func (tx ruleTx) exec(ctx context.Context, what, q string, args ...any) (int64, error) {
	tag, err := tx.Exec(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("postgres: %s: %w", what, err)
	}
	return tag.RowsAffected(), nil
}

func (tx ruleTx) LastRuleAudit(ctx context.Context, ruleID int64) (*governance.AuditEntry, error) {
	e, _, err := scanAudit(tx.QueryRow(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+`
		WHERE a.object_type = 'rule' AND a.object_id = $1 ORDER BY a.id DESC LIMIT 1`, strconv.FormatInt(ruleID, 10)))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: last audit row of rule %d: %w", ruleID, err)
	}
	return e, nil
}

func (tx ruleTx) RuleVersions(ctx context.Context, ruleID int64) ([]*governance.RuleVersion, error) {
	return ruleVersionsOf(ctx, tx.Tx, []int64{ruleID})
}
