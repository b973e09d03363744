package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

func TestExportPage(t *testing.T) {
	f := NewFixture(t, web.Config{})
	mustAPIRule(t, f.Store, f.Travel.ID, "", governance.TypeLesson, "远距离的大型景点单独安排一天。")
	mustAPIRule(t, f.Store, f.Travel.ID, "family-li", governance.TypePreference, "每天 14:00–16:00 留给孩子午睡。")
	mustAPIRule(t, f.Store, f.Travel.ID, "family-wang", governance.TypePreference, "王家的孩子晚上八点睡觉。")

	t.Run("Reviewer", func(t *testing.T) {
		c := f.Login(t, TravelReviewer)
		res, doc := c.Get("/projects/travel-agent/export?subject=family-li")
		wantStatus(t, res, http.StatusOK)
		if got := doc.Find(testid("hermes-MEMORY.md") + " " + testid("hermes-text")).Text(); got != "远距离的大型景点单独安排一天。" {
			t.Errorf("MEMORY.md = %q", got)
		}
		if got := doc.Find(testid("hermes-USER.md") + " " + testid("hermes-text")).Text(); got != "每天 14:00–16:00 留给孩子午睡。" {
			t.Errorf("USER.md = %q", got)
		}
		res, body := c.Do(http.MethodGet, "/projects/travel-agent/export/project.jsonl", nil, nil)
		wantStatus(t, res, http.StatusOK)
		if !strings.Contains(res.Header.Get("Content-Disposition"), "travel-agent.jsonl") || !strings.Contains(body, "八点") || strings.Contains(body, "报销") {
			t.Errorf("jsonl: %s\n%.200s", res.Header.Get("Content-Disposition"), body)
		}
		res, body = c.Do(http.MethodGet, "/projects/travel-agent/export/USER.md?subject=family-wang", nil, nil)
		wantStatus(t, res, http.StatusOK)
		if body != "王家的孩子晚上八点睡觉。" {
			t.Errorf("USER.md = %q", body)
		}
		res, _ = c.Get("/projects/expense-agent/export")
		wantStatus(t, res, http.StatusForbidden)
	})
	t.Run("MemberOwnDataOnly", func(t *testing.T) {
		c := f.Login(t, MemberLi)
		res, doc := c.Get("/projects/travel-agent/export?subject=family-wang")
		wantStatus(t, res, http.StatusOK)
		if doc.Find(testid("hermes-MEMORY.md")).Length() != 0 || strings.Contains(doc.Text(), "八点") || !strings.Contains(doc.Text(), "午睡") {
			t.Error("member page shows more than their own data")
		}
		res, body := c.Do(http.MethodGet, "/projects/travel-agent/export/project.jsonl", nil, nil)
		wantStatus(t, res, http.StatusOK)
		if strings.Contains(body, "family-wang") || strings.Contains(body, "远距离的大型景点") || !strings.Contains(body, "family-li") {
			t.Errorf("member export holds other data: %.300s", body)
		}
		res, _ = c.Get("/projects/travel-agent/export/MEMORY.md")
		wantStatus(t, res, http.StatusForbidden)
		res, body = c.Do(http.MethodGet, "/projects/travel-agent/export/USER.md?subject=family-wang", nil, nil)
		wantStatus(t, res, http.StatusOK)
		if body != "每天 14:00–16:00 留给孩子午睡。" {
			t.Errorf("member USER.md = %q", body)
		}
	})
	t.Run("Index", func(t *testing.T) {
		res, doc := f.Login(t, ExpenseReviewer).Get("/export")
		wantStatus(t, res, http.StatusOK)
		if doc.Find(testid("export-expense-agent")).Length() != 1 || doc.Find(testid("export-travel-agent")).Length() != 0 {
			t.Error("index lists the wrong projects")
		}
	})
}
