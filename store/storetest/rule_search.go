package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// heldExtractor notes every user line as a preference said once (not
// durable), which the heartbeat holds for more evidence.
type heldExtractor struct{}

func (heldExtractor) Name() string { return "fake-held/1" }

func (heldExtractor) Extract(_ context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	out := &governance.Extraction{Summary: "Session " + in.SessionID + "."}
	for _, e := range in.Events {
		if e.Role == governance.RoleUser {
			out.Items = append(out.Items, governance.ExtractedItem{Type: governance.TypePreference, Statement: e.Text, SupportSeqs: []int64{e.Seq}})
		}
	}
	return out, nil
}

// MustCreateRules makes one proposed rule of each text in a new project:
// a beat holds each text as a candidate and a reviewer releases it. It
// returns the project and the rules' ids by text.
func MustCreateRules(tb testing.TB, s MemoryStore, slug string, texts ...string) (*governance.Project, map[string]int64) {
	tb.Helper()
	ctx := context.Background()
	p := MustCreateProject(tb, s, slug)
	at := time.Now().UTC().Add(-48 * time.Hour)
	var events []*governance.Event
	for i, text := range texts {
		events = append(events, Session(fmt.Sprintf("s%d", i), at, true, text)...)
	}
	if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
		tb.Fatal(err)
	}
	if _, err := NewHeartbeat(s, heldExtractor{}, nil).BeatProject(ctx, p); err != nil {
		tb.Fatal(err)
	}
	held, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID, Statuses: []governance.CandidateStatus{governance.CandidateHeld}})
	if err != nil {
		tb.Fatal(err)
	}
	ids := map[string]int64{}
	for _, c := range held {
		r, err := s.ReleaseCandidate(ctx, "rita", c.ID, "")
		if err != nil {
			tb.Fatal(err)
		}
		ids[r.Text] = r.ID
	}
	if len(ids) != len(texts) {
		tb.Fatalf("%d rules from %d texts", len(ids), len(texts))
	}
	return p, ids
}

// TestFindRulesQuery: every word of a rules query must occur in the text,
// as a substring in any case: Chinese words of two or more characters,
// English words, short terms.
func TestFindRulesQuery(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	nap, trip, lint := "孩子每天14:00–16:00要午睡，行程都空出来", "远距离的大型景点单独安排一天", "Always run the Linter before committing"
	p, id := MustCreateRules(t, s, "travel", nap, trip, lint)
	ids := func(q string) string {
		rules, total, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID, Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rules {
			out = append(out, r.Text)
		}
		return fmt.Sprintf("%s/%d", strings.Join(out, "|"), total)
	}
	for q, want := range map[string]string{
		"单独安排":          trip + "/1",
		"午睡":            nap + "/1",  // two characters
		"linter":        lint + "/1", // case-insensitive word
		"LINT commit":   lint + "/1", // substrings, every one
		"linter 午睡":     "/0",
		"14":            nap + "/1", // short, not CJK
		"100%":          "/0",       // LIKE's wildcards are literal
		"Linter_before": "/0",
	} {
		if got := ids(q); got != want {
			t.Errorf("%q: got %s, want %s", q, got, want)
		}
	}
	forget, ok := s.(interface {
		ForgetRule(ctx context.Context, actor string, ruleID int64, withEvents bool) (*governance.ForgetReport, error)
	})
	if !ok {
		t.Logf("%T has no ForgetRule yet: a forgotten rule's absence from search is not checked", s)
		return
	}
	if _, err := forget.ForgetRule(ctx, "test", id[trip], false); err != nil {
		t.Fatal(err)
	}
	if got := ids("单独安排"); got != "/0" {
		t.Errorf("forgotten rule still found: %s", got)
	}
}
