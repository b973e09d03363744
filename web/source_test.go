package web_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
	"github.com/mnemo-console/mnemo/web"
	"github.com/mnemo-console/mnemo/web/templates"
)

func TestSources(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)
	dir := t.TempDir()

	if res, _ := f.Login(t, TravelReviewer).Get("/admin/sources"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("reviewer: status %d", res.StatusCode)
	}
	res, doc := admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {"relative/dir"}, "format": {"auto"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if doc.Find(testid("source-dir-error")).Length() != 1 {
		t.Fatal("a relative directory was accepted")
	}
	res, _ = admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {dir}, "format": {"claude-code"}})
	wantStatus(t, res, http.StatusSeeOther)

	// What the console's follow loop does each second.
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(readFixture(t, "claude-session.jsonl")), 0o644)
	sources, err := f.Store.FindSources(context.Background())
	if err != nil || len(sources) != 1 {
		t.Fatalf("sources = %v, %v", sources, err)
	}
	fl := &transcript.Follower{Store: f.Store, SourceID: sources[0].ID, ProjectID: sources[0].ProjectID, Dir: sources[0].Dir,
		Options: transcript.Options{Format: transcript.FormatClaudeCode}}
	if pr, err := fl.Poll(context.Background()); err != nil || pr.Inserted != 10 {
		t.Fatalf("poll = %+v, %v", pr, err)
	}
	_, doc = admin.Get("/admin/sources")
	if doc.Find(testid("source-file")).Length() != 1 || !strings.Contains(doc.Find(testid("source-error")).Text(), "line 9") {
		t.Fatalf("sources page:\n%s", doc.Find("main").Text())
	}
	// In Chinese the file's last error is said with its values, from the
	// sentences the poll recorded.
	_, zh := admin.Get("/admin/sources", "Accept-Language", "zh-CN")
	wantChinese(t, "last error", zh.Find(testid("source-error")), []string{"已跳过 1 个格式错误的行：", "第 9 行："},
		[]string{"malformed line", "line 9"})
	fixture := readFixture(t, "claude-session.jsonl")
	size := len(fixture)
	if got, want := doc.Find(testid("source-read")).Text(), strconv.Itoa(strings.Count(fixture, "\n"))+" lines"; got != want {
		t.Errorf("read = %q, want %q", got, want)
	}
	if got, want := doc.Find(testid("source-position")).Text(), "byte "+groupThousands(size); got != want {
		t.Errorf("position = %q, want %q", got, want)
	}

	// A Hermes state.db is read by message row id: its checkpoint says
	// how many messages and up to which row, never bytes.
	hermesDir := t.TempDir()
	res, _ = admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {hermesDir}, "format": {"auto"}})
	wantStatus(t, res, http.StatusSeeOther)
	sources, err = f.Store.FindSources(context.Background())
	if err != nil || len(sources) != 2 {
		t.Fatalf("sources = %v, %v", sources, err)
	}
	src := sources[0]
	if src.Dir != hermesDir {
		src = sources[1]
	}
	if _, err := f.Store.ImportChunk(context.Background(), src.ProjectID, src.ID, filepath.Join(hermesDir, "state.db"),
		governance.FollowCheckpoint{Offset: 5678, Lines: 120}, "", "", func(func(*governance.Event) error) error { return nil }); err != nil {
		t.Fatal(err)
	}
	_, doc = admin.Get("/admin/sources")
	var read, position []string
	doc.Find(testid("source-file")).Each(func(_ int, row *goquery.Selection) {
		read = append(read, row.Find(testid("source-read")).Text())
		position = append(position, row.Find(testid("source-position")).Text())
	})
	if !slices.Contains(read, "120 messages") || !slices.Contains(position, "message row 5,678") {
		t.Fatalf("read = %q, position = %q; want the state.db's 120 messages up to message row 5,678", read, position)
	}
}

// groupThousands writes n as the English pages do (1,234).
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func TestExportAgentFiles(t *testing.T) {
	f := NewFixture(t, web.Config{})
	mustAPIRule(t, f.Store, f.Travel.ID, "", governance.TypeLesson, "远距离的大型景点单独安排一天。")
	c := f.Login(t, Admin)
	_, doc := c.Get("/projects/travel-agent/export")
	if doc.Find(testid("download-AGENTS.md")).Length() != 1 || doc.Find(testid("download-claude-rules-lessons.md")).Length() != 1 {
		t.Fatalf("no agent file downloads:\n%s", doc.Find("main").Text())
	}
	res, body := c.Do(http.MethodGet, "/projects/travel-agent/export/claude-rules-lessons.md", nil, nil)
	wantStatus(t, res, http.StatusOK)
	if !strings.HasPrefix(body, "<!-- mnemo:begin") || !strings.Contains(body, "- 远距离的大型景点单独安排一天。") || !strings.HasSuffix(body, "<!-- mnemo:end -->\n") {
		t.Fatalf("lessons.md = %q", body)
	}
	res, _ = f.Login(t, MemberLi).Get("/projects/travel-agent/export/AGENTS.md")
	if res.StatusCode == http.StatusOK {
		t.Fatal("a member downloaded AGENTS.md")
	}
}

// TestSourcesFollowRoots: with follow roots configured (the console's
// --follow-root), the Sources page names them and refuses a directory
// outside them, also through a symbolic link that leads out of a root; a
// directory under a root is followed.
func TestSourcesFollowRoots(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, web.Config{}, func(a *app.App) { a.RestrictFollowRoots([]string{root}) })
	admin := f.Login(t, Admin)
	_, doc := admin.Get("/admin/sources")
	if got := doc.Find(testid("source-roots")).Text(); !strings.Contains(got, root) {
		t.Fatalf("roots hint = %q, want it to name %s", got, root)
	}
	for _, dir := range []string{outside, filepath.Join(root, "link"), "/etc"} {
		res, doc := admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {dir}, "format": {"auto"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if msg := doc.Find(testid("source-dir-error")).Text(); !strings.Contains(msg, "only under "+root) {
			t.Fatalf("%s: error %q", dir, msg)
		}
	}
	// Given through a link that stays inside the root, the directory is
	// kept by its resolved name: retargeting the link later cannot carry
	// the source out of the root.
	if err := os.Symlink(filepath.Join(root, "proj"), filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	res, _ := admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {filepath.Join(root, "alias")}, "format": {"auto"}})
	wantStatus(t, res, http.StatusSeeOther)
	sources, err := f.Store.FindSources(context.Background())
	if err != nil || len(sources) != 1 || sources[0].Dir != filepath.Join(root, "proj") {
		t.Fatalf("sources = %v, %v", sources, err)
	}

	none := newFixtureWith(t, web.Config{}, func(a *app.App) { a.RestrictFollowRoots(nil) })
	res, doc = none.Login(t, Admin).PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {root}, "format": {"auto"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if msg := doc.Find(testid("source-dir-error")).Text(); !strings.Contains(msg, "--follow-root") {
		t.Fatalf("no roots: error %q", msg)
	}
}

// TestSourceStop: an administrator stops following a directory from the
// console. The confirmation names the directory, its project and what it
// imported, what stops and what stays; without the CSRF token or the
// confirmation nothing stops, a reviewer may not; once stopped, the
// follow loop reads it no more, its events stay, and the audit log says
// who stopped what.
func TestSourceStop(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)
	dir := t.TempDir()
	res, _ := admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {dir}, "format": {"claude-code"}})
	wantStatus(t, res, http.StatusSeeOther)
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(readFixture(t, "claude-session.jsonl")), 0o644)
	sources, err := f.Store.FindSources(ctx)
	if err != nil || len(sources) != 1 {
		t.Fatalf("sources = %v, %v", sources, err)
	}
	src := sources[0]
	poll := func() (*transcript.PollResult, error) {
		fl := &transcript.Follower{Store: f.Store, SourceID: src.ID, ProjectID: src.ProjectID, Dir: src.Dir,
			Options: transcript.Options{Format: transcript.FormatClaudeCode}}
		return fl.Poll(ctx)
	}
	if pr, err := poll(); err != nil || pr.Inserted != 10 {
		t.Fatalf("poll = %+v, %v", pr, err)
	}
	before := eventCount(t, f.Store, f.Travel.ID)
	stop := templates.SourceStopURL(src.ID)

	_, doc := admin.Get("/admin/sources")
	if href, _ := doc.Find(testid("source-stop")).Attr("href"); href != stop {
		t.Fatalf("stop link = %q, want %q", href, stop)
	}
	_, doc = admin.Get(stop)
	if got := doc.Find("main h1").Text(); !strings.Contains(got, dir) {
		t.Errorf("confirmation heading = %q, want the directory", got)
	}
	details := doc.Find(testid("source-stop-details")).Text()
	if !strings.Contains(details, "travel-agent") || doc.Find(testid("source-stop-events")).Text() != "10" || doc.Find(testid("source-stop-files")).Text() != "1" {
		t.Errorf("confirmation details = %q", strings.Join(strings.Fields(details), " "))
	}
	if !strings.Contains(doc.Find(testid("source-stop-stops")).Text(), "reads no new file") ||
		!strings.Contains(doc.Find(testid("source-stop-stays")).Text(), "events already imported") {
		t.Errorf("confirmation does not say what stops and what stays: %q", doc.Find("main").Text())
	}
	_, doc = admin.Get(stop, "Accept-Language", "zh-CN")
	if got := doc.Find(testid("source-stop-stays")).Text(); !strings.Contains(got, "已从该目录导入的事件") {
		t.Errorf("zh-CN stays = %q", got)
	}

	// A reviewer may neither see the confirmation nor stop it.
	reviewer := f.Login(t, TravelReviewer)
	if res, _ := reviewer.Get(stop); res.StatusCode != http.StatusForbidden {
		t.Errorf("reviewer GET: status %d", res.StatusCode)
	}
	res, _ = reviewer.PostForm("/", stop, url.Values{"confirm": {"yes"}})
	wantStatus(t, res, http.StatusForbidden)
	// No CSRF token: refused. No confirmation: sent to the confirmation.
	res, _ = admin.Do(http.MethodPost, stop, strings.NewReader("confirm=yes"), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	wantStatus(t, res, http.StatusForbidden)
	res, _ = admin.PostForm("/admin/sources", stop, url.Values{})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != stop {
		t.Fatalf("unconfirmed stop went to %q", loc)
	}
	if sources, _ := f.Store.FindSources(ctx); len(sources) != 1 {
		t.Fatal("the directory stopped without a confirmed, CSRF-checked form")
	}

	res, _ = admin.PostForm(stop, stop, url.Values{"confirm": {"yes"}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != templates.SourcesURL {
		t.Fatalf("stop went to %q", loc)
	}
	_, doc = admin.Get(templates.SourcesURL)
	if got := doc.Find(testid("flash-success")).Text(); got != "Stopped following "+dir+"; the events imported from it stay." {
		t.Errorf("flash = %q", got)
	}
	if doc.Find(testid("source")).Length() != 0 || doc.Find(testid("sources-empty")).Length() != 1 {
		t.Errorf("the stopped directory is still listed")
	}
	if n := eventCount(t, f.Store, f.Travel.ID); n != before {
		t.Errorf("events after the stop = %d, want the %d imported", n, before)
	}
	// The follow loop lists it no more; a poll that was under way stores nothing.
	if sources, _ := f.Store.FindSources(ctx); len(sources) != 0 {
		t.Fatalf("sources after the stop = %v", sources)
	}
	os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte(readFixture(t, "claude-session.jsonl")), 0o644)
	if _, err := poll(); err == nil {
		t.Error("a poll of the stopped directory succeeded")
	}
	if n := eventCount(t, f.Store, f.Travel.ID); n != before {
		t.Errorf("events after a poll of the stopped directory = %d, want %d", n, before)
	}
	rows, _, err := f.Store.FindAudit(ctx, governance.AuditFilter{Action: "source.stop"})
	if err != nil || len(rows) != 1 || rows[0].Actor != Admin || rows[0].ObjectID != strconv.FormatInt(src.ID, 10) ||
		!strings.Contains(rows[0].Details, `"events":10`) {
		t.Fatalf("audit = %+v, %v", rows, err)
	}
	// Stopped twice (a second tab): not found, nothing more audited.
	res, _ = admin.PostForm(templates.SourcesURL, stop, url.Values{"confirm": {"yes"}})
	wantStatus(t, res, http.StatusNotFound)

	// Followed again: its files are read from the start and the events
	// already there are skipped by their ids.
	res, _ = admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {dir}, "format": {"claude-code"}})
	wantStatus(t, res, http.StatusSeeOther)
	if sources, err = f.Store.FindSources(ctx); err != nil || len(sources) != 1 {
		t.Fatalf("sources = %v, %v", sources, err)
	}
	src = sources[0]
	if pr, err := poll(); err != nil || pr.Inserted != 0 || pr.Files != 2 {
		t.Fatalf("poll after following again = %+v, %v; want 2 files, nothing new", pr, err)
	}
	if n := eventCount(t, f.Store, f.Travel.ID); n != before {
		t.Errorf("events after following again = %d, want %d", n, before)
	}
}
