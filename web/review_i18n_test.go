package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// inChinese saves zh-CN as the client's language, so every page and every
// message after it is in Simplified Chinese.
func inChinese(t *testing.T, c *Client, page string) {
	t.Helper()
	res, _ := c.PostForm(page, "/me/language", url.Values{"language": {"zh-CN"}, "back": {page}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("choosing Chinese: status %d", res.StatusCode)
	}
}

// wantChinese fails unless sel's text holds every Chinese want and none of
// the English phrases the page used to show.
func wantChinese(t *testing.T, what string, sel *goquery.Selection, want, english []string) {
	t.Helper()
	text := strings.Join(strings.Fields(sel.Text()), " ")
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: no %q in\n%s", what, w, text)
		}
	}
	for _, e := range english {
		if strings.Contains(text, e) {
			t.Errorf("%s: English %q left in\n%s", what, e, text)
		}
	}
}

// rawIDs are identifiers of enumerated values that must never reach a page.
var rawIDs = []string{
	string(governance.ReasonRepeated), string(governance.ReasonToolFailure), string(governance.ReasonExplicit),
	string(governance.ReasonReviewer), string(governance.TypePreference),
}

func TestReviewQueueChinese(t *testing.T) {
	f := NewGovFixture(t)
	rita := f.Login(t, GovReviewer)
	inChinese(t, rita, travelQueue)

	_, doc := rita.Get("/review")
	wantChinese(t, "review index", doc.Find("main"), []string{"审核", "项目", "待审提议", "暂缓", "已拦截"},
		[]string{"Proposed", "Held", "Blocked", "You review no projects"})

	res, doc := rita.Get(travelQueue)
	wantStatus(t, res, http.StatusOK)
	if title := doc.Find("title").Text(); !strings.Contains(title, "的审核队列") {
		t.Errorf("title = %q", title)
	}
	lesson := f.Rule(t, "单独安排一天")
	card := doc.Find("#proposal-" + strconv.FormatInt(lesson.ID, 10))
	wantChinese(t, "proposal", card, []string{"选择提议 #", "经验", "整个项目", "可信度", "批准", "暂缓，等待更多证据", "拒绝理由（必填）", "修改后批准", "证据：", "条候选"},
		append([]string{"Select proposal", "trust ", "Approve", "Hold for more evidence", "Reason for rejecting", "Evidence:", "candidate(s)", "Rule text", "Why the change"}, rawIDs...))
	if got := strings.TrimSpace(card.Find(testid("proposal-kind")).Text()); got != "经验" {
		t.Errorf("kind badge = %q", got)
	}
	wantChinese(t, "queue", doc.Find("main"), []string{"的审核队列", "策略：", "提议", "对所选提议", "批准所选", "拒绝所选", "合并所选的两条"},
		[]string{"Review queue of", "Policy:", "With the selected proposals", "Approve selected", "Reject selected", "Merge the two selected"})

	_, doc = rita.Get(travelQueue + "?tab=held")
	wantChinese(t, "held tab", doc.Find("main"), []string{"暂缓的候选", "分组 #", "暂缓原因：", "证据不足"},
		[]string{"Held candidates", "Why held", "Group #", "Insufficient evidence"})

	_, doc = rita.Get(travelQueue + "?tab=blocked")
	blocked := doc.Find(testid("blocked-candidate")).First()
	wantChinese(t, "blocked tab", doc.Find("main"), []string{"已拦截的候选", "候选 #", "拦截原因：", "写入关卡的发现", "篡改指令层级"},
		[]string{"Blocked candidates", "Why blocked", "Write gate findings", "Candidate #"})
	if badge := blocked.Find(testid("risk-badge")).Text(); !strings.Contains(badge, "风险：") || strings.Contains(badge, "instruction_hierarchy") {
		t.Errorf("risk badge = %q", badge)
	}

	// A refused bulk action: the field error in Chinese.
	res, doc = rita.PostForm(travelQueue, travelQueue+"/reject", url.Values{"back": {travelQueue}, "id": {strconv.FormatInt(lesson.ID, 10)}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if got := doc.Find(testid("bulk-reason-error")).Text(); got != "请说明拒绝所选提议的理由。" {
		t.Errorf("bulk reason error = %q", got)
	}
	// A done bulk action: the flash in Chinese, with the count.
	res, _ = rita.PostForm(travelQueue, travelQueue+"/approve", url.Values{"back": {travelQueue}, "id": {strconv.FormatInt(lesson.ID, 10)}})
	wantRedirect(t, res, travelQueue)
	_, doc = rita.Get(travelQueue)
	if got := doc.Find(testid("flash-success")).Text(); !strings.Contains(got, "已批准 1 条提议") {
		t.Errorf("flash = %q", got)
	}
}

func TestRulePageChinese(t *testing.T) {
	f := NewGovFixture(t)
	rita := f.Login(t, GovReviewer)
	lesson := f.Rule(t, "单独安排一天")
	page := ruleURL(lesson.ID)
	inChinese(t, rita, page)

	res, doc := rita.Get(page)
	wantStatus(t, res, http.StatusOK)
	if got := strings.TrimSpace(doc.Find(testid("rule-status")).First().Text()); got != "已提议" {
		t.Errorf("status = %q", got)
	}
	// The audit rows are the log as written (another page's translation).
	doc.Find(testid("rule-audit")).Remove()
	wantChinese(t, "rule page", doc.Find("main"),
		[]string{"规则 #", "状态", "类型", "经验", "范围", "来由", "可信度", "版本", "过期时间", "永不过期", "创建时间", "证据", "操作", "版本历史", "第 1 版", "批准", "暂停", "设置过期时间", "遗忘这条记忆"},
		append([]string{"Status", "Kind", "Scope", "Trust", "Expires", "never", "Created", "Evidence", "Actions", "Version history",
			"Version 1", "Approve", "Pause", "Set expiry", "Forget this memory", "recall uses it", "recall leaves it out", "whole project"}, rawIDs...))

	// A refused action comes back with its error in Chinese.
	res, doc = rita.PostForm(page, ruleURL(lesson.ID, "reject"), url.Values{"back": {page}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if got := doc.Find(testid("reject-reason-" + strconv.FormatInt(lesson.ID, 10) + "-error")).Text(); got != "请说明拒绝该提议的理由。" {
		t.Errorf("reject error = %q", got)
	}
	// A done action: its flash, and the paused state, in Chinese.
	res, _ = rita.PostForm(page, ruleURL(lesson.ID, "pause"), url.Values{})
	wantRedirect(t, res, page)
	_, doc = rita.Get(page)
	if got := doc.Find(testid("flash-success")).Text(); !strings.Contains(got, "已暂停：召回不再使用它") {
		t.Errorf("flash = %q", got)
	}
	if got := doc.Find(testid("rule-usable")).Text(); !strings.Contains(got, "召回不会使用它") {
		t.Errorf("usable = %q", got)
	}

	_, doc = rita.Get("/rules?project=travel-agent")
	wantChinese(t, "rules list", doc.Find("main"), []string{"规则", "筛选", "条规则", "除已遗忘外的全部", "7 天内", "已提议"},
		append([]string{"Filter", "Any but forgotten", "Within 7 days", "No rules match", "Forget selected"}, rawIDs...))
}

func TestRecallChinese(t *testing.T) {
	f := NewFixture(t, web.Config{})
	mustAPIRule(t, f.Store, f.Travel.ID, "family-li", governance.TypePreference, "每天 14:00–16:00 留给孩子午睡。")
	mustAPIRule(t, f.Store, f.Travel.ID, "", governance.TypeLesson, "远距离的大型景点单独安排一天。")
	mustAPIRule(t, f.Store, f.Expense.ID, "", governance.TypeFact, "200 元以下的报销不需要扫描发票。")
	c := f.Login(t, Admin)
	inChinese(t, c, "/recall")

	res, doc := c.PostForm("/recall", "/recall", url.Values{"project": {"travel-agent"}, "subject": {"family-li"}, "task": {"带孩子去上海玩两天"}})
	wantStatus(t, res, http.StatusOK)
	// The fenced text is what the agent receives, in the agent's terms.
	doc.Find(testid("fenced-text")).Remove()
	wantChinese(t, "recall page", doc.Find("main"),
		[]string{"召回试验场", "任务", "选项", "不带记忆", "带记忆", "记忆包", "追踪", "已纳入", "范围之外", "范围过滤最先执行", "2 条", "字符", "偏好", "经验"},
		append([]string{"Recall playground", "Without memory", "With memory", "Package", "Outside the scope", "The scope filter ran first",
			" items", "characters", "included", "trust ", "score ", "Options"}, rawIDs...))

	res, doc = c.PostForm("/recall", "/recall", url.Values{"project": {"travel-agent"}, "task": {""}, "total": {"abc"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	wantChinese(t, "recall errors", doc.Find(testid("recall-errors")), []string{"请输入智能体即将执行的任务。", "请输入不小于 1 的整数字符数。"},
		[]string{"Type the task", "A whole number"})
}
