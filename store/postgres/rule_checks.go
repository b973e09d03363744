package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
	"github.com/mnemo-console/mnemo/store/internal/baseline"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// What the eval runner needs of the memory besides recall: the code checks
// attached to rules, and the plain full-text baseline of the retrieval
// benchmarks.

// FindRuleChecks returns the code checks (a JSON array) attached to each of
// the given rules; rules without checks are left out.
func (s *Store) FindRuleChecks(ctx context.Context, ruleIDs []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.pool, `SELECT id, checks FROM rules WHERE id = ANY($1) AND checks NOT IN ('', '[]')`,
		[]any{ruleIDs}, rowscan.Keyed[pgx.Row](out))
	if err != nil {
		return nil, fmt.Errorf("postgres: find rule checks: %w", err)
	}
	return out, nil
}

// SetRuleChecks replaces the code checks (a JSON array, validated by the
// caller) attached to a rule and audits the change.
func (s *Store) SetRuleChecks(ctx context.Context, ruleID int64, checks, actor string) error {
	if checks == "" {
		checks = "[]"
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	var projectID int64
	err = tx.QueryRow(ctx, `UPDATE rules SET checks = $1 WHERE id = $2 RETURNING project_id`, checks, ruleID).Scan(&projectID)
	if isNoRows(err) {
		return governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	if err != nil {
		return fmt.Errorf("postgres: set rule checks: %w", err)
	}
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: actor, Action: "rule.checks_set", ObjectType: "rule", ObjectID: fmt.Sprint(ruleID), ProjectID: projectID,
	}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// NewTextBaseline opens an empty bare full-text baseline for the eval
// runner's retrieval benchmarks. The baseline (retriever "fts5") is by
// definition what a bare SQLite FTS5 table with bm25 gives
// (store/internal/baseline, in a temporary directory of its own), on
// either backend: benchmarks compare recall with one reference. It shares
// nothing with s.
func (s *Store) NewTextBaseline(ctx context.Context) (evalrow.TextBaseline, error) {
	return baseline.Open(ctx, "")
}
