package web_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// upload posts a file to the import page with the CSRF token scraped from it.
func upload(t *testing.T, c *Client, project, name, content string) (*http.Response, *goquery.Document) {
	t.Helper()
	token := c.CSRF("/admin/import")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", token)
	mw.WriteField("project", project)
	if name != "" {
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write([]byte(content))
	}
	mw.Close()
	res, b := c.Do(http.MethodPost, "/admin/import", &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
	return res, parse(t, b)
}

func countEvents(t *testing.T, f *Fixture, p *governance.Project) int {
	t.Helper()
	_, n, err := f.Store.FindEvents(context.Background(), governance.EventFilter{ProjectID: &p.ID, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

const goodFile = `{"id":"imp-1","session_id":"imp","subject_id":"family-li","turn":1,"role":"user","text":"下周去成都，孩子还是要午睡。","occurred_at":"2025-07-01T08:00:00Z"}
{"id":"imp-2","session_id":"imp","subject_id":"family-li","turn":2,"role":"tool","tool":"route_checker","status":"passed","text":"路线可执行。","occurred_at":"2025-07-01T08:01:00Z"}

{"id":"imp-3","session_id":"imp","subject_id":"family-li","turn":3,"kind":"session_end","text":"","occurred_at":"2025-07-01T08:02:00Z"}
`

func TestImport(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Login(t, Admin)

	t.Run("Form", func(t *testing.T) {
		res, doc := c.Get("/admin/import")
		wantStatus(t, res, http.StatusOK)
		if got := texts(doc.Find(testid("import-project") + " option")); len(got) != 3 {
			t.Fatalf("project options = %v", got)
		}
		for _, id := range []string{"import-project", "import-file"} {
			elID, _ := doc.Find(testid(id)).Attr("id")
			if doc.Find(`label[for="`+elID+`"]`).Length() != 1 {
				t.Errorf("%s has no label", id)
			}
		}
	})

	t.Run("OK", func(t *testing.T) {
		before := countEvents(t, f, f.Travel)
		res, _ := upload(t, c, "travel-agent", "trip.jsonl", goodFile)
		wantStatus(t, res, http.StatusSeeOther)
		loc := res.Header.Get("Location")
		_, doc := c.Get(loc)
		if got := doc.Find(testid("flash-success")).Text(); got != "3 imported, 0 skipped (already present)." {
			t.Fatalf("flash = %q", got)
		}
		if got := countEvents(t, f, f.Travel); got != before+3 {
			t.Fatalf("events = %d, want %d", got, before+3)
		}
		_, doc = c.Get("/projects/travel-agent/sessions/imp")
		if doc.Find(testid("event")).Length() != 2 || doc.Find(testid("session-end")).Length() != 1 {
			t.Fatal("imported session not browsable")
		}
	})

	t.Run("Idempotent", func(t *testing.T) {
		before := countEvents(t, f, f.Travel)
		res, _ := upload(t, c, "travel-agent", "trip.jsonl", goodFile)
		wantStatus(t, res, http.StatusSeeOther)
		_, doc := c.Get(res.Header.Get("Location"))
		if got := doc.Find(testid("flash-success")).Text(); got != "0 imported, 3 skipped (already present)." {
			t.Fatalf("flash = %q", got)
		}
		if got := countEvents(t, f, f.Travel); got != before {
			t.Fatalf("re-import wrote %d events", got-before)
		}
	})

	t.Run("ErrBadLines", func(t *testing.T) {
		before := countEvents(t, f, f.Travel)
		bad := strings.Join([]string{
			`{"id":"bad-1","session_id":"b","turn":1,"role":"user","text":"这一行是好的","occurred_at":"2025-07-01T08:00:00Z"}`,
			`{"id":"bad-2","session_id":"b","turn":2,"role":"robot","text":"x","occurred_at":"2025-07-01T08:00:00Z"}`,
			`{"id":"bad-3","session_id":"b","turn":3,"role":"user","text":"y","occurred_at":"2025-07-01T08:00:00Z"}`,
			`not json`,
			`{"id":"bad-5","turn":5,"role":"user","text":"","occurred_at":"2025-07-01T08:00:00Z"}`,
		}, "\n")
		res, doc := upload(t, c, "travel-agent", "bad.jsonl", bad)
		wantStatus(t, res, http.StatusUnprocessableEntity)
		var lines []string
		doc.Find(testid("line-error")).Each(func(_ int, s *goquery.Selection) {
			lines = append(lines, s.AttrOr("data-line", ""))
		})
		if strings.Join(lines, ",") != "2,4,5" {
			t.Fatalf("error lines = %v, want 2,4,5", lines)
		}
		text := doc.Find(testid("import-errors")).Text()
		for _, want := range []string{"Line 2:", "robot", "Line 4:", "invalid JSON", "Line 5:", "session_id is required", "text is required", "Nothing was imported"} {
			if !strings.Contains(text, want) {
				t.Errorf("errors lack %q:\n%s", want, text)
			}
		}
		if got := countEvents(t, f, f.Travel); got != before {
			t.Fatalf("a rejected file wrote %d events", got-before)
		}
		// The form keeps the chosen project.
		if v, _ := doc.Find(`#import-project option[selected]`).Attr("value"); v != "travel-agent" {
			t.Fatalf("project not kept: %q", v)
		}
	})

	t.Run("ErrBadLinesChinese", func(t *testing.T) {
		// Each line's problems are said in Chinese with their values, from
		// the sentences the reader made.
		zh := f.Login(t, Admin)
		inChinese(t, zh, "/admin/import")
		bad := `{"id":"zh-1","session_id":"z","turn":1,"role":"robot","text":"x","occurred_at":"2025-07-01T08:00:00Z"}` + "\n" +
			`{"id":"zh-2","turn":2,"role":"user","text":"","occurred_at":"2025-07-01T08:00:00Z"}`
		res, doc := upload(t, zh, "travel-agent", "bad.jsonl", bad)
		wantStatus(t, res, http.StatusUnprocessableEntity)
		wantChinese(t, "line errors", doc.Find(testid("import-errors")),
			[]string{`role "robot" 不是 user、assistant、tool 之一`, "session_id 为必填项；text 为必填项"},
			[]string{"is not one of", "is required"})
	})

	t.Run("ErrInvalidUTF8", func(t *testing.T) {
		res, doc := upload(t, c, "travel-agent", "latin1.jsonl", "{\"id\":\"l1\",\"text\":\"caf\xe9\"}\n")
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if got := doc.Find(testid("line-error")).Text(); !strings.Contains(got, "UTF-8") {
			t.Fatalf("error = %q", got)
		}
	})

	t.Run("ErrMissingFields", func(t *testing.T) {
		res, doc := upload(t, c, "", "", "")
		wantStatus(t, res, http.StatusUnprocessableEntity)
		for _, id := range []string{"#import-project", "#import-file"} {
			if _, ok := doc.Find(id).Attr("aria-invalid"); !ok {
				t.Errorf("%s not marked invalid", id)
			}
		}
		res, _ = upload(t, c, "no-such-project", "x.jsonl", goodFile)
		wantStatus(t, res, http.StatusUnprocessableEntity)
	})

	t.Run("ErrCSRFMissing", func(t *testing.T) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("project", "travel-agent")
		fw, _ := mw.CreateFormFile("file", "x.jsonl")
		fw.Write([]byte(goodFile))
		mw.Close()
		res, _ := c.Do(http.MethodPost, "/admin/import", &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
		wantStatus(t, res, http.StatusForbidden)
	})
}

func TestImportTooLarge(t *testing.T) {
	f := NewFixture(t, web.Config{MaxImportBytes: 1 << 10})
	c := f.Login(t, Admin)
	res, doc := upload(t, c, "travel-agent", "big.jsonl", strings.Repeat("x", 2<<20))
	wantStatus(t, res, http.StatusRequestEntityTooLarge)
	if doc.Find(testid("error-page")).Length() != 1 {
		t.Fatal("no error page")
	}
}
