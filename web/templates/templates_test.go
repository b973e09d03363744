package templates_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

func renderDoc(t *testing.T, ctx context.Context, c templ.Component) (string, *goquery.Document) {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	return buf.String(), doc
}

func TestLayout(t *testing.T) {
	meta := templates.PageMeta{
		Title:   "Events",
		User:    &governance.Account{Username: "rita", Memberships: []governance.Membership{{ProjectID: 1, Role: governance.ProjectReviewer}}},
		CSRF:    "tok",
		Flashes: []templates.Flash{{Kind: "success", Message: "3 imported"}},
		Nav:     []templates.NavItem{{Key: "events", Label: "Events", URL: "/events"}, {Key: "search", Label: "Search", URL: "/search"}},
		Active:  "events",
	}
	page := templates.ErrorPage(meta, templates.ErrorView{Status: 404, Title: "Not found", Message: "No page here."})

	t.Run("Full", func(t *testing.T) {
		_, doc := renderDoc(t, context.Background(), page)
		if got := doc.Find("title").Text(); got != "Events · Mnemo" {
			t.Errorf("title = %q", got)
		}
		if got, _ := doc.Find(`[aria-current="page"]`).Attr("data-testid"); got != "nav-events" {
			t.Errorf("current nav = %q", got)
		}
		if got := doc.Find(`[data-testid="flash-success"]`).Text(); got != "3 imported" {
			t.Errorf("flash = %q", got)
		}
		if h, _ := doc.Find("body").Attr("hx-headers"); h != `{"X-CSRF-Token":"tok"}` {
			t.Errorf("hx-headers = %q", h)
		}
		if got := doc.Find(`[data-testid="current-role"]`).Text(); got != "reviewer" {
			t.Errorf("role = %q", got)
		}
	})
	t.Run("Partial", func(t *testing.T) {
		html, doc := renderDoc(t, templates.WithPartial(context.Background()), page)
		if strings.Contains(html, "<html") || doc.Find("nav").Length() != 0 {
			t.Fatalf("partial has the layout: %s", html)
		}
		if doc.Find(`[data-testid="error-title"]`).Text() != "Not found" {
			t.Fatal("partial lost the page content")
		}
	})
}

func TestSearchResults(t *testing.T) {
	e := &governance.Event{Seq: 7, ProjectID: 1, SessionID: "bj-1", Turn: 3, Role: governance.RoleTool,
		Tool: "route_checker", Status: governance.StatusFailed, OccurredAt: time.Date(2025, 6, 14, 9, 0, 0, 0, time.UTC)}
	v := templates.SearchView{
		Searched: true,
		Slugs:    map[int64]string{1: "travel-agent"},
		Hits: []*governance.EventHit{{Event: e, Fragments: []governance.Fragment{
			{Text: "<b>故宫</b>和"}, {Text: "环球影城", Match: true}, {Text: "不在同一区"},
		}}},
		Pager: templates.Pager{Page: 1, Pages: 1, Total: 1, Target: "search-results"},
	}
	html, doc := renderDoc(t, context.Background(), templates.SearchResults(v))
	if got := doc.Find("mark").Text(); got != "环球影城" {
		t.Errorf("mark = %q", got)
	}
	if strings.Contains(html, "<b>") || !strings.Contains(html, "&lt;b&gt;") {
		t.Error("fragment text not escaped")
	}
	if got, _ := doc.Find(`[data-testid="hit-link"]`).Attr("href"); got != "/events/7#event-7" {
		t.Errorf("link = %q", got)
	}
	if !doc.Find(`[data-testid="event-status"]`).HasClass("badge-failed") {
		t.Error("failed status not red")
	}
}
