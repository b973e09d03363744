package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/static"
)

// routes lists every route of the console. The group decides who may call a
// route at all; which project and which subject a caller may see is decided
// by the use case each handler calls (package app asks governance.Can), so
// a handler only binds, calls one use case and renders. Each comment names
// the files of the handlers.
func (s *Server) routes() {
	e := s.echo

	// Public (health.go, login.go); /metrics checks its own bearer token
	// or an administrator's session (metrics.go).
	e.GET("/healthz", s.handleHealth)
	e.GET("/metrics", s.handleMetrics)
	e.GET(static.Prefix+"*", echo.WrapHandler(static.Handler()))
	e.GET("/login", s.handleLoginShow)
	e.POST("/login", s.handleLoginCreate)

	// Signed-in accounts: admin, reviewer, member (login.go, language.go,
	// dashboard.go, event.go, search.go).
	app := group{e: e, mw: []echo.MiddlewareFunc{auth.RequireLogin}}
	app.POST("/logout", s.handleLogout)
	app.POST("/me/language", s.handleLanguageUpdate)
	app.GET("/", s.handleDashboard)
	app.GET("/events", s.handleProjectIndex)
	app.GET("/events/:seq", s.handleEventShow)
	app.GET("/projects/:project/sessions", s.handleSessionIndex)
	app.GET("/projects/:project/sessions/:session", s.handleSessionShow)
	app.GET("/search", s.handleEventSearch)

	// Consolidated layer and heartbeat (memory.go, heartbeat.go): members
	// see only their subject's memories.
	app.GET("/episodes", s.handleEpisodeIndex)
	app.GET("/candidates", s.handleCandidateIndex)
	app.GET("/candidates/:id/decide", s.handleCandidateDecide)
	app.POST("/candidates/:id/release", s.handleCandidateRelease)
	app.POST("/candidates/:id/reject", s.handleCandidateReject)
	app.GET("/heartbeat", s.handleHeartbeatShow)
	app.GET("/heartbeat/panel", s.handleHeartbeatPanel)
	app.POST("/heartbeat/run", s.handleHeartbeatRun)

	// Administrators (import.go, source.go).
	admin := group{e: e, prefix: "/admin", mw: []echo.MiddlewareFunc{auth.RequireAdmin}}
	admin.GET("/import", s.handleImportNew)
	admin.POST("/import", s.handleImportCreate)
	admin.GET("/sources", s.handleSourceIndex)
	admin.POST("/sources", s.handleSourceCreate)
	admin.GET("/sources/:id/stop", s.handleSourceStopShow)
	admin.POST("/sources/:id/stop", s.handleSourceStop)

	// Recall playground, stored recalls, exports and API tokens (recall.go,
	// outcome.go, export.go, token.go).
	app.GET("/recall", s.handleRecallShow)
	app.POST("/recall", s.handleRecallRun)
	app.GET("/recall/traces/:id", s.handleTraceShow)
	app.GET("/export", s.handleExportIndex)
	app.GET("/projects/:project/export", s.handleExportShow)
	app.GET("/projects/:project/export/:file", s.handleExportDownload)
	admin.GET("/tokens", s.handleTokenIndex)
	admin.POST("/tokens", s.handleTokenCreate)
	admin.GET("/tokens/:id/revoke", s.handleTokenRevokeShow)
	admin.POST("/tokens/:id/revoke", s.handleTokenRevoke)

	// Governance (review.go, proposal.go, project_policy.go, rule.go,
	// outcome.go, forget.go, me.go, audit.go): who may act on which rule,
	// candidate, review or subject is decided in app (Reviews, Rules,
	// Outcomes, Effects, Forget, Me, AuditLog).
	app.GET("/review", s.handleReviewIndex)
	app.GET("/review/badge", s.handleReviewBadge)
	app.GET("/projects/:project/review", s.handleReviewShow)
	app.POST("/projects/:project/review/approve", s.handleReviewApprove)
	app.POST("/projects/:project/review/reject", s.handleReviewReject)
	app.POST("/projects/:project/review/merge", s.handleReviewMerge)
	app.POST("/projects/:project/review/classes", s.handleReviewRejectClass)
	app.POST("/projects/:project/review/classes/:id/lift", s.handleReviewLiftClass)
	app.POST("/projects/:project/policy", s.handleProjectPolicy)
	app.POST("/projects/:project/outcome-policy", s.handleOutcomePolicy)
	app.GET("/outcome-reviews/:id", s.handleOutcomeReviewShow)
	app.GET("/outcome-reviews/:id/effect", s.handleOutcomeReviewEffect)
	app.POST("/outcome-reviews/:id/decide", s.handleOutcomeReviewDecide)
	app.GET("/rules/:id/effect", s.handleRuleEffect)
	app.GET("/rules", s.handleRuleIndex)
	app.POST("/rules/forget", s.handleRulesForget)
	app.GET("/rules/:id", s.handleRuleShow)
	app.GET("/rules/:id/evidence", s.handleRuleEvidence)
	app.POST("/rules/:id/approve", s.handleRuleApprove)
	app.POST("/rules/:id/reject", s.handleRuleReject)
	app.POST("/rules/:id/hold", s.handleRuleHold)
	app.POST("/rules/:id/split", s.handleRuleSplit)
	app.POST("/rules/:id/edit", s.handleRuleEdit)
	app.POST("/rules/:id/demote", s.handleRuleDemote)
	app.POST("/rules/:id/to-candidates", s.handleRuleToCandidates)
	app.POST("/rules/:id/restore", s.handleRuleRestore)
	app.POST("/rules/:id/supersede", s.handleRuleSupersede)
	app.POST("/rules/:id/pause", s.handleRulePause)
	app.POST("/rules/:id/unpause", s.handleRuleUnpause)
	app.POST("/rules/:id/expiry", s.handleRuleExpiry)
	app.POST("/rules/:id/undo", s.handleRuleUndo)
	app.POST("/rules/undo", s.handleRuleUndoMany)
	app.GET("/rules/:id/forget", s.handleRuleForgetShow)
	app.POST("/rules/:id/forget", s.handleRuleForgetCreate)
	app.GET("/candidates/:id/forget", s.handleCandidateForgetShow)
	app.POST("/candidates/:id/forget", s.handleCandidateForgetCreate)
	app.GET("/memories/new", s.handleNewMemoryShow)
	app.POST("/memories/new", s.handleNewMemoryCreate)
	app.GET("/me", s.handleMeShow)
	app.POST("/me/remember", s.handleMeRemember)
	app.GET("/me/export.json", s.handleMeExport)
	app.GET("/me/forget", s.handleMeForgetShow)
	app.POST("/me/forget", s.handleMeForgetCreate)
	app.GET("/audit", s.handleAuditIndex)
	app.GET("/audit.csv", s.handleAuditCSV)
	admin.GET("/forget", s.handleAdminForgetShow)
	admin.POST("/forget", s.handleAdminForgetCreate)

	// Skills (skill.go; app.Skills): the projects' reviewers and admins;
	// the upload of skill folders for administrators.
	app.GET("/skills", s.handleSkillIndex)
	app.GET("/projects/:project/skills", s.handleSkillList)
	app.POST("/projects/:project/skills/curate", s.handleSkillCurate)
	app.GET("/projects/:project/skills/:name", s.handleSkillShow)
	app.POST("/projects/:project/skills/:name/decide", s.handleSkillDecide)
	app.POST("/projects/:project/skills/:name/edit", s.handleSkillEdit)
	app.GET("/projects/:project/export/skills/:layout", s.handleSkillExport)
	admin.GET("/skills/import", s.handleSkillImportNew)
	admin.POST("/skills/import", s.handleSkillImportCreate)

	// Accounts, memberships and projects (admin.go): app.Admin asks the
	// policy again in every use case.
	admin.GET("/accounts", s.handleAccountIndex)
	admin.POST("/accounts", s.handleAccountCreate)
	admin.GET("/accounts/:id", s.handleAccountShow)
	admin.POST("/accounts/:id/password", s.handleAccountPassword)
	admin.POST("/accounts/:id/admin", s.handleAccountRole)
	admin.POST("/accounts/:id/disable", s.handleAccountDisable)
	admin.POST("/accounts/:id/enable", s.handleAccountEnable)
	admin.POST("/accounts/:id/memberships", s.handleMembershipUpdate)
	admin.POST("/accounts/:id/memberships/:project/remove", s.handleMembershipDelete)
	admin.GET("/projects", s.handleAdminProjectIndex)
	admin.POST("/projects", s.handleAdminProjectCreate)
	admin.GET("/projects/:id", s.handleAdminProjectShow)
	admin.POST("/projects/:id", s.handleAdminProjectUpdate)
	admin.GET("/projects/:id/delete", s.handleAdminProjectDeleteShow)
	admin.POST("/projects/:id/delete", s.handleAdminProjectDelete)

	// Evals (eval.go, eval_checks.go; app.Evals): reviewers and admins; suites that
	// read live projects only for those who review them all. Runs are
	// queued here and executed by the background evals.Runner.
	app.GET("/evals", s.handleEvalIndex)
	app.POST("/evals/suites", s.handleEvalSuiteCreate)
	app.GET("/evals/suites/:id", s.handleEvalSuiteShow)
	app.POST("/evals/suites/:id/runs", s.handleEvalRunCreate)
	app.GET("/evals/runs/:id", s.handleEvalRunShow)
	app.GET("/evals/runs/:id/panel", s.handleEvalRunPanel)
	app.POST("/evals/runs/:id/cancel", s.handleEvalRunCancel)
	app.GET("/evals/compare", s.handleEvalRunCompare)
	app.GET("/evals/benchmarks", s.handleEvalBenchmarkIndex)
	app.POST("/evals/benchmarks", s.handleEvalBenchmarkCreate)
	app.GET("/rules/:id/checks", s.handleRuleChecksShow)
	app.POST("/rules/:id/checks", s.handleRuleChecksCreate)
	app.POST("/rules/:id/checks/delete", s.handleRuleChecksDelete)

	// Agent API and MCP server (api.go, api_search.go, api_outcome.go, export.go, mcp.go, mcp_memory.go):
	// project API tokens only, never the session cookie; skipAssets exempts
	// them from the session and CSRF middleware. requireToken refuses a
	// token without the route's scope early; the use case decides again.
	// Errors are JSON {code, message}.
	e.GET("/api/v1/openapi.json", s.handleOpenAPI)
	apiScope := func(action governance.Action) group {
		return group{e: e, prefix: "/api/v1", mw: []echo.MiddlewareFunc{s.apiErrors, s.requireToken(action)}}
	}
	apiScope(governance.ActIngest).POST("/events", s.handleAPIEventsCreate)
	apiScope(governance.ActRecall).POST("/recall", s.handleAPIRecall)
	apiScope(governance.ActRecall).GET("/rules", s.handleAPIRuleIndex)
	apiScope(governance.ActRecall).GET("/search", s.handleAPISearch)
	apiScope(governance.ActRecall).GET("/recalls/:id", s.handleAPIRecallShow)
	apiScope(governance.ActRecall).POST("/recalls/:id/outcome", s.handleAPIOutcomeCreate)
	apiScope(governance.ActReadSkills).GET("/skills", s.handleAPISkillIndex)
	apiScope(governance.ActReadSkills).GET("/skills/:name", s.handleAPISkillShow)
	apiScope(governance.ActForgetRule).POST("/rules/:id/forget", s.handleAPIRuleForget)
	e.DELETE("/api/v1/subjects/:id", s.handleAPISubjectForget, s.apiErrors, s.requireToken(governance.ActForgetSubject))
	apiScope(governance.ActExport).GET("/export", s.handleAPIExport)
	e.Any("/api/*", s.handleAPINotFound, s.apiErrors)
	e.Match([]string{http.MethodGet, http.MethodPost, http.MethodDelete}, MCPPath, echo.WrapHandler(s.newMCPHandler()))
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
