package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// MustCreateProject creates a project with the given slug.
func MustCreateProject(tb testing.TB, s *store.Store, slug string) *governance.Project {
	tb.Helper()
	p := &governance.Project{Slug: slug, Name: slug}
	if err := s.CreateProject(context.Background(), p); err != nil {
		tb.Fatal(err)
	}
	return p
}

func ev(id, session string, turn int, role governance.Role, text string) *governance.Event {
	return &governance.Event{ID: id, SessionID: session, SubjectID: "family-1", Turn: turn, Role: role, Text: text,
		OccurredAt: time.Date(2026, 6, 15, 9, turn, 0, 0, time.UTC)}
}

func TestAudit(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	for i := 0; i < 3; i++ {
		if err := s.AppendAudit(ctx, &governance.AuditEntry{Actor: "admin", Action: "rule.approve", ObjectType: "rule", ObjectID: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := s.VerifyAudit(ctx)
	if err != nil || !v.OK || v.Rows != 3 {
		t.Fatalf("verify = %+v, %v", v, err)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE audit SET reason = 'x' WHERE id = 2`); err == nil {
		t.Fatal("audit update allowed, want append-only")
	}
	// Tampering by hand (dropping the guard first) is detected and named.
	if _, err := s.DB().ExecContext(ctx, `DROP TRIGGER audit_no_update`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE audit SET actor = 'mallory' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	v, err = s.VerifyAudit(ctx)
	if err != nil || v.OK || v.BadID != 2 {
		t.Fatalf("verify after tamper = %+v, %v; want row 2 named", v, err)
	}
}

// TestRedactLeavesNoIndexCopy checks that the FTS index forgets a redacted
// text at once (secure-delete), so the bytes are gone from the file.
func TestRedactLeavesNoIndexCopy(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	secret := "ZebraQuokkaMarmalade"
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("e1", "s1", 1, governance.RoleUser, "my code word is "+secret)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE events SET text = ?, redacted = 1 WHERE id = 'e1'`, governance.RedactedText); err != nil {
		t.Fatal(err)
	}
	hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "Quokka"})
	if err != nil || len(hits) != 0 {
		t.Fatalf("hits = %v, %v", hits, err)
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM events_words_data WHERE instr(block, ?) > 0`, []byte("quokkamarmalad")).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d index blocks still hold the redacted term", n)
	}
}

// TestRedactLeavesPairIndex: a redacted event leaves the pair index too
// (the search behaviour itself is storetest's TestSearchCJKPairs).
func TestRedactLeavesPairIndex(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("e1", "s1", 1, governance.RoleUser, "孩子要午睡，酒店要安静")}); err != nil {
		t.Fatal(err)
	}
	if hits, _, _ := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "午睡"}); len(hits) != 1 {
		t.Fatalf("hits before redaction = %v, want e1", hits)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE events SET text = ? WHERE id = 'e1'`, governance.RedactedText); err != nil {
		t.Fatal(err)
	}
	if hits, _, _ := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "午睡"}); len(hits) != 0 {
		t.Fatalf("redacted event still found: %v", hits)
	}
}
