package postgres

import (
	"context"
	"fmt"
)

// After a forget or a project deletion the old versions of the changed
// rows are still in the table files (PostgreSQL writes a new row version
// on every UPDATE and only marks the old one dead), and a GIN index keeps
// an entry for every lexeme it ever held. A plain VACUUM marks that space
// reusable without overwriting it, so the store rewrites each table the
// forget touched with VACUUM FULL: a new file holding only the live rows,
// its TOAST table and every index rebuilt, the old files unlinked. It runs
// after the forget's transaction (VACUUM cannot run inside one) and takes
// each table's exclusive lock while it copies it: writers and readers of
// that table wait, on every instance, for as long as the copy takes
// (about a second per hundred thousand events on the development
// machine). What the write-ahead log, replicas and backups still hold is
// in docs/ARCHITECTURE.md ("Forget").

// vacuumTables are the tables a forget may change, in the order they are
// rewritten.
var vacuumTables = []string{"rules", "rule_versions", "candidates", "evidence", "episodes", "events",
	"audit_reasons", "eval_results", "recall_traces"}

// forgetTables are the tables forget plan p changes.
func forgetTables(p *forgetPlan) []string {
	touched := map[string]bool{"audit_reasons": true, "eval_results": true}
	if len(p.Rules) > 0 {
		touched["rules"], touched["rule_versions"] = true, true
	}
	if len(p.Candidates) > 0 {
		touched["candidates"], touched["evidence"] = true, true
	}
	if len(p.Episodes) > 0 {
		touched["episodes"] = true
	}
	if p.EventCount > 0 {
		touched["events"] = true
	}
	if p.RecallTraces > 0 {
		touched["recall_traces"] = true
	}
	var out []string
	for _, t := range vacuumTables {
		if touched[t] {
			out = append(out, t)
		}
	}
	return out
}

// vacuumAfterForget rewrites tables (VACUUM FULL), one statement each,
// outside any transaction.
func (s *Store) vacuumAfterForget(ctx context.Context, tables []string) error {
	for _, t := range tables {
		if _, err := s.pool.Exec(ctx, `VACUUM (FULL) `+t); err != nil {
			return fmt.Errorf("postgres: vacuum %s after forget: %w", t, err)
		}
	}
	return nil
}
