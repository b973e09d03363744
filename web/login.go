package web

import (
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// loginForm is the sign-in form as posted.
type loginForm struct {
	Username string
	Password string
	Next     string
}

func newLoginForm(c echo.Context) loginForm {
	return loginForm{
		Username: strings.TrimSpace(c.FormValue("username")),
		Password: c.FormValue("password"),
		Next:     safeNext(c.FormValue("next")),
	}
}

// Validate returns the problems of each field.
func (f loginForm) Validate() templates.FieldErrors {
	errs := templates.FieldErrors{}
	if f.Username == "" {
		errs["username"] = governance.Say("Enter your username.")
	}
	if f.Password == "" {
		errs["password"] = governance.Say("Enter your password.")
	}
	return errs
}

func (f loginForm) view() templates.LoginView {
	return templates.LoginView{Username: f.Username, Next: f.Next}
}

// handleLoginShow shows the sign-in form; a signed-in visitor goes on to next.
func (s *Server) handleLoginShow(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if auth.UserFrom(c.Request().Context()) != nil {
		return redirect(c, next)
	}
	meta, err := s.meta(c, "Sign in", "")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.LoginPage(meta, templates.LoginView{Next: next}))
}

// handleLoginCreate signs in. Failed attempts are rate-limited per client IP
// and per username; a wrong username or password gets the same answer and
// takes the same time.
func (s *Server) handleLoginCreate(c echo.Context) error {
	ctx := c.Request().Context()
	f := newLoginForm(c)
	if errs := f.Validate(); len(errs) > 0 {
		meta, err := s.meta(c, "Sign in", "")
		if err != nil {
			return err
		}
		v := f.view()
		v.Errors = errs
		return render(c, http.StatusUnprocessableEntity, templates.LoginPage(meta, v))
	}
	attempt, wait := s.limiter.Allow(c.RealIP(), f.Username)
	if attempt == nil {
		secs := int(math.Ceil(wait.Seconds()))
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		meta, err := s.meta(c, "Sign in", "")
		if err != nil {
			return err
		}
		v := f.view()
		v.Error = trn(c, "login.too_many", secs)
		return render(c, http.StatusTooManyRequests, templates.LoginPage(meta, v))
	}

	a, err := s.app.Account.ForSignIn(ctx, f.Username)
	switch governance.ErrorCode(err) {
	case "":
	case governance.ENOTFOUND:
		auth.VerifyNoAccount(f.Password)
		a = nil
	default:
		return err
	}
	ok := false
	if a != nil {
		if ok, err = auth.VerifyPassword(a.PasswordHash, f.Password); err != nil {
			return fmt.Errorf("web: verify password of account %d: %w", a.ID, err)
		}
		ok = ok && !a.Disabled() // a disabled account gets the same answer as a wrong password
	}
	if !ok {
		if err := s.flash(c, auth.FlashError, "Wrong username or password."); err != nil {
			return err
		}
		return redirect(c, loginURL(f.Next))
	}

	attempt.Succeeded()
	if err := s.sessions.Login(c.Response(), c.Request(), a.ID, a.SessionGen); err != nil {
		return err
	}
	s.requestLog(c).LogAttrs(ctx, slog.LevelInfo, "account signed in", slog.Int64("account_id", a.ID))
	return redirect(c, f.Next)
}

// handleLogout signs the account out everywhere: every copy of its cookie
// (another browser, a copied one) stops working, not only this one.
func (s *Server) handleLogout(c echo.Context) error {
	ctx := c.Request().Context()
	if actor := actorOf(ctx); actor.Account != nil {
		if err := s.app.Account.EndSessions(ctx, actor); err != nil {
			return err
		}
	}
	if err := s.sessions.Logout(c.Response(), c.Request()); err != nil {
		return err
	}
	return redirect(c, "/login")
}

// loginURL is the login page that returns to next afterwards.
func loginURL(next string) string {
	if next == "/" {
		return "/login"
	}
	return "/login?" + url.Values{"next": {next}}.Encode()
}

// safeNext accepts only a local path (no scheme, host or protocol-relative
// form) as the page to return to after signing in; anything else means "/".
func safeNext(next string) string {
	if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.HasPrefix(next, `/\`) ||
		strings.ContainsAny(next, "\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return u.RequestURI()
}
