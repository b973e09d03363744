package app_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

func TestAuditLog(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	// Something audited in each of two projects.
	travelRule := f.rules(t, f.travel, governance.RuleProposed)[0]
	expenseRule := f.rules(t, f.expense, governance.RuleProposed)[0]
	if _, _, err := f.app.Reviews.Approve(ctx, f.reviewer, travelRule.ID, app.Approval{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.app.Reviews.Approve(ctx, f.expenseReviewer, expenseRule.ID, app.Approval{}); err != nil {
		t.Fatal(err)
	}
	page := governance.AuditFilter{Limit: 1000}

	t.Run("Authorization", func(t *testing.T) {
		for _, tc := range []actorCase{
			{"Admin", f.admin, ""},
			{"Reviewer", f.reviewer, ""},
			{"Member", f.member, governance.EFORBIDDEN},
			{"Token", f.travelToken, governance.EFORBIDDEN},
			{"Anonymous", governance.Actor{}, governance.EUNAUTHORIZED},
		} {
			_, err := f.app.AuditLog.Page(ctx, tc.actor, page)
			if governance.ErrorCode(err) != tc.code {
				t.Fatalf("page, %s: %v, want code %q", tc.name, err, tc.code)
			}
			err = f.app.AuditLog.Export(ctx, tc.actor, page, 10, func([]*governance.AuditEntry) error { return nil })
			if governance.ErrorCode(err) != tc.code {
				t.Fatalf("export, %s: %v, want code %q", tc.name, err, tc.code)
			}
		}
	})
	t.Run("AdminSeesEverything", func(t *testing.T) {
		p, err := f.app.AuditLog.Page(ctx, f.admin, page)
		if err != nil {
			t.Fatal(err)
		}
		if p.Scoped || p.Check == nil || !p.Check.OK || p.Total != len(p.Entries) {
			t.Fatalf("scoped %v, check %+v, total %d of %d", p.Scoped, p.Check, p.Total, len(p.Entries))
		}
		projects := map[int64]bool{}
		for _, e := range p.Entries {
			projects[e.ProjectID] = true
		}
		if !projects[f.travel.ID] || !projects[f.expense.ID] {
			t.Fatalf("admin's rows cover projects %v", projects)
		}
		if !p.Live["rule:"+strconv.FormatInt(travelRule.ID, 10)] {
			t.Fatalf("rule %d is not live: %v", travelRule.ID, p.Live)
		}
	})
	t.Run("ReviewerSeesOwnProject", func(t *testing.T) {
		p, err := f.app.AuditLog.Page(ctx, f.reviewer, page)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Scoped || len(p.Entries) == 0 {
			t.Fatalf("scoped %v, %d rows", p.Scoped, len(p.Entries))
		}
		for _, e := range p.Entries {
			if e.ProjectID != f.travel.ID {
				t.Fatalf("row %d of project %d shown to the travel reviewer", e.ID, e.ProjectID)
			}
		}
		// A filter naming other projects does not widen the scope.
		wide := page
		wide.ProjectIDs = []int64{f.expense.ID}
		q, err := f.app.AuditLog.Page(ctx, f.reviewer, wide)
		if err != nil || q.Total != p.Total {
			t.Fatalf("with other projects asked: %d rows, %v; want %d", q.Total, err, p.Total)
		}
	})
	t.Run("ExportInBatches", func(t *testing.T) {
		p, err := f.app.AuditLog.Page(ctx, f.admin, page)
		if err != nil {
			t.Fatal(err)
		}
		var got, batches int
		err = f.app.AuditLog.Export(ctx, f.admin, governance.AuditFilter{}, 3, func(es []*governance.AuditEntry) error {
			got, batches = got+len(es), batches+1
			return nil
		})
		if err != nil || got != p.Total || batches != p.Total/3+1 {
			t.Fatalf("exported %d rows in %d batches, %v; want %d", got, batches, err, p.Total)
		}
	})
}
