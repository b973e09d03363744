package app_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

func TestMe(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	liRule := f.Rule(t, f.Travel, "family-li", "午睡 14:00-16:00")
	f.Rule(t, f.Travel, "family-wang", "迪士尼")
	f.Rule(t, f.Travel, "", "故宫周一闭馆")
	f.Candidate(t, f.Travel, "bj-1", "family-li", "去北京")
	f.Candidate(t, f.Travel, "sh-1", "family-wang", "去上海")
	liRef := app.SubjectRef{Project: f.Travel, SubjectID: "family-li"}

	t.Run("Subjects", func(t *testing.T) {
		for name, want := range map[string]int{Admin: 0, TravelReviewer: 0, MemberLi: 1, MemberWang: 1, TokenForget: 0} {
			refs, err := f.App.Me.Subjects(ctx, f.Actors[name])
			if err != nil || len(refs) != want {
				t.Fatalf("%s: subjects = %+v, %v; want %d", name, refs, err, want)
			}
		}
		_, err := f.App.Me.Subjects(ctx, f.Actors[Anonymous])
		wantCode(t, "anonymous", err, eunauthorized)
	})

	t.Run("Memories", func(t *testing.T) {
		groups, err := f.App.Me.Memories(ctx, f.Actors[MemberLi])
		if err != nil {
			t.Fatal(err)
		}
		if len(groups) != 1 || groups[0].SubjectID != "family-li" || groups[0].Project.ID != f.Travel.ID {
			t.Fatalf("groups = %+v", groups)
		}
		g := groups[0]
		if len(g.Rules) != 1 || g.Rules[0].Rule.ID != liRule {
			t.Fatalf("rules = %+v: want only family-li's", g.Rules)
		}
		for _, l := range g.Candidates {
			if l.Candidate.SubjectID != "family-li" {
				t.Fatalf("another subject's candidate: %+v", l.Candidate)
			}
		}
		if len(g.Candidates) != 1 {
			t.Fatalf("candidates = %d, want 1", len(g.Candidates))
		}
	})

	t.Run("Export", func(t *testing.T) {
		data, err := f.App.Me.Export(ctx, f.Actors[MemberLi])
		if err != nil || len(data) != 1 || len(data[0].Rules) != 1 || len(data[0].Candidates) != 1 {
			t.Fatalf("data = %+v, %v", data, err)
		}
		none, err := f.App.Me.Export(ctx, f.Actors[Admin])
		if err != nil || len(none) != 0 {
			t.Fatalf("admin's data = %+v, %v", none, err)
		}
	})

	t.Run("Events", func(t *testing.T) {
		f.check(t, outcomes{
			MemberLi: "", MemberWang: enotfound, ExpenseReviewer: eforbidden, Anonymous: eunauthorized,
		}, func(actor governance.Actor) error {
			return f.App.Me.Events(ctx, actor, liRef, func(*governance.Event) error { return nil })
		})
		var ids []string
		if err := f.App.Me.Events(ctx, f.Actors[MemberLi], liRef, func(e *governance.Event) error {
			ids = append(ids, e.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(ids) != 2 || ids[0] != "bj-1-1" || ids[1] != "bj-1-2" {
			t.Fatalf("events = %v", ids)
		}
	})

	t.Run("Forget", func(t *testing.T) {
		for _, name := range []string{Admin, TravelReviewer, TokenForget} {
			_, err := f.App.Me.PreviewForget(ctx, f.Actors[name])
			wantCode(t, name+" preview", err, enotfound)
			_, err = f.App.Me.Forget(ctx, f.Actors[name])
			wantCode(t, name+" forget", err, enotfound)
		}
		plans, err := f.App.Me.PreviewForget(ctx, f.Actors[MemberLi])
		if err != nil || len(plans) != 1 || plans[0].Preview.SubjectID != "family-li" || plans[0].Preview.EventCount != 2 {
			t.Fatalf("plans = %+v, %v", plans, err)
		}
		rep, err := f.App.Me.Forget(ctx, f.Actors[MemberLi])
		if err != nil || rep.Events != 2 || len(rep.CandidateIDs) != 1 {
			t.Fatalf("report = %+v, %v", rep, err)
		}
		groups, err := f.App.Me.Memories(ctx, f.Actors[MemberLi])
		if err != nil || len(groups) != 1 || len(groups[0].Rules) != 0 || len(groups[0].Candidates) != 0 {
			t.Fatalf("after forget: %+v, %v", groups, err)
		}
		wang, err := f.App.Me.Memories(ctx, f.Actors[MemberWang])
		if err != nil || len(wang[0].Rules) != 1 || len(wang[0].Candidates) != 1 {
			t.Fatalf("family-wang after family-li forgot: %+v, %v", wang, err)
		}
	})
}
