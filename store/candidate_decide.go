package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/lifecycle"
	"github.com/mnemo-console/mnemo/store/internal/candrows"
)

// A reviewer decides a held or blocked candidate: release it into review
// as a proposed rule, or reject it. Forgetting one is ForgetCandidate.

// candidateIn reads one candidate inside tx (ENOTFOUND when it is gone).
func candidateIn(ctx context.Context, tx *Tx, id int64) (*governance.Candidate, error) {
	c, err := scanCandidate(tx.QueryRowContext(ctx, `SELECT `+candidateColumns+` FROM candidates c WHERE c.id = ?`, id))
	if err != nil {
		if isNoRows(err) {
			return nil, governance.Errorf(governance.ENOTFOUND, "Candidate not found.")
		}
		return nil, err
	}
	return c, nil
}

// ReleaseCandidate turns a held or blocked candidate into a proposed rule
// that waits in the review queue (its wording, kind and subject; the write
// gate's findings go with it). A held candidate takes the held members of
// its merge group along as evidence. The release is audited
// (candidate.release, with the status it had and, for a blocked one, the
// categories of its findings) next to the rule's rule.propose.
func (s *Store) ReleaseCandidate(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	tx, err := s.begin(ctx, "ReleaseCandidate")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	c, err := candidateIn(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if err := candrows.Undecided(c); err != nil {
		return nil, err
	}
	// A candidate of a held proposal: the proposal itself comes back, with
	// all its candidates, instead of a second rule saying the same.
	if r, ok, err := lifecycle.Release(ctx, ruleTx{tx}, actor, c, reason); err != nil || ok {
		if err != nil {
			return nil, err
		}
		if err := tx.Commit(); err != nil {
			return nil, err
		}
		return r, nil
	}
	r, versionReason := lifecycle.ReleasedRule(c)
	ruleID, err := ruleTx{tx}.InsertRule(ctx, r, actor, versionReason)
	if err != nil {
		return nil, err
	}
	now := formatTime(tx.now)
	q := `UPDATE candidates SET status = 'proposed', status_reason = ?, rule_id = ?, updated_at = ? WHERE id = ?`
	args := []any{candrows.ReleaseNote, ruleID, now, c.ID}
	if c.Status == governance.CandidateHeld && c.GroupID != 0 {
		q = `UPDATE candidates SET status = 'proposed', status_reason = ?, rule_id = ?, updated_at = ?
			WHERE project_id = ? AND status = 'held' AND (id = ? OR group_id = ?)`
		args = []any{candrows.ReleaseNote, ruleID, now, c.ProjectID, c.ID, c.GroupID}
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return nil, fmt.Errorf("store: release candidate: %w", err)
	}
	if err := appendAudit(ctx, tx, candrows.Audit(actor, "candidate.release", c, strings.TrimSpace(reason), candrows.ReleaseDetails(c, ruleID))); err != nil {
		return nil, err
	}
	out, err := findRuleIn(ctx, tx, ruleID)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return out, nil
}

// RejectCandidate turns a held or blocked candidate down for good, with the
// reviewer's reason, audited as candidate.reject.
func (s *Store) RejectCandidate(ctx context.Context, actor string, id int64, reason string) (*governance.Candidate, error) {
	tx, err := s.begin(ctx, "RejectCandidate")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	c, err := candidateIn(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if err := candrows.Undecided(c); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	if _, err := tx.ExecContext(ctx, `UPDATE candidates SET status = 'rejected', status_reason = ?, updated_at = ? WHERE id = ?`,
		reason, formatTime(tx.now), c.ID); err != nil {
		return nil, fmt.Errorf("store: reject candidate: %w", err)
	}
	if err := appendAudit(ctx, tx, candrows.Audit(actor, "candidate.reject", c, reason, candrows.RejectDetails(c))); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	c.Status, c.StatusReason = governance.CandidateRejected, reason
	return c, nil
}
