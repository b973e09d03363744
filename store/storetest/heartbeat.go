package storetest

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// LineExtractor is a fake extractor: every user line containing "always"
// becomes a durable preference, one containing "maybe" a preference with
// an unknown event among its support, every failed tool line a lesson.
type LineExtractor struct{ Calls atomic.Int32 }

// Name implements governance.Extractor.
func (x *LineExtractor) Name() string { return "fake/1" }

// Extract implements governance.Extractor.
func (x *LineExtractor) Extract(_ context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	x.Calls.Add(1)
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

// GatedExtractor signals on Started when an extraction starts and then
// blocks until Release is closed (or the beat's context ends), so a test
// can act in the middle of a beat deterministically.
type GatedExtractor struct {
	LineExtractor
	Started chan struct{}
	Release chan struct{}
}

// NewGatedExtractor returns a GatedExtractor whose Release is open.
func NewGatedExtractor() *GatedExtractor {
	return &GatedExtractor{Started: make(chan struct{}, 16), Release: make(chan struct{})}
}

// Extract implements governance.Extractor.
func (x *GatedExtractor) Extract(ctx context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	x.Started <- struct{}{}
	select {
	case <-x.Release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return x.LineExtractor.Extract(ctx, in)
}

// ExactMerger groups identical statements.
type ExactMerger struct{}

// Partition implements governance.Merger.
func (ExactMerger) Partition(_ context.Context, items []governance.MergeItem) ([][]int64, int, error) {
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

// NewHeartbeat is a heartbeat over s with extractor x, the exact merger and
// the write gate; a session quiet for an hour counts as ended.
func NewHeartbeat(s consolidate.HeartbeatStore, x governance.Extractor, now func() time.Time) *consolidate.Heartbeat {
	return &consolidate.Heartbeat{
		Store:        s,
		Consolidator: &consolidate.Consolidator{Extractor: x, Merger: ExactMerger{}, Classifier: gate.Patterns},
		Idle:         time.Hour,
		Now:          now,
	}
}

// Session is the events of one session of subject u1: a user line per
// text, or a failed route_checker call for a text starting "FAILED", a
// minute apart from at, and an end event an hour after at when ended.
func Session(id string, at time.Time, ended bool, lines ...string) []*governance.Event {
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

func ptr[T any](v T) *T { return &v }

// TestHeartbeatDemo: the demo's first beat with the offline extractor
// leaves proposals, held and blocked candidates with their evidence and
// an audit chain that verifies; a second beat changes nothing. (Both
// backends leave the same content: TestHeartbeatMatchesSQLite in
// store/postgres compares MemoryContent.)
func TestHeartbeatDemo(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	before := MemoryContent(t, d.Store)
	for _, want := range []string{"proposed", "held", "blocked", "episode "} {
		if !strings.Contains(before, want) {
			t.Fatalf("demo after a beat has nothing %s:\n%s", want, before)
		}
	}
	links, err := d.Store.FindRuleEvidence(ctx, d.Rule(t, "午睡").ID)
	if err != nil || len(links) == 0 || len(links[0].Events) == 0 {
		t.Fatalf("evidence of the nap rule = %+v, %v", links, err)
	}
	if v, err := d.Store.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit = %+v, %v", v, err)
	}
	rec, err := d.Beat.Beat(ctx, "again")
	if err != nil {
		t.Fatal(err)
	}
	if after := MemoryContent(t, d.Store); after != before || rec.Candidates != 0 {
		t.Fatalf("second beat did work (%+v):\n%s\nvs\n%s", rec.BeatStats, before, after)
	}
	beats, err := d.Store.FindBeats(ctx, 0)
	if err != nil || len(beats) != 2 || beats[0].Trigger != "again" || beats[1].FinishedAt == nil || beats[1].Proposals == 0 {
		t.Fatalf("beats = %+v, %v", beats, err)
	}
}

// TestHeartbeat: proposals by evidence, the checkpoint held back by an open
// session, an idempotent second beat, and a session that ends later
// joining the existing rule as evidence.
func TestHeartbeat(t *testing.T, open Opener) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	setup := func(t *testing.T) (MemoryStore, *governance.Project) {
		s := OpenMemory(t, open)
		p := MustCreateProject(t, s, "travel")
		var events []*governance.Event
		events = append(events, Session("s1", now.Add(-48*time.Hour), true, "we always travel light", "FAILED cross district", "ok thanks", "maybe a hotel near the lake")...)
		events = append(events, Session("s2", now.Add(-24*time.Hour), true, "FAILED cross district", "what a day")...)
		// s3 is still open (recent, no end event): it holds the checkpoint back.
		events = append(events, Session("s3", now.Add(-5*time.Minute), false, "we always travel light")...)
		if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
			t.Fatal(err)
		}
		return s, p
	}
	t.Run("PromotesByEvidence", func(t *testing.T) {
		s, p := setup(t)
		rec, err := NewHeartbeat(s, &LineExtractor{}, nil).Beat(ctx, "test")
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
		eps, n, err := s.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: p.ID})
		if err != nil || n != 2 || eps[0].SessionID != "s2" || eps[0].Summary != "Session s2." || eps[0].EventCount == 0 {
			t.Fatalf("episodes = %+v (%d), %v", eps, n, err)
		}
		v, _ := s.VerifyAudit(ctx)
		if !v.OK || v.Rows < 2 {
			t.Fatalf("audit = %+v", v)
		}
	})
	t.Run("KeepsNotPlacedClause", func(t *testing.T) {
		// The clause a proposal's reason names as outside the low-risk
		// set is stored with the candidate, as the reason names it.
		s := OpenMemory(t, open)
		p := MustCreateProject(t, s, "persona")
		if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-2*time.Hour), true,
			"From now on always keep replies short; be Marlowe in every chat.")); err != nil {
			t.Fatal(err)
		}
		if _, err := NewHeartbeat(s, &LineExtractor{}, nil).Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		cands, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID})
		if err != nil || len(cands) != 1 {
			t.Fatalf("candidates = %+v, %v", cands, err)
		}
		c := cands[0]
		if c.WhyNotPlaced == nil || c.WhyNotPlaced.Clause != "be Marlowe in every chat" ||
			!strings.HasSuffix(c.StatusReason, governance.WhyNotPlaced(*c.WhyNotPlaced)) {
			t.Fatalf("candidate reason %q, not placed %+v; want the persona clause the reason ends with", c.StatusReason, c.WhyNotPlaced)
		}
	})
	t.Run("SecondBeatIsNoop", func(t *testing.T) {
		s, _ := setup(t)
		x := &LineExtractor{}
		hb := NewHeartbeat(s, x, nil)
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		before, calls := MemoryContent(t, s), x.Calls.Load()
		rec, err := hb.Beat(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		if after := MemoryContent(t, s); after != before {
			t.Fatalf("second beat changed state:\n%s\nvs\n%s", before, after)
		}
		if x.Calls.Load() != calls || rec.Candidates != 0 || rec.Proposals != 0 {
			t.Fatalf("second beat did work: %+v, extractor calls %d → %d", rec.BeatStats, calls, x.Calls.Load())
		}
	})
	t.Run("OpenSessionLaterEnds", func(t *testing.T) {
		s, p := setup(t)
		hb := NewHeartbeat(s, &LineExtractor{}, nil)
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
	t.Run("InterruptedClosesRecord", func(t *testing.T) {
		// A beat interrupted by shutdown (its context cancelled
		// mid-extraction) is finished and recorded as interrupted.
		s, _ := setup(t)
		x := NewGatedExtractor()
		hb := NewHeartbeat(s, x, nil)
		bctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { _, err := hb.Beat(bctx, "test"); done <- err }()
		<-x.Started
		cancel()
		<-done
		beats, err := s.FindBeats(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(beats) != 1 || beats[0].FinishedAt == nil || !strings.Contains(beats[0].Errors, "interrupted") {
			t.Fatalf("beat record = %+v; want finished and marked interrupted", beats)
		}
	})
}

// TestRepairInterrupted: a beat left running by a crash is closed as
// interrupted at startup.
func TestRepairInterrupted(t *testing.T, open Opener) {
	s := OpenMemory(t, open)
	ctx := context.Background()
	if _, err := s.StartBeat(ctx, "crashed"); err != nil {
		t.Fatal(err)
	}
	n, err := s.RepairInterrupted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	beats, _ := s.FindBeats(ctx, 1)
	if n != 1 || beats[0].FinishedAt == nil || !strings.Contains(beats[0].Errors, "interrupted") {
		t.Fatalf("repaired %d; beat = %+v", n, beats[0])
	}
	if n, err := s.RepairInterrupted(ctx); err != nil || n != 0 {
		t.Fatalf("second repair closed %d, %v; want 0", n, err)
	}
}
