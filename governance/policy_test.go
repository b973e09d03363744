package governance_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestPolicy covers every action for every kind of actor, on three objects
// of project 1: the project as a whole, something about subject s1, and
// something project-wide (subject ""). "" means allowed, otherwise the
// error code Can must return.
func TestPolicy(t *testing.T) {
	const (
		ok   = ""
		unau = governance.EUNAUTHORIZED
		forb = governance.EFORBIDDEN
		nf   = governance.ENOTFOUND
	)
	project := &governance.Project{ID: 1, Slug: "travel"}
	objects := []governance.Object{
		governance.InProject(project),
		governance.InProject(project).About("s1"),
		governance.InProject(project).About(""),
	}
	reviewerOf := func(id int64) *governance.Account {
		return &governance.Account{Username: "r", Memberships: []governance.Membership{{ProjectID: id, Role: governance.ProjectReviewer}}}
	}
	memberOf := func(subject string) *governance.Account {
		return &governance.Account{Username: "m", Memberships: []governance.Membership{{ProjectID: 1, Role: governance.ProjectMember, SubjectID: subject}}}
	}
	token := func(project int64, scopes ...governance.TokenScope) *governance.APIToken {
		return &governance.APIToken{ID: 9, ProjectID: project, Scopes: scopes}
	}
	all := func(code string) [3]string { return [3]string{code, code, code} }
	member := func(other bool) map[governance.Action][3]string {
		own := ok
		if other {
			own = nf
		}
		return map[governance.Action][3]string{
			governance.ActSee:             {ok, own, nf},
			governance.ActReview:          all(forb),
			governance.ActReviewAny:       all(forb),
			governance.ActForgetRule:      {forb, own, forb},
			governance.ActForgetCandidate: {forb, own, nf},
			governance.ActForgetSubject:   {forb, own, nf},
			governance.ActPropose:         {forb, own, nf},
			governance.ActAdminister:      all(forb),
			governance.ActIngest:          all(forb),
			governance.ActRecall:          {forb, own, nf},
			governance.ActExport:          {forb, own, nf},
			governance.ActReadSkills:      all(forb),
			governance.ActImportSkills:    all(forb),
		}
	}
	revoked := token(1, governance.TokenScopes...)
	revoked.RevokedAt = new(revoked.CreatedAt)
	tests := []struct {
		name  string
		actor governance.Actor
		want  map[governance.Action][3]string
	}{
		{"Anonymous", governance.Actor{}, map[governance.Action][3]string{
			governance.ActSee: all(unau), governance.ActReview: all(unau), governance.ActReviewAny: all(unau),
			governance.ActForgetRule: all(unau), governance.ActForgetCandidate: all(unau), governance.ActForgetSubject: all(unau),
			governance.ActAdminister: all(unau), governance.ActIngest: all(unau), governance.ActRecall: all(unau), governance.ActExport: all(unau),
			governance.ActReadSkills: all(unau), governance.ActImportSkills: all(unau),
			governance.ActPropose: all(unau),
		}},
		{"Admin", governance.AccountActor(&governance.Account{Username: "admin", IsAdmin: true}), map[governance.Action][3]string{
			governance.ActSee: all(ok), governance.ActReview: all(ok), governance.ActReviewAny: all(ok),
			governance.ActForgetRule: all(ok), governance.ActForgetCandidate: all(ok), governance.ActForgetSubject: all(ok),
			governance.ActAdminister: all(ok), governance.ActIngest: all(ok), governance.ActRecall: all(ok), governance.ActExport: all(ok),
			governance.ActReadSkills: all(ok), governance.ActImportSkills: all(ok),
			governance.ActPropose: all(ok),
		}},
		{"Reviewer", governance.AccountActor(reviewerOf(1)), map[governance.Action][3]string{
			governance.ActSee: all(ok), governance.ActReview: all(ok), governance.ActReviewAny: all(ok),
			governance.ActForgetRule: all(ok), governance.ActForgetCandidate: all(ok), governance.ActForgetSubject: all(ok),
			governance.ActAdminister: all(forb), governance.ActIngest: all(forb), governance.ActRecall: all(ok), governance.ActExport: all(ok),
			governance.ActReadSkills: all(ok), governance.ActImportSkills: all(forb),
			governance.ActPropose: all(ok),
		}},
		{"ReviewerOfAnotherProject", governance.AccountActor(reviewerOf(2)), map[governance.Action][3]string{
			governance.ActSee: all(forb), governance.ActReview: all(forb), governance.ActReviewAny: all(ok),
			governance.ActForgetRule: all(forb), governance.ActForgetCandidate: all(forb), governance.ActForgetSubject: all(forb),
			governance.ActAdminister: all(forb), governance.ActIngest: all(forb), governance.ActRecall: all(forb), governance.ActExport: all(forb),
			governance.ActReadSkills: all(forb), governance.ActImportSkills: all(forb),
			governance.ActPropose: all(forb),
		}},
		{"Member", governance.AccountActor(memberOf("s1")), member(false)},
		{"MemberOfAnotherSubject", governance.AccountActor(memberOf("s2")), member(true)},
		{"TokenWithEveryScope", governance.TokenActor(token(1, governance.TokenScopes...)), map[governance.Action][3]string{
			governance.ActSee: all(ok), governance.ActReview: all(forb), governance.ActReviewAny: all(forb),
			governance.ActForgetRule: all(ok), governance.ActForgetCandidate: all(forb), governance.ActForgetSubject: all(ok),
			governance.ActAdminister: all(forb), governance.ActIngest: all(ok), governance.ActRecall: all(ok), governance.ActExport: all(ok),
			governance.ActReadSkills: all(ok), governance.ActImportSkills: all(forb),
			governance.ActPropose: all(forb),
		}},
		{"TokenWithRecallOnly", governance.TokenActor(token(1, governance.ScopeRecall)), map[governance.Action][3]string{
			governance.ActSee: all(ok), governance.ActReview: all(forb), governance.ActReviewAny: all(forb),
			governance.ActForgetRule: all(forb), governance.ActForgetCandidate: all(forb), governance.ActForgetSubject: all(forb),
			governance.ActAdminister: all(forb), governance.ActIngest: all(forb), governance.ActRecall: all(ok), governance.ActExport: all(forb),
			governance.ActReadSkills: all(ok), governance.ActImportSkills: all(forb),
			governance.ActPropose: all(forb),
		}},
		{"TokenOfAnotherProject", governance.TokenActor(token(2, governance.TokenScopes...)), map[governance.Action][3]string{
			governance.ActSee: all(nf), governance.ActReview: all(forb), governance.ActReviewAny: all(forb),
			governance.ActForgetRule: all(nf), governance.ActForgetCandidate: all(forb), governance.ActForgetSubject: all(nf),
			governance.ActAdminister: all(forb), governance.ActIngest: all(nf), governance.ActRecall: all(nf), governance.ActExport: all(nf),
			governance.ActReadSkills: all(nf), governance.ActImportSkills: all(forb),
			governance.ActPropose: all(forb),
		}},
		{"RevokedToken", governance.TokenActor(revoked), map[governance.Action][3]string{
			governance.ActSee: all(unau), governance.ActReview: all(unau), governance.ActReviewAny: all(unau),
			governance.ActForgetRule: all(unau), governance.ActForgetCandidate: all(unau), governance.ActForgetSubject: all(unau),
			governance.ActAdminister: all(unau), governance.ActIngest: all(unau), governance.ActRecall: all(unau), governance.ActExport: all(unau),
			governance.ActReadSkills: all(unau), governance.ActImportSkills: all(unau),
			governance.ActPropose: all(unau),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.want) != len(governance.Actions) {
				t.Fatalf("expectations for %d actions, the policy has %d", len(tt.want), len(governance.Actions))
			}
			for _, action := range governance.Actions {
				want, ok := tt.want[action]
				if !ok {
					t.Fatalf("no expectation for %s", action)
				}
				for i, o := range objects {
					err := governance.Can(tt.actor, action, o)
					got := ""
					if err != nil {
						got = governance.ErrorCode(err)
					}
					if got != want[i] {
						t.Errorf("%s on object %d: got %q (%v), want %q", action, i, got, err, want[i])
					}
				}
			}
		})
	}
	if err := governance.Can(governance.AccountActor(&governance.Account{IsAdmin: true}), "fly", governance.Object{}); governance.ErrorCode(err) != governance.EINTERNAL {
		t.Fatalf("unknown action: %v", err)
	}
}
