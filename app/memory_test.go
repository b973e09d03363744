package app_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

func TestMemories(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	travel := app.MemoryQuery{Project: f.travel.Slug, Limit: 1000}

	t.Run("Authorization", func(t *testing.T) {
		for _, tc := range []actorCase{
			{"Admin", f.admin, ""},
			{"Reviewer", f.reviewer, ""},
			{"Member", f.member, ""},
			{"ReviewerOfAnotherProject", f.expenseReviewer, governance.EFORBIDDEN},
			{"Anonymous", governance.Actor{}, governance.EUNAUTHORIZED},
		} {
			_, err := f.app.Memories.Candidates(ctx, tc.actor, travel)
			if governance.ErrorCode(err) != tc.code {
				t.Fatalf("candidates, %s: %v, want code %q", tc.name, err, tc.code)
			}
			_, err = f.app.Memories.Episodes(ctx, tc.actor, travel)
			if governance.ErrorCode(err) != tc.code {
				t.Fatalf("episodes, %s: %v, want code %q", tc.name, err, tc.code)
			}
		}
		_, err := f.app.Memories.Candidates(ctx, f.member, app.MemoryQuery{Project: f.expense.Slug})
		wantErrCode(t, err, governance.EFORBIDDEN)
		_, err = f.app.Memories.Candidates(ctx, f.admin, app.MemoryQuery{Statuses: []governance.CandidateStatus{"bogus"}})
		wantErrCode(t, err, governance.EINVALID)
	})
	t.Run("MembersSeeTheirOwn", func(t *testing.T) {
		all, err := f.app.Memories.Candidates(ctx, f.reviewer, travel)
		if err != nil {
			t.Fatal(err)
		}
		own, err := f.app.Memories.Candidates(ctx, f.member, travel)
		if err != nil {
			t.Fatal(err)
		}
		if own.Scope.SubjectID() != "family-chen" || len(own.Candidates) == 0 || len(own.Candidates) > len(all.Candidates) {
			t.Fatalf("member: subject %q, %d of %d candidates", own.Scope.SubjectID(), len(own.Candidates), len(all.Candidates))
		}
		for _, c := range own.Candidates {
			if c.SubjectID != "family-chen" {
				t.Fatalf("candidate %d about %q shown to family-chen", c.ID, c.SubjectID)
			}
		}
		// family-wang has nothing remembered and sees nothing of family-chen's.
		eps, err := f.app.Memories.Episodes(ctx, f.otherMember, travel)
		if err != nil {
			t.Fatal(err)
		}
		cands, err := f.app.Memories.Candidates(ctx, f.otherMember, travel)
		if err != nil {
			t.Fatal(err)
		}
		if eps.Total != 0 || cands.Total != 0 {
			t.Fatalf("family-wang sees %d episodes and %d candidates of others", eps.Total, cands.Total)
		}
		reviewed, err := f.app.Memories.Episodes(ctx, f.reviewer, travel)
		if err != nil || reviewed.Total == 0 {
			t.Fatalf("the reviewer sees %d episodes, %v", reviewed.Total, err)
		}
	})
	t.Run("DefaultProjectAndStatus", func(t *testing.T) {
		l, err := f.app.Memories.Candidates(ctx, f.expenseReviewer, app.MemoryQuery{Limit: 1000,
			Statuses: []governance.CandidateStatus{governance.CandidateBlocked}})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Projects) != 1 || l.Scope.Project.ID != f.expense.ID {
			t.Fatalf("projects %v, shown %v", l.Projects, l.Scope.Project)
		}
		for _, c := range l.Candidates {
			if c.Status != governance.CandidateBlocked || c.ProjectID != f.expense.ID {
				t.Fatalf("candidate %d: %s in project %d", c.ID, c.Status, c.ProjectID)
			}
		}
		// A token sees its own project.
		own, err := f.app.Memories.Episodes(ctx, f.travelToken, app.MemoryQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if own.Scope.Project == nil || own.Scope.Project.ID != f.travel.ID || len(own.Projects) != 1 {
			t.Fatalf("token sees %v of %v", own.Scope.Project, own.Projects)
		}
	})
}
