package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/mnemo-console/mnemo/governance"
)

// csrfKey is the session value holding the synchronizer token.
const csrfKey = "csrf"

// CSRFHeader and CSRFField are where a request carries its token: htmx sends
// the header (hx-headers on <body>), forms the hidden field.
const (
	CSRFHeader = "X-CSRF-Token"
	CSRFField  = "csrf"
)

// ErrCSRF is the answer to a state-changing request without the session's
// token, or sent from another origin.
var ErrCSRF = governance.Errorf(governance.EFORBIDDEN,
	"The form was not sent from this console or has expired. Reload the page and try again.")

// newCSRFToken returns 32 random bytes, URL-safe encoded.
func newCSRFToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// CSRFToken returns the token bound to the request's session, creating and
// saving one when the session has none. The token lives inside the
// encrypted, authenticated session cookie, so a cookie planted by another
// origin of the same host (another port) can neither carry nor reveal it.
func (s *Sessions) CSRFToken(w http.ResponseWriter, r *http.Request) (string, error) {
	sess := s.session(r)
	if t, ok := sess.Values[csrfKey].(string); ok && t != "" {
		return t, nil
	}
	t := newCSRFToken()
	sess.Values[csrfKey] = t
	if sess.Options.MaxAge < 0 {
		// Signed out earlier in this request: start a fresh anonymous
		// session rather than expiring the cookie that carries the token.
		sess.Options.MaxAge = SessionMaxAge
	}
	return t, s.save(w, r, sess)
}

// CSRF protects every unsafe request (not GET, HEAD, OPTIONS, TRACE) of the
// session-authenticated console in two layers:
//
//  1. the browser's own view: a request whose Sec-Fetch-Site is not
//     same-origin (or none), or whose Origin is not this host, is refused
//     (net/http's CrossOriginProtection);
//  2. a synchronizer token kept in the session (rotated at sign-in) must come
//     back in the X-CSRF-Token header or the csrf form field.
//
// Every request gets the token in the echo context under contextKey, for the
// page's forms and hx-headers.
func CSRF(s *Sessions, contextKey string, skip middleware.Skipper) echo.MiddlewareFunc {
	cop := http.NewCrossOriginProtection()
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if skip != nil && skip(c) {
				return next(c)
			}
			r := c.Request()
			token, err := s.CSRFToken(c.Response(), r)
			if err != nil {
				return err
			}
			c.Set(contextKey, token)
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
				return next(c)
			}
			if err := cop.Check(r); err != nil {
				return ErrCSRF
			}
			sent := r.Header.Get(CSRFHeader)
			if sent == "" {
				if err := ParseForm(r); err != nil {
					return err
				}
				sent = c.FormValue(CSRFField)
			}
			if sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(token)) != 1 {
				return ErrCSRF
			}
			return next(c)
		}
	}
}

// FormMemory is how much of a multipart form's files is kept in memory:
// a larger file waits in a temporary file (which the server removes after
// the request), so an upload is never whole in memory.
const FormMemory = 1 << 20

// ParseForm parses the request's form (a multipart one with FormMemory),
// so that a body over its limit (http.MaxBytesReader) is refused as too
// large rather than as a form without a token; any other parse error
// leaves the form empty. The first parse of a request is the one that
// counts: later ones keep its form.
func ParseForm(r *http.Request) error {
	var err error
	if mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.TrimSpace(mt) == "multipart/form-data" {
		err = r.ParseMultipartForm(FormMemory)
	} else {
		err = r.ParseForm()
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return governance.Errorf(governance.ETOOLARGE, "The request is larger than %d KiB.", tooLarge.Limit>>10)
	}
	return nil
}
