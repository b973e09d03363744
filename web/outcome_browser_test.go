package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// TestBrowserOutcomeReview: in the review queue a reviewer opens "What
// approving changes" of an outcome review (loaded by htmx when opened),
// sees the case it regresses, and accepts the demotion with a reason; the
// queue and the recall's page fit a phone's width.
func TestBrowserOutcomeReview(t *testing.T) {
	t.Parallel()
	f := NewFixture(t, web.Config{})
	ctx := context.Background()
	nap := mustAPIRule(t, f.Store, f.Travel.ID, "family-li", governance.TypePreference, "孩子每天 14:00–16:00 午睡，行程要空出来。")
	token := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeRecall)
	var traces []int64
	for i, session := range []string{"a", "b"} {
		pkg := apiRecall(t, f, token, []string{"下午几点午睡？", "午睡时间要空出来吗？"}[i])
		postOutcome(t, f, token, pkg.Trace.ID, map[string]any{"item_id": governance.RecallRuleID(nap), "verdict": "misled", "session_id": session}, nil)
		traces = append(traces, pkg.Trace.ID)
	}
	in, err := f.Store.LoadOutcomeReviewInput(ctx, f.Travel.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Store.ApplyOutcomeReviewPlan(ctx, governance.PlanOutcomeReviews(in)); err != nil {
		t.Fatal(err)
	}
	suite := fmt.Sprintf("name: nap-live\nproject: travel-agent\nsubject: family-li\nfixtures:\n  use_live_project: true\ncases:\n"+
		"  - {id: keeps-nap, kind: recall, task: \"下午几点午睡？\", include: [{rule: %d}]}\n", nap)
	if err := f.Store.UpsertEvalSuite(ctx, &evals.SuiteRow{Name: "nap-live", Origin: evals.OriginUploaded, Body: suite}, "test"); err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t, 390, 900, 2*time.Minute)
	q := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	fits := func(page string) {
		t.Helper()
		ok, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("%s is wider than 390 px", page)
		}
	}
	if err := chromedp.Do(b,
		chromedp.Navigate(f.Server.URL+"/login"),
		chromedp.WaitVisible(q(`#login-username`)),
		chromedp.SendKeys(q(`#login-username`), TravelReviewer),
		chromedp.SendKeys(q(`#login-password`), password),
		chromedp.Click(q(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(q(`[data-testid="current-user"]`)),
		chromedp.Navigate(f.Server.URL+"/projects/travel-agent/review"),
		chromedp.WaitVisible(q(`[data-testid="outcome-review"]`)),
		chromedp.Click(q(`[data-testid="outcome-review"] [data-testid="effect-lazy"] summary`)),
		chromedp.WaitVisible(q(`[data-testid="outcome-review"] [data-testid="effect-case"]`)),
	); err != nil {
		t.Fatal(err)
	}
	change, err := chromedp.Run(b, chromedp.AttributeValue(q(`[data-testid="outcome-review"] [data-testid="effect-case"]`), "data-change"))
	if err != nil {
		t.Fatal(err)
	}
	if change.Value != string(evals.Regression) {
		t.Errorf("panel shows the nap case as %q, want regression", change.Value)
	}
	fits("the review queue")
	if err := chromedp.Do(b,
		chromedp.SendKeys(q(`[data-testid="outcome-decide-form"] input[name="reason"]`), "The family moved the nap."),
		chromedp.Click(q(`[data-testid="outcome-accept"]`)),
		chromedp.WaitVisible(q(`.flash`)),
	); err != nil {
		t.Fatal(err)
	}
	if r, _ := f.Store.FindRuleByID(ctx, nap); r.Status != governance.RuleStale {
		t.Errorf("after accepting, the nap rule is %s", r.Status)
	}
	if err := chromedp.Do(b,
		chromedp.Navigate(fmt.Sprintf("%s/recall/traces/%d", f.Server.URL, traces[0])),
		chromedp.WaitVisible(q(`[data-testid="receipt"]`)),
	); err != nil {
		t.Fatal(err)
	}
	fits("the recall's page")
}
