package storetest

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestStats: the counts per project and per subject, on the memory fixture.
func TestStats(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	MustCreateProject(t, s, "empty")
	all, err := s.FindProjectStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Project.Slug != "empty" || all[0].Events != 0 {
		t.Fatalf("stats = %+v", all)
	}
	// 9 rules, one forgotten: 8 counted, 6 of them active, 1 proposed.
	want := governance.ProjectStats{Project: all[1].Project, Events: 8, Sessions: 3, Episodes: 2, Candidates: 4, Rules: 8, Proposed: 1, Active: 6}
	if *all[1] != want {
		t.Errorf("travel stats = %+v, want %+v", *all[1], want)
	}
	sub, err := s.FindSubjectStats(ctx, f.Project, "family-2")
	if err != nil {
		t.Fatal(err)
	}
	want = governance.ProjectStats{Project: f.Project, Events: 2, Sessions: 1, Episodes: 1, Candidates: 2, Rules: 1, Active: 1}
	if *sub != want {
		t.Errorf("family-2's stats = %+v, want %+v", *sub, want)
	}
}

// TestRuleChecks: code checks attached to a rule, with an audit row; an
// unknown rule is ENOTFOUND.
func TestRuleChecks(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	nap, far := f.Rules[RuleNap], f.Rules[RuleFar]
	checks := `[{"kind":"contains","value":"14:00"}]`
	if err := s.SetRuleChecks(ctx, nap, checks, "rita"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRuleChecks(ctx, 99999, checks, "rita"); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("unknown rule: %v, want ENOTFOUND", err)
	}
	got, err := s.FindRuleChecks(ctx, []int64{nap, far})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[nap] != checks {
		t.Fatalf("checks = %v", got)
	}
	if err := s.SetRuleChecks(ctx, nap, "", "rita"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.FindRuleChecks(ctx, []int64{nap}); len(got) != 0 {
		t.Fatalf("cleared checks = %v", got)
	}
	rows, _, _ := s.FindAudit(ctx, governance.AuditFilter{Action: "rule.checks_set"})
	if len(rows) != 2 || rows[0].ProjectID != f.Project.ID {
		t.Fatalf("audit = %+v", rows)
	}
}
