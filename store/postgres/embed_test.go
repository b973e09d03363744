package postgres_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestEmbeddingsGoWithTheirText: the triggers of migration 0017 delete a
// vector in the transaction that changes or removes its memory's text, as
// SQLite's of 0028 do (a forget needs no code of its own for them).
func TestEmbeddingsGoWithTheirText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	p := storetest.MustCreateProject(t, s, "travel")
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := s.Pool().Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	vectors := func() int {
		t.Helper()
		var n int
		if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM embeddings`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	embed := func(kind, item string) {
		t.Helper()
		exec(`INSERT INTO embeddings (kind, item_id, model, project_id, vector) VALUES ($1, (`+item+`), 'm', $2, '\x00')`, kind, p.ID)
	}
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{storetest.Ev("e1", "s1", 1, "user", "the blue suitcase"),
		storetest.Ev("e2", "s1", 2, "user", "the green kayak")}); err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO rules (project_id, kind, text, promotion_reason, status, created_at, updated_at)
		VALUES ($1, 'fact', 'x', 'explicit_user_instruction', 'active', now(), now())`, p.ID)
	exec(`INSERT INTO episodes (project_id, session_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at)
		VALUES ($1, 's1', 'a summary', 1, 2, 2, 'x', now(), now())`, p.ID)
	for _, c := range []struct{ kind, item, change string }{
		{"event", `SELECT min(seq) FROM events`, `UPDATE events SET redacted = true WHERE seq = (SELECT min(seq) FROM events)`},
		{"event", `SELECT max(seq) FROM events`, `UPDATE events SET text = 'edited' WHERE seq = (SELECT max(seq) FROM events)`},
		{"rule", `SELECT id FROM rules`, `UPDATE rules SET text = 'y'`},
		{"rule", `SELECT id FROM rules`, `UPDATE rules SET status = 'forgotten'`},
		{"episode", `SELECT id FROM episodes`, `UPDATE episodes SET summary = 'another'`},
		{"episode", `SELECT id FROM episodes`, `DELETE FROM episodes`},
	} {
		embed(c.kind, c.item)
		exec(`UPDATE rules SET paused = NOT paused`) // other columns keep the vectors
		if n := vectors(); n != 1 {
			t.Fatalf("before %q: %d vectors, want 1", c.change, n)
		}
		exec(c.change)
		if n := vectors(); n != 0 {
			t.Fatalf("after %q: %d vectors left", c.change, n)
		}
	}
}
