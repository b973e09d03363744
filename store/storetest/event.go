package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestIngestEvents: a batch is written whole with its sessions, re-sent
// ids are skipped, ImportEvents audits, and a rejected batch writes
// nothing — no event, no session, no audit row.
func TestIngestEvents(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		tool := Ev("e2", "s1", 2, governance.RoleTool, `{"result":"failed"}`)
		tool.Tool, tool.Status = "route_checker", governance.StatusFailed
		res, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
			Ev("e1", "s1", 1, governance.RoleUser, "帮我规划北京三日游"), tool,
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
		got := events[0]
		if got.ID != "e1" || got.ProjectID != p.ID || got.SubjectID != "family-1" || got.Turn != 1 || got.Role != governance.RoleUser ||
			got.Text != "帮我规划北京三日游" || !got.OccurredAt.Equal(time.Date(2026, 6, 15, 9, 1, 0, 0, time.UTC)) ||
			got.IngestedAt.IsZero() || got.Redacted {
			t.Fatalf("event = %+v", got)
		}
		if one, err := s.FindEventBySeq(ctx, events[1].Seq); err != nil || one.Tool != "route_checker" || one.Status != governance.StatusFailed {
			t.Fatalf("by seq = %+v, %v", one, err)
		}
		sessions, _, err := s.FindSessions(ctx, governance.SessionFilter{ProjectID: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		if got := sessions[0]; got.Events != 2 || got.Failed != 1 || !got.Ended || got.SubjectID != "family-1" ||
			got.LastSeq != events[2].Seq || !got.FirstAt.Equal(events[0].OccurredAt) || !got.LastAt.Equal(events[2].OccurredAt) {
			t.Fatalf("session = %+v", got)
		}
	})
	t.Run("Idempotent", func(t *testing.T) {
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		batch := func() []*governance.Event {
			return []*governance.Event{Ev("e1", "s1", 1, governance.RoleUser, "a"), Ev("e2", "s1", 2, governance.RoleAssistant, "b")}
		}
		if _, err := s.IngestEvents(ctx, p.ID, batch()); err != nil {
			t.Fatal(err)
		}
		res, err := s.IngestEvents(ctx, p.ID, append(batch(), Ev("e3", "s1", 3, governance.RoleUser, "c")))
		if err != nil {
			t.Fatal(err)
		}
		if res.Inserted != 1 || res.Skipped != 2 || fmt.Sprint(res.SkippedIDs) != "[e1 e2]" {
			t.Fatalf("result = %+v, want 1 inserted 2 skipped", res)
		}
		si, err := s.FindSession(ctx, p.ID, "s1")
		if err != nil || si.Events != 3 {
			t.Fatalf("session = %+v, %v; want 3 events", si, err)
		}
		if _, err := s.FindSession(ctx, p.ID, "s2"); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("err = %v, want ENOTFOUND", err)
		}
	})
	t.Run("ImportAudited", func(t *testing.T) {
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		if _, err := s.ImportEvents(ctx, "alice", p.ID, []*governance.Event{Ev("e1", "s1", 1, governance.RoleUser, "a")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ImportEvents(ctx, "alice", p.ID, []*governance.Event{Ev("e1", "s1", 1, governance.RoleUser, "a"), Ev("e2", "s1", 2, governance.RoleUser, "b")}); err != nil {
			t.Fatal(err)
		}
		rows, total, err := s.FindAudit(ctx, governance.AuditFilter{Action: "events.import"})
		if err != nil || total != 2 {
			t.Fatalf("audit = %+v (total %d), %v", rows, total, err)
		}
		if r := rows[0]; r.Actor != "alice" || r.ObjectType != "project" || r.ObjectID != "travel" || r.ProjectID != p.ID ||
			r.Details != `{"inserted":1,"skipped":1}` {
			t.Fatalf("audit row = %+v", r)
		}
		if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
			t.Fatalf("verify = %+v, %v", v, err)
		}
	})
	t.Run("ErrInvalidWritesNothing", func(t *testing.T) {
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		bad := Ev("e2", "s1", 2, "robot", "x")
		_, err := s.ImportEvents(ctx, "alice", p.ID, []*governance.Event{Ev("e1", "s1", 1, governance.RoleUser, "ok"), bad, Ev("e1", "s1", 3, governance.RoleUser, "dup")})
		var ie *governance.ImportError
		if !errors.As(err, &ie) {
			t.Fatalf("err = %v, want *ImportError", err)
		}
		if len(ie.Lines) != 2 || ie.Lines[0].Line != 2 || ie.Lines[1].Line != 3 {
			t.Fatalf("lines = %+v", ie.Lines)
		}
		assertNothingWritten(t, s, p)
	})
	t.Run("ErrUnknownProjectWritesNothing", func(t *testing.T) {
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		_, err := s.ImportEvents(ctx, "alice", p.ID+100, []*governance.Event{Ev("e1", "s1", 1, governance.RoleUser, "ok")})
		if err == nil {
			t.Fatal("ingest into a missing project succeeded")
		}
		if _, total, _ := s.FindEvents(ctx, governance.EventFilter{}); total != 0 {
			t.Fatalf("events written = %d, want 0", total)
		}
		assertNothingWritten(t, s, p)
	})
}

// TestIngestConcurrent: concurrent batches of one project are written one
// after another — every event lands and no batch's seqs interleave with
// another's — so a project's seqs follow commit order, which the
// heartbeat's checkpoint relies on.
func TestIngestConcurrent(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "busy")
	const writers, size = 6, 25
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			var batch []*governance.Event
			for i := range size {
				batch = append(batch, Ev(fmt.Sprintf("w%d-%02d", w, i), fmt.Sprintf("s%d", w), i+1, governance.RoleUser, "some text"))
			}
			_, err := s.IngestEvents(ctx, p.ID, batch)
			errs <- err
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	events, total, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
	if err != nil || total != writers*size {
		t.Fatalf("events = %d, %v; want %d", total, err, writers*size)
	}
	switches := 0
	for i := 1; i < len(events); i++ {
		if events[i].SessionID != events[i-1].SessionID {
			switches++
		}
	}
	if switches != writers-1 {
		t.Fatalf("batches interleave in seq order: %d switches between writers, want %d", switches, writers-1)
	}
}

// TestSessionOrder: a session's events come in turn order, and its
// session_end — which has no turn (0) and may arrive before the turns —
// comes last, on both backends (the session timeline reads this order).
func TestSessionOrder(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "ordered")
	end := Ev("end", "s1", 0, "", "")
	end.Kind = governance.KindSessionEnd
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{end}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
		Ev("t2", "s1", 2, governance.RoleAssistant, "two"), Ev("t1", "s1", 1, governance.RoleUser, "one")}); err != nil {
		t.Fatal(err)
	}
	session := "s1"
	events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, SessionID: &session})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range events {
		ids = append(ids, e.ID)
	}
	if strings.Join(ids, " ") != "t1 t2 end" {
		t.Fatalf("session order = %v, want t1 t2 end", ids)
	}
}

// TestImportStream: a stream larger than any one round trip is written
// whole with one audit row, ids repeated in the stream or already stored
// are skipped, and a stream rejected midway — a bad event, or the
// producer's own error — writes nothing.
func TestImportStream(t *testing.T, open Opener) {
	ctx := context.Background()
	const n = 1203
	stream := func(fail error, bad int) func(emit func(*governance.Event) error) error {
		return func(emit func(*governance.Event) error) error {
			for i := range n {
				e := Ev(fmt.Sprintf("e%d", i%(n-3)), fmt.Sprintf("s%d", i/100), i%100+1, governance.RoleUser, fmt.Sprintf("line %d", i))
				if i == bad {
					e.Role = "robot"
				}
				if err := emit(e); err != nil {
					return err
				}
			}
			return fail
		}
	}
	t.Run("OK", func(t *testing.T) {
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{Ev("e5", "s0", 6, governance.RoleUser, "line 5")}); err != nil {
			t.Fatal(err)
		}
		res, err := s.ImportStream(ctx, "cli", p.ID, stream(nil, -1))
		if err != nil {
			t.Fatal(err)
		}
		if res.Inserted != n-4 || res.Skipped != 4 || fmt.Sprint(res.SkippedIDs) != "[e5 e0 e1 e2]" {
			t.Fatalf("result = %d inserted, %d skipped %v; want %d, 4 [e5 e0 e1 e2]", res.Inserted, res.Skipped, res.SkippedIDs, n-4)
		}
		if _, total, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID}); total != n-3 {
			t.Fatalf("events = %d, want %d", total, n-3)
		}
		if si, err := s.FindSession(ctx, p.ID, "s11"); err != nil || si.Events != 100 {
			t.Fatalf("session s11 = %+v, %v; want its 100 events", si, err)
		}
		rows, _, err := s.FindAudit(ctx, governance.AuditFilter{Action: "events.import"})
		if err != nil || len(rows) != 1 || rows[0].Actor != "cli" || rows[0].Details != fmt.Sprintf(`{"inserted":%d,"skipped":4}`, n-4) {
			t.Fatalf("audit = %+v, %v", rows, err)
		}
	})
	t.Run("RepeatedID", func(t *testing.T) {
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		res, err := s.ImportStream(ctx, "", p.ID, func(emit func(*governance.Event) error) error {
			for _, e := range []*governance.Event{
				Ev("e1", "s1", 1, governance.RoleUser, "first"), Ev("e2", "s1", 2, governance.RoleUser, "second"),
				Ev("e1", "s1", 3, governance.RoleUser, "again"), Ev("e3", "s1", 4, governance.RoleUser, "third"),
			} {
				if err := emit(e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || res.Inserted != 3 || fmt.Sprint(res.SkippedIDs) != "[e1]" {
			t.Fatalf("result = %+v, %v; want 3 inserted, e1 skipped", res, err)
		}
		events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
		if err != nil || len(events) != 3 || events[0].Text != "first" || events[2].ID != "e3" {
			t.Fatalf("events = %+v, %v", events, err)
		}
	})
	t.Run("ManySessions", func(t *testing.T) {
		// More sessions than the writer keeps counts for, each one's
		// events spread over the whole stream: every session's counts and
		// times come out as if it had been written once.
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		const sessions, rounds = 700, 3
		res, err := s.ImportStream(ctx, "", p.ID, func(emit func(*governance.Event) error) error {
			for r := range rounds {
				for j := range sessions {
					e := Ev(fmt.Sprintf("m%d-%d", j, r), fmt.Sprintf("s%d", j), r+1, governance.RoleUser, "line")
					if r == 1 && j%2 == 0 {
						e.Role, e.Tool, e.Status = governance.RoleTool, "go test", governance.StatusFailed
					}
					if err := emit(e); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil || res.Inserted != sessions*rounds {
			t.Fatalf("result = %+v, %v", res, err)
		}
		if _, total, err := s.FindSessions(ctx, governance.SessionFilter{ProjectID: p.ID}); err != nil || total != sessions {
			t.Fatalf("sessions = %d, %v; want %d", total, err, sessions)
		}
		for _, id := range []string{"s0", "s1", "s698"} {
			si, err := s.FindSession(ctx, p.ID, id)
			wantFailed := 0
			if id != "s1" {
				wantFailed = 1
			}
			if err != nil || si.Events != rounds || si.Failed != wantFailed || si.FirstAt.Minute() != 1 || si.LastAt.Minute() != rounds {
				t.Fatalf("session %s = %+v, %v; want %d events, %d failed, minutes 1 to %d", id, si, err, rounds, wantFailed, rounds)
			}
		}
	})
	t.Run("ErrInvalidWritesNothing", func(t *testing.T) {
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		_, err := s.ImportStream(ctx, "cli", p.ID, stream(nil, 1100))
		var ie *governance.ImportError
		if !errors.As(err, &ie) || len(ie.Lines) != 1 || ie.Lines[0].Line != 1101 {
			t.Fatalf("err = %v, want item 1101 rejected", err)
		}
		assertNothingWritten(t, s, p)
	})
	t.Run("ErrProducerWritesNothing", func(t *testing.T) {
		s := open(t)
		p := MustCreateProject(t, s, "travel")
		boom := errors.New("file truncated")
		if _, err := s.ImportStream(ctx, "cli", p.ID, stream(boom, -1)); !errors.Is(err, boom) {
			t.Fatalf("err = %v, want the producer's", err)
		}
		assertNothingWritten(t, s, p)
	})
}

func assertNothingWritten(t *testing.T, s Store, p *governance.Project) {
	t.Helper()
	ctx := context.Background()
	if _, total, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID}); total != 0 {
		t.Fatalf("events written = %d, want 0", total)
	}
	if _, total, _ := s.FindSessions(ctx, governance.SessionFilter{ProjectID: p.ID}); total != 0 {
		t.Fatalf("sessions written = %d, want 0", total)
	}
	if _, total, _ := s.FindAudit(ctx, governance.AuditFilter{}); total != 0 {
		t.Fatalf("audit rows written = %d, want 0", total)
	}
}

func ids(hits []*governance.EventHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Event.ID)
	}
	return out
}

// TestSearchEvents: words and Chinese substrings, any word may match,
// more matches rank first, phrases are exact, results stay in the scope.
func TestSearchEvents(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "travel")
	other := MustCreateProject(t, s, "expense")
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
		Ev("e1", "s1", 1, governance.RoleUser, "孩子每天下午两点到四点要午睡，以后行程都空出来"),
		Ev("e2", "s1", 2, governance.RoleAssistant, "好的，环球影城单独安排一天"),
		Ev("e3", "s2", 1, governance.RoleUser, "Always run the Linter before committing"),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, other.ID, []*governance.Event{Ev("x1", "s9", 1, governance.RoleUser, "环球影城的票能报销吗")}); err != nil {
		t.Fatal(err)
	}
	// The order of these is the relevance model's to choose: two matches
	// of one rare word each, whose weights depend on how the backend counts
	// document frequencies (the project's or the whole table's).
	unordered := map[string]bool{"午睡 环球": true}
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
			got := ids(hits)
			if unordered[tc.q] {
				slices.Sort(got)
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
		if hits, total, err := s.SearchEvents(ctx, governance.EventFilter{ProjectIDs: []int64{}, Query: "环球影城"}); err != nil || total != 0 || len(hits) != 0 {
			t.Fatalf("no project: hits = %v (total %d), %v", hits, total, err)
		}
	})
	t.Run("ErrEmpty", func(t *testing.T) {
		if _, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: ` "" `}); governance.ErrorCode(err) != governance.EINVALID {
			t.Fatalf("err = %v, want EINVALID", err)
		}
	})
}

// TestSearchCJKPairs: Chinese runs match through their character pairs,
// a single character through its own term, ties go to the newest.
func TestSearchCJKPairs(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "travel")
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
		Ev("e1", "s1", 1, governance.RoleUser, "孩子要午睡，酒店要安静"),
		Ev("e2", "s1", 2, governance.RoleUser, "酒店早餐 50% off_sale"),
		Ev("e3", "s1", 3, governance.RoleUser, "睡午觉"),
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, want string }{
		{"午睡", "[e1]"},             // pair index
		{"酒店", "[e2 e1]"},          // newest first
		{"酒店 早餐", "[e2 e1]"},       // two pairs: the event with both first
		{"酒店 off_sale", "[e2 e1]"}, // pair + words
		{`"酒店早餐"`, "[e2]"},         // a phrase of pairs
		{"50%", "[e2]"},            // a number with a LIKE character
		{"睡", "[e3 e1]"},           // one character
	} {
		hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: tc.q})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ids(hits)); got != tc.want {
			t.Errorf("%q: got %v, want %s", tc.q, got, tc.want)
		}
	}
}

// TestSearchRarerWordsFirst: among events matching as many of the query's
// words, those matching the rarer word rank first.
func TestSearchRarerWordsFirst(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "ops")
	events := []*governance.Event{Ev("rare", "s0", 1, governance.RoleUser, "kubernetes upgrade notes")}
	for i := range 8 {
		events = append(events, Ev(fmt.Sprintf("common%d", i), "s1", i+1, governance.RoleUser, fmt.Sprintf("we deploy on friday %d", i)))
	}
	events = append(events, Ev("both", "s2", 1, governance.RoleUser, "deploy kubernetes on friday"))
	if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
		t.Fatal(err)
	}
	hits, total, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "deploy kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); total != 10 || len(got) != 10 || got[0] != "both" || got[1] != "rare" {
		t.Fatalf("got %v (total %d), want both, rare, then the common ones", got, total)
	}
}

// TestSearchManyMatches: past the count cap the newest matches (as many as
// the count shows, 1,001) are ranked by relevance, and the best of them
// comes first; a match older than them is not ranked.
func TestSearchManyMatches(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "many")
	events := []*governance.Event{Ev("outside", "s0", 1, governance.RoleUser, "apple banana cherry")}
	for i := 0; i < 1100; i++ {
		if i == 500 {
			events = append(events, Ev("best", "s0", 2, governance.RoleUser, "apple banana cherry"))
		}
		events = append(events, Ev(fmt.Sprintf("e%d", i), fmt.Sprintf("s%d", i/10+1), i%10+1, governance.RoleUser, fmt.Sprintf("an apple a day, number %d", i)))
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
	for _, h := range hits {
		if h.Event.ID == "outside" {
			t.Fatalf("a match older than the newest 1,001 was ranked: %v", h.Event.ID)
		}
	}
	hits, _, err = s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "apple banana", Limit: 1, Order: governance.SearchNewest})
	if err != nil || hits[0].Event.ID != "e1099" {
		t.Fatalf("newest = %v, %v", hits, err)
	}
}
