package web

import (
	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/web/static"
)

// routes lists every route of the console. The group decides who may call a
// route at all; which project and which subject a caller may see is checked
// in the handlers through s.scopeFor and friends (authz.go).
func (s *Server) routes() {
	e := s.echo

	// Public.
	e.GET("/healthz", s.handleHealth)
	e.GET(static.Prefix+"*", echo.WrapHandler(static.Handler()))
	e.GET("/login", s.handleLoginShow)
	e.POST("/login", s.handleLoginCreate)

	// Signed-in accounts: admin, reviewer, member.
	app := group{e: e, mw: []echo.MiddlewareFunc{auth.RequireLogin}}
	app.POST("/logout", s.handleLogout)
	app.GET("/", s.handleDashboard)
	app.GET("/events", s.handleProjectIndex)
	app.GET("/events/:seq", s.handleEventShow)
	app.GET("/projects/:project/sessions", s.handleSessionIndex)
	app.GET("/projects/:project/sessions/:session", s.handleSessionShow)
	app.GET("/search", s.handleEventSearch)

	// Consolidated layer and heartbeat (members see only their subject's memories).
	app.GET("/episodes", s.handleEpisodeIndex)
	app.GET("/candidates", s.handleCandidateIndex)
	app.GET("/heartbeat", s.handleHeartbeatShow)
	app.GET("/heartbeat/panel", s.handleHeartbeatPanel)
	app.POST("/heartbeat/run", s.handleHeartbeatRun)

	// Administrators.
	admin := group{e: e, prefix: "/admin", mw: []echo.MiddlewareFunc{auth.RequireAdmin}}
	admin.GET("/import", s.handleImportNew)
	admin.POST("/import", s.handleImportCreate)
}

// group adds routes with shared middleware. Unlike echo.Group with
// middleware, it registers no catch-all route, so an unknown address is a
// plain 404 for everyone.
type group struct {
	e      *echo.Echo
	prefix string
	mw     []echo.MiddlewareFunc
}

func (g group) GET(path string, h echo.HandlerFunc) {
	g.e.GET(g.prefix+path, h, g.mw...)
}

func (g group) POST(path string, h echo.HandlerFunc) {
	g.e.POST(g.prefix+path, h, g.mw...)
}
