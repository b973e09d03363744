package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/sessions"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/web"
)

func TestLogin(t *testing.T) {
	f := NewFixture(t, web.Config{})

	t.Run("OK", func(t *testing.T) {
		c := f.Login(t, MemberLi)
		res, doc := c.Get("/")
		wantStatus(t, res, http.StatusOK)
		if got := strings.TrimSpace(doc.Find(testid("current-user")).Contents().First().Text()); got != MemberLi {
			t.Fatalf("current user = %q, want %q", got, MemberLi)
		}
		if got := doc.Find(testid("current-role")).Text(); got != "member" {
			t.Fatalf("role = %q, want member", got)
		}
	})

	t.Run("RedirectToNext", func(t *testing.T) {
		c := f.Anonymous(t)
		res, _ := c.Get("/search?q=%E5%8D%88%E7%9D%A1")
		wantStatus(t, res, http.StatusSeeOther)
		loc := res.Header.Get("Location")
		if loc != "/login?next=%2Fsearch%3Fq%3D%25E5%258D%2588%25E7%259D%25A1" {
			t.Fatalf("location = %q", loc)
		}
		_, doc := c.Get(loc)
		next, _ := doc.Find(`input[name="next"]`).Attr("value")
		res, _ = c.PostForm(loc, "/login", url.Values{"username": {TravelReviewer}, "password": {password}, "next": {next}})
		wantStatus(t, res, http.StatusSeeOther)
		if got := res.Header.Get("Location"); got != "/search?q=%E5%8D%88%E7%9D%A1" {
			t.Fatalf("after login location = %q, want the search page", got)
		}
	})

	t.Run("OpenRedirect", func(t *testing.T) {
		for _, next := range []string{"//evil.example/x", "https://evil.example/", `/\evil.example`, "javascript:alert(1)"} {
			c := f.Anonymous(t)
			res, _ := c.PostForm("/login", "/login", url.Values{"username": {Admin}, "password": {password}, "next": {next}})
			if got := res.Header.Get("Location"); got != "/" {
				t.Errorf("next=%q: location = %q, want /", next, got)
			}
		}
	})

	t.Run("ErrWrongPassword", func(t *testing.T) {
		c := f.Anonymous(t)
		res, _ := c.PostForm("/login", "/login", url.Values{"username": {MemberWang}, "password": {"nope"}})
		wantStatus(t, res, http.StatusSeeOther)
		res, doc := c.Get(res.Header.Get("Location"))
		wantStatus(t, res, http.StatusOK)
		if got := doc.Find(testid("flash-error")).Text(); got != "Wrong username or password." {
			t.Fatalf("flash = %q", got)
		}
		// Shown once.
		_, doc = c.Get("/login")
		if doc.Find(testid("flash-error")).Length() != 0 {
			t.Fatal("flash shown twice")
		}
		res, _ = c.Get("/")
		wantStatus(t, res, http.StatusSeeOther)
	})

	t.Run("ErrUnknownUser", func(t *testing.T) {
		c := f.Anonymous(t)
		res, _ := c.PostForm("/login", "/login", url.Values{"username": {"nobody"}, "password": {"x"}})
		wantStatus(t, res, http.StatusSeeOther)
		_, doc := c.Get(res.Header.Get("Location"))
		if got := doc.Find(testid("flash-error")).Text(); got != "Wrong username or password." {
			t.Fatalf("flash = %q", got)
		}
	})

	t.Run("ErrEmptyFields", func(t *testing.T) {
		c := f.Anonymous(t)
		res, doc := c.PostForm("/login", "/login", url.Values{"username": {"someone"}, "password": {""}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if v, _ := doc.Find("#login-username").Attr("value"); v != "someone" {
			t.Fatalf("username not kept: %q", v)
		}
		if _, ok := doc.Find("#login-password").Attr("aria-invalid"); !ok {
			t.Fatal("password field not marked invalid")
		}
	})

	t.Run("ErrCSRFMissing", func(t *testing.T) {
		c := f.Anonymous(t)
		c.Get("/login") // gets the CSRF cookie
		res, _ := c.PostRaw("/login", url.Values{"username": {Admin}, "password": {password}})
		wantStatus(t, res, http.StatusForbidden)
	})

	t.Run("ErrCSRFWrong", func(t *testing.T) {
		c := f.Login(t, Admin)
		res, _ := c.PostRaw("/logout", url.Values{"csrf": {"forged"}})
		wantStatus(t, res, http.StatusForbidden)
		res, _ = c.Get("/")
		wantStatus(t, res, http.StatusOK) // still signed in
	})

	t.Run("ErrCrossSite", func(t *testing.T) {
		c := f.Login(t, Admin)
		token := c.CSRF("/")
		res, _ := c.Do(http.MethodPost, "/logout", strings.NewReader("csrf="+token), http.Header{
			"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}})
		wantStatus(t, res, http.StatusForbidden)
	})

	t.Run("CSRFHeader", func(t *testing.T) {
		c := f.Login(t, Admin)
		_, doc := c.Get("/")
		headers, _ := doc.Find("body").Attr("hx-headers")
		if !strings.Contains(headers, "X-CSRF-Token") {
			t.Fatalf("body hx-headers = %q", headers)
		}
		token := c.CSRF("/")
		res, _ := c.Do(http.MethodPost, "/logout", nil, http.Header{"X-Csrf-Token": {token}, "Hx-Request": {"true"}})
		wantStatus(t, res, http.StatusNoContent)
		if got := res.Header.Get("HX-Redirect"); got != "/login" {
			t.Fatalf("HX-Redirect = %q", got)
		}
	})

	t.Run("Logout", func(t *testing.T) {
		c := f.Login(t, TravelReviewer)
		res, _ := c.PostForm("/", "/logout", url.Values{})
		wantStatus(t, res, http.StatusSeeOther)
		if got := res.Header.Get("Location"); got != "/login" {
			t.Fatalf("location = %q", got)
		}
		res, _ = c.Get("/")
		wantStatus(t, res, http.StatusSeeOther)
	})

	t.Run("SessionCookie", func(t *testing.T) {
		c := f.Anonymous(t)
		c.Get("/login")
		token := c.CSRF("/login")
		res, _ := c.PostRaw("/login", url.Values{"username": {Admin}, "password": {password}, "csrf": {token}})
		var found bool
		for _, ck := range res.Cookies() {
			if ck.Name == auth.SessionName {
				found = true
				if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure {
					t.Fatalf("session cookie = %+v, want HttpOnly, SameSite=Lax, not Secure without TLS", ck)
				}
			}
		}
		if !found {
			t.Fatal("no session cookie")
		}
	})
}

func TestLoginRateLimit(t *testing.T) {
	f := NewFixture(t, web.Config{LoginLimit: auth.LimitConfig{Burst: 5, Every: time.Hour}})
	c := f.Anonymous(t)
	for i := range 5 {
		res, _ := c.PostForm("/login", "/login", url.Values{"username": {Admin}, "password": {"wrong"}})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("attempt %d: status %d, want 303", i+1, res.StatusCode)
		}
	}
	// The right password is refused too while limited.
	res, doc := c.PostForm("/login", "/login", url.Values{"username": {Admin}, "password": {password}})
	wantStatus(t, res, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After header")
	}
	if got := doc.Find(testid("login-error")).Text(); !strings.Contains(got, "Too many sign-in attempts") {
		t.Fatalf("error = %q", got)
	}
	if _, ok := res.Header["Set-Cookie"]; ok {
		for _, ck := range res.Cookies() {
			if ck.Name == auth.SessionName && ck.MaxAge >= 0 {
				t.Fatal("rate-limited attempt signed in")
			}
		}
	}
}

// A stranger failing to sign in as admin from another address does not lock
// the admin out of their own address.
func TestLoginLockoutFromAnotherAddress(t *testing.T) {
	f := NewFixture(t, web.Config{TrustProxy: true, LoginLimit: auth.LimitConfig{Burst: 5, Every: time.Hour}})
	post := func(c *Client, ip, pw string) *http.Response {
		token := c.CSRF("/login")
		res, _ := c.Do(http.MethodPost, "/login", strings.NewReader(url.Values{"username": {Admin}, "password": {pw}, "csrf": {token}}.Encode()),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Forwarded-For": {ip}})
		return res
	}
	stranger := f.Anonymous(t)
	for range 8 {
		post(stranger, "203.0.113.7", "wrong")
	}
	if res := post(stranger, "203.0.113.7", "wrong"); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("stranger's attempt past the budget: status %d, want 429", res.StatusCode)
	}
	owner := f.Anonymous(t)
	res := post(owner, "198.51.100.2", password)
	wantStatus(t, res, http.StatusSeeOther)
	if got := res.Header.Get("Location"); got != "/" {
		t.Fatalf("owner's sign-in went to %q, want /", got)
	}
}

// A copied session cookie (another browser, a stolen one) stops working
// when the account signs out anywhere or its password changes.
func TestSessionsEnd(t *testing.T) {
	f := NewFixture(t, web.Config{})
	copyOf := func(c *Client) *Client {
		t.Helper()
		other := f.Anonymous(t)
		u, _ := url.Parse(f.Server.URL)
		other.http.Jar.SetCookies(u, c.http.Jar.Cookies(u))
		return other
	}
	signedIn := func(c *Client) bool {
		res, _ := c.Get("/")
		return res.StatusCode == http.StatusOK
	}

	t.Run("SignOutEndsEveryCopy", func(t *testing.T) {
		c := f.Login(t, MemberLi)
		stolen := copyOf(c)
		if !signedIn(stolen) {
			t.Fatal("the copied cookie does not work before sign-out")
		}
		res, _ := c.PostForm("/", "/logout", url.Values{})
		wantStatus(t, res, http.StatusSeeOther)
		if signedIn(stolen) {
			t.Fatal("the copied cookie still works after sign-out")
		}
		if !signedIn(f.Login(t, MemberLi)) {
			t.Fatal("signing in again does not work")
		}
	})

	t.Run("PasswordChangeEndsSessions", func(t *testing.T) {
		c := f.Login(t, MemberWang)
		a, err := f.Store.FindAccountByUsername(context.Background(), MemberWang)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Store.SetPasswordHash(context.Background(), a.ID, a.PasswordHash); err != nil {
			t.Fatal(err)
		}
		if signedIn(c) {
			t.Fatal("the session survived a password change")
		}
	})
}

// TestGobSessionCookie: a session cookie written before the session values
// had their own format (gorilla's gob) still signs its holder in, and the
// page's forms carry the CSRF token it holds.
func TestGobSessionCookie(t *testing.T) {
	f := NewFixture(t, web.Config{})
	ctx := context.Background()
	hashKey, blockKey, err := app.New(f.Store).SessionKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := f.Store.FindAccountByUsername(ctx, MemberLi)
	if err != nil {
		t.Fatal(err)
	}
	old := sessions.NewCookieStore(hashKey, blockKey)
	sess := sessions.NewSession(old, auth.SessionName)
	sess.Values = map[any]any{"account_id": a.ID, "session_gen": a.SessionGen, "csrf": "token-from-a-gob-cookie"}
	w := httptest.NewRecorder()
	if err := sess.Save(httptest.NewRequest(http.MethodGet, "/", nil), w); err != nil {
		t.Fatal(err)
	}
	c := f.Anonymous(t)
	u, _ := url.Parse(f.Server.URL)
	c.http.Jar.SetCookies(u, w.Result().Cookies())
	res, doc := c.Get("/search")
	wantStatus(t, res, http.StatusOK)
	if got := strings.TrimSpace(doc.Find(testid("current-user")).Contents().First().Text()); got != MemberLi {
		t.Fatalf("current user = %q, want %q", got, MemberLi)
	}
	if got := doc.Find(`input[name="csrf"]`).First().AttrOr("value", ""); got != "token-from-a-gob-cookie" {
		t.Fatalf("CSRF token = %q, want the cookie's", got)
	}
	if got := res.Header.Values("Set-Cookie"); len(got) != 0 {
		t.Fatalf("a page view rewrote the session: %q", got)
	}
}
