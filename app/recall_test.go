package app_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

func TestRecallsRecall(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	annRule := w.mustRule(t, w.travel, "ann", "Ann prefers the aquarium in the morning")
	w.mustRule(t, w.travel, "bob", "Bob prefers the aquarium at night")
	for _, tc := range []struct {
		name    string
		actor   governance.Actor
		project int64
		subject string
		want    string
	}{
		{"TokenWithRecall", w.token(w.travel, governance.ScopeRecall), w.travel.ID, "ann", ""},
		{"TokenWithoutRecall", w.token(w.travel, governance.ScopeIngest), w.travel.ID, "ann", governance.EFORBIDDEN},
		{"TokenOfAnotherProject", w.token(w.code, governance.ScopeRecall), w.travel.ID, "ann", governance.ENOTFOUND},
		{"Admin", w.admin, w.travel.ID, "ann", ""},
		{"Reviewer", w.reviewer, w.travel.ID, "bob", ""},
		{"ReviewerOfAnotherProject", w.reviewerOfCode, w.travel.ID, "ann", governance.EFORBIDDEN},
		{"MemberOwnSubject", w.ann, w.travel.ID, "ann", ""},
		{"MemberOtherSubject", w.ann, w.travel.ID, "bob", governance.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkg, err := w.app.Recalls.Recall(ctx, tc.actor, governance.RecallRequest{Task: "plan the aquarium visit", ProjectID: tc.project, SubjectID: tc.subject})
			wantErrCode(t, err, tc.want)
			if err == nil && tc.subject == "ann" && !hasItem(pkg, governance.RecallRuleID(annRule)) {
				t.Fatalf("ann's recall does not hold her rule: %+v", pkg.Items)
			}
		})
	}
}

func hasItem(pkg *governance.RecallPackage, id string) bool {
	for _, it := range pkg.Items {
		if it.ID == id {
			return true
		}
	}
	return false
}

func TestRecallsPreview(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	annRule := w.mustRule(t, w.travel, "ann", "Ann prefers the aquarium in the morning")
	bobRule := w.mustRule(t, w.travel, "bob", "Bob prefers the aquarium at night")
	w.mustRule(t, w.code, "", "The aquarium service is written in Go")
	req := governance.RecallRequest{Task: "plan the aquarium visit", ProjectID: w.travel.ID, SubjectID: "bob"}

	t.Run("MemberRecallsForThemself", func(t *testing.T) {
		prev, err := w.app.Recalls.Preview(ctx, w.ann, req)
		wantErrCode(t, err, "")
		if !hasItem(prev.Package, governance.RecallRuleID(annRule)) || hasItem(prev.Package, governance.RecallRuleID(bobRule)) {
			t.Fatalf("a member's preview for bob holds %+v, want ann's rule only", prev.Package.Items)
		}
		if prev.ShowFiltered || prev.Filtered != nil {
			t.Fatalf("a member sees the scope-filtered rules: %+v", prev.Filtered)
		}
	})
	t.Run("ReviewerSeesFiltered", func(t *testing.T) {
		prev, err := w.app.Recalls.Preview(ctx, w.reviewer, req)
		wantErrCode(t, err, "")
		if !prev.ShowFiltered || len(prev.Filtered) != 1 || prev.Filtered[0].RuleID != annRule {
			t.Fatalf("filtered = %+v, want ann's rule only (the code project is not the reviewer's)", prev.Filtered)
		}
		if prev.Labels[governance.RecallRuleID(bobRule)] == "" {
			t.Fatalf("labels = %v, want bob's rule named", prev.Labels)
		}
	})
	t.Run("AdminSeesOtherProjects", func(t *testing.T) {
		prev, err := w.app.Recalls.Preview(ctx, w.admin, req)
		wantErrCode(t, err, "")
		if len(prev.Filtered) != 2 {
			t.Fatalf("filtered = %+v, want ann's rule and the code project's", prev.Filtered)
		}
	})
	t.Run("ReviewerOfAnotherProject", func(t *testing.T) {
		_, err := w.app.Recalls.Preview(ctx, w.reviewerOfCode, req)
		wantErrCode(t, err, governance.EFORBIDDEN)
	})
}

func TestRulesListProject(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	w.mustRule(t, w.travel, "ann", "Ann prefers the aquarium in the morning")
	w.mustRule(t, w.code, "", "The aquarium service is written in Go")
	for _, tc := range []struct {
		name  string
		actor governance.Actor
		want  string
	}{
		{"TokenWithRecall", w.token(w.travel, governance.ScopeRecall), ""},
		{"TokenWithoutRecall", w.token(w.travel, governance.ScopeExport), governance.EFORBIDDEN},
		{"TokenOfAnotherProject", w.token(w.code, governance.ScopeRecall), governance.ENOTFOUND},
		{"Admin", w.admin, ""},
		{"Reviewer", w.reviewer, ""},
		{"ReviewerOfAnotherProject", w.reviewerOfCode, governance.EFORBIDDEN},
		{"Member", w.ann, governance.EFORBIDDEN},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := w.app.Rules.ListProject(ctx, tc.actor, w.travel.ID, governance.RuleFilterInput{})
			wantErrCode(t, err, tc.want)
			if err == nil && (list.Total != 1 || list.Rules[0].ProjectID != w.travel.ID || list.Filter.Limit != 100) {
				t.Fatalf("rules = %d %+v (limit %d), want the travel rule only, 100 a page", list.Total, list.Rules, list.Filter.Limit)
			}
		})
	}
	t.Run("Filter", func(t *testing.T) {
		_, err := w.app.Rules.ListProject(ctx, w.admin, w.travel.ID, governance.RuleFilterInput{Status: "sleeping"})
		wantErrCode(t, err, governance.EINVALID)
		list, err := w.app.Rules.ListProject(ctx, w.admin, w.travel.ID, governance.RuleFilterInput{Limit: "501"})
		wantErrCode(t, err, "")
		if list.Filter.Limit != app.MaxProjectRules {
			t.Fatalf("limit = %d, want it held to %d", list.Filter.Limit, app.MaxProjectRules)
		}
	})
}
