package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/lifecycle"
)

// Reviewer edits of a rule's content: a new wording (a new version through
// the write gate), two proposals merged into one, a candidate split out.

// EditRule writes a new version of r after governance.CheckRuleEdit (a
// blocked text is refused, a secret is redacted); the rule's full-text
// entry follows its text.
func (tx ruleTx) EditRule(ctx context.Context, actor string, r *governance.Rule, e governance.RuleEdit) error {
	ed, err := governance.CheckRuleEdit(ctx, r, e, gate.Patterns)
	if err != nil {
		return err
	}
	version := r.Version + 1
	tag, err := tx.Exec(ctx, `
		UPDATE rules SET text = $1, kind = $2, version = $3, fingerprint = $4, findings = $5, updated_at = $6, words = $7::tsvector
		WHERE id = $8 AND version = $9`,
		ed.Text, string(ed.Kind), version, governance.Fingerprint(ed.Text), jsonList(ed.Findings), tx.now, tsvectorOf(ed.Text), r.ID, r.Version)
	if err != nil {
		return fmt.Errorf("postgres: edit rule: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return lifecycle.ErrChanged(r.ID)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		r.ID, version, ed.Text, string(ed.Kind), actor, ed.Reason, tx.now); err != nil {
		return fmt.Errorf("postgres: write rule version: %w", err)
	}
	details := map[string]any{"version": version, "kind": ed.Kind}
	if ed.Redacted {
		details["redacted"] = true
	}
	if err := lifecycle.Audit(ctx, tx, actor, "rule.edit", r, ed.Reason, details); err != nil {
		return err
	}
	r.Text, r.Kind, r.Version, r.Findings = ed.Text, ed.Kind, version, ed.Findings
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
		other, err := findRuleIn(ctx, tx, otherID, "FOR UPDATE")
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
		if err := tx.QueryRow(ctx, `SELECT COALESCE(min(group_id), 0) FROM candidates WHERE rule_id = $1`, keep.ID).Scan(&group); err != nil {
			return fmt.Errorf("postgres: merge group: %w", err)
		}
		tag, err := tx.Exec(ctx, `
			UPDATE candidates SET rule_id = $1, group_id = CASE WHEN $2::bigint > 0 THEN $2::bigint ELSE group_id END, status_reason = $3, updated_at = $4
			WHERE rule_id = $5`,
			keep.ID, group, fmt.Sprintf("Merged into rule %d by a reviewer.", keep.ID), tx.now, other.ID)
		if err != nil {
			return fmt.Errorf("postgres: move candidates: %w", err)
		}
		moved := tag.RowsAffected()
		if other.Trust > keep.Trust {
			if _, err := tx.Exec(ctx, `UPDATE rules SET trust = $1 WHERE id = $2`, other.Trust, keep.ID); err != nil {
				return fmt.Errorf("postgres: merge trust: %w", err)
			}
		}
		if keep.Supersedes == 0 && other.Supersedes != 0 {
			if _, err := tx.Exec(ctx, `UPDATE rules SET supersedes = $1 WHERE id = $2`, other.Supersedes, keep.ID); err != nil {
				return fmt.Errorf("postgres: merge replacement: %w", err)
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
		var owner *int64
		err := tx.QueryRow(ctx, `SELECT rule_id FROM candidates WHERE id = $1 FOR UPDATE`, candidateID).Scan(&owner)
		if isNoRows(err) || (err == nil && (owner == nil || *owner != r.ID)) {
			return governance.Errorf(governance.EINVALID, "Candidate %d does not support rule %d.", candidateID, r.ID)
		}
		if err != nil {
			return fmt.Errorf("postgres: split candidate: %w", err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM candidates WHERE rule_id = $1`, r.ID).Scan(&n); err != nil {
			return fmt.Errorf("postgres: count candidates: %w", err)
		}
		if n <= 1 {
			return governance.Errorf(governance.EINVALID, "Rule %d rests on this candidate alone; hold or reject the rule instead.", r.ID)
		}
		if _, err := tx.Exec(ctx, `
			UPDATE candidates SET rule_id = NULL, status = 'held', group_id = id, status_reason = $1, updated_at = $2 WHERE id = $3`,
			fmt.Sprintf("Split out of rule %d by a reviewer.", r.ID), tx.now, candidateID); err != nil {
			return fmt.Errorf("postgres: split candidate: %w", err)
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
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	id, err := ruleTx{tx}.InsertRule(ctx, r, actor, governance.NewMemoryNote(r))
	if err != nil {
		return nil, err
	}
	out, err := findRuleIn(ctx, tx, id, "")
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return out, nil
}
