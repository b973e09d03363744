package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/web/templates"
)

// errorStatus maps error codes to HTTP statuses: the one map of the HTML
// pages (handleError) and the agent API (apiErrors).
var errorStatus = map[string]int{
	governance.EINVALID:      http.StatusBadRequest,
	governance.EUNAUTHORIZED: http.StatusUnauthorized,
	governance.EFORBIDDEN:    http.StatusForbidden,
	governance.ENOTFOUND:     http.StatusNotFound,
	governance.ECONFLICT:     http.StatusConflict,
	governance.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	governance.ETOOMANY:      http.StatusTooManyRequests,
	governance.EINTERNAL:     http.StatusInternalServerError,
	codeUnsupportedMedia:     http.StatusUnsupportedMediaType,
}

// statusOf is the HTTP status of an error code (500 for an unknown one).
func statusOf(code string) int {
	if status, ok := errorStatus[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// classify returns the status and a message safe to show for err.
func classify(err error) (int, string) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return he.Code, "There is no page at this address."
		case http.StatusMethodNotAllowed:
			return he.Code, "This address does not accept that kind of request."
		case http.StatusRequestEntityTooLarge:
			return he.Code, "The upload is too large."
		case http.StatusForbidden:
			return he.Code, "The request was refused."
		}
		if he.Code >= 400 && he.Code < 500 {
			return he.Code, http.StatusText(he.Code) + "."
		}
		return http.StatusInternalServerError, governance.ErrorMessage(err)
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge, "The upload is too large."
	}
	return statusOf(governance.ErrorCode(err)), governance.ErrorMessage(err)
}

// statusClientClosed is the status a request ends with when its client
// went away before the answer (nginx's 499): no answer is written, the
// request is logged at Info and counted under 499, never as a 500.
const statusClientClosed = 499

// clientGone reports whether err ended the request only because its
// client went away: the request's context was cancelled. Whatever the
// error then (context.Canceled, a database call interrupted), nobody
// waits for the answer and the server did nothing wrong.
func clientGone(c echo.Context, err error) bool {
	return err != nil && errors.Is(c.Request().Context().Err(), context.Canceled)
}

// abandon ends a request whose client went away (clientGone): a debug
// line with the error, and the status 499 for the request log and the
// metrics; nothing reaches the closed connection.
func (s *Server) abandon(c echo.Context, err error) {
	s.requestLog(c).LogAttrs(c.Request().Context(), slog.LevelDebug, "request cancelled by the client", slog.Any("error", err))
	c.Response().WriteHeader(statusClientClosed)
}

// errorCodeOf is err's governance code, or for errors raised before a
// handler (echo's 404/405, the body limit) the code of their status.
func errorCodeOf(err error, status int) string {
	var ge *governance.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	for code, st := range errorStatus {
		if st == status && code != governance.EINVALID {
			return code
		}
	}
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return governance.EINVALID
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	}
	return governance.EINTERNAL
}

// handleError is echo's HTTPErrorHandler: it maps err to a status, logs
// internal errors with the request id, and renders an error page, or an error
// partial for htmx. Anonymous page requests are sent to the login page.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	if clientGone(c, err) {
		s.abandon(c, err)
		return
	}
	status, msg := classify(err)
	ctx, log := c.Request().Context(), s.requestLog(c)
	loc := locale.From(ctx)
	if status >= 500 {
		log.LogAttrs(ctx, slog.LevelError, "request failed", slog.Any("error", err))
	} else {
		log.LogAttrs(ctx, slog.LevelDebug, "request rejected", slog.Int("status", status), slog.String("reason", msg))
	}
	if wantsJSON(c) {
		if rerr := c.JSON(status, map[string]string{"code": errorCodeOf(err, status), "message": msg}); rerr != nil {
			log.LogAttrs(ctx, slog.LevelError, "error response failed", slog.Any("error", rerr))
		}
		return
	}
	if status == http.StatusUnauthorized {
		if rerr := s.redirectToLogin(c); rerr == nil {
			return
		}
	}
	shown := loc.Phrase(msg)
	if msg == governance.ErrorMessage(err) {
		shown = loc.ErrorMessage(err) // its format and values, translated
	}
	v := templates.ErrorView{Status: status, Title: loc.Phrase(http.StatusText(status)), Message: shown}
	if ge := (*governance.Error)(nil); errors.As(err, &ge) {
		v.Message = loc.ErrorMessage(err) // the sentence translated with its values
	}
	if status == http.StatusNotFound {
		v.Title = loc.Phrase("Not found")
	} else if status == http.StatusInternalServerError {
		v.Title = loc.Phrase("Internal error")
	}
	var rerr error
	switch {
	case c.Request().Method == http.MethodHead:
		rerr = c.NoContent(status)
	case isPartial(c):
		retargetError(c)
		rerr = render(c, status, templates.ErrorPartial(v))
	default:
		meta, merr := s.meta(c, v.Title, "")
		if merr != nil {
			log.LogAttrs(ctx, slog.LevelError, "error page meta failed", slog.Any("error", merr))
		}
		rerr = render(c, status, templates.ErrorPage(meta, v))
	}
	if rerr != nil {
		log.LogAttrs(ctx, slog.LevelError, "error page render failed", slog.Any("error", rerr))
		_ = c.String(status, msg)
	}
}

// redirectToLogin sends an anonymous visitor to the login page and back to
// where they were going afterwards (for GET pages).
func (s *Server) redirectToLogin(c echo.Context) error {
	r := c.Request()
	next := ""
	switch {
	case isHTMX(c):
		if u, err := url.Parse(r.Header.Get("HX-Current-URL")); err == nil {
			next = u.RequestURI()
		}
	case r.Method == http.MethodGet:
		next = r.URL.RequestURI()
	}
	return redirect(c, loginURL(safeNext(next)))
}

// wantsJSON is true for API paths and clients that ask only for JSON.
func wantsJSON(c echo.Context) bool {
	r := c.Request()
	return strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/healthz" ||
		strings.HasPrefix(r.Header.Get(echo.HeaderAccept), echo.MIMEApplicationJSON)
}

// requestLog is the server's logger carrying the request's id. Handlers use
// it to record what happened (a sign-in, an import); errors they return.
func (s *Server) requestLog(c echo.Context) *slog.Logger {
	return s.logger.With(slog.String("request_id", c.Response().Header().Get(echo.HeaderXRequestID)))
}
