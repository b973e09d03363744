package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

func TestDashboard(t *testing.T) {
	f := NewFixture(t, web.Config{})
	t.Run("Admin", func(t *testing.T) {
		_, doc := f.Login(t, Admin).Get("/")
		for slug, events := range map[string]string{"travel-agent": "10", "expense-agent": "2"} {
			card := doc.Find(testid("project-" + slug))
			if got := card.Find(testid("count-events")).Text(); got != events {
				t.Errorf("%s events = %q, want %s", slug, got, events)
			}
			if card.Find(testid("count-rules")).Length() != 1 || card.Find(testid("count-candidates")).Length() != 1 {
				t.Errorf("%s: consolidated and semantic counts missing", slug)
			}
		}
		if href, _ := doc.Find(testid("next-accounts")).Attr("href"); href != "/admin/accounts" {
			t.Errorf("admin's next step to accounts = %q", href)
		}
	})
	t.Run("Reviewer", func(t *testing.T) {
		_, doc := f.Login(t, TravelReviewer).Get("/")
		if doc.Find(testid("project-expense-agent")).Length() != 0 {
			t.Fatal("travel reviewer sees the expense project")
		}
		card := doc.Find(testid("project-travel-agent"))
		if got := card.Find(testid("count-sessions")).Text(); got != "3" {
			t.Fatalf("sessions = %q, want 3", got)
		}
		if got := card.Find(testid("access")).Text(); got != "reviewer" {
			t.Fatalf("access = %q", got)
		}
	})
	t.Run("Member", func(t *testing.T) {
		_, doc := f.Login(t, MemberLi).Get("/")
		if n := doc.Find(`article[data-testid^="project-"]`).Length(); n != 1 {
			t.Fatalf("member sees %d projects, want 1", n)
		}
		card := doc.Find(testid("project-travel-agent"))
		// Their subject only: bj-1 (6 messages + end) and bj-2 (1).
		if got := card.Find(testid("count-events")).Text(); got != "8" {
			t.Errorf("events = %q, want 8 (their subject's)", got)
		}
		if got := card.Find(testid("count-sessions")).Text(); got != "2" {
			t.Errorf("sessions = %q, want 2", got)
		}
		if got := card.Find(testid("subject")).Text(); got != "family-li" {
			t.Errorf("subject = %q", got)
		}
		if card.Find(testid("count-rules")).Length() != 0 {
			t.Error("member sees project-wide rule counts")
		}
	})
}

func TestEventsBrowser(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Login(t, TravelReviewer)

	t.Run("Projects", func(t *testing.T) {
		res, doc := c.Get("/events")
		wantStatus(t, res, http.StatusOK)
		if got := texts(doc.Find(testid("project-row") + " a")); len(got) != 1 || got[0] != "Travel agent" {
			t.Fatalf("projects = %v", got)
		}
	})

	t.Run("Sessions", func(t *testing.T) {
		res, doc := c.Get("/projects/travel-agent/sessions")
		wantStatus(t, res, http.StatusOK)
		if got := doc.Find("h1").Text(); got != "Sessions of Travel agent" {
			t.Fatalf("h1 = %q", got)
		}
		bj1 := doc.Find(`a[href="/projects/travel-agent/sessions/bj-1"]`).Closest("tr")
		if got := bj1.Find(testid("session-failed")).Text(); got != "1 failed" {
			t.Errorf("bj-1 failed badge = %q", got)
		}
		if got := bj1.Find(testid("session-external")).Text(); got != "1 external" {
			t.Errorf("bj-1 external badge = %q", got)
		}
	})

	t.Run("Timeline", func(t *testing.T) {
		res, doc := c.Get("/projects/travel-agent/sessions/bj-1")
		wantStatus(t, res, http.StatusOK)
		events := doc.Find(testid("event"))
		if events.Length() != 6 {
			t.Fatalf("events = %d, want 6", events.Length())
		}
		if got := texts(events.Find(testid("event-turn"))); strings.Join(got, ",") != "Turn 1,Turn 2,Turn 3,Turn 4,Turn 5,Turn 6" {
			t.Fatalf("turns = %v", got)
		}
		failed := doc.Find("#" + fmt.Sprintf("event-%d", f.Seqs["bj-1-3"]))
		if got := failed.Find(testid("event-tool")).Text(); got != "route_checker" {
			t.Errorf("tool = %q", got)
		}
		if s := failed.Find(testid("event-status")); s.Text() != "failed" || !s.HasClass("badge-failed") {
			t.Errorf("failed status badge = %q classes %q", s.Text(), s.AttrOr("class", ""))
		}
		passed := doc.Find("#" + fmt.Sprintf("event-%d", f.Seqs["bj-1-4"])).Find(testid("event-status"))
		if passed.Text() != "passed" || !passed.HasClass("badge-passed") {
			t.Errorf("passed status badge = %q classes %q", passed.Text(), passed.AttrOr("class", ""))
		}
		external := doc.Find("#" + fmt.Sprintf("event-%d", f.Seqs["bj-1-6"]))
		if external.Find(testid("event-external")).Text() != "external" || !external.HasClass("source-external") {
			t.Error("external event not marked")
		}
		if doc.Find(testid("event-external")).Length() != 1 {
			t.Error("conversation events marked external")
		}
		if end := doc.Find(testid("session-end")); end.Length() != 1 || !strings.Contains(end.Text(), "Session ended") {
			t.Errorf("session end marker = %q", end.Text())
		}
		if doc.Find(`[data-highlighted]`).Length() != 0 {
			t.Error("a plain timeline highlights an event")
		}
	})

	t.Run("DeepLink", func(t *testing.T) {
		seq := f.Seqs["bj-1-5"]
		res, doc := c.Get(fmt.Sprintf("/events/%d", seq))
		wantStatus(t, res, http.StatusOK)
		hl := doc.Find(`[data-highlighted="true"]`)
		if hl.Length() != 1 {
			t.Fatalf("highlighted events = %d, want 1", hl.Length())
		}
		if id, _ := hl.Attr("id"); id != fmt.Sprintf("event-%d", seq) {
			t.Fatalf("highlighted id = %q", id)
		}
		if !strings.Contains(hl.Find(testid("event-text")).Text(), "午睡") {
			t.Fatalf("highlighted text = %q", hl.Text())
		}
		if doc.Find(testid("event")).Length() != 6 {
			t.Fatal("deep link does not show the session around the event")
		}
		if href, _ := hl.Find(testid("event-permalink")).Attr("href"); href != fmt.Sprintf("/events/%d#event-%d", seq, seq) {
			t.Fatalf("permalink = %q", href)
		}
	})

	t.Run("HTMXPartial", func(t *testing.T) {
		res, body := c.Do(http.MethodGet, "/projects/travel-agent/sessions/bj-1", nil,
			http.Header{"Hx-Request": {"true"}, "Hx-Target": {"timeline"}})
		wantStatus(t, res, http.StatusOK)
		if strings.Contains(body, "<html") || strings.Contains(body, "<nav aria-label=\"Main\"") {
			t.Fatal("partial contains the layout")
		}
		doc := parse(t, body)
		if doc.Find("section#timeline").Length() != 1 || doc.Find("h1").Length() != 0 {
			t.Fatalf("partial is not the timeline section: %.200s", body)
		}
		// An htmx request for the whole page body (no target) drops only the layout.
		res, body = c.Do(http.MethodGet, "/projects/travel-agent/sessions", nil, http.Header{"Hx-Request": {"true"}})
		wantStatus(t, res, http.StatusOK)
		if strings.Contains(body, "<html") || !strings.Contains(body, "<h1>") {
			t.Fatalf("htmx page render: %.200s", body)
		}
		// Boosted and history-restore requests get the full page.
		for _, h := range []string{"Hx-Boosted", "Hx-History-Restore-Request"} {
			_, body = c.Do(http.MethodGet, "/projects/travel-agent/sessions", nil, http.Header{"Hx-Request": {"true"}, h: {"true"}})
			if !strings.Contains(body, "<html") {
				t.Errorf("%s: layout missing", h)
			}
		}
	})
}

func TestTimelinePaging(t *testing.T) {
	f := NewFixture(t, web.Config{})
	var events []*governance.Event
	for i := 1; i <= 120; i++ {
		e := ev(fmt.Sprintf("long-%d", i), "long", "family-li", i, governance.RoleUser, fmt.Sprintf("第 %d 条消息 message %d", i, i))
		e.OccurredAt = t0.Add(time.Duration(i) * time.Second)
		events = append(events, e)
	}
	MustIngest(t, f.Store, f.Travel, events...)
	c := f.Login(t, MemberLi)

	res, doc := c.Get("/projects/travel-agent/sessions/long")
	wantStatus(t, res, http.StatusOK)
	if n := doc.Find(testid("event")).Length(); n != 50 {
		t.Fatalf("page 1 events = %d, want 50", n)
	}
	if got := doc.Find(testid("pager-status")).Text(); got != "Page 1 of 3" {
		t.Fatalf("pager = %q", got)
	}
	next, _ := doc.Find(testid("pager-next")).Attr("href")
	if next != "/projects/travel-agent/sessions/long?page=2" {
		t.Fatalf("next = %q", next)
	}
	if hxt, _ := doc.Find(testid("pager-next")).Attr("hx-target"); hxt != "#timeline" {
		t.Fatalf("hx-target = %q", hxt)
	}

	res, doc = c.Get("/projects/travel-agent/sessions/long?page=3")
	wantStatus(t, res, http.StatusOK)
	if got := texts(doc.Find(testid("event-turn"))); len(got) != 20 || got[0] != "Turn 101" {
		t.Fatalf("page 3 = %d events from %v", len(got), got[:1])
	}

	// A deep link opens the page that holds the event.
	res, doc = c.Get(fmt.Sprintf("/events/%d", events[74].Seq))
	wantStatus(t, res, http.StatusOK)
	if got := doc.Find(testid("pager-status")).Text(); got != "Page 2 of 3" {
		t.Fatalf("deep link pager = %q, want page 2", got)
	}
	if got := doc.Find(`[data-highlighted="true"] ` + testid("event-turn")).Text(); got != "Turn 75" {
		t.Fatalf("highlighted = %q", got)
	}

	// Paging through htmx returns only the timeline.
	_, body := c.Do(http.MethodGet, "/projects/travel-agent/sessions/long?page=2", nil,
		http.Header{"Hx-Request": {"true"}, "Hx-Target": {"timeline"}})
	if strings.Contains(body, "<html") || !strings.Contains(body, `id="timeline"`) {
		t.Fatalf("htmx page: %.200s", body)
	}
}

func TestSessionIDEscaping(t *testing.T) {
	f := NewFixture(t, web.Config{})
	MustIngest(t, f.Store, f.Travel, ev("odd-1", "trip/2025 #1", "family-li", 1, governance.RoleUser, "会话编号里有斜杠"))
	c := f.Login(t, MemberLi)
	_, doc := c.Get("/projects/travel-agent/sessions")
	href, _ := doc.Find(testid("session-link")).First().Attr("href")
	if href != "/projects/travel-agent/sessions/trip%2F2025%20%231" {
		t.Fatalf("href = %q", href)
	}
	res, doc := c.Get(href)
	wantStatus(t, res, http.StatusOK)
	if got := doc.Find(testid("session-id")).Text(); got != "trip/2025 #1" {
		t.Fatalf("session id = %q", got)
	}
}

// A session_end without a turn (turn 0) comes after the last turn, on the
// session's page and on an event's deep link, even when it arrived first.
func TestSessionEndLast(t *testing.T) {
	f := NewFixture(t, web.Config{})
	end := ev("end-1", "ended", "family-li", 0, governance.RoleUser, "")
	end.Kind, end.Role = governance.KindSessionEnd, ""
	end.OccurredAt = t0.Add(10 * time.Minute)
	MustIngest(t, f.Store, f.Travel, end)
	first := ev("ended-1", "ended", "family-li", 1, governance.RoleUser, "第一轮 turn one")
	MustIngest(t, f.Store, f.Travel, first, ev("ended-2", "ended", "family-li", 2, governance.RoleAssistant, "turn two"))
	c := f.Login(t, MemberLi)
	for _, path := range []string{"/projects/travel-agent/sessions/ended", fmt.Sprintf("/events/%d", first.Seq)} {
		res, doc := c.Get(path)
		wantStatus(t, res, http.StatusOK)
		var order []string
		doc.Find(testid("timeline") + " li[data-seq]").Each(func(_ int, s *goquery.Selection) {
			order = append(order, s.AttrOr("data-testid", ""))
		})
		if len(order) != 3 || order[2] != "session-end" {
			t.Fatalf("%s: timeline order = %v, want the session end last", path, order)
		}
	}
	_, doc := c.Get("/projects/travel-agent/sessions/ended", "Accept-Language", "zh-CN")
	if got := doc.Find(testid("session-end") + " strong").Text(); !strings.Contains(got, "会话已结束") {
		t.Errorf("zh-CN session end = %q", got)
	}
	if got := doc.Find(testid("event-turn")).First().Text(); got != "第 1 轮" {
		t.Errorf("zh-CN turn = %q", got)
	}
}
