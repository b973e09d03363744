package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/web"
)

// TestCSRFPlantedCookie reproduces the same-site attack on a double-submit
// cookie: a page served from another port of the same host (cookies are not
// isolated by port) plants a CSRF cookie and posts a form carrying the same
// value. The token must be bound to the signed-in session, so this fails.
func TestCSRFPlantedCookie(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Login(t, TravelReviewer)
	base, _ := url.Parse(f.Server.URL)

	planted := "planted-by-another-port-0123456789abcdef"
	for _, name := range []string{"mnemo_csrf", "_csrf", "csrf"} {
		c.http.Jar.SetCookies(base, []*http.Cookie{{Name: name, Value: planted, Path: "/"}})
	}
	for _, header := range []http.Header{
		{"Content-Type": {"application/x-www-form-urlencoded"}},
		{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Csrf-Token": {planted}},
	} {
		res, _ := c.Do(http.MethodPost, "/logout", strings.NewReader("csrf="+planted), header)
		wantStatus(t, res, http.StatusForbidden)
	}
	res, _ := c.Get("/")
	wantStatus(t, res, http.StatusOK) // still signed in: the forged logout did nothing
}

// TestCSRFBoundToSession: a token is only good with the session it was
// issued to, and signing in issues a new one.
func TestCSRFBoundToSession(t *testing.T) {
	f := NewFixture(t, web.Config{})

	t.Run("ErrOtherSessionsToken", func(t *testing.T) {
		attacker := f.Login(t, ExpenseReviewer)
		stolen := attacker.CSRF("/")
		victim := f.Login(t, TravelReviewer)
		res, _ := victim.PostRaw("/logout", url.Values{"csrf": {stolen}})
		wantStatus(t, res, http.StatusForbidden)
	})

	t.Run("RotatedAtSignIn", func(t *testing.T) {
		c := f.Anonymous(t)
		before := c.CSRF("/login")
		res, _ := c.PostRaw("/login", url.Values{"username": {TravelReviewer}, "password": {password}, "csrf": {before}})
		wantStatus(t, res, http.StatusSeeOther)
		after := c.CSRF("/")
		if after == before {
			t.Fatal("the CSRF token was not rotated at sign-in")
		}
		res, _ = c.PostRaw("/logout", url.Values{"csrf": {before}})
		wantStatus(t, res, http.StatusForbidden)
		res, _ = c.PostRaw("/logout", url.Values{"csrf": {after}})
		wantStatus(t, res, http.StatusSeeOther)
	})

	t.Run("ErrOtherOrigin", func(t *testing.T) {
		c := f.Login(t, TravelReviewer)
		token := c.CSRF("/")
		other := strings.Replace(f.Server.URL, "127.0.0.1", "localhost", 1)
		for _, h := range []http.Header{
			{"Origin": {other}},
			{"Origin": {"null"}},
			{"Sec-Fetch-Site": {"same-site"}},
		} {
			h.Set("Content-Type", "application/x-www-form-urlencoded")
			res, _ := c.Do(http.MethodPost, "/logout", strings.NewReader("csrf="+token), h)
			wantStatus(t, res, http.StatusForbidden)
		}
		res, _ := c.Do(http.MethodPost, "/logout", strings.NewReader("csrf="+token), http.Header{
			"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {f.Server.URL}, "Sec-Fetch-Site": {"same-origin"}})
		wantStatus(t, res, http.StatusSeeOther)
	})
}

// TestHostCookieUnderTLS: with secure cookies the session cookie carries the
// __Host- prefix, so no other origin of the host can set or shadow it.
func TestHostCookieUnderTLS(t *testing.T) {
	f := NewFixture(t, web.Config{SecureCookies: true})
	c := f.Anonymous(t)
	res, _ := c.Get("/login")
	var names []string
	for _, ck := range res.Cookies() {
		names = append(names, ck.Name)
		if !strings.HasPrefix(ck.Name, "__Host-") || !ck.Secure || ck.Path != "/" || ck.Domain != "" {
			t.Fatalf("cookie %+v: want __Host- prefix, Secure, Path=/ and no Domain", ck)
		}
	}
	if len(names) == 0 {
		t.Fatal("no cookie set on the login page")
	}
}
