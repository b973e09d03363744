package consolidate_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
)

// quotingExtractor summarises a session by quoting its one statement.
type quotingExtractor struct{ statement string }

func (quotingExtractor) Name() string { return "quoting/1" }

func (x quotingExtractor) Extract(_ context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	return &governance.Extraction{
		Summary: "The user planned a trip. They said: " + x.statement + ". The route check passed.",
		Items: []governance.ExtractedItem{{Type: governance.TypePreference, Statement: x.statement,
			SupportSeqs: []int64{in.Events[0].Seq}, Durable: true}},
	}, nil
}

type singletons struct{}

func (singletons) Partition(_ context.Context, items []governance.MergeItem) ([][]int64, int, error) {
	var out [][]int64
	for _, it := range items {
		out = append(out, []int64{it.ID})
	}
	return out, 0, nil
}

// A session consolidated again after a forget must not bring the forgotten
// statement back, neither as a candidate nor quoted in its episode summary.
func TestPlanDropsForgottenStatements(t *testing.T) {
	const secret = "keep 14:00-16:00 free for the nap"
	in := &governance.ConsolidateInput{
		Project:       &governance.Project{ID: 1, Slug: "travel"},
		NewCheckpoint: 1,
		Now:           time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC),
		Sessions: []*governance.SessionWork{{
			Session: &governance.SessionInfo{SessionID: "s1", SubjectID: "u1"},
			Events:  []*governance.Event{{Seq: 7, SessionID: "s1", Role: governance.RoleUser, Text: "…"}},
			Known:   map[string]bool{},
		}},
		Suppressed: governance.Suppressions{"u1": {governance.Fingerprint(secret): true}},
	}
	c := &consolidate.Consolidator{Extractor: quotingExtractor{secret}, Merger: singletons{}}
	plan, err := c.Plan(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Candidates) != 0 {
		t.Fatalf("candidates = %+v, want none (suppressed)", plan.Candidates)
	}
	got := plan.Episodes[0].Summary
	if strings.Contains(got, "nap") || got != "The user planned a trip. The route check passed." {
		t.Fatalf("summary = %q", got)
	}
}

func TestSuppressionsHas(t *testing.T) {
	s := governance.Suppressions{}
	s.Add("", "lesson")
	s.Add("u1", "nap")
	for _, c := range []struct {
		subject, fp string
		want        bool
	}{
		{"u1", "lesson", true}, {"u2", "lesson", true}, {"", "lesson", true},
		{"u1", "nap", true}, {"u2", "nap", false}, {"", "nap", false},
		{"u1", "other", false},
	} {
		if got := s.Has(c.subject, c.fp); got != c.want {
			t.Errorf("Has(%q, %q) = %t, want %t", c.subject, c.fp, got, c.want)
		}
	}
}

// refusingExtractor answers like a model whose reply is no extraction.
type refusingExtractor struct{}

func (refusingExtractor) Name() string { return "model/refuses@prompt2" }

func (refusingExtractor) Extract(context.Context, governance.ExtractInput) (*governance.Extraction, error) {
	return nil, governance.Errorf(governance.EINVALID, "The model's reply did not match the expected format.")
}

// A session whose model reply is unusable is extracted by the fallback, and
// its candidates and episode name the fallback; a failure of another kind
// fails the plan (the checkpoint stays).
func TestPlanExtractFallback(t *testing.T) {
	in := func() *governance.ConsolidateInput {
		return &governance.ConsolidateInput{
			Project: &governance.Project{ID: 1, Slug: "travel"}, NewCheckpoint: 1,
			Now: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC),
			Sessions: []*governance.SessionWork{{
				Session: &governance.SessionInfo{SessionID: "s1", SubjectID: "u1"},
				Events:  []*governance.Event{{Seq: 7, SessionID: "s1", Role: governance.RoleUser, Text: "…"}},
				Known:   map[string]bool{},
			}},
		}
	}
	c := &consolidate.Consolidator{Extractor: refusingExtractor{}, ExtractFallback: quotingExtractor{"always book aisle seats"}, Merger: singletons{}}
	plan, err := c.Plan(context.Background(), in())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Candidates) != 1 || plan.Candidates[0].Extractor != "quoting/1" || plan.Episodes[0].Extractor != "quoting/1" {
		t.Fatalf("candidates %+v, episode by %q, want one by the fallback", plan.Candidates, plan.Episodes[0].Extractor)
	}
	c.ExtractFallback = nil
	if _, err := c.Plan(context.Background(), in()); err == nil {
		t.Fatal("no fallback: got a plan, want the extractor's error")
	}
}
