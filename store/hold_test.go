package store_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestHoldKeepsEvidence: a held proposal keeps its candidates linked (its
// evidence chain); restoring it, or releasing one of its candidates, brings
// the same rule back as a proposal. (SQLite; the PostgreSQL store keeps
// the link on hold, but its restore and release do not reopen yet.)
func TestHoldKeepsEvidence(t *testing.T) {
	ctx := context.Background()
	t.Run("Restore", func(t *testing.T) {
		d := MustLoadDemo(t)
		nap := d.Rule(t, "午睡")
		before := d.Candidates(t, nap.ID)
		if _, err := d.Store.HoldRule(ctx, "rita", nap.ID, ""); err != nil {
			t.Fatal(err)
		}
		for _, c := range before {
			got, err := d.Store.FindCandidateByID(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != governance.CandidateHeld || got.RuleID != nap.ID {
				t.Errorf("candidate = %+v, want held, still linked to rule %d", got, nap.ID)
			}
		}
		ev, err := d.Store.FindEvidenceByRules(ctx, []int64{nap.ID})
		if err != nil || len(ev[nap.ID]) != len(before) {
			t.Fatalf("held rule's evidence = %d links, %v; want %d", len(ev[nap.ID]), err, len(before))
		}
		r, err := d.Store.RestoreRule(ctx, "rita", nap.ID, "more came in")
		if err != nil || r.Status != governance.RuleProposed {
			t.Fatalf("restore = %+v, %v; want the proposal back", r, err)
		}
		for _, c := range d.Candidates(t, nap.ID) {
			if c.Status != governance.CandidateProposed {
				t.Errorf("candidate %d = %s, want proposed", c.ID, c.Status)
			}
		}
		if n := len(d.Candidates(t, nap.ID)); n != len(before) {
			t.Fatalf("restored rule has %d candidates, want %d", n, len(before))
		}
	})
	t.Run("ReleaseReopensHeldRule", func(t *testing.T) {
		d := MustLoadDemo(t)
		nap := d.Rule(t, "午睡")
		before := d.Candidates(t, nap.ID)
		if _, err := d.Store.HoldRule(ctx, "rita", nap.ID, ""); err != nil {
			t.Fatal(err)
		}
		r, err := d.Store.ReleaseCandidate(ctx, "rita", before[0].ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != nap.ID || r.Status != governance.RuleProposed {
			t.Fatalf("release = rule %d %s; want rule %d proposed again", r.ID, r.Status, nap.ID)
		}
		if n := len(d.Candidates(t, nap.ID)); n != len(before) {
			t.Fatalf("reopened rule has %d candidates, want %d", n, len(before))
		}
	})
}
