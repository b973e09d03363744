package storetest

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestReviewCounts(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	counts, err := d.Store.FindReviewCounts(ctx, []int64{d.Travel.ID})
	if err != nil {
		t.Fatal(err)
	}
	c := counts[d.Travel.ID]
	if c == nil || c.Proposed != 3 || c.Held < 2 || c.Blocked < 1 {
		t.Fatalf("counts = %+v", c)
	}
	if len(counts) != 1 {
		t.Fatalf("counts for %d projects, want 1", len(counts))
	}
	n, err := d.Store.CountProposals(ctx, nil)
	if err != nil || n < 3 {
		t.Fatalf("all proposals = %d, %v", n, err)
	}
	v1, _ := d.Store.ReviewQueueVersion(ctx, d.Travel.ID, governance.CandidateProposed)
	v2, _ := d.Store.ReviewQueueVersion(ctx, d.Travel.ID, governance.CandidateProposed)
	if v1 != v2 {
		t.Fatal("version changes without a change")
	}
	if _, err := d.Store.ApproveRule(ctx, "rita", d.Rule(t, "午睡").ID, nil); err != nil {
		t.Fatal(err)
	}
	if v3, _ := d.Store.ReviewQueueVersion(ctx, d.Travel.ID, governance.CandidateProposed); v3 == v1 {
		t.Fatal("version did not change after an approval")
	}
}

// TestFindPages checks that a page (a Limit) is the same slice of the
// whole list, with the whole list's count, for rules and candidates.
func TestFindPages(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	chen, kind := "family-chen", governance.TypePreference
	all := []governance.RuleStatus{governance.RuleProposed, governance.RuleActive}
	for name, f := range map[string]governance.RuleFilter{
		"All":        {},
		"Project":    {ProjectID: &d.Travel.ID},
		"Projects":   {ProjectIDs: []int64{d.Travel.ID}},
		"Both":       {ProjectID: &d.Travel.ID, ProjectIDs: []int64{d.Travel.ID + 1}},
		"Subject":    {ProjectID: &d.Travel.ID, SubjectID: &chen},
		"Kind":       {Kind: &kind, Statuses: all},
		"Query":      {Query: "午睡"},
		"PageTwo":    {Offset: 2, Limit: 2},
		"PageBeyond": {Offset: 100, Limit: 2},
	} {
		t.Run(name, func(t *testing.T) {
			whole := f
			whole.Offset, whole.Limit = 0, 0
			want, wantTotal, err := d.Store.FindRules(ctx, whole)
			if err != nil {
				t.Fatal(err)
			}
			if wantTotal != len(want) || (name != "Both" && len(want) == 0) || (name == "Both" && len(want) != 0) {
				t.Fatalf("whole list: %d rules, total %d", len(want), wantTotal)
			}
			want = want[min(f.Offset, len(want)):]
			f.Limit = cmp.Or(f.Limit, 3) // every filter also read as a page
			want = want[:min(f.Limit, len(want))]
			got, total, err := d.Store.FindRules(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal || len(got) != len(want) {
				t.Fatalf("got %d of %d, want %d of %d", len(got), total, len(want), wantTotal)
			}
			for i := range got {
				if got[i].ID != want[i].ID || got[i].Text != want[i].Text {
					t.Fatalf("rule %d = %d, want %d", i, got[i].ID, want[i].ID)
				}
			}
		})
	}
	t.Run("CappedRuleCount", func(t *testing.T) {
		_, wantTotal, err := d.Store.FindRules(ctx, governance.RuleFilter{})
		if err != nil || wantTotal < 3 {
			t.Fatalf("%d rules (%v)", wantTotal, err)
		}
		if _, capped, _ := d.Store.FindRules(ctx, governance.RuleFilter{Limit: 1, CountCap: 1}); capped != 2 {
			t.Fatalf("capped count = %d, want 2", capped)
		}
		if _, exact, _ := d.Store.FindRules(ctx, governance.RuleFilter{Limit: 1, CountCap: wantTotal}); exact != wantTotal {
			t.Fatalf("count under the cap = %d, want %d", exact, wantTotal)
		}
	})
	t.Run("Candidates", func(t *testing.T) {
		f := governance.CandidateFilter{ProjectID: d.Travel.ID, Statuses: []governance.CandidateStatus{governance.CandidateHeld}}
		want, wantTotal, err := d.Store.FindCandidates(ctx, f)
		if err != nil || wantTotal != len(want) || wantTotal < 3 {
			t.Fatalf("whole list: %d candidates, total %d (%v)", len(want), wantTotal, err)
		}
		f.Offset, f.Limit = 1, 2
		got, total, err := d.Store.FindCandidates(ctx, f)
		if err != nil || total != wantTotal || len(got) != 2 {
			t.Fatalf("got %d of %d (%v), want 2 of %d", len(got), total, err, wantTotal)
		}
		for i, c := range got {
			if w := want[i+1]; c.ID != w.ID || !slices.Equal(c.EvidenceSeqs, w.EvidenceSeqs) || len(c.EvidenceSeqs) == 0 {
				t.Fatalf("candidate %d = %d %v, want %d %v", i, c.ID, c.EvidenceSeqs, w.ID, w.EvidenceSeqs)
			}
		}
		// A capped count stops CountCap rows past the page.
		f.Offset, f.Limit, f.CountCap = 0, 1, 1
		if _, capped, _ := d.Store.FindCandidates(ctx, f); capped != min(2, wantTotal) {
			t.Fatalf("capped count = %d, want %d", capped, min(2, wantTotal))
		}
	})
}
