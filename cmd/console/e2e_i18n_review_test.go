package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A reviewer who reads Chinese works the review queue, a rule page and the
// recall playground on a phone: every page reads in Chinese and fits 390 px
// (Chinese labels are wider than the English ones they replace).
func TestE2EChineseReviewerPagesFit(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	ctx := context.Background()
	a, err := m.Store.FindAccountByUsername(ctx, "reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Store.SetAccountLanguage(ctx, a.ID, "zh-CN"); err != nil {
		t.Fatal(err)
	}
	lesson := ruleWith(t, m, "单独安排一天")
	b := newE2EBrowser(t, m, "reviewer", 390, 844)
	queue := "/projects/travel-agent/review"
	for _, p := range []struct{ path, want string }{
		{"/review", "审核"},
		{queue, "的审核队列"},
		{queue + "?tab=held", "暂缓的候选"},
		{queue + "?tab=blocked", "已拦截的候选"},
		{"/rules", "规则"},
		{"/rules/" + strconv.FormatInt(lesson.ID, 10), "版本历史"},
		{"/recall", "召回试验场"},
	} {
		b.do(chromedp.Navigate(b.base+p.path), chromedp.WaitVisible(css(`html[lang="zh-CN"]`)))
		if got := b.text("main"); !strings.Contains(got, p.want) {
			t.Errorf("%s: no %q in %q", p.path, p.want, got)
		}
		if problems, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](layoutProblems)); err != nil {
			t.Fatal(err)
		} else {
			for _, pr := range problems {
				t.Errorf("%s at 390px in Chinese: %s", p.path, pr)
			}
		}
	}
	// A recall result: the package, the trace and the scope table.
	b.do(
		chromedp.SetValue(css(testidSel("recall-task")), "带孩子去北京玩三天"),
		chromedp.Click(css(testidSel("recall-submit"))),
		chromedp.WaitVisible(css(testidSel("recall-summary"))),
	)
	if got := b.text(testidSel("recall-summary")); !strings.Contains(got, "字符") {
		t.Errorf("summary = %q", got)
	}
	if problems, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](layoutProblems)); err != nil {
		t.Fatal(err)
	} else {
		for _, pr := range problems {
			t.Errorf("recall result at 390px in Chinese: %s", pr)
		}
	}
}
