package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestRuleTextCapInSQL: a write that gets past the Go checks still cannot
// store a rule text longer than governance.MaxRuleText (migration 0075);
// a change that leaves the text alone passes.
func TestRuleTextCapInSQL(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := storetest.MustCreateProject(t, s, "cap")
	long := strings.Repeat("午", 2001)
	insert := `INSERT INTO rules (project_id, kind, text, promotion_reason, status, created_at, updated_at)
		VALUES ($1, 'fact', $2, 'explicit_user_instruction', 'active', now(), now()) RETURNING id`
	var id int64
	if err := s.Pool().QueryRow(ctx, insert, p.ID, long).Scan(&id); err == nil || !strings.Contains(err.Error(), "at most 2000") {
		t.Fatalf("insert of a long rule text: %v", err)
	}
	if err := s.Pool().QueryRow(ctx, insert, p.ID, strings.Repeat("午", 2000)).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `UPDATE rules SET text = $1 WHERE id = $2`, long, id); err == nil {
		t.Fatal("an update to a long rule text passed")
	}
	if _, err := s.Pool().Exec(ctx, `INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at)
		VALUES ($1, 2, $2, 'fact', 'x', 'x', now())`, id, long); err == nil {
		t.Fatal("a long version text passed")
	}
	if _, err := s.Pool().Exec(ctx, `UPDATE rules SET status = 'stale' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
}
