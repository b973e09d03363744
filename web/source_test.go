package web_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/transcript"
	"github.com/mnemo-console/mnemo/web"
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
}
