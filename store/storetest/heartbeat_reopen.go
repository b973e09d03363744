package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// RewordingExtractor is LineExtractor wording every statement anew on each
// call, as a model may ("Reading 2: …").
type RewordingExtractor struct{ LineExtractor }

// Extract implements governance.Extractor.
func (x *RewordingExtractor) Extract(ctx context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	out, err := x.LineExtractor.Extract(ctx, in)
	if err != nil {
		return nil, err
	}
	n := x.Calls.Load()
	for i := range out.Items {
		out.Items[i].Statement = fmt.Sprintf("Reading %d: %s", n, out.Items[i].Statement)
	}
	return out, nil
}

// TestHeartbeatReopenedSession: a session consolidated after its idle end
// gets more events (a resumed agent session appends to it); the next beat
// after the idle time consolidates it again, rewriting its episode, and
// draws candidates only from what the new events support, though the
// extractor words the first events' statements anew.
func TestHeartbeatReopenedSession(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	p := MustCreateProject(t, s, "dev")
	now := time.Now().UTC().Truncate(time.Second)
	if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-3*time.Hour), false, "always run the linter", "thanks")); err != nil {
		t.Fatal(err)
	}
	x := &RewordingExtractor{}
	hb := NewHeartbeat(s, x, func() time.Time { return now })
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	// The session goes on, and has been quiet for two hours since.
	more := []*governance.Event{{ID: "s1-c", SessionID: "s1", SubjectID: "u1", Turn: 3, Role: governance.RoleUser,
		Text: "always write the test first", OccurredAt: now.Add(-2 * time.Hour)}}
	if _, err := s.IngestEvents(ctx, p.ID, more); err != nil {
		t.Fatal(err)
	}
	rec, err := hb.Beat(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	cands, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	var linter, test int
	var got []string
	for _, c := range cands {
		got = append(got, c.Statement)
		linter += strings.Count(c.Statement, "linter")
		test += strings.Count(c.Statement, "test first")
	}
	if x.Calls.Load() != 2 || rec.Candidates != 1 || linter != 1 || test != 1 {
		t.Fatalf("after the session went on: %d extractions, %d new candidates, candidates %q; want the linter rule once and the new one", x.Calls.Load(), rec.Candidates, got)
	}
	sid := "s1"
	eps, _, err := s.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: p.ID, SessionID: &sid})
	if err != nil || len(eps) != 1 || eps[0].EventCount != 3 {
		t.Fatalf("episodes = %+v, %v; want one covering the 3 events", eps, err)
	}
}
