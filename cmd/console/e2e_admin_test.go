package main

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
)

// adminPages are the administration pages of the demo: the lists, one
// account, one project and its deletion preview (a GET: nothing is deleted).
func adminPages(t *testing.T, m *Main) []string {
	t.Helper()
	ctx := context.Background()
	a, err := m.Store.FindAccountByUsername(ctx, "reviewer")
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Store.FindProjectBySlug(ctx, "travel-agent")
	if err != nil {
		t.Fatal(err)
	}
	account := "/admin/accounts/" + strconv.FormatInt(a.ID, 10)
	project := "/admin/projects/" + strconv.FormatInt(p.ID, 10)
	return []string{"/admin/accounts", account, "/admin/projects", project, project + "/delete"}
}

// withAdminPages adds the administration pages to a crawl's pages, so the
// layout test measures them whatever the crawl's limit reached.
func withAdminPages(t *testing.T, m *Main, pages []string) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range pages {
		seen[p] = true
	}
	for _, p := range adminPages(t, m) {
		if !seen[p] {
			pages = append(pages, p)
		}
	}
	return pages
}

// requireAdminPagesCrawled fails unless the admin crawl followed links to
// every kind of administration page and got 200 for each.
func requireAdminPagesCrawled(t *testing.T, status map[string]int) {
	t.Helper()
	for _, pattern := range []string{`^/admin/accounts$`, `^/admin/accounts/[0-9]+$`, `^/admin/projects$`,
		`^/admin/projects/[0-9]+$`, `^/admin/projects/[0-9]+/delete$`} {
		re := regexp.MustCompile(pattern)
		found := false
		for u, st := range status {
			if re.MatchString(u) && st == http.StatusOK {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("the admin crawl reached no page %s", pattern)
		}
	}
}

// TestE2EAdminAccountsAndProjects: on a phone-sized window an administrator
// creates an account, sees its generated password once (a reload no longer
// shows it), creates a project and deletes it after the preview.
func TestE2EAdminAccountsAndProjects(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	ctx := context.Background()
	b := newE2EBrowserFor(t, m, "admin", 390, 900, 3*time.Minute)

	b.do(
		chromedp.Navigate(b.base+"/admin/accounts"),
		chromedp.WaitVisible(css(testidSel("account-form"))),
		chromedp.SendKeys(css("#account-username"), "wang-wei"),
		chromedp.Click(css(testidSel("account-submit"))),
		chromedp.WaitVisible(css(testidSel("account-password-value"))),
	)
	b.fits("the account page with a new password")
	pw := b.text(testidSel("account-password-value"))
	a, err := m.Store.FindAccountByUsername(ctx, "wang-wei")
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := auth.VerifyPassword(a.PasswordHash, pw); !ok {
		t.Fatalf("the password shown (%q) does not sign in", pw)
	}
	b.do(chromedp.Reload(), chromedp.WaitVisible(css(testidSel("account-name"))))
	if b.eval(`document.querySelector('[data-testid="account-password"]') !== null`) {
		t.Fatal("a reload shows the password again")
	}

	b.do(
		chromedp.Navigate(b.base+"/admin/projects"),
		chromedp.WaitVisible(css(testidSel("project-form"))),
		chromedp.SendKeys(css("#project-slug"), "e2e-scratchpad"),
		chromedp.SendKeys(css("#project-name"), "临时项目"),
		chromedp.Click(css(testidSel("project-submit"))),
		chromedp.WaitVisible(css(testidSel("project-title"))),
		chromedp.Click(css(testidSel("project-delete-link"))),
		chromedp.WaitVisible(css(testidSel("deletion-counts"))),
	)
	b.fits("the deletion preview")
	b.do(
		chromedp.SendKeys(css("#project-confirm"), "e2e-scratchpad"),
		chromedp.Click(css(testidSel("project-delete"))),
		chromedp.WaitVisible(css(testidSel("flash-success"))),
	)
	if _, err := m.Store.FindProjectBySlug(ctx, "e2e-scratchpad"); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("the project is still there: %v", err)
	}
}
