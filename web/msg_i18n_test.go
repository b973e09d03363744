package web_test

import (
	"net/http"
	"strings"
	"testing"
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
