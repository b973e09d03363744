package app_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

const (
	eforbidden    = governance.EFORBIDDEN
	enotfound     = governance.ENOTFOUND
	eunauthorized = governance.EUNAUTHORIZED
	einvalid      = governance.EINVALID
	econflict     = governance.ECONFLICT
)

func TestForgetRule(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	li := f.Rule(t, f.Travel, "family-li", "午睡 14:00-16:00")
	shared := f.Rule(t, f.Travel, "", "故宫周一闭馆")

	t.Run("Authorization", func(t *testing.T) {
		f.check(t, outcomes{
			Admin: "", TravelReviewer: "", ExpenseReviewer: eforbidden,
			MemberLi: "", MemberWang: enotfound,
			TokenForget: "", TokenRecall: eforbidden, TokenOther: enotfound,
			Anonymous: eunauthorized,
		}, func(actor governance.Actor) error {
			_, err := f.App.Forget.PreviewRule(ctx, actor, li, false)
			return err
		})
		// A member may not forget a rule shared by the whole project.
		f.check(t, outcomes{MemberLi: eforbidden, TravelReviewer: "", TokenForget: ""}, func(actor governance.Actor) error {
			_, err := f.App.Forget.PreviewRule(ctx, actor, shared, false)
			return err
		})
		// Refused forgets change nothing.
		f.check(t, outcomes{ExpenseReviewer: eforbidden, MemberWang: enotfound, TokenRecall: eforbidden, TokenOther: enotfound},
			func(actor governance.Actor) error {
				_, err := f.App.Forget.Rule(ctx, actor, li, false)
				return err
			})
		if r, err := f.Store.FindRuleByID(ctx, li); err != nil || r.Status != governance.RuleActive {
			t.Fatalf("rule after refused forgets: %+v, %v", r, err)
		}
		_, err := f.App.Forget.PreviewRule(ctx, f.Actors[Admin], 999999, false)
		wantCode(t, "unknown rule", err, enotfound)
	})

	t.Run("OK", func(t *testing.T) {
		plan, err := f.App.Forget.PreviewRule(ctx, f.Actors[MemberLi], li, false)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Project.ID != f.Travel.ID || len(plan.Preview.Rules) != 1 || plan.Preview.Rules[0].ID != li {
			t.Fatalf("plan = %+v, preview = %+v", plan, plan.Preview)
		}
		rep, err := f.App.Forget.Rule(ctx, f.Actors[MemberLi], li, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.RuleIDs) != 1 || rep.RuleIDs[0] != li {
			t.Fatalf("report = %+v", rep)
		}
		r, err := f.Store.FindRuleByID(ctx, li)
		if err != nil || r.Status != governance.RuleForgotten {
			t.Fatalf("rule = %+v, %v", r, err)
		}
		// Forgotten: a conflict for an account, gone for an agent.
		_, err = f.App.Forget.Rule(ctx, f.Actors[TravelReviewer], li, false)
		wantCode(t, "again (account)", err, econflict)
		_, err = f.App.Forget.Rule(ctx, f.Actors[TokenForget], li, false)
		wantCode(t, "again (token)", err, enotfound)
	})

	t.Run("Token", func(t *testing.T) {
		rep, err := f.App.Forget.Rule(ctx, f.Actors[TokenForget], shared, false)
		if err != nil || len(rep.RuleIDs) != 1 {
			t.Fatalf("report = %+v, %v", rep, err)
		}
		entries, _, err := f.Store.FindAudit(ctx, governance.AuditFilter{Actor: f.Tokens[TokenForget].Actor()})
		if err != nil || len(entries) == 0 {
			t.Fatalf("no audit row by the token: %v", err)
		}
	})
}

func TestForgetRules(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	a := f.Rule(t, f.Travel, "family-li", "规则 a")
	b := f.Rule(t, f.Travel, "", "规则 b")
	x := f.Rule(t, f.Expense, "emp-7", "规则 x")
	ids := func(v ...int64) []string {
		var out []string
		for _, id := range v {
			out = append(out, strconv.FormatInt(id, 10))
		}
		return out
	}

	t.Run("Authorization", func(t *testing.T) {
		f.check(t, outcomes{
			Admin: "", TravelReviewer: "", ExpenseReviewer: eforbidden,
			MemberLi: eforbidden, MemberWang: eforbidden,
			TokenForget: eforbidden, Anonymous: eunauthorized,
		}, func(actor governance.Actor) error {
			_, _, err := f.App.Forget.PreviewRules(ctx, actor, ids(a, b))
			return err
		})
		// One rule of a project the reviewer does not review spoils the lot.
		f.check(t, outcomes{TravelReviewer: eforbidden, MemberLi: eforbidden}, func(actor governance.Actor) error {
			_, err := f.App.Forget.Rules(ctx, actor, ids(a, x))
			return err
		})
	})

	t.Run("Input", func(t *testing.T) {
		rita := f.Actors[TravelReviewer]
		_, _, err := f.App.Forget.PreviewRules(ctx, rita, nil)
		wantCode(t, "none", err, einvalid)
		_, _, err = f.App.Forget.PreviewRules(ctx, rita, []string{"1", "abc"})
		wantCode(t, "not a number", err, einvalid)
		_, _, err = f.App.Forget.PreviewRules(ctx, rita, []string{"-3"})
		wantCode(t, "negative", err, einvalid)
		_, _, err = f.App.Forget.PreviewRules(ctx, rita, ids(a, 999999))
		wantCode(t, "unknown", err, enotfound)
	})

	t.Run("OK", func(t *testing.T) {
		rita := f.Actors[TravelReviewer]
		got, plan, err := f.App.Forget.PreviewRules(ctx, rita, ids(a, b, a))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != a || got[1] != b || plan.Project == nil || plan.Project.ID != f.Travel.ID {
			t.Fatalf("ids = %v, plan = %+v", got, plan)
		}
		rep, err := f.App.Forget.Rules(ctx, rita, ids(a, b))
		if err != nil || len(rep.RuleIDs) != 2 {
			t.Fatalf("report = %+v, %v", rep, err)
		}
		_, err = f.App.Forget.Rules(ctx, rita, ids(a))
		wantCode(t, "again", err, econflict)
		if r, err := f.Store.FindRuleByID(ctx, x); err != nil || r.Status != governance.RuleActive {
			t.Fatalf("the other project's rule: %+v, %v", r, err)
		}
	})
}

func TestForgetCandidate(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	li := f.Candidate(t, f.Travel, "bj-1", "family-li", "午睡")

	t.Run("Authorization", func(t *testing.T) {
		f.check(t, outcomes{
			Admin: "", TravelReviewer: "", ExpenseReviewer: eforbidden,
			MemberLi: "", MemberWang: enotfound,
			TokenForget: eforbidden, TokenRecall: eforbidden, Anonymous: eunauthorized,
		}, func(actor governance.Actor) error {
			_, err := f.App.Forget.PreviewCandidate(ctx, actor, li, true)
			return err
		})
		f.check(t, outcomes{ExpenseReviewer: eforbidden, MemberWang: enotfound}, func(actor governance.Actor) error {
			_, err := f.App.Forget.Candidate(ctx, actor, li, false)
			return err
		})
		_, err := f.App.Forget.PreviewCandidate(ctx, f.Actors[Admin], 999999, false)
		wantCode(t, "unknown", err, enotfound)
	})

	t.Run("OK", func(t *testing.T) {
		plan, err := f.App.Forget.PreviewCandidate(ctx, f.Actors[MemberLi], li, false)
		if err != nil || plan.Project.ID != f.Travel.ID || len(plan.Preview.Candidates) == 0 {
			t.Fatalf("plan = %+v, %v", plan, err)
		}
		rep, err := f.App.Forget.Candidate(ctx, f.Actors[MemberLi], li, false)
		if err != nil || len(rep.CandidateIDs) != 1 || rep.CandidateIDs[0] != li {
			t.Fatalf("report = %+v, %v", rep, err)
		}
		if _, err := f.Store.FindCandidateByID(ctx, li); governance.ErrorCode(err) != enotfound {
			t.Fatalf("candidate still there: %v", err)
		}
	})
}

func TestForgetSubject(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)

	t.Run("Authorization", func(t *testing.T) {
		f.check(t, outcomes{
			Admin: "", TravelReviewer: "", ExpenseReviewer: eforbidden,
			MemberLi: "", MemberWang: enotfound,
			TokenForget: "", TokenRecall: eforbidden, TokenOther: enotfound,
			Anonymous: eunauthorized,
		}, func(actor governance.Actor) error {
			_, err := f.App.Forget.PreviewSubject(ctx, actor, f.Travel.Slug, "family-li")
			return err
		})
		f.check(t, outcomes{ExpenseReviewer: eforbidden, MemberWang: enotfound, TokenRecall: eforbidden},
			func(actor governance.Actor) error {
				_, err := f.App.Forget.Subject(ctx, actor, f.Travel.Slug, "family-li")
				return err
			})
	})

	t.Run("Input", func(t *testing.T) {
		admin := f.Actors[Admin]
		_, err := f.App.Forget.PreviewSubject(ctx, admin, f.Travel.Slug, "  ")
		wantCode(t, "blank subject", err, einvalid)
		_, err = f.App.Forget.Subject(ctx, admin, f.Travel.Slug, string(make([]byte, governance.MaxIDBytes+1)))
		wantCode(t, "long subject", err, einvalid)
		_, err = f.App.Forget.Subject(ctx, admin, "no-such-project", "family-li")
		wantCode(t, "unknown project", err, enotfound)
	})

	t.Run("OK", func(t *testing.T) {
		plan, err := f.App.Forget.PreviewSubject(ctx, f.Actors[Admin], f.Travel.Slug, "family-li")
		if err != nil || plan.Project.ID != f.Travel.ID || plan.Preview.EventCount != 2 {
			t.Fatalf("plan = %+v (%+v), %v", plan, plan.Preview, err)
		}
		rep, err := f.App.Forget.Subject(ctx, f.Actors[TokenForget], f.Travel.Slug, "family-li")
		if err != nil || rep.Events != 2 {
			t.Fatalf("report = %+v, %v", rep, err)
		}
		subject := "family-wang"
		if _, n, err := f.Store.FindEvents(ctx, governance.EventFilter{ProjectID: &f.Travel.ID, SubjectID: &subject, Limit: 1}); err != nil || n != 1 {
			t.Fatalf("family-wang's events: %d, %v", n, err)
		}
	})
}
