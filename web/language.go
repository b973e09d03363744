package web

import (
	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/locale"
)

// localize puts the request's localizer into its context: the signed-in
// account's language, else the browser's Accept-Language, else English.
func localize(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		saved := ""
		if a := auth.UserFrom(r.Context()); a != nil {
			saved = a.Language
		}
		code := locale.Match(saved, r.Header.Get("Accept-Language"))
		c.Response().Header().Add("Vary", "Accept-Language")
		c.SetRequest(r.WithContext(locale.With(r.Context(), locale.For(code))))
		return next(c)
	}
}

// tr translates a message id for the request.
func tr(c echo.Context, id string, kv ...any) string {
	return locale.From(c.Request().Context()).T(id, kv...)
}

// handleLanguageUpdate saves the language chosen in the account menu and
// goes back to the page it was chosen on.
func (s *Server) handleLanguageUpdate(c echo.Context) error {
	ctx := c.Request().Context()
	if err := s.app.Account.SetLanguage(ctx, actorOf(ctx), c.FormValue("language")); err != nil {
		return err
	}
	return redirect(c, safeNext(c.FormValue("back")))
}

// trn translates a message with plural forms for count n.
func trn(c echo.Context, id string, n int, kv ...any) string {
	return locale.From(c.Request().Context()).N(id, n, kv...)
}
