package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

func TestNavigation(t *testing.T) {
	f := NewFixture(t, web.Config{})

	t.Run("GroupsInDropDowns", func(t *testing.T) {
		_, doc := f.Login(t, Admin).Get("/")
		memory := doc.Find(testid("nav-group-Memory"))
		if memory.Find(testid("nav-episodes")).Length() != 1 || memory.Find(testid("nav-heartbeat")).Length() != 1 {
			t.Fatal("Episodes and Heartbeat are not in the Memory menu")
		}
		if memory.Find("summary").Length() != 1 {
			t.Fatal("the Memory menu has no summary to open it")
		}
		if doc.Find(testid("nav-group-Admin")+" "+testid("nav-import")).Length() != 1 {
			t.Fatal("Import is not in the Admin menu")
		}
		if a := doc.Find(testid("nav-group-Admin") + " " + testid("nav-sources")); a.Length() != 1 || a.AttrOr("href", "") != "/admin/sources" {
			t.Fatal("Sources is not in the Admin menu")
		}
		_, doc = f.Login(t, MemberLi).Get("/")
		if doc.Find(testid("nav-group-Admin")).Length() != 0 || doc.Find(testid("nav-me")).Length() != 1 {
			t.Fatal("a member sees the Admin menu or lacks My memories")
		}
	})

	t.Run("ReviewBadgeOnEveryPageAndLive", func(t *testing.T) {
		beat(t, f)
		c := f.Login(t, TravelReviewer)
		_, doc := c.Get("/search")
		badge := strings.TrimSpace(doc.Find(testid("nav-review-badge")).Text())
		if badge == "" {
			t.Fatal("no pending-review count on the search page")
		}
		link := doc.Find(testid("nav-review"))
		if hx, _ := link.Attr("hx-get"); hx != "/review/badge" {
			t.Fatalf("review entry polls %q", hx)
		}
		res, body := c.Do("GET", "/review/badge", nil, http.Header{"Hx-Request": {"true"}})
		wantStatus(t, res, http.StatusOK)
		if !strings.Contains(body, "Review") || !strings.Contains(body, badge) || strings.Contains(body, "<html") {
			t.Fatalf("badge fragment = %q, want Review %s", body, badge)
		}
		// Once nothing waits, the count goes away.
		if _, err := f.Store.DB().ExecContext(context.Background(), `UPDATE rules SET status = ? WHERE status = 'proposed'`, governance.RuleActive); err != nil {
			t.Fatal(err)
		}
		_, body = c.Do("GET", "/review/badge", nil, http.Header{"Hx-Request": {"true"}})
		if strings.Contains(body, "(") {
			t.Fatalf("badge after approval = %q", body)
		}
		res, _ = f.Login(t, MemberLi).Get("/review/badge")
		wantStatus(t, res, http.StatusForbidden)
	})
}

// TestEveryPageAccessible runs the accessibility smoke check over every
// page of the navigation, for an admin and for a member.
func TestEveryPageAccessible(t *testing.T) {
	f := NewFixture(t, web.Config{Heartbeat: &fakeHeartbeat{}})
	beat(t, f)
	for _, user := range []string{Admin, MemberLi} {
		c := f.Login(t, user)
		_, home := c.Get("/")
		links := home.Find(testid("nav") + " a")
		if links.Length() < 5 {
			t.Fatalf("%s has %d navigation links", user, links.Length())
		}
		links.Each(func(_ int, s *goquery.Selection) {
			href := s.AttrOr("href", "")
			res, doc := c.Get(href)
			if res.StatusCode != http.StatusOK {
				t.Errorf("%s %s = %d", user, href, res.StatusCode)
				return
			}
			for _, p := range a11yProblems(doc) {
				t.Errorf("%s %s: %s", user, href, p)
			}
		})
	}
}
