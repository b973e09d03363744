package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// boundedErr is the API's error body with the count of invalid items.
type boundedErr struct {
	apiErr
	Invalid int `json:"invalid"`
}

// TestAPIErrorsBounded: 8 MB of "{}" lines once answered with a 405 MB
// error body. The answer lists at most the first 100 invalid items and
// counts the rest.
func TestAPIErrorsBounded(t *testing.T) {
	f := NewFixture(t, web.Config{})
	ingest := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeIngest)
	body := bytes.Repeat([]byte("{}\n"), (web.APIMaxEventsBytes-1024)/3)

	req, _ := http.NewRequest(http.MethodPost, f.Server.URL+"/api/v1/events", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+ingest)
	req.Header.Set("Content-Type", "application/x-ndjson")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	if raw.Len() > 64<<10 {
		t.Fatalf("error body is %d bytes; want a small one (at most 100 items)", raw.Len())
	}
	var e boundedErr
	if err := json.Unmarshal(raw.Bytes(), &e); err != nil {
		t.Fatalf("body %q: %v", raw.String()[:min(raw.Len(), 300)], err)
	}
	if res.StatusCode != http.StatusBadRequest || len(e.Items) != governance.MaxReportedErrors {
		t.Fatalf("status %d, %d items; want 400 with %d items", res.StatusCode, len(e.Items), governance.MaxReportedErrors)
	}
	if e.Items[0].Line != 1 || e.Items[99].Line != 100 {
		t.Fatalf("items %d..%d; want the first 100 lines", e.Items[0].Line, e.Items[99].Line)
	}
	if want := len(body) / 3; e.Invalid != want || !strings.Contains(e.Message, fmt.Sprint(want)) {
		t.Fatalf("invalid = %d, message %q; want the count %d", e.Invalid, e.Message, want)
	}
}

// TestImportErrorsBounded: an 11 MB web import of bad lines once produced a
// 177 MB error page.
func TestImportErrorsBounded(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Login(t, Admin)
	content := strings.Repeat("{}\n", 1<<20)
	res, doc := upload(t, c, f.Travel.Slug, "bad.jsonl", content)
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if n := doc.Find(testid("line-error")).Length(); n != governance.MaxReportedErrors {
		t.Fatalf("%d line errors shown, want %d", n, governance.MaxReportedErrors)
	}
	if got := doc.Find(testid("import-errors")).Text(); !strings.Contains(got, "1048576 invalid lines") ||
		!strings.Contains(got, "first 100") {
		t.Fatalf("summary = %q; want the total and that only the first 100 are listed", got)
	}
}
