package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// dataIDs matches a message id of the data pages' catalog showing through.
var dataIDs = regexp.MustCompile(`\b(eval|eval_[a-z]+|export|import|import_format|source|data)\.[a-z_.-]+\b`)

// speakChinese saves zh-CN as the signed-in account's language.
func speakChinese(t *testing.T, c *Client) {
	t.Helper()
	res, _ := c.PostForm("/", "/me/language", url.Values{"language": {"zh-CN"}, "back": {"/"}})
	wantStatus(t, res, http.StatusSeeOther)
}

// readsChinese fails unless the page's main holds every want and none of
// the English sentences the page used to show, nor a message id.
func readsChinese(t *testing.T, page string, doc *goquery.Document, want, english []string) {
	t.Helper()
	text := doc.Find("main").Text()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: no %q in the page", page, w)
		}
	}
	for _, e := range english {
		if strings.Contains(text, e) {
			t.Errorf("%s: English %q left in the page", page, e)
		}
	}
	if m := dataIDs.FindString(text); m != "" {
		t.Errorf("%s: message id %q shows through", page, m)
	}
}

// TestEvalPagesInChinese: the evals index, a suite, a finished run, a
// comparison of two runs and the benchmarks page read in Chinese for a
// reviewer whose account speaks it.
func TestEvalPagesInChinese(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Login(t, TravelReviewer)
	speakChinese(t, c)

	res, _ := uploadSuite(t, c, "/evals", "web-travel.yaml", webSuite)
	wantStatus(t, res, http.StatusSeeOther)
	suiteURL := res.Header.Get("Location")
	_, doc := c.Get(suiteURL)
	if got := doc.Find(testid("flash-success")).Text(); got != "评测套件 web-travel 已保存。" {
		t.Errorf("flash = %q", got)
	}
	readsChinese(t, suiteURL, doc, []string{"开始运行", "趋势", "还没有完成的运行", "召回 1 个", "A/B 1 个", "检查内容"},
		[]string{"Start a run", "Trend", "History", "No finished run yet", "What it checks", "1 recall"})

	startEvalRunner(t, f)
	first := startRun(t, c, suiteURL)
	waitDone(t, c, first)
	broken := strings.Replace(webSuite, `include: [{regex: "14:00|午睡"}]`, `include: [报销]`, 1)
	res, _ = uploadSuite(t, c, "/evals", "web-travel.yaml", broken)
	wantStatus(t, res, http.StatusSeeOther)
	second := startRun(t, c, suiteURL)
	waitDone(t, c, second)

	_, doc = c.Get("/evals")
	readsChinese(t, "/evals", doc, []string{"评测套件", "最近的运行", "上传评测套件", "通过率", "已完成"},
		[]string{"Suites", "Recent runs", "Upload a suite", "Pass rate", "Started by", "Last run"})

	_, doc = c.Get(second)
	if got := doc.Find(testid("run-status")).First().Text(); got != "已完成" {
		t.Errorf("run status = %q", got)
	}
	readsChinese(t, second, doc, []string{"摘要", "已完成 2 / 2 个用例（100%）", "通过", "失败", "跳过", "令牌数 · 费用"},
		[]string{"Summary", "cases done", "Passed", "Failed", "Skipped", "Tokens · cost", "Compare with the previous run", "Expectations", "Started by"})

	// The failed case's reason and its time are in Chinese too.
	if got := doc.Find(testid("case-nap")).Text(); !strings.Contains(got, "预期记忆包中有匹配") || !strings.Contains(got, "秒") ||
		strings.Contains(got, "expected a memory") || strings.Contains(got, "ms") {
		t.Errorf("failed case = %q", strings.Join(strings.Fields(got), " "))
	}

	link, ok := doc.Find(testid("compare-previous")).Attr("href")
	if !ok {
		t.Fatal("no link to compare with the previous run")
	}
	_, doc = c.Get(link)
	if got := doc.Find(testid("compare-summary")).Text(); !strings.Contains(got, "1 项退步") {
		t.Errorf("compare summary = %q", got)
	}
	readsChinese(t, link, doc, []string{"退步", "变化", "之前", "之后"},
		[]string{"regression", "Figure", "Before", "After", "Detail"})

	_, doc = c.Get("/evals/benchmarks")
	readsChinese(t, "/evals/benchmarks", doc, []string{"检索基准测试", "还没有上传基准测试", "导入 LoCoMo 或 LongMemEval 文件"},
		[]string{"Retrieval benchmarks", "No benchmark uploaded yet", "Import a LoCoMo or LongMemEval file", "Upload"})
}

// TestDataPagesInChinese: export, import and the followed directories read
// in Chinese, with their flashes and field errors.
func TestDataPagesInChinese(t *testing.T) {
	f := NewFixture(t, web.Config{})
	reviewer := f.Login(t, TravelReviewer)
	_, doc := reviewer.Get("/projects/travel-agent/export", "Accept-Language", "zh-CN")
	readsChinese(t, "export", doc, []string{"全部内容（JSON Lines）", "Hermes 风格的记忆文件", "下载 MEMORY.md", "编码智能体读取的文件", "字符"},
		[]string{"Everything, as JSON Lines", "Hermes-style memory files", "Download", "characters", "entries", "no subject"})
	_, doc = reviewer.Get("/export", "Accept-Language", "zh-CN")
	if got := doc.Find("main h1").Text(); got != "导出" {
		t.Errorf("export index heading = %q", got)
	}

	admin := f.Login(t, Admin)
	speakChinese(t, admin)
	_, doc = admin.Get("/admin/import")
	readsChinese(t, "import", doc, []string{"导入事件", "自动识别", "Claude Code 会话记录", "Codex CLI 会话存档", "Hermes Agent state.db", "跳过格式错误的行"},
		[]string{"Upload Mnemo JSON Lines", "Skip malformed lines", "Choose a project", "The format is detected"})

	res, doc := upload(t, admin, "travel-agent", "bad.jsonl", "not json\n")
	wantStatus(t, res, http.StatusUnprocessableEntity)
	readsChinese(t, "rejected import", doc, []string{"bad.jsonl 被拒绝：1 行无效。没有导入任何内容。", "第 1 行："},
		[]string{"was rejected", "Nothing was imported", "Line 1:"})

	res, doc = upload(t, admin, "", "empty.jsonl", "")
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if got := doc.Find("#import-project-error").Text(); got != "请选择一个项目。" {
		t.Errorf("project error = %q", got)
	}

	good := `{"id":"zh-1","session_id":"zh","turn":1,"role":"user","text":"你好","occurred_at":"2025-07-01T08:00:00Z"}` + "\n"
	res, _ = upload(t, admin, "travel-agent", "ok.jsonl", good)
	wantStatus(t, res, http.StatusSeeOther)
	_, doc = admin.Get(res.Header.Get("Location"))
	if got := doc.Find(testid("flash-success")).Text(); got != "已导入 1 个，跳过 0 个（已存在）。" {
		t.Errorf("import flash = %q", got)
	}

	res, doc = admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {"relative/dir"}, "format": {"auto"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if got := doc.Find(testid("source-dir-error")).Text(); got != "请填写服务器可以读取的目录的绝对路径。" {
		t.Errorf("dir error = %q", got)
	}
	dir := t.TempDir()
	res, _ = admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {dir}, "format": {"claude-code"}})
	wantStatus(t, res, http.StatusSeeOther)
	_, doc = admin.Get("/admin/sources")
	if got := doc.Find(testid("flash-success")).Text(); got != "正在跟踪 "+dir+"。" {
		t.Errorf("source flash = %q", got)
	}
	readsChinese(t, "sources", doc, []string{"数据来源", "跟踪一个目录", "服务器上的目录", "Claude Code 会话记录", "还没有读取任何文件"},
		[]string{"Follow a directory", "No file read yet", "Directory on the server", "Format:"})

	// A followed file's checkpoint, in its own unit: lines and bytes, or
	// a Hermes state.db's messages and row id.
	hermesDir := t.TempDir()
	res, _ = admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {hermesDir}, "format": {"hermes"}})
	wantStatus(t, res, http.StatusSeeOther)
	sources, err := f.Store.FindSources(context.Background())
	if err != nil || len(sources) != 2 {
		t.Fatalf("sources = %v, %v", sources, err)
	}
	for _, src := range sources {
		name, cp := "s.jsonl", governance.FollowCheckpoint{Offset: 2048, Lines: 7}
		if src.Dir == hermesDir {
			name, cp = "state.db", governance.FollowCheckpoint{Offset: 5678, Lines: 120}
		}
		if _, err := f.Store.ImportChunk(context.Background(), src.ProjectID, src.ID, filepath.Join(src.Dir, name), cp, "", "",
			func(func(*governance.Event) error) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	_, doc = admin.Get("/admin/sources")
	readsChinese(t, "source files", doc, []string{"已读", "读到", "7 行", "第 2,048 字节", "120 条消息", "消息行 ID 5,678"},
		[]string{"lines", "byte", "Read up to", "messages", "message row"})
}

// TestRuleChecksPageInChinese: the page of a rule's code checks reads in
// Chinese.
func TestRuleChecksPageInChinese(t *testing.T) {
	f := NewFixture(t, web.Config{})
	res, err := f.Store.DB().ExecContext(context.Background(), `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, created_at, updated_at)
		VALUES (?, 'family-li', 'user_preference', '每天14:00–16:00留给孩子午睡', 'explicit_user_instruction', 'active', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z')`,
		f.Travel.ID)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	page := fmt.Sprintf("/rules/%d/checks", id)
	_, doc := f.Login(t, TravelReviewer).Get(page, "Accept-Language", "zh-CN")
	readsChinese(t, page, doc, []string{"代码检查", "没有代码检查", "添加检查", "时段模式", "被休息时段覆盖"},
		[]string{"Code checks", "No code checks", "Add a check", "Window mode", "covered by a rest block", "At least (blocks)"})
}
