package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/web"
)

// TestEvalBrowser drives the evals pages in headless Chromium: a reviewer
// starts the built-in travel suite, watches the progress reach 100%, opens
// the results and the suite's trend chart. Any script error or CSP
// violation fails it.
func TestEvalBrowser(t *testing.T) {
	t.Parallel()
	f := NewFixture(t, web.Config{})
	if err := evals.InstallBuiltins(context.Background(), f.Store, seed.BuiltinSuites()); err != nil {
		t.Fatal(err)
	}

	ctx := newBrowser(t, 1280, 900, 3*time.Minute)

	base := f.Server.URL
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}

	// Sign in as a reviewer and open the evals page from the navigation.
	do(
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(css(`#login-username`)),
		chromedp.SendKeys(css(`#login-username`), TravelReviewer),
		chromedp.SendKeys(css(`#login-password`), password),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="nav-evals"]`)),
		chromedp.Click(css(`[data-testid="nav-evals"]`)),
		chromedp.WaitVisible(css(`[data-testid="suite-travel-recall"]`)),
	)

	// Start the built-in travel suite. The runner is not started yet, so the
	// page first shows the queued run polling its progress; then the runner
	// picks it up and the page reloads with the results when it is done.
	do(
		chromedp.Click(css(`[data-testid="suite-travel-recall"] [data-testid="run-suite"]`)),
		chromedp.WaitVisible(css(`[data-testid="eval-run-panel"][hx-trigger="every 1s"]`)),
	)
	if got := text(`[data-testid="eval-run-panel"] [data-testid="run-status"]`); got != "queued" {
		t.Errorf("status before the runner starts = %q", got)
	}
	do(chromedp.Evaluate[chromedp.Void](`window.mnemoBeforeReload = true`))
	startEvalRunner(t, f)
	do(chromedp.WaitVisible(css(`[data-testid="run-results"]`)))
	if reloaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.mnemoBeforeReload !== true`)); err != nil || !reloaded {
		t.Errorf("the page did not reload when the run ended (%v)", err)
	}
	if got := text(`[data-testid="run-progress-text"]`); !strings.Contains(got, "3 of 3 cases done (100%)") {
		t.Errorf("progress = %q", got)
	}
	full, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`(() => { const p = document.querySelector('[data-testid="run-progress"]'); return p.value === p.max && p.max === 3; })()`))
	if err != nil || !full {
		t.Errorf("progress bar not full (%v)", err)
	}
	if got := text(`[data-testid="eval-run-panel"] [data-testid="run-status"]`); got != "done" {
		t.Errorf("status = %q", got)
	}
	if got := text(`[data-testid="metric-pass-rate"]`); !strings.Contains(got, "100%") {
		t.Errorf("pass rate = %q", got)
	}

	// Open the results of one case.
	do(
		chromedp.Click(css(`[data-testid="case-shanghai-gets-the-travel-rules"] summary`)),
		chromedp.WaitVisible(css(`[data-testid="case-shanghai-gets-the-travel-rules"] ul li`)),
	)
	if got := text(`[data-testid="case-shanghai-gets-the-travel-rules"]`); !strings.Contains(got, "14:00") || !strings.Contains(got, "all 3 expected memories recalled") {
		t.Errorf("case detail = %q", got)
	}

	// The suite's page shows the trend chart with this run on it.
	do(
		chromedp.Click(css(`nav[aria-label="breadcrumb"] a[href^="/evals/suites/"]`)),
		chromedp.WaitVisible(css(`[data-testid="trend-chart"] svg`)),
	)
	dots, err := chromedp.Run(ctx, chromedp.Evaluate[int](
		`document.querySelectorAll('[data-testid="trend-pass-rate"] circle').length`))
	if err != nil || dots != 1 {
		t.Errorf("pass-rate dots = %d (%v)", dots, err)
	}
	if got := text(`[data-testid="trend-legend"]`); !strings.Contains(got, "Pass rate") {
		t.Errorf("legend = %q", got)
	}

}
