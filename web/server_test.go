package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/web"
	"github.com/mnemo-console/mnemo/web/static"
)

func TestHealthz(t *testing.T) {
	f := NewFixture(t, web.Config{})
	res, body := f.Anonymous(t).Do(http.MethodGet, "/healthz", nil, nil)
	wantStatus(t, res, http.StatusOK)
	var got map[string]string
	if err := json.Unmarshal([]byte(body), &got); err != nil || got["status"] != "ok" || got["database"] != "ok" {
		t.Fatalf("healthz = %s (%v)", body, err)
	}
	if res.Header.Get("Set-Cookie") != "" {
		t.Fatal("healthz sets cookies")
	}

	t.Run("ErrDatabaseClosed", func(t *testing.T) {
		f := NewFixture(t, web.Config{})
		f.Store.Close()
		res, _ := f.Anonymous(t).Do(http.MethodGet, "/healthz", nil, nil)
		wantStatus(t, res, http.StatusServiceUnavailable)
	})
}

func TestNotFound(t *testing.T) {
	f := NewFixture(t, web.Config{})
	for name, c := range map[string]*Client{"Anonymous": f.Anonymous(t), "SignedIn": f.Login(t, MemberLi)} {
		t.Run(name, func(t *testing.T) {
			res, doc := c.Get("/no/such/page")
			wantStatus(t, res, http.StatusNotFound)
			if got := doc.Find(testid("error-title")).Text(); got != "Not found" {
				t.Fatalf("title = %q", got)
			}
			if doc.Find("html").Length() != 1 {
				t.Fatal("404 is not a full page")
			}
		})
	}
	t.Run("HTMX", func(t *testing.T) {
		c := f.Login(t, MemberLi)
		res, body := c.Do(http.MethodGet, "/projects/travel-agent/sessions/sh-1", nil,
			http.Header{"Hx-Request": {"true"}, "Hx-Target": {"timeline"}})
		wantStatus(t, res, http.StatusNotFound)
		if strings.Contains(body, "<html") {
			t.Fatal("htmx error has the layout")
		}
		if res.Header.Get("HX-Retarget") != "#htmx-error" {
			t.Fatalf("HX-Retarget = %q", res.Header.Get("HX-Retarget"))
		}
		if doc := parse(t, body); doc.Find(testid("error-partial")).Length() != 1 {
			t.Fatalf("no error partial: %s", body)
		}
	})
	t.Run("HTMXAnonymous", func(t *testing.T) {
		res, _ := f.Anonymous(t).Do(http.MethodGet, "/search", nil,
			http.Header{"Hx-Request": {"true"}, "Hx-Current-Url": {f.Server.URL + "/search?q=x"}})
		if got := res.Header.Get("HX-Redirect"); got != "/login?next=%2Fsearch%3Fq%3Dx" {
			t.Fatalf("HX-Redirect = %q", got)
		}
	})
}

func TestSecurityHeaders(t *testing.T) {
	f := NewFixture(t, web.Config{})
	res, _ := f.Anonymous(t).Get("/login")
	for h, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"X-Frame-Options":        "DENY",
		"Referrer-Policy":        "same-origin",
	} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP = %q", csp)
	}
	if res.Header.Get("X-Request-Id") == "" {
		t.Error("no request id")
	}
}

func TestSecureCookies(t *testing.T) {
	f := NewFixture(t, web.Config{SecureCookies: true})
	res, _ := f.Anonymous(t).Get("/login")
	for _, ck := range res.Cookies() {
		if !ck.Secure || !ck.HttpOnly {
			t.Errorf("cookie %s: Secure=%v HttpOnly=%v", ck.Name, ck.Secure, ck.HttpOnly)
		}
	}
}

func TestStatic(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Anonymous(t)
	_, doc := c.Get("/login")
	var assets []string
	doc.Find(`link[rel="stylesheet"], script[src]`).Each(func(_ int, s *goquery.Selection) {
		assets = append(assets, s.AttrOr("href", s.AttrOr("src", "")))
	})
	if len(assets) != 4 {
		t.Fatalf("assets = %v", assets)
	}
	for _, a := range assets {
		if !strings.HasSuffix(a, "?v="+static.Version) {
			t.Errorf("asset %q not versioned", a)
		}
		res, body := c.Do(http.MethodGet, a, nil, nil)
		wantStatus(t, res, http.StatusOK)
		if got := res.Header.Get("Cache-Control"); !strings.Contains(got, "immutable") {
			t.Errorf("%s Cache-Control = %q", a, got)
		}
		if len(body) < 100 {
			t.Errorf("%s is %d bytes", a, len(body))
		}
	}
	res, _ := c.Do(http.MethodGet, "/static/htmx.min.js", nil, nil)
	if got := res.Header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("unversioned Cache-Control = %q", got)
	}
	res, _ = c.Do(http.MethodGet, "/static/", nil, nil)
	wantStatus(t, res, http.StatusNotFound)
}
