package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// uploadWith posts a file to the import page with extra form fields.
func uploadWith(t *testing.T, c *Client, fields map[string]string, name, content string) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", c.CSRF("/admin/import"))
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write([]byte(content))
	mw.Close()
	res, _ := c.Do(http.MethodPost, "/admin/import", &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
	return res
}

func TestImportTranscript(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Login(t, Admin)
	claude := readFixture(t, "claude-session.jsonl")

	t.Run("ErrRejectedByDefault", func(t *testing.T) {
		before := countEvents(t, f, f.Travel)
		res, doc := upload(t, c, "travel-agent", "5b1e7f3a.jsonl", claude)
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if got := doc.Find(testid("line-error")).AttrOr("data-line", ""); got != "9" {
			t.Fatalf("error line = %q, want 9", got)
		}
		if got := countEvents(t, f, f.Travel); got != before {
			t.Fatalf("a rejected transcript wrote %d events", got-before)
		}
	})
	t.Run("SkipMalformed", func(t *testing.T) {
		before := countEvents(t, f, f.Travel)
		res := uploadWith(t, c, map[string]string{"project": "travel-agent", "format": "claude-code", "skip_malformed": "1"}, "5b1e7f3a.jsonl", claude)
		wantStatus(t, res, http.StatusSeeOther)
		_, doc := c.Get(res.Header.Get("Location"))
		if got := doc.Find(testid("flash-success")).Text(); got != "10 imported, 0 skipped (already present). 1 malformed line(s) skipped: 9." {
			t.Fatalf("flash = %q", got)
		}
		if got := countEvents(t, f, f.Travel); got != before+10 {
			t.Fatalf("events = %d, want %d", got, before+10)
		}
	})
}

func TestAPIEventsTranscript(t *testing.T) {
	f := NewFixture(t, web.Config{})
	token := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeIngest)
	codex := []byte(readFixture(t, "codex-rollout.jsonl"))

	var e apiErr
	res := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events?format=codex", token, "application/x-ndjson", codex, &e)
	wantStatus(t, res, http.StatusBadRequest)
	if len(e.Items) != 2 || e.Items[0].Line != 24 {
		t.Fatalf("error = %+v", e)
	}
	var out struct {
		Format         string `json:"format"`
		Inserted       int    `json:"inserted"`
		MalformedCount int    `json:"malformed_count"`
	}
	res = apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events?format=auto&skip_malformed=true&name=rollout.jsonl", token, "application/x-ndjson", codex, &out)
	wantStatus(t, res, http.StatusOK)
	if out.Format != "codex" || out.Inserted != 12 || out.MalformedCount != 2 {
		t.Fatalf("result = %+v", out)
	}
	res = apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events?format=word", token, "application/x-ndjson", codex, &e)
	wantStatus(t, res, http.StatusBadRequest)
	if !strings.Contains(e.Message, "Unknown format") {
		t.Errorf("message = %q", e.Message)
	}
}
