package store

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

// A reviewer decides a held or blocked candidate: release it into review
// as a proposed rule, or reject it (lifecycle.RuleActions:
// ReleaseCandidate, RejectCandidate); here is their SQL. Forgetting one is
// ForgetCandidate.

func (tx ruleTx) LockCandidate(ctx context.Context, id int64) (*governance.Candidate, error) {
	c, err := scanCandidate(tx.QueryRowContext(ctx, `SELECT `+candidateColumns+` FROM candidates c WHERE c.id = ?`, id))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Candidate not found.")
	}
	return c, err
}

func (tx ruleTx) ReleaseCandidates(ctx context.Context, c *governance.Candidate, ruleID int64, group bool, why string) error {
	now := formatTime(tx.now)
	q := `UPDATE candidates SET status = 'proposed', status_reason = ?, rule_id = ?, updated_at = ? WHERE id = ?`
	args := []any{why, ruleID, now, c.ID}
	if group {
		q = `UPDATE candidates SET status = 'proposed', status_reason = ?, rule_id = ?, updated_at = ?
			WHERE project_id = ? AND status = 'held' AND (id = ? OR group_id = ?)`
		args = []any{why, ruleID, now, c.ProjectID, c.ID, c.GroupID}
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("store: release candidate: %w", err)
	}
	return nil
}

func (tx ruleTx) RejectCandidate(ctx context.Context, id int64, reason string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE candidates SET status = 'rejected', status_reason = ?, updated_at = ? WHERE id = ?`,
		reason, formatTime(tx.now), id); err != nil {
		return fmt.Errorf("store: reject candidate: %w", err)
	}
	return nil
}
