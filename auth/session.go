package auth

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"
)

// SessionName is the name of the console's session cookie over plain HTTP.
const SessionName = "mnemo_session"

// SecureSessionName is its name when cookies are Secure (TLS): the __Host-
// prefix makes browsers refuse it unless it is Secure, has Path=/ and no
// Domain, so no sibling origin (another port, a subdomain) can set it.
const SecureSessionName = "__Host-mnemo_session"

// SessionMaxAge is how long a sign-in lasts, in seconds (7 days).
const SessionMaxAge = 7 * 24 * 3600

const (
	accountIDKey  = "account_id"
	generationKey = "session_gen"
)

// FlashKind is the style of a flash message.
type FlashKind string

const (
	FlashSuccess FlashKind = "success"
	FlashInfo    FlashKind = "info"
	FlashError   FlashKind = "error"
	// FlashUndo is no message but what the page offers to undo after an
	// action: its Message is "<rule id>:<audit id>".
	FlashUndo FlashKind = "undo"
)

var flashKinds = []FlashKind{FlashError, FlashSuccess, FlashInfo, FlashUndo}

// Flash is a one-time message shown on the next page.
type Flash struct {
	Kind    FlashKind
	Message string
}

// Sessions keeps the signed-in account id and flash messages in an
// authenticated, encrypted cookie (gorilla/sessions CookieStore, its values
// written by cookieSerializer). Nothing else is stored in it.
type Sessions struct {
	store *sessions.CookieStore
	name  string
}

// NewSessions builds the cookie store from the hash (signing) and block
// (encryption) keys. secure marks the cookie Secure; set it whenever the
// console is served over TLS.
func NewSessions(hashKey, blockKey []byte, secure bool) (*Sessions, error) {
	if len(hashKey) < 32 {
		return nil, fmt.Errorf("auth: session hash key must be at least 32 bytes, got %d", len(hashKey))
	}
	switch len(blockKey) {
	case 16, 24, 32:
	default:
		return nil, fmt.Errorf("auth: session block key must be 16, 24 or 32 bytes, got %d", len(blockKey))
	}
	st := sessions.NewCookieStore(hashKey, blockKey)
	st.Options = &sessions.Options{
		Path:     "/",
		MaxAge:   SessionMaxAge,
		HttpOnly: true,
		Secure:   secure,
		SameSite: http.SameSiteLaxMode,
	}
	st.MaxAge(SessionMaxAge)
	for _, c := range st.Codecs {
		if sc, ok := c.(*securecookie.SecureCookie); ok {
			sc.SetSerializer(cookieSerializer{})
		}
	}
	name := SessionName
	if secure {
		name = SecureSessionName
	}
	return &Sessions{store: st, name: name}, nil
}

// sessionKey is the context key of the request's decoded session.
type sessionKey struct{}

// Load decodes the session cookie once and returns the request carrying it,
// so every later read and write in the same request sees the same values.
func (s *Sessions) Load(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), sessionKey{}, s.decode(r)))
}

// session returns the session decoded by Load, or decodes the cookie again
// when Load was not called.
func (s *Sessions) session(r *http.Request) *sessions.Session {
	if sess, ok := r.Context().Value(sessionKey{}).(*sessions.Session); ok {
		return sess
	}
	return s.decode(r)
}

// decode reads the cookie. One that cannot be decoded (rotated keys,
// tampering, expiry) yields a fresh, empty session rather than an error: the
// visitor is simply signed out.
func (s *Sessions) decode(r *http.Request) *sessions.Session {
	sess, err := s.store.New(r, s.name)
	if err != nil {
		sess.Values = map[any]any{}
		sess.IsNew = true
	}
	return sess
}

// AccountID returns the signed-in account id, if any.
func (s *Sessions) AccountID(r *http.Request) (int64, bool) {
	id, ok := s.session(r).Values[accountIDKey].(int64)
	return id, ok && id > 0
}

// Generation returns the account's session generation the cookie carries.
func (s *Sessions) Generation(r *http.Request) int64 {
	gen, _ := s.session(r).Values[generationKey].(int64)
	return gen
}

// Login records accountID as signed in with the account's current session
// generation, dropping anything the session held before (pending flashes
// included) and issuing a new CSRF token: one seen before signing in is no
// good afterwards.
func (s *Sessions) Login(w http.ResponseWriter, r *http.Request, accountID, generation int64) error {
	sess := s.session(r)
	sess.Values = map[any]any{accountIDKey: accountID, generationKey: generation, csrfKey: newCSRFToken()}
	sess.Options.MaxAge = SessionMaxAge
	return s.save(w, r, sess)
}

// Logout clears the session and expires the cookie.
func (s *Sessions) Logout(w http.ResponseWriter, r *http.Request) error {
	sess := s.session(r)
	sess.Values = map[any]any{}
	sess.Options.MaxAge = -1
	return s.save(w, r, sess)
}

// AddFlash queues a message for the next page the visitor sees.
func (s *Sessions) AddFlash(w http.ResponseWriter, r *http.Request, f Flash) error {
	sess := s.session(r)
	sess.AddFlash(f.Message, flashKey(f.Kind))
	return s.save(w, r, sess)
}

// Flashes returns and removes the queued messages, errors first. It writes
// the cookie only when there was something to remove.
func (s *Sessions) Flashes(w http.ResponseWriter, r *http.Request) ([]Flash, error) {
	sess := s.session(r)
	var out []Flash
	for _, kind := range flashKinds {
		for _, v := range sess.Flashes(flashKey(kind)) {
			if msg, ok := v.(string); ok {
				out = append(out, Flash{Kind: kind, Message: msg})
			}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, s.save(w, r, sess)
}

// save writes the cookie, replacing one written earlier in the same response,
// so a response never carries two versions of the session.
func (s *Sessions) save(w http.ResponseWriter, r *http.Request, sess *sessions.Session) error {
	h := w.Header()
	kept := h.Values("Set-Cookie")[:0:0]
	for _, v := range h.Values("Set-Cookie") {
		if !strings.HasPrefix(v, s.name+"=") {
			kept = append(kept, v)
		}
	}
	h.Del("Set-Cookie")
	for _, v := range kept {
		h.Add("Set-Cookie", v)
	}
	if err := sess.Save(r, w); err != nil {
		return fmt.Errorf("auth: save session: %w", err)
	}
	return nil
}

func flashKey(k FlashKind) string { return "_flash_" + string(k) }
