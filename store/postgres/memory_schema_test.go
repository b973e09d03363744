package postgres_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestMemorySchemaTriggers: the triggers of migration 0006 keep the
// active-rule counts and bump the forget generation as SQLite's do (its
// migrations 0008 and 0015).
func TestMemorySchemaTriggers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	p := storetest.MustCreateProject(t, s, "travel")
	q := storetest.MustCreateProject(t, s, "other")
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := s.Pool().Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	count := func(sql string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := s.Pool().QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	active := func(projectID int64) int64 {
		return count(`SELECT COALESCE((SELECT active FROM recall_rule_counts WHERE project_id = $1), 0)`, projectID)
	}
	gen := func(projectID int64) int64 {
		return count(`SELECT COALESCE((SELECT generation FROM forget_generations WHERE project_id = $1), 0)`, projectID)
	}
	for _, status := range []string{"active", "active", "proposed"} {
		exec(`INSERT INTO rules (project_id, kind, text, promotion_reason, status, created_at, updated_at)
			VALUES ($1, 'fact', 'x', 'explicit_user_instruction', $2, now(), now())`, p.ID, status)
	}
	if got := active(p.ID); got != 2 {
		t.Fatalf("active after inserts = %d, want 2", got)
	}
	exec(`UPDATE rules SET status = 'active' WHERE status = 'proposed'`)
	exec(`UPDATE rules SET status = 'archived' WHERE id = (SELECT min(id) FROM rules)`)
	exec(`UPDATE rules SET project_id = $1 WHERE id = (SELECT max(id) FROM rules)`, q.ID)
	if a, b := active(p.ID), active(q.ID); a != 1 || b != 1 {
		t.Fatalf("active after updates = %d, %d; want 1, 1", a, b)
	}
	exec(`DELETE FROM rules WHERE project_id = $1`, q.ID)
	if got := active(q.ID); got != 0 {
		t.Fatalf("active after delete = %d, want 0", got)
	}

	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{storetest.Ev("e1", "s1", 1, "user", "我家孩子午睡"), storetest.Ev("e2", "s1", 2, "user", "x")}); err != nil {
		t.Fatal(err)
	}
	if got := gen(p.ID); got != 0 {
		t.Fatalf("generation before any forget = %d", got)
	}
	exec(`UPDATE events SET redacted = true, text = '' WHERE id = 'e1'`)
	exec(`UPDATE events SET redacted = true, text = '' WHERE id = 'e1'`) // already redacted: no bump
	exec(`INSERT INTO suppressions (project_id, fingerprint, subject_id, created_at) VALUES ($1, 'fp', '', now())`, p.ID)
	exec(`INSERT INTO suppressions (project_id, fingerprint, subject_id, created_at) VALUES ($1, 'fp', '', now()) ON CONFLICT DO NOTHING`, p.ID)
	if a, b := gen(p.ID), gen(q.ID); a != 2 || b != 0 {
		t.Fatalf("generations after a redaction and a suppression = %d, %d; want 2, 0", a, b)
	}
}
