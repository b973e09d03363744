package app_test

import (
	"context"
	"strconv"
	"testing"
)

func TestDashboard(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	for name, want := range map[string][]string{
		Admin:           {"travel-agent:3", "expense-agent:1"},
		TravelReviewer:  {"travel-agent:3"},
		ExpenseReviewer: {"expense-agent:1"},
		MemberLi:        {"travel-agent:2"}, // family-li's own events only
		MemberWang:      {"travel-agent:1"},
		Anonymous:       nil,
	} {
		cards, err := f.App.Dashboard.Cards(ctx, f.Actors[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := map[string]bool{}
		for _, c := range cards {
			if c.Stats == nil {
				t.Fatalf("%s: card without stats", name)
			}
			got[c.Project.Slug+":"+strconv.Itoa(c.Stats.Events)] = true
		}
		if len(got) != len(want) {
			t.Fatalf("%s: cards = %v, want %v", name, got, want)
		}
		for _, w := range want {
			if !got[w] {
				t.Fatalf("%s: cards = %v, want %v", name, got, want)
			}
		}
	}
	cards, _ := f.App.Dashboard.Cards(ctx, f.Actors[MemberLi])
	if cards[0].SubjectID() != "family-li" || cards[0].Reviewer() {
		t.Fatalf("member's card scope = %+v", cards[0].Scope)
	}
}
