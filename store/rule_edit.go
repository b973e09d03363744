package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/lifecycle"
)

// Reviewer edits of a rule's content: a new wording (a new version through
// the write gate), two proposals merged into one, a candidate split out.

// EditRule writes a new version of r: the text passes the write gate first
// (a blocked text is refused, a secret is redacted).
func (tx ruleTx) EditRule(ctx context.Context, actor string, r *governance.Rule, e governance.RuleEdit) error {
	ed, err := governance.CheckRuleEdit(ctx, r, e, gate.Patterns)
	if err != nil {
		return err
	}
	gated, kind, reason, findings := ed.Text, ed.Kind, ed.Reason, ed.Findings
	fj, _ := json.Marshal(nonNil(findings))
	now := formatTime(tx.now)
	version := r.Version + 1
	res, err := tx.ExecContext(ctx, `
		UPDATE rules SET text = ?, kind = ?, version = ?, fingerprint = ?, findings = ?, updated_at = ?
		WHERE id = ? AND version = ?`,
		gated, kind, version, governance.Fingerprint(gated), string(fj), now, r.ID, r.Version)
	if err != nil {
		return fmt.Errorf("store: edit rule: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return lifecycle.ErrChanged(r.ID)
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.ID, version, gated, kind, actor, reason, now); err != nil {
		return fmt.Errorf("store: write rule version: %w", err)
	}
	details := map[string]any{"version": version, "kind": kind}
	if ed.Redacted {
		details["redacted"] = true
	}
	if err := lifecycle.Audit(ctx, tx, actor, "rule.edit", r, reason, details); err != nil {
		return err
	}
	r.Text, r.Kind, r.Version, r.Findings = gated, kind, version, findings
	return nil
}

// EditRule writes a new version of a rule's text or kind.
func (s *Store) EditRule(ctx context.Context, actor string, id int64, e governance.RuleEdit) (*governance.Rule, error) {
	return s.changeRule(ctx, "EditRule", id, func(tx *Tx, r *governance.Rule) error {
		return ruleTx{tx}.EditRule(ctx, actor, r, e)
	})
}

// MergeRules folds proposal otherID into proposal keepID: keepID gets the
// candidates of both (and, with an edit, a new wording); otherID is
// rejected as merged. Both must have the same project and subject.
func (s *Store) MergeRules(ctx context.Context, actor string, keepID, otherID int64, edit *governance.RuleEdit) (*governance.Rule, error) {
	if keepID == otherID {
		return nil, governance.Errorf(governance.EINVALID, "Pick two different proposals to merge.")
	}
	return s.changeRule(ctx, "MergeRules", keepID, func(tx *Tx, keep *governance.Rule) error {
		other, err := findRuleIn(ctx, tx, otherID)
		if err != nil {
			return err
		}
		for _, r := range []*governance.Rule{keep, other} {
			if err := r.Allow(governance.RuleMerge); err != nil {
				return err
			}
		}
		if keep.ProjectID != other.ProjectID || keep.SubjectID != other.SubjectID {
			return governance.Errorf(governance.EINVALID, "Proposals %d and %d have different scopes (project or subject) and cannot be merged.", keepID, otherID)
		}
		var group int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MIN(group_id), 0) FROM candidates WHERE rule_id = ?`, keep.ID).Scan(&group); err != nil {
			return fmt.Errorf("store: merge group: %w", err)
		}
		now := formatTime(tx.now)
		res, err := tx.ExecContext(ctx, `
			UPDATE candidates SET rule_id = ?, group_id = CASE WHEN ? > 0 THEN ? ELSE group_id END, status_reason = ?, updated_at = ?
			WHERE rule_id = ?`,
			keep.ID, group, group, fmt.Sprintf("Merged into rule %d by a reviewer.", keep.ID), now, other.ID)
		if err != nil {
			return fmt.Errorf("store: move candidates: %w", err)
		}
		moved, _ := res.RowsAffected()
		if other.Trust > keep.Trust {
			if _, err := tx.ExecContext(ctx, `UPDATE rules SET trust = ? WHERE id = ?`, other.Trust, keep.ID); err != nil {
				return fmt.Errorf("store: merge trust: %w", err)
			}
		}
		if keep.Supersedes == 0 && other.Supersedes != 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE rules SET supersedes = ? WHERE id = ?`, other.Supersedes, keep.ID); err != nil {
				return fmt.Errorf("store: merge replacement: %w", err)
			}
		}
		if err := setRuleStatus(ctx, tx, other, governance.RuleRejected); err != nil {
			return err
		}
		if err := auditRule(ctx, tx, actor, "rule.merged_into", other, "", map[string]any{"into": keep.ID}); err != nil {
			return err
		}
		if err := auditRule(ctx, tx, actor, "rule.merge", keep, "", map[string]any{"merged": other.ID, "candidates": moved}); err != nil {
			return err
		}
		if edit != nil {
			return ruleTx{tx}.EditRule(ctx, actor, keep, *edit)
		}
		return nil
	})
}

// SplitCandidate takes one candidate out of a rule's evidence; it becomes a
// held candidate of its own. A rule keeps at least one candidate.
func (s *Store) SplitCandidate(ctx context.Context, actor string, ruleID, candidateID int64, reason string) (*governance.Rule, error) {
	return s.changeRule(ctx, "SplitCandidate", ruleID, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleSplit); err != nil {
			return err
		}
		var owner sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT rule_id FROM candidates WHERE id = ?`, candidateID).Scan(&owner)
		if isNoRows(err) || (err == nil && owner.Int64 != r.ID) {
			return governance.Errorf(governance.EINVALID, "Candidate %d does not support rule %d.", candidateID, r.ID)
		}
		if err != nil {
			return fmt.Errorf("store: split candidate: %w", err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM candidates WHERE rule_id = ?`, r.ID).Scan(&n); err != nil {
			return fmt.Errorf("store: count candidates: %w", err)
		}
		if n <= 1 {
			return governance.Errorf(governance.EINVALID, "Rule %d rests on this candidate alone; hold or reject the rule instead.", r.ID)
		}
		if _, err := tx.ExecContext(ctx, `
			UPDATE candidates SET rule_id = NULL, status = 'held', group_id = id, status_reason = ?, updated_at = ? WHERE id = ?`,
			fmt.Sprintf("Split out of rule %d by a reviewer.", r.ID), formatTime(tx.now), candidateID); err != nil {
			return fmt.Errorf("store: split candidate: %w", err)
		}
		return auditRule(ctx, tx, actor, "rule.split", r, strings.TrimSpace(reason), map[string]any{"candidate_id": candidateID})
	})
}

// ProposeMemory writes a memory written by hand (a reviewer's, or a
// member's about themself) as a proposed rule after
// governance.CheckNewMemory, audited as rule.propose.
func (s *Store) ProposeMemory(ctx context.Context, actor string, n governance.NewMemory) (*governance.Rule, error) {
	r, err := governance.CheckNewMemory(ctx, n, gate.Patterns)
	if err != nil {
		return nil, err
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	id, err := ruleTx{tx}.InsertRule(ctx, r, actor, governance.NewMemoryNote(r))
	if err != nil {
		return nil, err
	}
	out, err := findRuleIn(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return out, nil
}
