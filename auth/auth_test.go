package auth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
)

// cheap keeps the tests fast under -race; VerifyPassword reads the
// parameters from the hash itself.
var cheap = auth.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestPassword(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		h, err := auth.HashPassword("correct horse")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
			t.Fatalf("hash = %q, want PHC argon2id with default params", h)
		}
		if ok, err := auth.VerifyPassword(h, "correct horse"); err != nil || !ok {
			t.Fatalf("verify = %v, %v; want true, nil", ok, err)
		}
		if ok, err := auth.VerifyPassword(h, "correct horsE"); err != nil || ok {
			t.Fatalf("verify wrong = %v, %v; want false, nil", ok, err)
		}
	})
	t.Run("Salted", func(t *testing.T) {
		a, _ := auth.HashPasswordWith("same", cheap)
		b, _ := auth.HashPasswordWith("same", cheap)
		if a == b {
			t.Fatal("two hashes of one password are equal; salt missing")
		}
	})
	t.Run("ErrMalformed", func(t *testing.T) {
		for _, h := range []string{
			"",
			"plain",
			"$2a$10$abcdefghijklmnopqrstuv",
			"$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
			"$argon2id$v=19$m=999999999,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
			"$argon2id$v=19$m=64,t=1,p=1$!!!$aGFzaGhhc2hoYXNoaGFzaA",
		} {
			if _, err := auth.VerifyPassword(h, "x"); !errors.Is(err, auth.ErrMalformedHash) {
				t.Errorf("VerifyPassword(%q) err = %v, want ErrMalformedHash", h, err)
			}
		}
	})
	t.Run("TooLong", func(t *testing.T) {
		if _, err := auth.HashPasswordWith(strings.Repeat("x", auth.MaxPasswordBytes+1), cheap); err == nil {
			t.Fatal("want error for an over-long password")
		}
	})
	t.Run("Generate", func(t *testing.T) {
		a, b := auth.GeneratePassword(), auth.GeneratePassword()
		if len(a) < 20 || a == b {
			t.Fatalf("GeneratePassword = %q, %q; want long and distinct", a, b)
		}
	})
}

func TestHashToken(t *testing.T) {
	got := auth.HashToken("abc")
	want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got != want {
		t.Fatalf("HashToken = %s, want %s", got, want)
	}
}

func TestLoginLimiter(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	newLimiter := func() *auth.LoginLimiter {
		return auth.NewLoginLimiter(auth.LimitConfig{Burst: 5, Every: 10 * time.Second, Now: func() time.Time { return now }})
	}
	allowed := func(l *auth.LoginLimiter, ip, user string) bool {
		a, _ := l.Allow(ip, user)
		return a != nil
	}
	t.Run("StrangerCannotLockOwnerOut", func(t *testing.T) {
		l := newLimiter()
		// A stranger keeps failing for alice from another address...
		for i := range 50 {
			a, _ := l.Allow("203.0.113.7", "alice")
			if a == nil && i < 5 {
				t.Fatalf("stranger's attempt %d refused", i+1)
			}
			now = now.Add(time.Second)
		}
		// ...alice's own address keeps its own budget.
		for i := range 5 {
			if !allowed(l, "10.0.0.1", " Alice") {
				t.Fatalf("owner's attempt %d refused after a stranger's failures", i+1)
			}
		}
	})
	t.Run("FloodOfOtherNamesKeepsTheBackoff", func(t *testing.T) {
		l := auth.NewLoginLimiter(auth.LimitConfig{Burst: 5, Every: 10 * time.Second, MaxKeys: 50, Now: func() time.Time { return now }})
		for range 6 {
			allowed(l, "198.51.100.9", "carol")
		}
		if allowed(l, "198.51.100.9", "carol") {
			t.Fatal("carol's backoff did not start")
		}
		// The same address floods other names (its budget refuses most),
		// and many addresses try a name each.
		for i := range 5000 {
			allowed(l, "198.51.100.9", fmt.Sprintf("user%d", i))
			allowed(l, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), fmt.Sprintf("user%d", i))
		}
		if l.Len() > 2*50+2 {
			t.Errorf("the limiter holds %d keys, want them bounded", l.Len())
		}
		if allowed(l, "198.51.100.9", "carol") {
			t.Fatal("flooding other names reset carol's backoff")
		}
	})
	t.Run("BackoffPerAccountAndAddress", func(t *testing.T) {
		l := newLimiter()
		for i := range 5 {
			if !allowed(l, "10.0.0.2", "bob") {
				t.Fatalf("attempt %d refused", i+1)
			}
		}
		var waits []time.Duration
		for range 4 {
			a, wait := l.Allow("10.0.0.2", "bob")
			if a != nil || wait <= 0 {
				t.Fatalf("attempt past the budget = %v, %v; want refused with a wait", a, wait)
			}
			waits = append(waits, wait)
			now = now.Add(wait)
			if !allowed(l, "10.0.0.2", "bob") {
				t.Fatalf("attempt after waiting %v refused", wait)
			}
		}
		for i := 1; i < len(waits); i++ {
			if waits[i] < 2*waits[i-1]-time.Second {
				t.Fatalf("waits %v do not back off", waits)
			}
		}
		// Another account from the same address is not slowed by bob's
		// backoff (only by the address's own budget).
		now = now.Add(time.Hour)
		if !allowed(l, "10.0.0.2", "carol") {
			t.Fatal("another account from the address refused")
		}
	})
	t.Run("PerIP", func(t *testing.T) {
		l := newLimiter()
		for i := range 5 {
			if !allowed(l, "10.1.1.1", fmt.Sprintf("user%d", i)) {
				t.Fatalf("attempt %d refused", i+1)
			}
		}
		if allowed(l, "10.1.1.1", "zed") {
			t.Fatal("6th attempt from one IP allowed")
		}
		if !allowed(l, "10.1.1.2", "zed") {
			t.Fatal("refused attempt used up the username's allowance")
		}
	})
	t.Run("SuccessIsFree", func(t *testing.T) {
		l := newLimiter()
		for i := range 20 {
			a, _ := l.Allow("10.2.2.2", fmt.Sprintf("user%d", i))
			if a == nil {
				t.Fatalf("successful sign-in %d refused", i+1)
			}
			now = now.Add(50 * time.Millisecond) // the password check takes time
			a.Succeeded()
			a.Succeeded() // idempotent
		}
	})
	t.Run("FailuresCount", func(t *testing.T) {
		l := newLimiter()
		for i := range 5 {
			a, _ := l.Allow("10.3.3.3", "carol")
			if a == nil {
				t.Fatalf("attempt %d refused", i+1)
			}
			now = now.Add(50 * time.Millisecond)
		}
		if allowed(l, "10.3.3.3", "carol") {
			t.Fatal("6th failed attempt allowed")
		}
	})
	t.Run("Eviction", func(t *testing.T) {
		l := auth.NewLoginLimiter(auth.LimitConfig{Burst: 1, Every: time.Second, MaxKeys: 10, Now: func() time.Time { return now }})
		for i := range 1000 {
			l.Allow(fmt.Sprintf("ip-%d", i), fmt.Sprintf("user-%d", i))
		}
		if n := l.Len(); n > 20 {
			t.Fatalf("limiter holds %d keys, want at most 2×MaxKeys", n)
		}
	})
}

func newSessions(t *testing.T) *auth.Sessions {
	t.Helper()
	s, err := auth.NewSessions([]byte(strings.Repeat("h", 32)), []byte(strings.Repeat("b", 32)), true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// roundTrip carries the cookies of one response into a new request.
func roundTrip(w *httptest.ResponseRecorder) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	for _, c := range w.Result().Cookies() {
		r.AddCookie(c)
	}
	return r
}

func TestSessions(t *testing.T) {
	s := newSessions(t)
	t.Run("Login", func(t *testing.T) {
		w := httptest.NewRecorder()
		r := s.Load(httptest.NewRequest(http.MethodPost, "/login", nil))
		if err := s.Login(w, r, 42, 0); err != nil {
			t.Fatal(err)
		}
		if err := s.AddFlash(w, r, auth.Flash{Kind: auth.FlashSuccess, Message: "Welcome"}); err != nil {
			t.Fatal(err)
		}
		cookies := w.Result().Cookies()
		if len(cookies) != 1 {
			t.Fatalf("got %d session cookies in one response, want 1", len(cookies))
		}
		last := cookies[0]
		if !last.HttpOnly || !last.Secure || last.SameSite != http.SameSiteLaxMode || last.Path != "/" {
			t.Fatalf("cookie = %+v, want HttpOnly, Secure, SameSite=Lax, Path=/", last)
		}
		next := s.Load(roundTrip(w))
		if id, ok := s.AccountID(next); !ok || id != 42 {
			t.Fatalf("AccountID = %d, %v; want 42, true", id, ok)
		}
		w2 := httptest.NewRecorder()
		flashes, err := s.Flashes(w2, next)
		if err != nil {
			t.Fatal(err)
		}
		if len(flashes) != 1 || flashes[0] != (auth.Flash{Kind: auth.FlashSuccess, Message: "Welcome"}) {
			t.Fatalf("flashes = %+v", flashes)
		}
		if id, ok := s.AccountID(s.Load(roundTrip(w2))); !ok || id != 42 {
			t.Fatal("reading flashes lost the sign-in")
		}
	})
	t.Run("Logout", func(t *testing.T) {
		w := httptest.NewRecorder()
		r := s.Load(httptest.NewRequest(http.MethodPost, "/", nil))
		_ = s.Login(w, r, 7, 0)
		w2 := httptest.NewRecorder()
		if err := s.Logout(w2, s.Load(roundTrip(w))); err != nil {
			t.Fatal(err)
		}
		if c := w2.Result().Cookies(); len(c) != 1 || c[0].MaxAge >= 0 {
			t.Fatalf("logout cookies = %+v, want one expired cookie", c)
		}
	})
	t.Run("Tampered", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.AddCookie(&http.Cookie{Name: auth.SessionName, Value: "forged"})
		if _, ok := s.AccountID(s.Load(r)); ok {
			t.Fatal("forged cookie signed in")
		}
		other, _ := auth.NewSessions([]byte(strings.Repeat("x", 32)), []byte(strings.Repeat("y", 32)), false)
		w := httptest.NewRecorder()
		_ = other.Login(w, other.Load(httptest.NewRequest(http.MethodGet, "/", nil)), 1, 0)
		if _, ok := s.AccountID(s.Load(roundTrip(w))); ok {
			t.Fatal("cookie signed with other keys signed in")
		}
	})
	t.Run("GobCookie", func(t *testing.T) {
		// A cookie written before the session values had their own format
		// (gorilla's default, gob) still signs its holder in, with its CSRF
		// token and flashes, and reading it writes nothing.
		old := sessions.NewCookieStore([]byte(strings.Repeat("h", 32)), []byte(strings.Repeat("b", 32)))
		sess := sessions.NewSession(old, auth.SecureSessionName)
		sess.Values = map[any]any{"account_id": int64(42), "session_gen": int64(3), "csrf": "old-token"}
		sess.AddFlash("Welcome back", "_flash_success")
		w := httptest.NewRecorder()
		if err := sess.Save(httptest.NewRequest(http.MethodGet, "/", nil), w); err != nil {
			t.Fatal(err)
		}
		r := s.Load(roundTrip(w))
		if id, ok := s.AccountID(r); !ok || id != 42 || s.Generation(r) != 3 {
			t.Fatalf("AccountID = %d, %v, generation %d; want 42, true, 3", id, ok, s.Generation(r))
		}
		w2 := httptest.NewRecorder()
		if tok, err := s.CSRFToken(w2, r); err != nil || tok != "old-token" {
			t.Fatalf("CSRFToken = %q, %v; want the cookie's", tok, err)
		}
		if c := w2.Result().Cookies(); len(c) != 0 {
			t.Fatalf("reading the session wrote %d cookies", len(c))
		}
		w3 := httptest.NewRecorder()
		flashes, err := s.Flashes(w3, r)
		if err != nil || len(flashes) != 1 || flashes[0] != (auth.Flash{Kind: auth.FlashSuccess, Message: "Welcome back"}) {
			t.Fatalf("flashes = %+v, %v", flashes, err)
		}
		// Taking the flash rewrites the cookie, in the new format, which
		// keeps the sign-in.
		next := s.Load(roundTrip(w3))
		if id, ok := s.AccountID(next); !ok || id != 42 || s.Generation(next) != 3 {
			t.Fatal("the rewritten cookie lost the sign-in")
		}
		if f, _ := s.Flashes(httptest.NewRecorder(), next); len(f) != 0 {
			t.Fatalf("flash shown twice: %+v", f)
		}
	})
	t.Run("ErrShortKeys", func(t *testing.T) {
		if _, err := auth.NewSessions([]byte("short"), []byte(strings.Repeat("b", 32)), false); err == nil {
			t.Fatal("want error for a short hash key")
		}
	})
}

type accounts map[int64]*governance.Account

func (m accounts) FindAccountByID(_ context.Context, id int64) (*governance.Account, error) {
	if a, ok := m[id]; ok {
		return a, nil
	}
	return nil, governance.Errorf(governance.ENOTFOUND, "Account not found.")
}

func TestMiddleware(t *testing.T) {
	s := newSessions(t)
	users := accounts{1: {ID: 1, Username: "root", IsAdmin: true}, 2: {ID: 2, Username: "rita"}}
	e := echo.New()
	whoami := func(c echo.Context) error {
		a := auth.UserFrom(c.Request().Context())
		if a == nil {
			return c.String(http.StatusOK, "anonymous")
		}
		return c.String(http.StatusOK, a.Username)
	}
	e.Use(s.SessionMiddleware(), auth.LoadUser(s, users))
	e.GET("/who", whoami)
	e.GET("/private", whoami, auth.RequireLogin)
	e.GET("/admin", whoami, auth.RequireAdmin)
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		_ = c.String(http.StatusTeapot, governance.ErrorCode(err))
	}
	signedIn := func(id int64) []*http.Cookie {
		w := httptest.NewRecorder()
		_ = s.Login(w, s.Load(httptest.NewRequest(http.MethodGet, "/", nil)), id, 0)
		return w.Result().Cookies()
	}
	for _, tc := range []struct {
		name    string
		account int64
		path    string
		want    string
	}{
		{"AnonymousWho", 0, "/who", "anonymous"},
		{"AnonymousPrivate", 0, "/private", governance.EUNAUTHORIZED},
		{"AnonymousAdmin", 0, "/admin", governance.EUNAUTHORIZED},
		{"UserPrivate", 2, "/private", "rita"},
		{"UserAdmin", 2, "/admin", governance.EFORBIDDEN},
		{"AdminAdmin", 1, "/admin", "root"},
		{"DeletedAccount", 99, "/private", governance.EUNAUTHORIZED},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tc.path, nil)
			if tc.account != 0 {
				for _, c := range signedIn(tc.account) {
					r.AddCookie(c)
				}
			}
			w := httptest.NewRecorder()
			e.ServeHTTP(w, r)
			if got := w.Body.String(); got != tc.want {
				t.Fatalf("body = %q, want %q", got, tc.want)
			}
		})
	}
}
