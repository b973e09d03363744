package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// The heartbeat fixtures of the conformance suite (its TestHeartbeat runs
// the beat's behaviour on both backends); the tests here need the SQLite
// store itself (its clock, a crash injected before commit, raw SQL).
type lineExtractor = storetest.LineExtractor

var session = storetest.Session

func newHeartbeat(s *store.Store, x governance.Extractor) *governance.Heartbeat {
	return storetest.NewHeartbeat(s, x, s.Now)
}

func snapshot(t *testing.T, s *store.Store) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT project_id || ':' || seq FROM checkpoints ORDER BY project_id`,
		`SELECT session_id || '|' || summary || '|' || last_seq FROM episodes ORDER BY id`,
		`SELECT id || '|' || statement || '|' || status || '|' || group_id || '|' || COALESCE(rule_id, 0) FROM candidates ORDER BY id`,
		`SELECT id || '|' || text || '|' || status || '|' || promotion_reason FROM rules ORDER BY id`,
		`SELECT candidate_id || '>' || event_seq FROM evidence ORDER BY 1`,
	} {
		rows, err := s.DB().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var v string
			rows.Scan(&v)
			b.WriteString(v + "\n")
		}
		rows.Close()
	}
	return b.String()
}

// TestHeartbeatCrashBeforeCommit: a beat failing just before its commit
// leaves nothing behind, and its retry equals an uninterrupted beat.
func TestHeartbeatCrashBeforeCommit(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	setup := func(t *testing.T) (*store.Store, *governance.Project) {
		s := MustOpenStore(t)
		s.Now = func() time.Time { return now }
		p := MustCreateProject(t, s, "travel")
		var events []*governance.Event
		events = append(events, session("s1", now.Add(-48*time.Hour), true, "we always travel light", "FAILED cross district", "ok thanks", "maybe a hotel near the lake")...)
		events = append(events, session("s2", now.Add(-24*time.Hour), true, "FAILED cross district", "what a day")...)
		// s3 is still open (recent, no end event): it holds the checkpoint back.
		events = append(events, session("s3", now.Add(-5*time.Minute), false, "we always travel light")...)
		if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
			t.Fatal(err)
		}
		return s, p
	}

	t.Run("CrashBeforeCommitLeavesNothing", func(t *testing.T) {
		s, _ := setup(t)
		clean, _ := setup(t)
		empty := snapshot(t, s)
		s.BeforeCommit = func(context.Context) error { return errors.New("injected crash") }
		if _, err := newHeartbeat(s, &lineExtractor{}).Beat(ctx, "test"); err == nil {
			t.Fatal("beat succeeded, want the injected failure")
		}
		if got := snapshot(t, s); got != empty {
			t.Fatalf("partial output after a failed beat:\n%s", got)
		}
		beats, _ := s.FindBeats(ctx, 1)
		if len(beats) != 1 || !strings.Contains(beats[0].Errors, "injected crash") {
			t.Fatalf("beat row = %+v, want the error recorded", beats)
		}
		s.BeforeCommit = nil
		if _, err := newHeartbeat(s, &lineExtractor{}).Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		if _, err := newHeartbeat(clean, &lineExtractor{}).Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		if a, b := snapshot(t, s), snapshot(t, clean); a != b {
			t.Fatalf("retried beat differs from an uninterrupted one:\n%s\nvs\n%s", a, b)
		}
	})
}

func TestHeartbeatReplacementProposal(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, auto := range []bool{false, true} {
		t.Run(fmt.Sprintf("AutoActivate=%v", auto), func(t *testing.T) {
			s := MustOpenStore(t)
			s.Now = func() time.Time { return now }
			p := MustCreateProject(t, s, "travel")
			if err := s.SetProjectPolicy(ctx, p.ID, auto); err != nil {
				t.Fatal(err)
			}
			m := heuristic.NewMerger()
			hb := &governance.Heartbeat{Store: s, Idle: time.Hour, Now: s.Now, Consolidator: &governance.Consolidator{
				Extractor: &lineExtractor{}, Merger: m, Gate: governance.GateText}}
			if _, err := s.IngestEvents(ctx, p.ID, session("s1", now.Add(-48*time.Hour), true, "we always leave the hotel at 08:00")); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			first, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(first) != 1 {
				t.Fatalf("rules after the first beat = %d", len(first))
			}
			if _, err := s.DB().ExecContext(ctx, `UPDATE rules SET status = 'active'`); err != nil {
				t.Fatal(err)
			}
			// A later session changes the time: a replacement, not more evidence.
			if _, err := s.IngestEvents(ctx, p.ID, session("s2", now.Add(-24*time.Hour), true, "we always leave the hotel at 09:30")); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(rules) != 2 || rules[1].Supersedes != first[0].ID || !strings.Contains(rules[1].Text, "09:30") {
				t.Fatalf("rules = %+v, want a replacement proposal for rule %d", rules, first[0].ID)
			}
			wantOld, wantNew := governance.RuleActive, governance.RuleProposed
			if auto {
				wantOld, wantNew = governance.RuleSuperseded, governance.RuleActive
			}
			if rules[0].Status != wantOld || rules[1].Status != wantNew {
				t.Fatalf("statuses = %s, %s; want %s, %s", rules[0].Status, rules[1].Status, wantOld, wantNew)
			}
			links, _ := s.FindRuleEvidence(ctx, first[0].ID)
			if len(links) != 1 {
				t.Fatalf("the old rule gained evidence from the contradicting session: %d links", len(links))
			}
		})
	}
}

// userLineExtractor notes every user line as a durable preference.
type userLineExtractor struct{}

func (userLineExtractor) Name() string { return "fake-user-lines/1" }

func (userLineExtractor) Extract(_ context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	out := &governance.Extraction{Summary: "Session " + in.SessionID + "."}
	for _, e := range in.Events {
		if e.Role == governance.RoleUser {
			out.Items = append(out.Items, governance.ExtractedItem{Type: governance.TypePreference, Statement: e.Text, SupportSeqs: []int64{e.Seq}, Durable: true})
		}
	}
	return out, nil
}

// A statement that widens an active rule (adds a tool) is proposed as its
// replacement, in English and in Chinese, and the rule gains no evidence
// from it.
func TestHeartbeatWideningProposal(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ name, rule, wider, added string }{
		{"English", "Always run the linter before committing.", "From now on, always run go vet and the linter before committing.", "go vet"},
		{"Chinese", "以后提交代码前都要运行 linter。", "从现在起，以后提交代码前都要运行 go vet 和 linter。", "go vet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := MustOpenStore(t)
			s.Now = func() time.Time { return now }
			p := MustCreateProject(t, s, "code")
			hb := &governance.Heartbeat{Store: s, Idle: time.Hour, Now: s.Now, Consolidator: &governance.Consolidator{
				Extractor: userLineExtractor{}, Merger: heuristic.NewMerger(), Gate: governance.GateText}}
			if _, err := s.IngestEvents(ctx, p.ID, session("s1", now.Add(-48*time.Hour), true, tc.rule)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			first, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(first) != 1 {
				t.Fatalf("rules after the first beat = %d", len(first))
			}
			if _, err := s.DB().ExecContext(ctx, `UPDATE rules SET status = 'active'`); err != nil {
				t.Fatal(err)
			}
			if _, err := s.IngestEvents(ctx, p.ID, session("s2", now.Add(-24*time.Hour), true, tc.wider)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(rules) != 2 || rules[1].Supersedes != first[0].ID || !strings.Contains(rules[1].Text, tc.added) {
				t.Fatalf("rules = %+v, want a replacement proposal for rule %d naming %q", rules, first[0].ID, tc.added)
			}
			if rules[0].Status != governance.RuleActive || rules[1].Status != governance.RuleProposed {
				t.Fatalf("statuses = %s, %s", rules[0].Status, rules[1].Status)
			}
			links, _ := s.FindRuleEvidence(ctx, first[0].ID)
			if len(links) != 1 {
				t.Fatalf("the widened statement was filed as evidence of the old rule: %d links", len(links))
			}
		})
	}
}
