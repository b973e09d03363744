package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/web"
)

// TestErrorsWithValuesInChinese: an error that names a value (a tab, a
// rule, a project) is shown in the reader's language with its value.
func TestErrorsWithValuesInChinese(t *testing.T) {
	f := NewGovFixture(t)
	rita := f.Login(t, GovReviewer)
	inChinese(t, rita, travelQueue)
	res, doc := rita.Get("/projects/expense-agent/export")
	wantStatus(t, res, http.StatusForbidden)
	if got := strings.Join(strings.Fields(doc.Find("main").Text()), " "); !strings.Contains(got, "您无权访问项目 expense-agent。") || strings.Contains(got, "no access") {
		t.Errorf("error page = %q", got)
	}
	// A JSON client (and the log) keeps the English sentence.
	res, body := rita.Do(http.MethodGet, "/projects/expense-agent/export", nil, http.Header{"Accept": {"application/json"}})
	wantStatus(t, res, http.StatusForbidden)
	if !strings.Contains(string(body), "You have no access to project expense-agent.") {
		t.Errorf("JSON error = %s", body)
	}
}

// TestImportLineProblemsInChinese: a rejected file's lines say what is
// wrong in the reader's language, values kept.
func TestImportLineProblemsInChinese(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Login(t, Admin)
	speakChinese(t, c)
	bad := `{"id":"b1","session_id":"b","turn":1,"role":"user","text":"x","occurred_at":"2025-07-01T08:00:00Z"}` + "\n" +
		`{"id":"b1","session_id":"b","turn":2,"role":"user","text":"y","occurred_at":"2025-07-01T08:00:00Z"}` + "\n" +
		`{"id":"b3","session_id":"b","turn":3,"role":"robot","text":"z","occurred_at":"2025-07-01T08:00:00Z"}`
	res, doc := upload(t, c, "travel-agent", "bad.jsonl", bad)
	wantStatus(t, res, http.StatusUnprocessableEntity)
	got := strings.Join(strings.Fields(doc.Find(testid("import-errors")).Text()), " ")
	for _, want := range []string{`role "robot" 不是 user、assistant、tool 之一`, "id 与第 1 行重复"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in %q", want, got)
		}
	}
	if strings.Contains(got, "is not one of") || strings.Contains(got, "duplicates") {
		t.Errorf("English left in %q", got)
	}
}
