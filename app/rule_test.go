package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

func TestRulesListForReview(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	list := func(actor governance.Actor, q app.RuleListQuery) (*app.RuleList, error) {
		if q.Limit == 0 {
			q.Limit = 500
		}
		return f.app.Rules.ListForReview(ctx, actor, q)
	}
	t.Run("Authorization", func(t *testing.T) {
		for _, tc := range []actorCase{
			{"Admin", f.admin, ""},
			{"Reviewer", f.reviewer, ""},
			{"ReviewerOfAnotherProject", f.expenseReviewer, ""},
			{"Member", f.member, governance.EFORBIDDEN},
			{"Token", f.travelToken, governance.EFORBIDDEN},
			{"Anonymous", governance.Actor{}, governance.EUNAUTHORIZED},
		} {
			_, err := list(tc.actor, app.RuleListQuery{})
			if governance.ErrorCode(err) != tc.code {
				t.Fatalf("%s: error %v, want code %q", tc.name, err, tc.code)
			}
		}
		_, err := list(f.expenseReviewer, app.RuleListQuery{Project: f.travel.Slug})
		wantErrCode(t, err, governance.EFORBIDDEN)
		_, err = list(f.admin, app.RuleListQuery{Project: "nope"})
		wantErrCode(t, err, governance.ENOTFOUND)
	})
	t.Run("ReviewerSeesOwnProjects", func(t *testing.T) {
		l, err := list(f.reviewer, app.RuleListQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Rules) == 0 || len(l.Projects) != 1 || l.Projects[0].ID != f.travel.ID {
			t.Fatalf("%d rules, projects %v", len(l.Rules), l.Projects)
		}
		for _, r := range l.Rules {
			if r.ProjectID != f.travel.ID {
				t.Fatalf("rule %d of project %d listed for the travel reviewer", r.ID, r.ProjectID)
			}
		}
		all, err := list(f.admin, app.RuleListQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if all.Total <= l.Total || len(all.Projects) != 3 {
			t.Fatalf("admin sees %d rules in %d projects, the travel reviewer %d", all.Total, len(all.Projects), l.Total)
		}
	})
	t.Run("Filter", func(t *testing.T) {
		l, err := list(f.admin, app.RuleListQuery{Project: f.expense.Slug, Filter: governance.RuleFilterInput{Status: "proposed"}})
		if err != nil {
			t.Fatal(err)
		}
		if l.Total != len(f.rules(t, f.expense, governance.RuleProposed)) {
			t.Fatalf("%d expense proposals listed", l.Total)
		}
		for _, r := range l.Rules {
			if r.ProjectID != f.expense.ID || r.Status != governance.RuleProposed {
				t.Fatalf("rule %d: project %d, %s", r.ID, r.ProjectID, r.Status)
			}
		}
		_, err = list(f.admin, app.RuleListQuery{Filter: governance.RuleFilterInput{Status: "bogus"}})
		wantErrCode(t, err, governance.EINVALID)
		l, err = list(f.admin, app.RuleListQuery{Filter: governance.RuleFilterInput{Query: "hotel"}, SearchCountCap: 7})
		if err != nil || l.Filter.CountCap != 7 {
			t.Fatalf("search: count cap %d, %v", l.Filter.CountCap, err)
		}
	})
}

func TestRulesDetailAndEvidence(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	r := f.rules(t, f.travel, governance.RuleProposed)[0]
	for _, tc := range f.reviewerCases() {
		_, err := f.app.Rules.Detail(ctx, tc.actor, r.ID)
		if governance.ErrorCode(err) != tc.code {
			t.Fatalf("detail, %s: %v, want code %q", tc.name, err, tc.code)
		}
		_, _, err = f.app.Rules.Evidence(ctx, tc.actor, r.ID)
		if governance.ErrorCode(err) != tc.code {
			t.Fatalf("evidence, %s: %v, want code %q", tc.name, err, tc.code)
		}
	}
	_, err := f.app.Rules.Detail(ctx, f.expenseToken, r.ID)
	wantErrCode(t, err, governance.ENOTFOUND)
	_, err = f.app.Rules.Detail(ctx, f.admin, 1<<40)
	wantErrCode(t, err, governance.ENOTFOUND)

	d, err := f.app.Rules.Detail(ctx, f.reviewer, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rule.ID != r.ID || d.Scope.Project.ID != f.travel.ID || len(d.Versions) == 0 || len(d.Evidence) == 0 {
		t.Fatalf("detail: rule %d, project %v, %d versions, %d evidence links", d.Rule.ID, d.Scope.Project, len(d.Versions), len(d.Evidence))
	}
	_, evidence, err := f.app.Rules.Evidence(ctx, f.reviewer, r.ID)
	if err != nil || len(evidence) != len(d.Evidence) {
		t.Fatalf("evidence: %d links, %v; the detail has %d", len(evidence), err, len(d.Evidence))
	}
}

func TestRulesActions(t *testing.T) {
	ctx := context.Background()
	// active returns a fixture and an active travel rule.
	active := func(t *testing.T) (*reviewFixture, *governance.Rule) {
		f := newReviewFixture(t)
		r := f.rules(t, f.travel, governance.RuleProposed)[0]
		if _, _, err := f.app.Reviews.Approve(ctx, f.reviewer, r.ID, app.Approval{}); err != nil {
			t.Fatal(err)
		}
		return f, f.reload(t, r.ID)
	}
	t.Run("Authorization", func(t *testing.T) {
		f, r := active(t)
		soon := time.Now().Add(48 * time.Hour)
		for _, tc := range []actorCase{
			{"ReviewerOfAnotherProject", f.expenseReviewer, governance.EFORBIDDEN},
			{"Member", f.member, governance.EFORBIDDEN},
			{"Token", f.travelToken, governance.EFORBIDDEN},
			{"OtherProjectsToken", f.expenseToken, governance.ENOTFOUND},
			{"Anonymous", governance.Actor{}, governance.EUNAUTHORIZED},
		} {
			for name, do := range map[string]func() error{
				"edit": func() error {
					_, err := f.app.Rules.Edit(ctx, tc.actor, r.ID, governance.RuleEdit{Text: "x", Reason: "y"})
					return err
				},
				"demote": func() error {
					_, err := f.app.Rules.Demote(ctx, tc.actor, r.ID, app.Confirmation{Reason: "y", Confirmed: true})
					return err
				},
				"to candidates": func() error {
					_, err := f.app.Rules.ToCandidates(ctx, tc.actor, r.ID, app.Confirmation{Reason: "y", Confirmed: true})
					return err
				},
				"restore": func() error { _, err := f.app.Rules.Restore(ctx, tc.actor, r.ID, "y"); return err },
				"supersede": func() error {
					_, err := f.app.Rules.Supersede(ctx, tc.actor, r.ID, r.ID+1, app.Confirmation{Reason: "y", Confirmed: true})
					return err
				},
				"pause":  func() error { _, err := f.app.Rules.SetPaused(ctx, tc.actor, r.ID, true, ""); return err },
				"expiry": func() error { _, err := f.app.Rules.SetExpiry(ctx, tc.actor, r.ID, &soon, ""); return err },
			} {
				if err := do(); governance.ErrorCode(err) != tc.code {
					t.Fatalf("%s by %s: %v, want code %q", name, tc.name, err, tc.code)
				}
			}
		}
		if got := f.reload(t, r.ID); got.Status != governance.RuleActive || got.Paused || got.ExpiresAt != nil || got.Text != r.Text {
			t.Fatalf("refused actions changed the rule: %+v", got)
		}
	})
	t.Run("Edit", func(t *testing.T) {
		f, r := active(t)
		_, err := f.app.Rules.Edit(ctx, f.reviewer, r.ID, governance.RuleEdit{Text: " "})
		wantFields(t, err, "text", "reason")
		after, err := f.app.Rules.Edit(ctx, f.reviewer, r.ID, governance.RuleEdit{Text: "Book window seats.", Reason: "asked"})
		if err != nil || after.Text != "Book window seats." || after.Version != r.Version+1 {
			t.Fatalf("edit = %+v, %v", after, err)
		}
	})
	t.Run("DemoteAndRestore", func(t *testing.T) {
		f, r := active(t)
		_, err := f.app.Rules.Demote(ctx, f.reviewer, r.ID, app.Confirmation{})
		wantFields(t, err, "reason", "confirm")
		_, err = f.app.Rules.Demote(ctx, f.reviewer, r.ID, app.Confirmation{Reason: "old"})
		wantFields(t, err, "confirm")
		after, err := f.app.Rules.Demote(ctx, f.reviewer, r.ID, app.Confirmation{Reason: "old", Confirmed: true})
		if err != nil || after.Status != governance.RuleStale {
			t.Fatalf("demote = %v, %v; want stale", after, err)
		}
		after, err = f.app.Rules.Restore(ctx, f.admin, r.ID, "still true")
		if err != nil || after.Status != governance.RuleActive {
			t.Fatalf("restore = %v, %v; want active", after, err)
		}
		after, err = f.app.Rules.ToCandidates(ctx, f.reviewer, r.ID, app.Confirmation{Reason: "redo", Confirmed: true})
		if err != nil || after.Status != governance.RuleArchived {
			t.Fatalf("to candidates = %v, %v; want archived", after, err)
		}
	})
	t.Run("Supersede", func(t *testing.T) {
		f, r := active(t)
		_, err := f.app.Rules.Supersede(ctx, f.reviewer, r.ID, 0, app.Confirmation{Reason: "newer", Confirmed: true})
		wantFields(t, err, "newer")
		// The store refuses the rule itself as its replacement: on the field.
		_, err = f.app.Rules.Supersede(ctx, f.reviewer, r.ID, r.ID, app.Confirmation{Reason: "newer", Confirmed: true})
		wantFields(t, err, "newer")
	})
	t.Run("PauseAndExpiry", func(t *testing.T) {
		f, r := active(t)
		after, err := f.app.Rules.SetPaused(ctx, f.reviewer, r.ID, true, "quiet")
		if err != nil || !after.Paused {
			t.Fatalf("pause = %v, %v", after, err)
		}
		past := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
		_, err = f.app.Rules.SetExpiry(ctx, f.reviewer, r.ID, &past, "")
		wantFields(t, err, "expires")
		soon := f.app.Now().Add(72 * time.Hour).Truncate(time.Second)
		after, err = f.app.Rules.SetExpiry(ctx, f.reviewer, r.ID, &soon, "")
		if err != nil || after.ExpiresAt == nil || !after.ExpiresAt.Equal(soon) {
			t.Fatalf("expiry = %v, %v; want %v", after, err, soon)
		}
	})
}

func TestRulesChecks(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	r := f.rules(t, f.travel, governance.RuleProposed)[0]
	contains := &evals.Check{Type: evals.CheckContains, Value: "window seat"}
	for _, tc := range []actorCase{
		{"ReviewerOfAnotherProject", f.expenseReviewer, governance.EFORBIDDEN},
		{"Member", f.member, governance.EFORBIDDEN},
		{"Token", f.travelToken, governance.EFORBIDDEN},
		{"Anonymous", governance.Actor{}, governance.EUNAUTHORIZED},
	} {
		_, err := f.app.Rules.Checks(ctx, tc.actor, r.ID)
		if governance.ErrorCode(err) != tc.code {
			t.Fatalf("checks, %s: %v, want code %q", tc.name, err, tc.code)
		}
		if err := f.app.Rules.AddCheck(ctx, tc.actor, r.ID, contains); governance.ErrorCode(err) != tc.code {
			t.Fatalf("add check, %s: %v, want code %q", tc.name, err, tc.code)
		}
	}
	_, err := f.app.Rules.Checks(ctx, f.expenseReviewer, r.ID)
	if msg := governance.ErrorMessage(err); msg != "Only reviewers of the rule's project edit its checks." {
		t.Fatalf("message = %q", msg)
	}
	err = f.app.Rules.AddCheck(ctx, f.reviewer, r.ID, &evals.Check{Type: "no-such-type"})
	wantErrCode(t, err, governance.EINVALID)
	if err := f.app.Rules.AddCheck(ctx, f.reviewer, r.ID, contains); err != nil {
		t.Fatal(err)
	}
	rc, err := f.app.Rules.Checks(ctx, f.admin, r.ID)
	if err != nil || rc.Invalid != nil || len(rc.Checks) != 1 || rc.Checks[0].Value != "window seat" {
		t.Fatalf("checks = %+v, %v", rc, err)
	}
	_, err = f.app.Rules.RemoveCheck(ctx, f.reviewer, r.ID, 1)
	wantErrCode(t, err, governance.EINVALID)
	removed, err := f.app.Rules.RemoveCheck(ctx, f.reviewer, r.ID, 0)
	if err != nil || removed.Value != "window seat" {
		t.Fatalf("removed %v, %v", removed, err)
	}
	if rc, err = f.app.Rules.Checks(ctx, f.reviewer, r.ID); err != nil || len(rc.Checks) != 0 {
		t.Fatalf("checks after removal = %d, %v", len(rc.Checks), err)
	}
}
