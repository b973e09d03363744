package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

// A reviewer's edits of a rule's content (a new wording through the write
// gate, two proposals merged into one, a candidate split out) and a memory
// written by hand are lifecycle.RuleActions; here is their SQL.

func (tx ruleTx) WriteVersion(ctx context.Context, actor string, r *governance.Rule, ed *governance.EditedRule, version int) (bool, error) {
	fj, _ := json.Marshal(nonNil(ed.Findings))
	now := formatTime(tx.now)
	ok, err := tx.one(ctx, "edit rule", `
		UPDATE rules SET text = ?, kind = ?, version = ?, fingerprint = ?, findings = ?, updated_at = ?
		WHERE id = ? AND version = ?`,
		ed.Text, ed.Kind, version, governance.Fingerprint(ed.Text), string(fj), now, r.ID, r.Version)
	if err != nil || !ok {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.ID, version, ed.Text, ed.Kind, actor, ed.Reason, now); err != nil {
		return false, fmt.Errorf("store: write rule version: %w", err)
	}
	return true, nil
}

func (tx ruleTx) MoveCandidates(ctx context.Context, fromID, toID int64, why string) (int64, error) {
	var group int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MIN(group_id), 0) FROM candidates WHERE rule_id = ?`, toID).Scan(&group); err != nil {
		return 0, fmt.Errorf("store: merge group: %w", err)
	}
	res, err := tx.ExecContext(ctx, `
		UPDATE candidates SET rule_id = ?, group_id = CASE WHEN ? > 0 THEN ? ELSE group_id END, status_reason = ?, updated_at = ?
		WHERE rule_id = ?`,
		toID, group, group, why, formatTime(tx.now), fromID)
	if err != nil {
		return 0, fmt.Errorf("store: move candidates: %w", err)
	}
	moved, _ := res.RowsAffected()
	return moved, nil
}

func (tx ruleTx) SetMerged(ctx context.Context, id int64, trust float64, supersedes int64) error {
	if trust > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE rules SET trust = ? WHERE id = ?`, trust, id); err != nil {
			return fmt.Errorf("store: merge trust: %w", err)
		}
	}
	if supersedes != 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE rules SET supersedes = ? WHERE id = ?`, supersedes, id); err != nil {
			return fmt.Errorf("store: merge replacement: %w", err)
		}
	}
	return nil
}

func (tx ruleTx) CandidateRule(ctx context.Context, id int64) (int64, bool, error) {
	var owner sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT rule_id FROM candidates WHERE id = ?`, id).Scan(&owner)
	if isNoRows(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: split candidate: %w", err)
	}
	return owner.Int64, true, nil
}

func (tx ruleTx) SplitCandidate(ctx context.Context, id int64, why string) error {
	if _, err := tx.ExecContext(ctx, `
		UPDATE candidates SET rule_id = NULL, status = 'held', group_id = id, status_reason = ?, updated_at = ? WHERE id = ?`,
		why, formatTime(tx.now), id); err != nil {
		return fmt.Errorf("store: split candidate: %w", err)
	}
	return nil
}
