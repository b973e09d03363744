package web_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/mnemo-console/mnemo/web"
)

// chromePath finds a Chromium or Chrome binary; CHROME_PATH overrides.
func chromePath() string {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts headless Chromium for a test at the given window size:
// it skips with -short or without Chromium (and fails in CI, which must run
// browser tests), and at the end of the test fails it on any script error,
// console error or CSP violation the pages raised.
func newBrowser(t *testing.T, width, height int, timeout time.Duration) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped with -short")
	}
	chrome := chromePath()
	if chrome == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no Chromium found: CI must run the browser tests (.ci/run installs Debian's chromium)")
		}
		t.Skip("no Chromium found (set CHROME_PATH)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(width, height),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	var (
		mu       sync.Mutex
		problems []string
	)
	report := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, msg)
	}
	t.Cleanup(func() {
		cancel()
		cancelBrowser()
		cancelAlloc()
		mu.Lock()
		defer mu.Unlock()
		if len(problems) > 0 {
			t.Errorf("browser errors:\n%s", strings.Join(problems, "\n"))
		}
	})
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			report("exception: " + ev.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				report("console.error")
			}
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				report(string(ev.Entry.Source) + ": " + ev.Entry.Text + " " + ev.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// TestBrowser drives the console in headless Chromium: sign in, open a
// session timeline, search in Chinese through htmx. Any script error or CSP
// violation fails it.
func TestBrowser(t *testing.T) {
	t.Parallel()
	f := NewFixture(t, web.Config{})

	ctx := newBrowser(t, 390, 844, 3*time.Minute)

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
	fitsPhone := func(page string) {
		t.Helper()
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("%s is wider than a phone screen", page)
		}
	}
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}

	// Sign in through the form; it returns to the page asked for.
	do(
		chromedp.Navigate(base+"/projects/travel-agent/sessions"),
		chromedp.WaitVisible(css(`#login-username`)),
		chromedp.SendKeys(css(`#login-username`), MemberLi),
		chromedp.SendKeys(css(`#login-password`), password),
		chromedp.Click(css(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="session-table"]`)),
	)
	if got := text(`[data-testid="current-user"]`); !strings.HasPrefix(got, MemberLi) {
		t.Errorf("signed in as %q", got)
	}

	// Open a session timeline.
	do(
		chromedp.Click(css(`a[href="/projects/travel-agent/sessions/bj-1"]`)),
		chromedp.WaitVisible(css(`[data-testid="timeline"]`)),
	)
	if got := text(`.badge-failed`); got != "failed" {
		t.Errorf("failed badge = %q", got)
	}
	if got := text(`.badge-passed`); got != "passed" {
		t.Errorf("passed badge = %q", got)
	}
	if got := text(`[data-testid="event-external"]`); got != "external" {
		t.Errorf("external badge = %q", got)
	}
	if got := text(`[data-testid="session-end"] strong`); !strings.Contains(got, "Session ended") {
		t.Errorf("end marker = %q", got)
	}
	fitsPhone("the timeline")

	// Search in Chinese; htmx swaps the results in and pushes the URL.
	do(
		// On a phone the bar has a menu of every page.
		chromedp.Click(css(`[data-testid="nav-menu"] summary`)),
		chromedp.Click(css(`[data-testid="navm-search"]`)),
		chromedp.WaitVisible(css(`#search-q`)),
		// A marker that a full page load would wipe out.
		chromedp.Evaluate[chromedp.Void](`window.mnemoSamePage = true`),
		chromedp.SendKeys(css(`#search-q`), "环球影城"),
		chromedp.Click(css(`[data-testid="search-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="hit"] mark`)),
	)
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('[data-testid="hit-text"] mark')).map(m => m.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) == 0 {
		t.Fatal("no highlighted matches")
	}
	for _, m := range marks {
		if m != "环球影城" {
			t.Errorf("mark = %q", m)
		}
	}
	samePage, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.mnemoSamePage === true && typeof htmx === "object"`))
	if err != nil || !samePage {
		t.Errorf("search results did not come through htmx (%v)", err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.Contains(loc, "/search?q=") {
		t.Errorf("search URL not pushed: %q (%v)", loc, err)
	}
	fitsPhone("the search page")

	// Follow a hit to its deep link: the event is highlighted and is the
	// document's :target.
	do(
		chromedp.Click(css(`[data-testid="hit-link"]`)),
		chromedp.WaitVisible(css(`[data-highlighted="true"]`)),
	)
	if got := text(`[data-highlighted="true"] [data-testid="event-text"]`); !strings.Contains(got, "环球影城") {
		t.Errorf("highlighted event = %q", got)
	}
	targeted, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`document.querySelector(':target')?.dataset.highlighted === "true"`))
	if err != nil || !targeted {
		t.Errorf("deep link not anchored (%v)", err)
	}

	// Sign out through the form.
	do(
		chromedp.Click(css(`[data-testid="current-user"]`)),
		chromedp.Click(css(`[data-testid="logout"]`)),
		chromedp.WaitVisible(css(`#login-username`)),
	)

}
