package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/mnemo-console/mnemo/governance"
)

// A member who reads Chinese switches the console to 简体中文 in the
// account menu, then asks why a memory exists and forgets it: every step
// reads in Chinese, and the choice stays with the account.
func TestE2EChineseMemberForgetsMemory(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	nap := ruleWith(t, m, "午睡")
	id := strconv.FormatInt(nap.ID, 10)
	b := newE2EBrowser(t, m, "family-chen", 390, 844)

	b.do(
		chromedp.Navigate(b.base+"/me"),
		chromedp.WaitVisible(css(testidSel("current-user"))),
		chromedp.Click(css(testidSel("current-user"))),
		chromedp.WaitVisible(css(testidSel("language-zh-CN"))),
		chromedp.Click(css(testidSel("language-zh-CN"))),
		chromedp.WaitVisible(css(`html[lang="zh-CN"]`)),
	)
	if loc, err := chromedp.Run(b.ctx, chromedp.Location()); err != nil || !strings.HasSuffix(loc, "/me") {
		t.Fatalf("after switching: %q (%v)", loc, err)
	}
	a, err := m.Store.FindAccountByUsername(context.Background(), "family-chen")
	if err != nil || a.Language != "zh-CN" {
		t.Fatalf("saved language = %q (%v)", a.Language, err)
	}
	if got := b.text("h1"); got != "我的记忆" {
		t.Errorf("heading = %q", got)
	}
	b.fits("我的记忆")
	b.do(
		chromedp.Click(css(testidSel("why-rule-toggle-"+id))),
		chromedp.WaitVisible(css(testidSel("why-rule-"+id)+" "+testidSel("why-reason"))),
	)
	if got := b.text(testidSel("why-rule-toggle-" + id)); got != "为什么记住这个？" {
		t.Errorf("question = %q", got)
	}
	if got := b.text(testidSel("why-rule-"+id) + " " + testidSel("why-reason")); !strings.Contains(got, "不同的对话") {
		t.Fatalf("why = %q", got)
	}
	if got := b.text(testidSel("why-rule-"+id) + " " + testidSel("why-lines")); !strings.Contains(got, "你说") || !strings.Contains(got, "午睡") {
		t.Fatalf("lines = %q", got)
	}
	b.do(
		chromedp.Click(css(testidSel("me-forget-rule-"+id))),
		chromedp.WaitVisible(css(testidSel("forget-confirmation"))),
	)
	if got := b.text("h1"); got != "遗忘这条记忆" {
		t.Errorf("confirmation heading = %q", got)
	}
	if got := b.text(testidSel("forget-rule-count")); got != "助手关于你的 1 条记忆" {
		t.Errorf("rule count = %q", got)
	}
	b.fits("遗忘确认")
	b.do(
		chromedp.Click(css(testidSel("forget-confirm"))),
		chromedp.WaitVisible(css(testidSel("flash-success"))),
	)
	if got := b.text(testidSel("flash-success")); !strings.Contains(got, "这条记忆已被遗忘") || !strings.Contains(got, "1 条规则") {
		t.Errorf("flash = %q", got)
	}
	if strings.Contains(b.text("main"), nap.Text) {
		t.Fatal("the forgotten memory's text is still on the page")
	}
	r, err := m.Store.FindRuleByID(context.Background(), nap.ID)
	if err != nil || r.Status != governance.RuleForgotten {
		t.Fatalf("rule = %+v, %v", r, err)
	}
}
