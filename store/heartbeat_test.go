package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/store"
)

// lineExtractor is a fake extractor: every user line containing "always"
// becomes a durable preference, every failed tool line a lesson.
type lineExtractor struct{ calls atomic.Int32 }

func (x *lineExtractor) Name() string { return "fake/1" }

func (x *lineExtractor) Extract(_ context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	x.calls.Add(1)
	out := &governance.Extraction{Summary: "Session " + in.SessionID + "."}
	for _, e := range in.Events {
		switch {
		case e.Role == governance.RoleUser && strings.Contains(e.Text, "always"):
			out.Items = append(out.Items, governance.ExtractedItem{Type: governance.TypePreference, Statement: e.Text, SupportSeqs: []int64{e.Seq}, Durable: true})
		case e.Role == governance.RoleUser && strings.Contains(e.Text, "maybe"):
			out.Items = append(out.Items, governance.ExtractedItem{Type: governance.TypePreference, Statement: e.Text, SupportSeqs: []int64{e.Seq, 99999}})
		case e.Status == governance.StatusFailed:
			out.Items = append(out.Items, governance.ExtractedItem{Type: governance.TypeLesson, Statement: "check the route before answering", SupportSeqs: []int64{e.Seq}})
		}
	}
	return out, nil
}

// exactMerger groups identical statements.
type exactMerger struct{}

func (exactMerger) Partition(_ context.Context, items []governance.MergeItem) ([][]int64, int, error) {
	idx := map[string]int{}
	var groups [][]int64
	for _, it := range items {
		fp := governance.Fingerprint(it.Statement)
		if i, ok := idx[fp]; ok {
			groups[i] = append(groups[i], it.ID)
			continue
		}
		idx[fp] = len(groups)
		groups = append(groups, []int64{it.ID})
	}
	return groups, 0, nil
}

func newHeartbeat(s *store.Store, x governance.Extractor) *governance.Heartbeat {
	return &governance.Heartbeat{
		Store:        s,
		Consolidator: &governance.Consolidator{Extractor: x, Merger: exactMerger{}, Gate: governance.GateText},
		Idle:         time.Hour,
		Now:          s.Now,
	}
}

func session(id string, at time.Time, ended bool, lines ...string) []*governance.Event {
	var out []*governance.Event
	for i, l := range lines {
		role := governance.RoleUser
		e := &governance.Event{ID: id + "-" + string(rune('a'+i)), SessionID: id, SubjectID: "u1", Turn: i + 1, Text: l, OccurredAt: at.Add(time.Duration(i) * time.Minute)}
		if strings.HasPrefix(l, "FAILED") {
			role, e.Tool, e.Status = governance.RoleTool, "route_checker", governance.StatusFailed
		}
		e.Role = role
		out = append(out, e)
	}
	if ended {
		out = append(out, &governance.Event{ID: id + "-end", SessionID: id, Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Hour)})
	}
	return out
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

func TestHeartbeat(t *testing.T) {
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

	t.Run("PromotesByEvidence", func(t *testing.T) {
		s, p := setup(t)
		rec, err := newHeartbeat(s, &lineExtractor{}).Beat(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		if rec.Episodes != 2 || rec.Proposals != 2 || rec.Held != 1 {
			t.Fatalf("beat = %+v, want 2 episodes, 2 proposals, 1 held", rec.BeatStats)
		}
		rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
		if err != nil {
			t.Fatal(err)
		}
		reasons := map[string]governance.PromotionReason{}
		for _, r := range rules {
			reasons[r.Text] = r.PromotionReason
		}
		if got := reasons["check the route before answering"]; got != governance.ReasonRepeated {
			t.Errorf("lesson reason = %q, want repeated_across_sessions", got)
		}
		if got := reasons["we always travel light"]; got != governance.ReasonExplicit {
			t.Errorf("preference reason = %q, want explicit_user_instruction", got)
		}
		// The unknown event id 99999 was dropped; the held candidate keeps its real evidence.
		held, _, _ := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID, Statuses: []governance.CandidateStatus{governance.CandidateHeld}})
		if len(held) != 1 || len(held[0].EvidenceSeqs) != 1 || !strings.Contains(held[0].StatusReason, "Insufficient evidence") {
			t.Fatalf("held = %+v", held)
		}
		// The checkpoint stops before the open session s3.
		cp, _ := s.FindCheckpoint(ctx, p.ID)
		events, _, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, SessionID: ptr("s3")})
		if cp != events[0].Seq-1 {
			t.Fatalf("checkpoint = %d, want %d", cp, events[0].Seq-1)
		}
		links, err := s.FindRuleEvidence(ctx, rules[0].ID)
		if err != nil || len(links) == 0 || len(links[0].Events) == 0 {
			t.Fatalf("evidence chain = %+v, %v", links, err)
		}
		v, _ := s.VerifyAudit(ctx)
		if !v.OK || v.Rows < 2 {
			t.Fatalf("audit = %+v", v)
		}
	})

	t.Run("SecondBeatIsNoop", func(t *testing.T) {
		s, _ := setup(t)
		x := &lineExtractor{}
		hb := newHeartbeat(s, x)
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		before, calls := snapshot(t, s), x.calls.Load()
		rec, err := hb.Beat(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		if after := snapshot(t, s); after != before {
			t.Fatalf("second beat changed state:\n%s\nvs\n%s", before, after)
		}
		if x.calls.Load() != calls || rec.Candidates != 0 || rec.Proposals != 0 {
			t.Fatalf("second beat did work: %+v, extractor calls %d → %d", rec.BeatStats, calls, x.calls.Load())
		}
	})

	t.Run("OpenSessionLaterEnds", func(t *testing.T) {
		s, p := setup(t)
		hb := newHeartbeat(s, &lineExtractor{})
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		// s3 ends: its preference joins the existing rule as evidence, no duplicate proposal.
		if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{{ID: "s3-end", SessionID: "s3", Kind: governance.KindSessionEnd, OccurredAt: now}}); err != nil {
			t.Fatal(err)
		}
		rec, err := hb.Beat(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		if rec.Episodes != 1 || rec.Proposals != 0 {
			t.Fatalf("beat = %+v, want 1 episode and no new proposal", rec.BeatStats)
		}
		rules, n, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID, Query: "travel light"})
		if n != 1 {
			t.Fatalf("rules = %d, want 1", n)
		}
		links, _ := s.FindRuleEvidence(ctx, rules[0].ID)
		if len(links) != 2 {
			t.Fatalf("evidence candidates = %d, want 2 (sessions s1 and s3)", len(links))
		}
	})

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

func ptr[T any](v T) *T { return &v }

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

// TestBeatReopensHeldRule: a proposal a reviewer held keeps its candidates;
// when a later session says the same again, the beat brings that rule back
// into review with the old and the new evidence, never a second rule.
func TestBeatReopensHeldRule(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	s := MustOpenStore(t)
	s.Now = func() time.Time { return now }
	ctx := context.Background()
	p := MustCreateProject(t, s, "travel")
	hb := newHeartbeat(s, &lineExtractor{})
	const pref = "we always take the train"
	if _, err := s.IngestEvents(ctx, p.ID, session("s1", now.Add(-72*time.Hour), true, pref)); err != nil {
		t.Fatal(err)
	}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil || len(rules) != 1 || rules[0].Status != governance.RuleProposed {
		t.Fatalf("rules = %+v, %v; want one proposal", rules, err)
	}
	held := rules[0]
	if _, err := s.HoldRule(ctx, "rita", held.ID, "wait"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, p.ID, session("s2", now.Add(-48*time.Hour), true, pref)); err != nil {
		t.Fatal(err)
	}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	rules, _, err = s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules = %d, %v; want the held one only", len(rules), err)
	}
	if rules[0].ID != held.ID || rules[0].Status != governance.RuleProposed {
		t.Fatalf("rule = %d %s; want rule %d proposed again", rules[0].ID, rules[0].Status, held.ID)
	}
	ev, err := s.FindEvidenceByRules(ctx, []int64{held.ID})
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]bool{}
	for _, l := range ev[held.ID] {
		sessions[l.Candidate.SessionID] = true
	}
	if !sessions["s1"] || !sessions["s2"] {
		t.Fatalf("evidence sessions = %v; want s1 and s2", sessions)
	}
}
