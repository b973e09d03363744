package postgres

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

// The SQL of lifecycle.RuleActions' EditRule, MergeRules, SplitCandidate
// and ProposeMemory. A new version rewrites the rule's full-text entry
// (words) with its text.

func (tx ruleTx) WriteVersion(ctx context.Context, actor string, r *governance.Rule, ed *governance.EditedRule, version int) (bool, error) {
	n, err := tx.exec(ctx, "edit rule", `
		UPDATE rules SET text = $1, kind = $2, version = $3, fingerprint = $4, findings = $5, updated_at = $6, words = $7::tsvector
		WHERE id = $8 AND version = $9`,
		ed.Text, string(ed.Kind), version, governance.Fingerprint(ed.Text), jsonList(ed.Findings), tx.now, tsvectorOf(ed.Text), r.ID, r.Version)
	if err != nil || n != 1 {
		return false, err
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		r.ID, version, ed.Text, string(ed.Kind), actor, ed.Reason, tx.now); err != nil {
		return false, fmt.Errorf("postgres: write rule version: %w", err)
	}
	return true, nil
}

func (tx ruleTx) MoveCandidates(ctx context.Context, fromID, toID int64, why string) (int64, error) {
	var group int64
	if err := tx.QueryRow(ctx, `SELECT COALESCE(min(group_id), 0) FROM candidates WHERE rule_id = $1`, toID).Scan(&group); err != nil {
		return 0, fmt.Errorf("postgres: merge group: %w", err)
	}
	return tx.exec(ctx, "move candidates", `
		UPDATE candidates SET rule_id = $1, group_id = CASE WHEN $2::bigint > 0 THEN $2::bigint ELSE group_id END, status_reason = $3, updated_at = $4
		WHERE rule_id = $5`,
		toID, group, why, tx.now, fromID)
}

func (tx ruleTx) SetMerged(ctx context.Context, id int64, trust float64, supersedes int64) error {
	if trust > 0 {
		if _, err := tx.exec(ctx, "merge trust", `UPDATE rules SET trust = $1 WHERE id = $2`, trust, id); err != nil {
			return err
		}
	}
	if supersedes != 0 {
		if _, err := tx.exec(ctx, "merge replacement", `UPDATE rules SET supersedes = $1 WHERE id = $2`, supersedes, id); err != nil {
			return err
		}
	}
	return nil
}

func (tx ruleTx) CandidateRule(ctx context.Context, id int64) (int64, bool, error) {
	var owner *int64
	err := tx.QueryRow(ctx, `SELECT rule_id FROM candidates WHERE id = $1 FOR UPDATE`, id).Scan(&owner)
	if isNoRows(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("postgres: split candidate: %w", err)
	}
	if owner == nil {
		return 0, true, nil
	}
	return *owner, true, nil
}

func (tx ruleTx) SplitCandidate(ctx context.Context, id int64, why string) error {
	_, err := tx.exec(ctx, "split candidate", `
		UPDATE candidates SET rule_id = NULL, status = 'held', group_id = id, status_reason = $1, updated_at = $2 WHERE id = $3`,
		why, tx.now, id)
	return err
}
