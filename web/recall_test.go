package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

func TestRecallPlayground(t *testing.T) {
	f := NewFixture(t, web.Config{})
	nap := mustAPIRule(t, f.Store, f.Travel.ID, "family-li", governance.TypePreference, "每天 14:00–16:00 留给孩子午睡。")
	wang := mustAPIRule(t, f.Store, f.Travel.ID, "family-wang", governance.TypePreference, "王家的孩子晚上八点睡觉。")
	day := mustAPIRule(t, f.Store, f.Travel.ID, "", governance.TypeLesson, "远距离的大型景点单独安排一天。")
	invoice := mustAPIRule(t, f.Store, f.Expense.ID, "", governance.TypeFact, "200 元以下的报销不需要扫描发票。")
	form := url.Values{"project": {"travel-agent"}, "subject": {"family-li"}, "task": {"带孩子去上海玩两天"}}

	t.Run("Admin", func(t *testing.T) {
		c := f.Login(t, Admin)
		res, doc := c.PostForm("/recall", "/recall", form)
		wantStatus(t, res, http.StatusOK)
		items := doc.Find(testid("package-item"))
		var ids []string
		for i := range items.Length() {
			ids = append(ids, items.Eq(i).AttrOr("data-item-id", ""))
		}
		if strings.Join(ids, ",") != fmt.Sprintf("rule:%d,rule:%d", nap, day) && strings.Join(ids, ",") != fmt.Sprintf("rule:%d,rule:%d", day, nap) {
			t.Errorf("package items = %v", ids)
		}
		if got := doc.Find(testid("without-memory")).Text(); strings.Contains(got, "午睡") || !strings.Contains(got, "上海") {
			t.Errorf("without memory = %q", got)
		}
		if got := doc.Find(testid("fenced-text")).Text(); !strings.Contains(got, governance.RecallFenceOpen) || !strings.Contains(got, "午睡") {
			t.Errorf("with memory = %q", got)
		}
		if doc.Find(testid("trace-entry")).Length() != 2 {
			t.Errorf("trace entries = %d", doc.Find(testid("trace-entry")).Length())
		}
		// An admin sees both projects: the scope-filtered rules by name.
		filtered := map[string]bool{}
		doc.Find(testid("filtered-rule")).Each(func(_ int, s *goquery.Selection) { filtered[s.AttrOr("data-rule-id", "")] = true })
		if !filtered[fmt.Sprint(invoice)] || !filtered[fmt.Sprint(wang)] || len(filtered) != 2 {
			t.Errorf("filtered = %v", filtered)
		}
		// Preview: rule use is not counted.
		r, _ := f.Store.FindRuleByID(context.Background(), nap)
		if r.UseCount != 0 {
			t.Errorf("use count = %d after a preview", r.UseCount)
		}
	})
	// With raw events, the trace says how well the best events match: a
	// task about a place no event names is no strong match, in the trace
	// and in the fenced text.
	t.Run("Match", func(t *testing.T) {
		at := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
		MustIngest(t, f.Store, f.Travel, &governance.Event{ID: "m-1", SessionID: "m-1", SubjectID: "family-li", Role: governance.RoleUser,
			Text: "We rented a flat in Harajuku for the spring trip.", OccurredAt: at},
			&governance.Event{ID: "m-2", SessionID: "m-2", SubjectID: "family-li", Role: governance.RoleUser,
				Text: "The flat had a small kitchen.", OccurredAt: at.Add(time.Hour)})
		c := f.Login(t, Admin)
		ask := func(task string) *goquery.Document {
			res, doc := c.PostForm("/recall", "/recall", url.Values{"project": {"travel-agent"}, "subject": {"family-li"}, "task": {task}, "include_events": {"1"}})
			wantStatus(t, res, http.StatusOK)
			return doc
		}
		doc := ask("Which flat did we rent in Harajuku?")
		if got := doc.Find(testid("trace-match")).Text(); !strings.Contains(got, "a strong match") {
			t.Errorf("match = %q", got)
		}
		doc = ask("How long did we stay in Shinjuku?")
		if got := doc.Find(testid("trace-match")).Text(); !strings.Contains(got, "No strong match") {
			t.Errorf("match = %q", got)
		}
	})
	t.Run("HTMXPartial", func(t *testing.T) {
		c := f.Login(t, TravelReviewer)
		values := url.Values{}
		for k, v := range form {
			values[k] = v
		}
		values.Set("csrf", c.CSRF("/recall"))
		res, body := c.Do(http.MethodPost, "/recall", strings.NewReader(values.Encode()), http.Header{
			"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}, "Hx-Target": {"recall-result"}})
		wantStatus(t, res, http.StatusOK)
		if strings.Contains(body, "<html") || !strings.Contains(body, `id="recall-result"`) {
			t.Fatalf("not a fragment: %.200s", body)
		}
		doc := parse(t, body)
		// A travel reviewer does not review expense-agent: only a count for it.
		filtered := map[string]bool{}
		doc.Find(testid("filtered-rule")).Each(func(_ int, s *goquery.Selection) { filtered[s.AttrOr("data-rule-id", "")] = true })
		if filtered[fmt.Sprint(invoice)] || !filtered[fmt.Sprint(wang)] {
			t.Errorf("filtered = %v", filtered)
		}
		if !strings.Contains(doc.Find(testid("filtered-hidden")).Text(), "1 more") {
			t.Errorf("hidden count = %q", doc.Find(testid("filtered-hidden")).Text())
		}
	})
	t.Run("MemberOwnSubjectOnly", func(t *testing.T) {
		c := f.Login(t, MemberWang)
		res, doc := c.PostForm("/recall", "/recall", form) // asks for family-li
		wantStatus(t, res, http.StatusOK)
		body, _ := doc.Html()
		if strings.Contains(body, "午睡") || !strings.Contains(body, "八点") {
			t.Errorf("member got another subject's memory")
		}
		if doc.Find(testid("filtered-rule")).Length() != 0 {
			t.Error("member sees scope-filtered rules by name")
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		c := f.Login(t, Admin)
		res, doc := c.PostForm("/recall", "/recall", url.Values{"project": {"travel-agent"}, "task": {""}, "total": {"abc"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if doc.Find(testid("recall-errors")).Length() != 1 {
			t.Error("no errors shown")
		}
	})
	t.Run("ExpenseReviewerCannotUseTravel", func(t *testing.T) {
		c := f.Login(t, ExpenseReviewer)
		res, _ := c.PostForm("/recall", "/recall", form)
		wantStatus(t, res, http.StatusUnprocessableEntity)
	})
}

// TestDemoPlayground: on the demo data, the Shanghai task shows the three
// travel rules, and the expense rule only among what the scope filter
// removed (an admin may see both projects).
func TestDemoPlayground(t *testing.T) {
	st, ts := demoConsole(t)
	MustCreateAccount(t, st, &governance.Account{Username: "playground-admin", IsAdmin: true})
	f := &Fixture{Store: st, Server: ts}
	c := f.Login(t, "playground-admin")
	travel, err := st.FindProjectBySlug(context.Background(), "travel-agent")
	if err != nil {
		t.Fatal(err)
	}
	expense, err := st.FindProjectBySlug(context.Background(), "expense-agent")
	if err != nil {
		t.Fatal(err)
	}
	want := demoTravelRules(t, st, travel.ID)
	subject := ""
	sessions, _, err := st.FindSessions(context.Background(), governance.SessionFilter{ProjectID: travel.ID, Limit: 1})
	if err != nil || len(sessions) == 0 {
		t.Fatal(err)
	}
	subject = sessions[0].SubjectID
	res, doc := c.PostForm("/recall", "/recall", url.Values{"project": {"travel-agent"}, "subject": {subject}, "task": {shanghaiTask}})
	wantStatus(t, res, http.StatusOK)
	items := map[string]bool{}
	doc.Find(testid("package-item")).Each(func(_ int, s *goquery.Selection) { items[s.AttrOr("data-item-id", "")] = true })
	for name, id := range want {
		if !items[governance.RecallRuleID(id)] {
			t.Errorf("%s rule %d not in the package: %v", name, id, items)
		}
	}
	expenseRules, _, _ := st.FindRules(context.Background(), governance.RuleFilter{ProjectID: &expense.ID, Statuses: []governance.RuleStatus{governance.RuleActive}})
	filtered := map[string]bool{}
	doc.Find(testid("filtered-rule")).Each(func(_ int, s *goquery.Selection) { filtered[s.AttrOr("data-rule-id", "")] = true })
	for _, r := range expenseRules {
		if items[governance.RecallRuleID(r.ID)] || !filtered[fmt.Sprint(r.ID)] {
			t.Errorf("expense rule %d: in package %v, listed as filtered %v", r.ID, items[governance.RecallRuleID(r.ID)], filtered[fmt.Sprint(r.ID)])
		}
		if strings.Contains(doc.Find(testid("fenced-text")).Text(), r.Text) {
			t.Errorf("expense rule %d in the fenced text", r.ID)
		}
	}
}
