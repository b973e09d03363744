package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

// TestScreenshots writes the screenshots in docs/screenshots: the main pages
// of the real console on the demo data, in English and Simplified Chinese,
// at 1280 px and one at phone width. It runs only when MNEMO_SCREENSHOTS
// names the directory to write to:
//
//	MNEMO_SCREENSHOTS=$PWD/docs/screenshots go test -count=1 ./cmd/console -run TestScreenshots -v
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("MNEMO_SCREENSHOTS")
	if dir == "" {
		t.Skip("set MNEMO_SCREENSHOTS to a directory to write the screenshots: " +
			"MNEMO_SCREENSHOTS=$PWD/docs/screenshots go test -count=1 ./cmd/console -run TestScreenshots -v")
	}
	e2eChrome(t)
	// Without a CJK font Chromium draws Chinese as empty boxes.
	if out, err := exec.Command("fc-list", ":lang=zh").Output(); err == nil && len(bytes.TrimSpace(out)) == 0 {
		t.Fatal("no Chinese font installed (Debian: apt-get install fonts-noto-cjk)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := e2eConsole(t)
	ctx := context.Background()
	// The reviewer approves the lesson about routes, so the rule page shows
	// an active rule and the recall playground has something to recall; the
	// two other proposals stay in the queue.
	lessonRule := ruleWith(t, m, "单独安排一天")
	rv, err := m.Store.FindAccountByUsername(ctx, "reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.App.Reviews.Approve(ctx, governance.AccountActor(rv), lessonRule.ID, app.Approval{}); err != nil {
		t.Fatal(err)
	}
	lesson := strconv.FormatInt(lessonRule.ID, 10)

	const width, height = 1280, 900
	timeout := 5 * time.Minute
	reviewer := newE2EBrowserFor(t, m, "reviewer", width, height, timeout)
	member := newE2EBrowserFor(t, m, "family-chen", width, height, timeout)
	admin := newE2EBrowserFor(t, m, "admin", width, height, timeout)

	for _, lang := range []string{"en", "zh-CN"} {
		for _, name := range []string{"reviewer", "family-chen", "admin"} {
			a, err := m.Store.FindAccountByUsername(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Store.SetAccountLanguage(ctx, a.ID, lang); err != nil {
				t.Fatal(err)
			}
		}
		file := func(page string) string { return filepath.Join(dir, page+"-"+lang+".png") }
		loaded := chromedp.WaitVisible(css(`html[lang="` + lang + `"] main`))

		reviewer.shoot(file("dashboard"), chromedp.Navigate(reviewer.base+"/"), loaded,
			chromedp.WaitVisible(css(testidSel("dashboard"))))
		reviewer.shoot(file("review"), chromedp.Navigate(reviewer.base+"/projects/travel-agent/review"), loaded)
		reviewer.shoot(file("rule"), chromedp.Navigate(reviewer.base+"/rules/"+lesson), loaded,
			chromedp.WaitVisible(css(testidSel("rule-evidence")+" "+testidSel("evidence-event"))))
		reviewer.shoot(file("recall"), chromedp.Navigate(reviewer.base+"/recall"), loaded,
			chromedp.SetValue(css(testidSel("recall-task")), "带孩子去北京玩三天"),
			chromedp.Click(css(testidSel("recall-submit"))),
			chromedp.WaitVisible(css(testidSel("recall-summary"))))
		member.shoot(file("me"), chromedp.Navigate(member.base+"/me"), loaded,
			chromedp.WaitVisible(css(testidSel("me-rule"))))
		admin.shoot(file("accounts"), chromedp.Navigate(admin.base+"/admin/accounts"), loaded,
			chromedp.WaitVisible(css(testidSel("account-form"))))
	}

	// The review queue on a phone, in Chinese (the language left set).
	reviewer.shoot(filepath.Join(dir, "review-phone-zh-CN.png"),
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(reviewer.base+"/projects/travel-agent/review"),
		chromedp.WaitVisible(css(`html[lang="zh-CN"] main`)))
}

// shoot runs steps, checks the page is a console page and not an error,
// and writes a full-page PNG to file.
func (b *e2eBrowser) shoot(file string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	b.do(steps...)
	if b.eval(`document.querySelector('[data-testid="current-user"]') === null`) {
		b.t.Fatalf("%s: not signed in: %q", file, b.text("main"))
	}
	if b.eval(`document.querySelector('[data-testid="error-page"], [data-testid="error-partial"], [data-testid="recall-errors"]') !== null`) {
		b.t.Fatalf("%s: an error is shown: %q", file, b.text("main"))
	}
	img, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("%s: %v", file, err)
	}
	if err := os.WriteFile(file, img, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("%s: %d KB", file, len(img)/1024)
}
