package web

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Export formats of GET /api/v1/export and the console's downloads.
const (
	exportJSONL  = "jsonl"
	exportMemory = "memory"
	exportUser   = "user"
)

// handleExportIndex lists the projects the caller may export from.
func (s *Server) handleExportIndex(c echo.Context) error {
	scopes, err := s.visibleScopes(c.Request().Context())
	if err != nil {
		return err
	}
	v := templates.ExportIndexView{}
	for _, sc := range scopes {
		v.Projects = append(v.Projects, templates.ExportProject{Project: sc.Project, SubjectID: sc.SubjectID()})
	}
	meta, err := s.meta(c, "Export", "export")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ExportIndexPage(meta, v))
}

// handleExportShow is the export page: the JSON Lines download and the
// Hermes-style MEMORY.md / USER.md with what went in and what did not fit.
func (s *Server) handleExportShow(c echo.Context) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	page, err := s.app.Exports.Page(ctx, actorOf(ctx), slug, strings.TrimSpace(c.QueryParam("subject")))
	if err != nil {
		return err
	}
	sc := page.Scope
	v := templates.ExportView{Project: sc.Project, Member: sc.Subject != nil, SubjectID: page.SubjectID, User: page.Hermes.User,
		AgentFiles: page.AgentFiles, Subjects: page.Subjects}
	if sc.Subject == nil {
		v.Memory = &page.Hermes.Memory
		if v.Skills, err = s.activeSkills(c, sc.Project.Slug); err != nil {
			return err
		}
	}
	meta, err := s.meta(c, "Export · "+sc.Project.Name, "export")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ExportPage(meta, v))
}

// handleExportDownload sends one export file: project.jsonl (a member's
// holds only their own data), MEMORY.md (reviewers and admins), USER.md or
// an agent file (reviewers and admins).
func (s *Server) handleExportDownload(c echo.Context) error {
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	var subject *string
	if v := strings.TrimSpace(c.QueryParam("subject")); v != "" {
		subject = &v
	}
	switch name := c.Param("file"); name {
	case "project.jsonl":
		return s.writeJSONL(c, slug, subject)
	case governance.HermesMemoryName, governance.HermesUserName:
		return s.writeHermes(c, slug, name, subject)
	default:
		ctx := c.Request().Context()
		body, err := s.app.Exports.AgentFile(ctx, actorOf(ctx), slug, name, deref(subject))
		if err != nil {
			return err
		}
		return sendMarkdown(c, name, body)
	}
}

// handleAPIExport sends the token's project export: ?format=jsonl (default),
// memory or user (with ?subject_id=).
func (s *Server) handleAPIExport(c echo.Context) error {
	t := tokenFrom(c.Request().Context())
	format := c.QueryParam("format")
	if format == "" {
		format = exportJSONL
	}
	if format != exportJSONL && format != exportMemory && format != exportUser {
		return governance.Errorf(governance.EINVALID, "format must be jsonl, memory or user.")
	}
	var subject *string
	if c.QueryParams().Has("subject_id") {
		v := c.QueryParam("subject_id")
		subject = &v
	}
	switch format {
	case exportUser:
		if subject == nil || *subject == "" {
			return governance.Errorf(governance.EINVALID, "USER.md is about one subject: give subject_id.")
		}
		return s.writeHermes(c, t.ProjectSlug, governance.HermesUserName, subject)
	case exportMemory:
		return s.writeHermes(c, t.ProjectSlug, governance.HermesMemoryName, subject)
	}
	return s.writeJSONL(c, t.ProjectSlug, subject)
}

// writeJSONL streams the JSON Lines export as a download (audited by the
// use case: who, which project, which subject; never content).
func (s *Server) writeJSONL(c echo.Context, slug string, subject *string) error {
	ctx := c.Request().Context()
	res := c.Response()
	// Once streaming has begun, a failure can only cut the file short.
	_, err := s.app.Exports.JSONL(ctx, actorOf(ctx), slug, subject, func(name string) io.Writer {
		res.Header().Set("Cache-Control", "no-store")
		res.Header().Set(echo.HeaderContentType, "application/x-ndjson; charset=utf-8")
		res.Header().Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", name))
		res.WriteHeader(http.StatusOK)
		return res
	})
	return err
}

// writeHermes sends MEMORY.md or USER.md as a download.
func (s *Server) writeHermes(c echo.Context, slug, name string, subject *string) error {
	ctx := c.Request().Context()
	f, err := s.app.Exports.HermesFile(ctx, actorOf(ctx), slug, name, deref(subject))
	if err != nil {
		return err
	}
	return sendMarkdown(c, f.Name, []byte(f.Text))
}

// sendMarkdown sends a Markdown file as a download, never cached.
func sendMarkdown(c echo.Context, name string, body []byte) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", name))
	return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", body)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
