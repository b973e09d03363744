package store_test

import (
	"context"
	"strings"
	"testing"
)

// TestRuleTextCapInSQL: a write that gets past the Go checks still cannot
// store a rule text longer than governance.MaxRuleText (migration 0095);
// a change that leaves the text alone passes.
func TestRuleTextCapInSQL(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "cap")
	long := strings.Repeat("午", 2001)
	insert := `INSERT INTO rules (project_id, kind, text, promotion_reason, status, created_at, updated_at)
		VALUES (?, 'fact', ?, 'explicit_user_instruction', 'active', '2026-06-15T09:00:00Z', '2026-06-15T09:00:00Z')`
	if _, err := s.DB().ExecContext(ctx, insert, p.ID, long); err == nil || !strings.Contains(err.Error(), "at most 2000") {
		t.Fatalf("insert of a long rule text: %v", err)
	}
	res, err := s.DB().ExecContext(ctx, insert, p.ID, strings.Repeat("午", 2000))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	if _, err := s.DB().ExecContext(ctx, `UPDATE rules SET text = ? WHERE id = ?`, long, id); err == nil {
		t.Fatal("an update to a long rule text passed")
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at)
		VALUES (?, 2, ?, 'fact', 'x', 'x', '2026-06-15T09:00:00Z')`, id, long); err == nil {
		t.Fatal("a long version text passed")
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE rules SET status = 'stale' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
}
