package web_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/web"
)

// TestAuthorization checks, for every kind of account, the cross-project and
// cross-subject cases of the pages that show events (TestRouteInventory
// covers every registered route). Project
// access is 403 when the account has no role in the project; another
// subject's data inside the member's own project is 404, so its existence
// is not revealed.
func TestAuthorization(t *testing.T) {
	f := NewFixture(t, web.Config{})
	const (
		anon = "anonymous"
		ok   = http.StatusOK
		see  = http.StatusSeeOther
		no   = http.StatusForbidden
		gone = http.StatusNotFound
	)
	ownEvent := fmt.Sprintf("/events/%d", f.Seqs["bj-1-3"])
	otherSubjectEvent := fmt.Sprintf("/events/%d", f.Seqs["sh-1-1"])
	expenseEvent := fmt.Sprintf("/events/%d", f.Seqs["ex-1-1"])

	users := []string{anon, MemberLi, TravelReviewer, ExpenseReviewer, Admin}
	routes := []struct {
		path string
		want map[string]int // by user; anonymous pages always redirect to login
	}{
		{"/", map[string]int{MemberLi: ok, TravelReviewer: ok, ExpenseReviewer: ok, Admin: ok}},
		{"/events", map[string]int{MemberLi: ok, TravelReviewer: ok, ExpenseReviewer: ok, Admin: ok}},
		{"/search", map[string]int{MemberLi: ok, TravelReviewer: ok, ExpenseReviewer: ok, Admin: ok}},
		{"/search?q=%E7%8E%AF%E7%90%83%E5%BD%B1%E5%9F%8E&project=travel-agent", map[string]int{MemberLi: ok, TravelReviewer: ok, ExpenseReviewer: no, Admin: ok}},
		{"/search?q=invoice&project=expense-agent", map[string]int{MemberLi: no, TravelReviewer: no, ExpenseReviewer: ok, Admin: ok}},
		{"/projects/travel-agent/sessions", map[string]int{MemberLi: ok, TravelReviewer: ok, ExpenseReviewer: no, Admin: ok}},
		{"/projects/travel-agent/sessions/bj-1", map[string]int{MemberLi: ok, TravelReviewer: ok, ExpenseReviewer: no, Admin: ok}},
		{"/projects/travel-agent/sessions/sh-1", map[string]int{MemberLi: gone, TravelReviewer: ok, ExpenseReviewer: no, Admin: ok}},
		{"/projects/expense-agent/sessions", map[string]int{MemberLi: no, TravelReviewer: no, ExpenseReviewer: ok, Admin: ok}},
		{"/projects/expense-agent/sessions/ex-1", map[string]int{MemberLi: no, TravelReviewer: no, ExpenseReviewer: ok, Admin: ok}},
		{"/projects/no-such/sessions", map[string]int{MemberLi: gone, TravelReviewer: gone, ExpenseReviewer: gone, Admin: gone}},
		{"/projects/travel-agent/sessions/no-such", map[string]int{MemberLi: gone, TravelReviewer: gone, ExpenseReviewer: no, Admin: gone}},
		{ownEvent, map[string]int{MemberLi: ok, TravelReviewer: ok, ExpenseReviewer: no, Admin: ok}},
		{otherSubjectEvent, map[string]int{MemberLi: gone, TravelReviewer: ok, ExpenseReviewer: no, Admin: ok}},
		{expenseEvent, map[string]int{MemberLi: no, TravelReviewer: no, ExpenseReviewer: ok, Admin: ok}},
		{"/events/999999", map[string]int{MemberLi: gone, TravelReviewer: gone, ExpenseReviewer: gone, Admin: gone}},
		{"/events/abc", map[string]int{MemberLi: gone, TravelReviewer: gone, ExpenseReviewer: gone, Admin: gone}},
		{"/admin/import", map[string]int{MemberLi: no, TravelReviewer: no, ExpenseReviewer: no, Admin: ok}},
	}
	clients := map[string]*Client{anon: f.Anonymous(t)}
	for _, u := range users[1:] {
		clients[u] = f.Login(t, u)
	}
	for _, r := range routes {
		for _, u := range users {
			t.Run(u+" GET "+r.path, func(t *testing.T) {
				res, _ := clients[u].Get(r.path)
				want := r.want[u]
				if u == anon {
					want = see
				}
				if res.StatusCode != want {
					t.Fatalf("status = %d, want %d", res.StatusCode, want)
				}
				if u == anon && !strings.HasPrefix(res.Header.Get("Location"), "/login") {
					t.Fatalf("anonymous redirected to %q, want /login", res.Header.Get("Location"))
				}
			})
		}
	}

	// Posts: import is admin-only (even with a valid CSRF token); logout is
	// for any signed-in account.
	for _, u := range users {
		t.Run(u+" POST /admin/import", func(t *testing.T) {
			c := clients[u]
			page := "/"
			if u == anon {
				page = "/login"
			}
			token := c.CSRF(page)
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			mw.WriteField("csrf", token)
			mw.WriteField("project", "travel-agent")
			fw, _ := mw.CreateFormFile("file", "events.jsonl")
			fw.Write([]byte(`{"id":"authz-1","session_id":"z","turn":1,"role":"user","text":"hi","occurred_at":"2025-06-14T09:00:00Z"}` + "\n"))
			mw.Close()
			res, _ := c.Do(http.MethodPost, "/admin/import", &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
			want := map[string]int{anon: see, MemberLi: no, TravelReviewer: no, ExpenseReviewer: no, Admin: see}[u]
			if res.StatusCode != want {
				t.Fatalf("status = %d, want %d", res.StatusCode, want)
			}
			if u == anon && !strings.HasPrefix(res.Header.Get("Location"), "/login") {
				t.Fatalf("anonymous redirected to %q", res.Header.Get("Location"))
			}
		})
	}
	t.Run("anonymous POST /logout", func(t *testing.T) {
		c := f.Anonymous(t)
		res, _ := c.PostForm("/login", "/logout", url.Values{})
		wantStatus(t, res, see)
		if got := res.Header.Get("Location"); got != "/login" {
			t.Fatalf("location = %q", got)
		}
	})

	t.Run("MemberOtherSubjectSearch", func(t *testing.T) {
		// sh-1 (family-wang) mentions 迪士尼; a member of family-li finds nothing.
		_, doc := clients[MemberLi].Get("/search?q=%E8%BF%AA%E5%A3%AB%E5%B0%BC")
		if n := doc.Find(testid("hit")).Length(); n != 0 {
			t.Fatalf("member saw %d hits of another subject", n)
		}
		_, doc = clients[TravelReviewer].Get("/search?q=%E8%BF%AA%E5%A3%AB%E5%B0%BC")
		if n := doc.Find(testid("hit")).Length(); n != 1 {
			t.Fatalf("reviewer hits = %d, want 1", n)
		}
		_, doc = f.Login(t, MemberWang).Get("/search?q=%E8%BF%AA%E5%A3%AB%E5%B0%BC")
		if n := doc.Find(testid("hit")).Length(); n != 1 {
			t.Fatalf("member of that subject hits = %d, want 1", n)
		}
	})

	t.Run("MemberOtherSubjectSessions", func(t *testing.T) {
		_, doc := clients[MemberLi].Get("/projects/travel-agent/sessions")
		got := texts(doc.Find(testid("session-link")))
		if strings.Join(got, ",") != "bj-2,bj-1" {
			t.Fatalf("member sessions = %v, want only their own [bj-2 bj-1]", got)
		}
		_, doc = clients[TravelReviewer].Get("/projects/travel-agent/sessions")
		if got := texts(doc.Find(testid("session-link"))); !slices.Contains(got, "sh-1") || !slices.Contains(got, "bj-1") {
			t.Fatalf("reviewer sessions = %v, want every subject's", got)
		}
	})

	t.Run("ReviewerSearchAllProjects", func(t *testing.T) {
		// Without a project filter a reviewer searches only their projects.
		_, doc := clients[TravelReviewer].Get("/search?q=200")
		if n := doc.Find(testid("hit")).Length(); n != 0 {
			t.Fatalf("travel reviewer found %d expense events", n)
		}
		_, doc = clients[Admin].Get("/search?q=200")
		if n := doc.Find(testid("hit")).Length(); n == 0 {
			t.Fatal("admin found no expense events")
		}
	})

	t.Run("Navigation", func(t *testing.T) {
		// Every entry leads to a page the account may open; the import page
		// is listed for admins only.
		for _, u := range users[1:] {
			_, doc := clients[u].Get("/")
			got := map[string]string{}
			doc.Find(testid("nav") + " a").Each(func(_ int, s *goquery.Selection) {
				id, _ := s.Attr("data-testid")
				got[strings.TrimPrefix(id, "nav-")] = s.AttrOr("href", "")
			})
			for _, key := range []string{"dashboard", "events", "search"} {
				if got[key] == "" {
					t.Errorf("%s nav lacks %s", u, key)
				}
			}
			if _, ok := got["import"]; ok != (u == Admin) {
				t.Errorf("%s nav has import = %v", u, ok)
			}
			for key, href := range got {
				if res, _ := clients[u].Get(href); res.StatusCode != http.StatusOK {
					t.Errorf("%s nav %s (%s): status %d", u, key, href, res.StatusCode)
				}
			}
		}
		_, doc := clients[anon].Get("/login")
		if doc.Find(testid("nav")).Length() != 0 {
			t.Error("anonymous sees the navigation")
		}
	})
}
