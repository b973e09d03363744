// Package web is the console's HTTP server: echo routes, middleware and
// handlers, rendering templ components from web/templates.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/ops"
	"github.com/mnemo-console/mnemo/web/static"
)

// Config is the part of the console's configuration the web server needs.
type Config struct {
	// SecureCookies marks the session cookie Secure and names it with the
	// __Host- prefix. Set it
	// whenever the console is reached over TLS (directly or via a proxy).
	SecureCookies bool
	// TrustProxy takes the client IP from X-Forwarded-For / X-Real-IP (for
	// login rate limiting and logs). Leave it off unless a proxy you run
	// sets those headers.
	TrustProxy bool
	// MaxImportBytes bounds an uploaded JSON Lines file (default 64 MiB).
	MaxImportBytes int64
	// MaxBenchmarkBytes bounds a benchmark file an administrator uploads
	// on the Benchmarks page (default DefaultMaxBenchmarkBytes); other
	// accounts may upload one of at most evals.MaxSuiteBytes. The file
	// waits on disk, never whole in memory.
	MaxBenchmarkBytes int64
	// MaxEventsBytes bounds the body of POST /api/v1/events (default 8 MiB).
	MaxEventsBytes int64
	// MaxLineBytes bounds one JSON Lines record, in an upload or an NDJSON
	// body (default governance.MaxImportLineBytes). A longer line is an
	// error naming it, never cut.
	MaxLineBytes int
	// LoginLimit rate-limits sign-in attempts (zero: 5, then 1 every 10 s,
	// per client IP and per username).
	LoginLimit auth.LimitConfig
	// Heartbeat is the background heartbeat, for its status page and "run
	// now" (nil: the page says it does not run in this process).
	Heartbeat Heartbeat
	// Metrics serves GET /metrics (Prometheus) to a bearer of MetricsToken
	// or a signed-in administrator; nil: 404.
	Metrics      http.Handler
	MetricsToken string
	// ObserveRequest, when set, is called once per request with its route
	// template ("/rules/:id", "" when no route of the console matched), for
	// metrics and the request's trace span.
	ObserveRequest func(ctx context.Context, method, route string, status int, latency time.Duration)
	// BodyTimeout and UploadTimeout bound the time a request's body may
	// take to arrive: a form's or an API call's, and an upload's
	// (defaults DefaultBodyTimeout and DefaultUploadTimeout).
	BodyTimeout, UploadTimeout time.Duration
}

// Limits of request bodies by route class (bodyClass), decided from the
// route and the caller before a byte of the body is read.
const (
	// AnonymousBodyBytes bounds what a caller who is not signed in may send
	// (the sign-in form).
	AnonymousBodyBytes = 64 << 10
	// FormBodyBytes bounds a signed-in account's form.
	FormBodyBytes = 1 << 20
	// DefaultBodyTimeout and DefaultUploadTimeout are the defaults of
	// Config.BodyTimeout and Config.UploadTimeout.
	DefaultBodyTimeout   = 30 * time.Second
	DefaultUploadTimeout = 10 * time.Minute
)

// DefaultMaxImportBytes is the default upload limit of the import page.
const DefaultMaxImportBytes = 64 << 20

// DefaultMaxBenchmarkBytes is the default of Config.MaxBenchmarkBytes:
// room for the whole LongMemEval-S file, uncompressed.
const DefaultMaxBenchmarkBytes = 512 << 20

// Server holds the web layer's dependencies explicitly.
type Server struct {
	cfg      Config
	app      *app.App
	logger   *slog.Logger
	sessions *auth.Sessions
	limiter  *auth.LoginLimiter
	echo     *echo.Echo
	// routeSet is the console's route templates, the only ones requests
	// are observed by (ObserveRequest): any other path is "".
	routeSet map[string]bool
}

// NewServer builds the echo app: middleware, routes and error handling. The
// session cookie keys come from the store (generated on first start).
func NewServer(cfg Config, a *app.App, logger *slog.Logger) (*Server, error) {
	if cfg.MaxImportBytes <= 0 {
		cfg.MaxImportBytes = DefaultMaxImportBytes
	}
	if cfg.MaxBenchmarkBytes <= 0 {
		cfg.MaxBenchmarkBytes = DefaultMaxBenchmarkBytes
	}
	if cfg.MaxEventsBytes <= 0 {
		cfg.MaxEventsBytes = APIMaxEventsBytes
	}
	if cfg.MaxLineBytes <= 0 {
		cfg.MaxLineBytes = governance.MaxImportLineBytes
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.UploadTimeout <= 0 {
		cfg.UploadTimeout = DefaultUploadTimeout
	}
	// Administration generates and hashes passwords with auth's argon2id
	// (app cannot import auth, an HTTP package).
	a.SetPasswords(authPasswords{})
	hashKey, blockKey, err := a.SessionKeys(context.Background())
	if err != nil {
		return nil, fmt.Errorf("web: session keys: %w", err)
	}
	sessions, err := auth.NewSessions(hashKey, blockKey, cfg.SecureCookies)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      cfg,
		app:      a,
		logger:   logger,
		sessions: sessions,
		limiter:  auth.NewLoginLimiter(cfg.LoginLimit),
		echo:     echo.New(),
	}
	e := s.echo
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	if cfg.TrustProxy {
		e.IPExtractor = echo.ExtractIPFromXFFHeader()
	} else {
		e.IPExtractor = echo.ExtractIPDirect()
	}
	if err := s.middleware(); err != nil {
		return nil, err
	}
	s.routes()
	s.routeSet = map[string]bool{}
	for _, r := range e.Routes() {
		s.routeSet[r.Path] = true
	}
	return s, nil
}

// Handler is the HTTP handler of the console.
func (s *Server) Handler() http.Handler { return s.echo }

// Echo exposes the echo app, e.g. to list routes.
func (s *Server) Echo() *echo.Echo { return s.echo }

// contentSecurityPolicy allows only the console's own assets: no inline
// scripts or styles, no eval, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// middleware installs, in order: Recover → RequestID → request logger →
// Secure headers → session → current user → language → body limit →
// CSRF → clean forms.
func (s *Server) middleware() error {
	s.echo.Use(
		middleware.Recover(),
		middleware.RequestID(),
		s.requestLogger(),
		middleware.SecureWithConfig(middleware.SecureConfig{
			XSSProtection:         "0",
			ContentTypeNosniff:    "nosniff",
			XFrameOptions:         "DENY",
			HSTSMaxAge:            31536000,
			ContentSecurityPolicy: contentSecurityPolicy,
			ReferrerPolicy:        "same-origin",
		}),
		skipFor(skipAssets, s.sessions.SessionMiddleware()),
		skipFor(skipAssets, auth.LoadUser(s.sessions, s.app.Account)),
		localize,
		// Once the caller is known (and the language of the refusal),
		// before the CSRF check, which may parse a multipart body.
		limitBody(s.bodyClass),
		auth.CSRF(s.sessions, csrfContextKey, skipAssets),
		skipFor(skipAssets, cleanForms),
	)
	return nil
}

// skipAssets is true for requests that need no session, user or CSRF token:
// assets, the health check, and the agent API and MCP server, which
// authenticate with project API tokens only.
func skipAssets(c echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasPrefix(p, static.Prefix) || p == "/healthz" || strings.HasPrefix(p, "/api/") || p == MCPPath
}

func skipFor(skip middleware.Skipper, mw echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		wrapped := mw(next)
		return func(c echo.Context) error {
			if skip(c) {
				return next(c)
			}
			return wrapped(c)
		}
	}
}

// requestLogger logs every request once, with its request_id and route
// template, at Info (Error for 5xx). The error handler runs first, so the
// status is the one sent.
func (s *Server) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		HandleError:  true,
		LogMethod:    true,
		LogStatus:    true,
		LogLatency:   true,
		LogRequestID: true,
		LogRemoteIP:  true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = slog.LevelError
			}
			route := c.Path()
			if !s.routeSet[route] {
				route = "" // a path of no route: one label, however many are made up
			}
			if s.cfg.ObserveRequest != nil {
				s.cfg.ObserveRequest(c.Request().Context(), v.Method, route, v.Status, v.Latency)
			}
			// The route template, never the path: a path names sessions,
			// subjects and rules, and the log would keep them after a
			// forget.
			if route == "" {
				route = "unmatched"
			}
			s.logger.LogAttrs(c.Request().Context(), level, "http request",
				slog.String("request_id", v.RequestID),
				slog.String("method", ops.Method(v.Method)),
				slog.String("route", route),
				slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency),
				slog.String("remote_ip", v.RemoteIP),
			)
			return nil
		},
	})
}

// bodyClass is the largest body a request may send and the time it may
// take to arrive, by route class: the agent API and MCP server (token
// callers; their handlers cap their own bodies lower), an upload for a
// caller who may make it (an import or a large benchmark file for an
// administrator, an eval suite or a benchmark file of a suite's size for
// an account), a signed-in account's form, and anything else a caller who
// is not signed in sends (the sign-in form). Refused is the error for a
// larger body (nil: the request is larger than the limit).
func (s *Server) bodyClass(c echo.Context) (n int64, d time.Duration, refused error) {
	if p := c.Request().URL.Path; strings.HasPrefix(p, "/api/") || p == MCPPath {
		return s.cfg.MaxEventsBytes + 1<<20, s.cfg.UploadTimeout, nil
	}
	u := auth.UserFrom(c.Request().Context())
	if u == nil {
		return AnonymousBodyBytes, s.cfg.BodyTimeout, nil
	}
	switch c.Path() {
	case "/admin/import":
		if governance.Can(governance.AccountActor(u), governance.ActAdminister, governance.Object{}) == nil {
			return s.cfg.MaxImportBytes + 1<<20, s.cfg.UploadTimeout, nil
		}
	case "/evals/suites":
		return evals.MaxSuiteBytes + 1<<20, s.cfg.UploadTimeout, nil
	case "/evals/benchmarks":
		n, refused := s.benchmarkLimit(c)
		return n + 1<<20, s.cfg.UploadTimeout, refused
	}
	return FormBodyBytes, s.cfg.BodyTimeout, nil
}

// benchmarkLimit is the largest benchmark file the caller may upload, and
// the error for a larger one, which names the limit and how to raise it:
// Config.MaxBenchmarkBytes for an administrator, a suite's size for any
// other account.
func (s *Server) benchmarkLimit(c echo.Context) (int64, error) {
	u := auth.UserFrom(c.Request().Context())
	if u != nil && governance.Can(governance.AccountActor(u), governance.ActAdminister, governance.Object{}) == nil {
		return s.cfg.MaxBenchmarkBytes, governance.Errorf(governance.ETOOLARGE, "%s",
			tr(c, "eval.benchmark_too_large", "MiB", mib(s.cfg.MaxBenchmarkBytes)))
	}
	return evals.MaxSuiteBytes, governance.Errorf(governance.ETOOLARGE, "%s",
		tr(c, "eval.benchmark_too_large_account", "MiB", mib(evals.MaxSuiteBytes), "Max", mib(s.cfg.MaxBenchmarkBytes)))
}

// mib is n bytes in whole MiB, rounded down (at least 1 for a positive n).
func mib(n int64) int64 { return max(n>>20, min(n, 1)) }

// limitBody refuses request bodies over the class's limit: at once when
// the declared length is larger, otherwise when reading passes it (a
// class that gives its own error has it replace whatever too-large error
// the request ended in). The body must also arrive within the class's time
// (the connection's read deadline), so a slow body cannot hold a
// connection.
func limitBody(class func(echo.Context) (int64, time.Duration, error)) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			n, d, refused := class(c)
			if r.ContentLength > n {
				if refused == nil {
					return tooLarge(n)
				}
				return refused
			}
			if r.Body != nil && r.Body != http.NoBody {
				// Not every writer has a connection (a test's recorder).
				rc := http.NewResponseController(c.Response())
				if rc.SetReadDeadline(time.Now().Add(d)) == nil {
					r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
				}
			}
			r.Body = http.MaxBytesReader(c.Response(), r.Body, n)
			err := next(c)
			if refused != nil && governance.ErrorCode(err) == governance.ETOOLARGE {
				return refused
			}
			return err
		}
	}
}

// deadlineBody lifts the connection's read deadline once the whole body
// is read: the handler may then take its time, and the server's own read
// of the idle connection would otherwise end the request when the
// deadline passes. A body cut short keeps it, so the server's attempt to
// read the rest fails too and the connection closes.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// tooLarge refuses a body over n bytes.
func tooLarge(n int64) error {
	if n < 1<<20 {
		return governance.Errorf(governance.ETOOLARGE, "The request is larger than %d KiB.", n>>10)
	}
	return governance.Errorf(governance.ETOOLARGE, "The request is larger than %d MiB.", n>>20)
}
