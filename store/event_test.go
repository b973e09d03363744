package store_test

import (
	"context"
	"errors"
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

func TestIngestEvents(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		s := MustOpenStore(t)
		p := MustCreateProject(t, s, "travel")
		tool := ev("e2", "s1", 2, governance.RoleTool, `{"result":"failed"}`)
		tool.Tool, tool.Status = "route_checker", governance.StatusFailed
		res, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
			ev("e1", "s1", 1, governance.RoleUser, "帮我规划北京三日游"), tool,
			{ID: "e3", SessionID: "s1", Kind: governance.KindSessionEnd, OccurredAt: time.Date(2026, 6, 15, 10, 0, 0, 0, time.UTC)},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Inserted, 3; got != want {
			t.Fatalf("inserted = %d, want %d", got, want)
		}
		events, total, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
		if err != nil {
			t.Fatal(err)
		}
		if total != 3 || events[0].Seq >= events[1].Seq || events[1].Source != governance.SourceTool {
			t.Fatalf("events = %+v (total %d)", events, total)
		}
		sessions, _, err := s.FindSessions(ctx, governance.SessionFilter{ProjectID: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		if got := sessions[0]; got.Events != 2 || got.Failed != 1 || !got.Ended || got.SubjectID != "family-1" {
			t.Fatalf("session = %+v", got)
		}
	})
	t.Run("Idempotent", func(t *testing.T) {
		s := MustOpenStore(t)
		p := MustCreateProject(t, s, "travel")
		batch := func() []*governance.Event {
			return []*governance.Event{ev("e1", "s1", 1, governance.RoleUser, "a"), ev("e2", "s1", 2, governance.RoleAssistant, "b")}
		}
		if _, err := s.IngestEvents(ctx, p.ID, batch()); err != nil {
			t.Fatal(err)
		}
		res, err := s.IngestEvents(ctx, p.ID, append(batch(), ev("e3", "s1", 3, governance.RoleUser, "c")))
		if err != nil {
			t.Fatal(err)
		}
		if res.Inserted != 1 || res.Skipped != 2 {
			t.Fatalf("result = %+v, want 1 inserted 2 skipped", res)
		}
		sessions, _, _ := s.FindSessions(ctx, governance.SessionFilter{ProjectID: p.ID})
		if sessions[0].Events != 3 {
			t.Fatalf("session events = %d, want 3", sessions[0].Events)
		}
	})
	t.Run("ErrInvalidWritesNothing", func(t *testing.T) {
		s := MustOpenStore(t)
		p := MustCreateProject(t, s, "travel")
		bad := ev("e2", "s1", 2, "robot", "x")
		_, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("e1", "s1", 1, governance.RoleUser, "ok"), bad, ev("e1", "s1", 3, governance.RoleUser, "dup")})
		var ie *governance.ImportError
		if !errors.As(err, &ie) {
			t.Fatalf("err = %v, want *ImportError", err)
		}
		if len(ie.Lines) != 2 || ie.Lines[0].Line != 2 || ie.Lines[1].Line != 3 {
			t.Fatalf("lines = %+v", ie.Lines)
		}
		if _, total, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID}); total != 0 {
			t.Fatalf("events written = %d, want 0", total)
		}
	})
}

func TestSearchEvents(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	other := MustCreateProject(t, s, "expense")
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
		ev("e1", "s1", 1, governance.RoleUser, "孩子每天下午两点到四点要午睡，以后行程都空出来"),
		ev("e2", "s1", 2, governance.RoleAssistant, "好的，环球影城单独安排一天"),
		ev("e3", "s2", 1, governance.RoleUser, "Always run the Linter before committing"),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, other.ID, []*governance.Event{ev("x1", "s9", 1, governance.RoleUser, "环球影城的票能报销吗")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"环球影城", []string{"e2"}},
		{"午睡", []string{"e1"}},                            // two characters: one character pair
		{"linter", []string{"e3"}},                        // case-insensitive English word
		{"lint commit", []string{"e3"}},                   // any word may match; "commit" finds "committing"
		{"午睡 环球", []string{"e1", "e2"}},                   // any word may match
		{"环球 午睡 行程", []string{"e1", "e2"}},                // more matches rank first
		{"when should I run the linter?", []string{"e3"}}, // a question
		{`"run the linter"`, []string{"e3"}},              // an exact phrase
		{`"run linter"`, nil},                             // not in the text as written
		{`"午睡 环球"`, nil},
		{"不存在的词", nil},
	} {
		t.Run(tc.q, func(t *testing.T) {
			hits, total, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: tc.q})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Event.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || total != len(tc.want) {
				t.Fatalf("got %v (total %d), want %v", got, total, tc.want)
			}
			for _, h := range hits {
				marked := false
				for _, f := range h.Fragments {
					marked = marked || f.Match
				}
				if !marked {
					t.Fatalf("no highlighted fragment in %+v", h.Fragments)
				}
			}
		})
	}
	t.Run("NewestFirst", func(t *testing.T) {
		hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "环球 午睡 行程", Order: governance.SearchNewest})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 || hits[0].Event.ID != "e2" || hits[1].Event.ID != "e1" {
			t.Fatalf("hits = %v", hits)
		}
	})
	t.Run("ProjectIDsScope", func(t *testing.T) {
		hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectIDs: []int64{other.ID}, Query: "环球影城"})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].Event.ID != "x1" {
			t.Fatalf("hits = %v", hits)
		}
	})
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

func TestSearchCJKPairs(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
		ev("e1", "s1", 1, governance.RoleUser, "孩子要午睡，酒店要安静"),
		ev("e2", "s1", 2, governance.RoleUser, "酒店早餐 50% off_sale"),
		ev("e3", "s1", 3, governance.RoleUser, "睡午觉"),
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, want string }{
		{"午睡", "[e1]"},             // pair index
		{"酒店", "[e2 e1]"},          // newest first
		{"酒店 早餐", "[e2 e1]"},       // two pairs: the event with both first
		{"酒店 off_sale", "[e2 e1]"}, // pair + words
		{`"酒店早餐"`, "[e2]"},         // a phrase of pairs
		{"50%", "[e2]"},            // trigram with LIKE characters
		{"睡", "[e3 e1]"},           // one character: LIKE
	} {
		hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: tc.q})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Event.ID)
		}
		if fmt.Sprint(got) != tc.want {
			t.Errorf("%q: got %v, want %s", tc.q, got, tc.want)
		}
	}
	// A redacted event leaves the pair index too.
	if _, err := s.DB().ExecContext(ctx, `UPDATE events SET text = ? WHERE id = 'e1'`, governance.RedactedText); err != nil {
		t.Fatal(err)
	}
	if hits, _, _ := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "午睡"}); len(hits) != 0 {
		t.Fatalf("redacted event still found: %v", hits)
	}
}

// TestSearchManyMatches: past the count cap the newest matches are ranked
// by relevance, and the best of them comes first.
func TestSearchManyMatches(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "many")
	events := []*governance.Event{ev("best", "s0", 1, governance.RoleUser, "apple banana cherry")}
	for i := 0; i < 1100; i++ {
		events = append(events, ev(fmt.Sprintf("e%d", i), fmt.Sprintf("s%d", i/10+1), i%10+1, governance.RoleUser, fmt.Sprintf("an apple a day, number %d", i)))
	}
	if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
		t.Fatal(err)
	}
	hits, total, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "apple banana", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if total != 1001 || len(hits) != 5 || hits[0].Event.ID != "best" {
		t.Fatalf("total %d, first %v", total, hits[0].Event.ID)
	}
	hits, _, err = s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "apple banana", Limit: 1, Order: governance.SearchNewest})
	if err != nil || hits[0].Event.ID != "e1099" {
		t.Fatalf("newest = %v, %v", hits, err)
	}
}
