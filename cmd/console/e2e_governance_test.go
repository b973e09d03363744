package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Governance end to end, in headless Chromium against the real console on
// the demo data after its first heartbeat: a reviewer approves a proposal, a
// member asks why a memory exists and forgets it, a reviewer rejects two
// proposals at once and sees a new one arrive without reloading.

// e2eChrome returns the browser to use, skipping (or, in CI, failing) when
// there is none.
func e2eChrome(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped with -short")
	}
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium found: CI must run the browser tests")
	}
	t.Skip("no Chromium found (set CHROME_PATH)")
	return ""
}

// e2eConsole starts the console on a free port with the demo loaded and
// one heartbeat done.
func e2eConsole(t *testing.T) *Main {
	t.Helper()
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Addr, cfg.Heartbeat, cfg.LogLevel = "127.0.0.1:0", false, "error"
	// The copies share the first start's audit key (its file is not copied).
	cfg.AuditKey = "e2e0e2e0e2e0e2e0e2e0e2e0e2e0e2e0"
	// The first start (demo seeding with real password hashes, the first
	// beat) is made once per test binary; each test starts on a copy.
	cfg.DataDir = t.TempDir()
	sqlitetest.PathWith(t, cfg.DataDir, "console after its first start and beat", func(ctx context.Context, path string) error {
		first := cfg
		first.DataDir = filepath.Dir(path)
		m, err := startMain(ctx, first)
		if err != nil {
			return err
		}
		return m.Close()
	})
	m, err := startMain(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// startMain opens and starts a console on cfg and runs one beat.
func startMain(ctx context.Context, cfg Config) (*Main, error) {
	m, err := openMain(ctx, cfg, io.Discard)
	if err != nil {
		return nil, err
	}
	if err := m.Open(ctx, io.Discard); err != nil {
		m.Close()
		return nil, err
	}
	if _, err := m.Heartbeat.Beat(ctx, "test"); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// e2eBrowser is a headless tab signed in as username through a session
// cookie minted with the console's keys (no login form).
type e2eBrowser struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu       sync.Mutex
	problems []string
}

func newE2EBrowser(t *testing.T, m *Main, username string, width, height int) *e2eBrowser {
	t.Helper()
	return newE2EBrowserFor(t, m, username, width, height, 3*time.Minute)
}

// newE2EBrowserFor is newE2EBrowser with a deadline for the whole test.
func newE2EBrowserFor(t *testing.T, m *Main, username string, width, height int, timeout time.Duration) *e2eBrowser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(e2eChrome(t)),
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
	t.Cleanup(cancelAlloc)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancel)
	b := &e2eBrowser{t: t, ctx: ctx, base: m.URL()}

	b.do(chromedp.Navigate("about:blank"))
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.report("exception: " + ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				b.report(string(ev.Entry.Source) + ": " + ev.Entry.Text + " " + ev.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	name, value := sessionCookie(t, m, username)
	httpOnly := true
	if _, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{
		Name: name, Value: value, URL: b.base + "/", HTTPOnly: &httpOnly, SameSite: network.CookieSameSiteLax,
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, p := range b.problems {
			t.Errorf("browser: %s", p)
		}
	})
	return b
}

// sessionCookie signs username in the way the login form does.
func sessionCookie(t *testing.T, m *Main, username string) (name, value string) {
	t.Helper()
	ctx := context.Background()
	hashKey, blockKey, err := m.Store.SessionKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := auth.NewSessions(hashKey, blockKey, false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.Store.FindAccountByUsername(ctx, username)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	if err := sessions.Login(rec, httptest.NewRequest("GET", "/", nil), a.ID, a.SessionGen); err != nil {
		t.Fatal(err)
	}
	for _, c := range rec.Result().Cookies() {
		return c.Name, c.Value
	}
	t.Fatal("no session cookie")
	return "", ""
}

func (b *e2eBrowser) report(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, msg)
}

func (b *e2eBrowser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

func (b *e2eBrowser) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

func (b *e2eBrowser) eval(js string) bool {
	b.t.Helper()
	ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js))
	if err != nil {
		b.t.Fatalf("%s: %v", js, err)
	}
	return ok
}

// fits checks that the page needs no sideways scrolling.
func (b *e2eBrowser) fits(page string) {
	b.t.Helper()
	if !b.eval(`document.documentElement.scrollWidth <= window.innerWidth`) {
		b.t.Errorf("%s is wider than the screen", page)
	}
}

func css(s string) chromedp.CSS { return chromedp.CSS(s) }

func testidSel(id string) string { return `[data-testid="` + id + `"]` }

// ruleWith finds the travel rule whose text holds needle.
func ruleWith(t *testing.T, m *Main, needle string) *governance.Rule {
	t.Helper()
	p, err := m.Store.FindProjectBySlug(context.Background(), "travel-agent")
	if err != nil {
		t.Fatal(err)
	}
	rules, _, err := m.Store.FindRules(context.Background(), governance.RuleFilter{ProjectID: &p.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if strings.Contains(r.Text, needle) {
			return r
		}
	}
	t.Fatalf("no travel rule holds %q", needle)
	return nil
}

func TestE2EReviewerApprovesProposal(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	nap := ruleWith(t, m, "午睡")
	id := strconv.FormatInt(nap.ID, 10)
	b := newE2EBrowser(t, m, "reviewer", 390, 844) // a phone

	b.do(
		chromedp.Navigate(b.base+"/"),
		chromedp.Click(css(testidSel("nav-review"))),
		chromedp.WaitVisible(css(testidSel("review-travel-agent"))),
	)
	if got := b.text(testidSel("nav-review")); got != "Review (3)" {
		t.Errorf("nav badge = %q", got)
	}
	b.do(
		chromedp.Click(css(testidSel("review-travel-agent"))),
		chromedp.WaitVisible(css("#proposal-"+id)),
	)
	b.fits("the review queue")
	if got := b.text("#proposal-" + id + " " + testidSel("proposal-text")); got != nap.Text {
		t.Fatalf("proposal text = %q", got)
	}
	b.do(
		chromedp.Click(css(testidSel("approve-"+id))),
		chromedp.WaitVisible(css(testidSel("flash-success"))),
		chromedp.WaitNotPresent(css("#proposal-"+id)),
	)
	// The rule is active, with its evidence chain down to the events.
	b.do(
		chromedp.Navigate(b.base+"/rules?status=active"),
		chromedp.WaitVisible(css(testidSel("rule-link"))),
		chromedp.Click(css(`a[href="/rules/`+id+`"]`)),
		chromedp.WaitVisible(css(testidSel("rule-evidence"))),
	)
	if got := b.text(testidSel("rule-status")); got != "active" {
		t.Fatalf("status = %q", got)
	}
	if !b.eval(`document.querySelectorAll('[data-testid="rule-evidence"] [data-testid="evidence-event-link"]').length >= 2`) {
		t.Fatal("no evidence events on the rule page")
	}
	if !strings.Contains(b.text(testidSel("rule-evidence")), "午睡") {
		t.Fatal("the evidence does not show the user's words")
	}
	b.fits("the rule page")
	// One click to the event in its session timeline.
	b.do(
		chromedp.Click(css(testidSel("rule-evidence")+" "+testidSel("evidence-event-link"))),
		chromedp.WaitVisible(css(`[data-highlighted="true"]`)),
	)
}

func TestE2EMemberForgetsMemory(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	nap := ruleWith(t, m, "午睡")
	id := strconv.FormatInt(nap.ID, 10)
	b := newE2EBrowser(t, m, "family-chen", 390, 844)

	b.do(
		chromedp.Navigate(b.base+"/"),
		chromedp.Click(css(testidSel("nav-me"))),
		chromedp.WaitVisible(css(`[data-rule="`+id+`"]`)),
	)
	b.fits("my memories")
	// "Why do you remember this?" opens the reason and the lines.
	if b.eval(`document.querySelector('[data-testid="why-rule-` + id + `"]').open`) {
		t.Fatal("the explanation is open before asking")
	}
	b.do(
		chromedp.Click(css(testidSel("why-rule-toggle-"+id))),
		chromedp.WaitVisible(css(testidSel("why-rule-"+id)+" "+testidSel("why-reason"))),
	)
	if got := b.text(testidSel("why-rule-"+id) + " " + testidSel("why-reason")); !strings.Contains(got, "separate conversations") {
		t.Fatalf("why = %q", got)
	}
	if got := b.text(testidSel("why-rule-"+id) + " " + testidSel("why-lines")); !strings.Contains(got, "午睡") {
		t.Fatalf("lines = %q", got)
	}
	// Forget it, after seeing exactly what goes.
	b.do(
		chromedp.Click(css(testidSel("me-forget-rule-"+id))),
		chromedp.WaitVisible(css(testidSel("forget-confirmation"))),
	)
	if got := b.text(testidSel("forget-rules")); !strings.Contains(got, nap.Text) {
		t.Fatalf("confirmation lists %q", got)
	}
	b.fits("the forget confirmation")
	b.do(
		chromedp.Click(css(testidSel("forget-with-events"))),
		chromedp.WaitVisible(css(testidSel("forget-events"))),
		chromedp.Click(css(testidSel("forget-confirm"))),
		chromedp.WaitVisible(css(testidSel("flash-success"))),
	)
	if loc, err := chromedp.Run(b.ctx, chromedp.Location()); err != nil || !strings.HasSuffix(loc, "/me") {
		t.Fatalf("after forgetting: %q (%v)", loc, err)
	}
	if b.eval(`document.querySelector('[data-rule="` + id + `"]') !== null`) {
		t.Fatal("the forgotten memory is still on the page")
	}
	if strings.Contains(b.text("main"), nap.Text) {
		t.Fatal("its text is still on the page")
	}
	r, err := m.Store.FindRuleByID(context.Background(), nap.ID)
	if err != nil || r.Status != governance.RuleForgotten {
		t.Fatalf("rule = %+v, %v", r, err)
	}
	// "Remember this about me" writes it again, for a reviewer to look at.
	// (The mark on this page's body tells the page after the post.)
	const again = "孩子每天下午两点到四点午睡。"
	b.eval(`document.body.dataset.before = "1"; true`)
	b.do(
		chromedp.SendKeys(css(testidSel("me-remember-text-travel-agent")), again),
		chromedp.Click(css(`#remember-travel-agent `+testidSel("me-remember-submit"))),
		chromedp.WaitVisible(css(`body:not([data-before]) `+testidSel("me-waiting")+" "+testidSel("me-rule"))),
	)
	if got := b.text(testidSel("me-waiting")); !strings.Contains(got, again) {
		t.Fatalf("waiting = %q", got)
	}
}

func TestE2EBulkRejectAndLiveQueue(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	a, c := ruleWith(t, m, "午睡"), ruleWith(t, m, "结论")
	b := newE2EBrowser(t, m, "reviewer", 1280, 900)
	queue := b.base + "/projects/travel-agent/review"
	ida, idc := strconv.FormatInt(a.ID, 10), strconv.FormatInt(c.ID, 10)

	b.do(
		chromedp.Navigate(queue),
		chromedp.WaitVisible(css(testidSel("bulk-form"))),
		chromedp.Click(css(testidSel("select-"+ida))),
		chromedp.Click(css(testidSel("select-"+idc))),
		chromedp.SendKeys(css(testidSel("bulk-reason")), "duplicates of the family's own notes"),
		chromedp.Click(css(testidSel("bulk-reject"))),
		chromedp.WaitVisible(css(testidSel("flash-success"))),
	)
	if got := b.text(testidSel("flash-success")); !strings.Contains(got, "2 proposals rejected") {
		t.Fatalf("flash = %q", got)
	}
	for _, r := range []*governance.Rule{a, c} {
		got, _ := m.Store.FindRuleByID(context.Background(), r.ID)
		if got.Status != governance.RuleRejected {
			t.Errorf("rule %d = %s", r.ID, got.Status)
		}
	}
	if b.eval(`document.querySelectorAll('[data-testid="proposal"]').length` + ` !== 1`) {
		t.Fatal("the queue does not hold exactly the one remaining proposal")
	}

	// A beat adds a proposal; the queue shows it without a reload.
	b.do(chromedp.Evaluate[chromedp.Void](`window.mnemoSamePage = true`))
	at := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	p, _ := m.Store.FindProjectBySlug(context.Background(), "travel-agent")
	if _, err := m.Store.IngestEvents(context.Background(), p.ID, []*governance.Event{
		{ID: "e2e-1", SessionID: "chen-e2e", SubjectID: "family-chen", Turn: 1, Role: governance.RoleUser,
			Text: "以后订酒店都要选带浴缸的房间，孩子喜欢泡澡。", OccurredAt: at},
		{ID: "e2e-2", SessionID: "chen-e2e", SubjectID: "family-chen", Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Heartbeat.Beat(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for !b.eval(`document.querySelectorAll('[data-testid="proposal"]').length === 2`) {
		if time.Now().After(deadline) {
			t.Fatal("the new proposal did not appear without a reload")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !b.eval(`window.mnemoSamePage === true`) {
		t.Fatal("the page was reloaded")
	}
	if !strings.Contains(b.text(testidSel("review-queue")), "浴缸") {
		t.Fatal("the new proposal's text is not shown")
	}
}

// A proposal whose evidence grew past what the queue shows open loads its
// chain when the reviewer opens it.
func TestE2ELongEvidenceLoadsOnOpen(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	ctx := context.Background()
	nap := ruleWith(t, m, "午睡")
	chain, err := m.Store.FindRuleEvidence(ctx, nap.ID)
	if err != nil || len(chain) == 0 {
		t.Fatalf("chain = %v, %v", chain, err)
	}
	// The family says it again in two more sessions; the beat adds them to
	// the proposal's evidence.
	said := chain[0].Events[0]
	p, _ := m.Store.FindProjectBySlug(ctx, "travel-agent")
	for i, day := range []int{1, 8} {
		at := time.Date(2026, 8, day, 9, 0, 0, 0, time.UTC)
		session := fmt.Sprintf("chen-again-%d", i)
		if _, err := m.Store.IngestEvents(ctx, p.ID, []*governance.Event{
			{ID: session + "-1", SessionID: session, SubjectID: said.SubjectID, Turn: 1, Role: governance.RoleUser, Text: said.Text, OccurredAt: at},
			{ID: session + "-end", SessionID: session, SubjectID: said.SubjectID, Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Minute)},
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Heartbeat.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	if chain, _ = m.Store.FindRuleEvidence(ctx, nap.ID); len(chain) <= templates.InlineEvidence {
		t.Fatalf("the proposal has %d candidates after the beat, want more than %d", len(chain), templates.InlineEvidence)
	}
	card := "#proposal-" + strconv.FormatInt(nap.ID, 10)
	b := newE2EBrowser(t, m, "reviewer", 1280, 900)
	b.do(
		chromedp.Navigate(b.base+"/projects/travel-agent/review"),
		chromedp.WaitVisible(css(card+" "+testidSel("proposal-evidence")+" summary")),
	)
	if !b.eval(`document.querySelectorAll('` + card + ` [data-testid="evidence-candidate"]').length === 0`) {
		t.Fatal("the long chain was rendered before it was opened")
	}
	b.do(
		chromedp.Click(css(card+" "+testidSel("proposal-evidence")+" summary")),
		chromedp.WaitVisible(css(card+" "+testidSel("evidence-candidate"))),
	)
	if !b.eval(fmt.Sprintf(`document.querySelectorAll('%s [data-testid="evidence-candidate"]').length === %d`, card, len(chain))) {
		t.Fatalf("the opened chain does not show its %d candidates", len(chain))
	}
}
