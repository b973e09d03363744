package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Export formats of GET /api/v1/export and the console's downloads.
const (
	exportJSONL  = "jsonl"
	exportMemory = "memory"
	exportUser   = "user"
)

// exportSubject is the subject a caller's export is about: a member's own,
// always; for reviewers and admins the ?subject= they chose ("" = none).
func exportSubject(c echo.Context, sc scope) string {
	if sc.Subject != nil {
		return *sc.Subject
	}
	return strings.TrimSpace(c.QueryParam("subject"))
}

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
	sc, err := s.projectScope(c, slug)
	if err != nil {
		return err
	}
	subject := exportSubject(c, sc)
	h, err := s.store.ExportHermes(ctx, sc.Project.ID, subject)
	if err != nil {
		return err
	}
	v := templates.ExportView{Project: sc.Project, Member: sc.Subject != nil, SubjectID: subject, User: h.User}
	if sc.Subject == nil {
		v.Memory = &h.Memory
		if v.AgentFiles, _, err = s.store.ExportAgentFiles(ctx, sc.Project.ID, subject); err != nil {
			return err
		}
		if v.Subjects, err = s.projectSubjects(ctx, sc.Project.ID); err != nil {
			return err
		}
	}
	meta, err := s.meta(c, "Export · "+sc.Project.Name, "export")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ExportPage(meta, v))
}

// projectSubjects lists the subjects a project has sessions of.
func (s *Server) projectSubjects(ctx context.Context, projectID int64) ([]string, error) {
	sessions, _, err := s.store.FindSessions(ctx, governance.SessionFilter{ProjectID: projectID, Limit: 1000})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, si := range sessions {
		if si.SubjectID != "" && !slices.Contains(out, si.SubjectID) {
			out = append(out, si.SubjectID)
		}
	}
	slices.Sort(out)
	return out, nil
}

// handleExportDownload sends one export file: project.jsonl (a member's
// holds only their own data), MEMORY.md (reviewers and admins) or USER.md.
func (s *Server) handleExportDownload(c echo.Context) error {
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	sc, err := s.projectScope(c, slug)
	if err != nil {
		return err
	}
	format := map[string]string{"project.jsonl": exportJSONL, governance.HermesMemoryName: exportMemory,
		governance.HermesUserName: exportUser}[c.Param("file")]
	if format == "" && sc.Subject == nil {
		return s.writeAgentFile(c, sc.Project, c.Param("file"), strings.TrimSpace(c.QueryParam("subject")))
	}
	if format == "" {
		return governance.Errorf(governance.ENOTFOUND, "There is no such export file.")
	}
	if format == exportMemory && sc.Subject != nil {
		return governance.Errorf(governance.EFORBIDDEN, "MEMORY.md holds the project's rules; members may download USER.md.")
	}
	var subject *string
	if sc.Subject != nil {
		subject = sc.Subject
	} else if v := strings.TrimSpace(c.QueryParam("subject")); v != "" {
		subject = &v
	}
	return s.writeExport(c, sc.Project, format, subject, auth.UserFrom(c.Request().Context()).Username)
}

// handleAPIExport sends the token's project export: ?format=jsonl (default),
// memory or user (with ?subject_id=).
func (s *Server) handleAPIExport(c echo.Context) error {
	ctx := c.Request().Context()
	t := tokenFrom(ctx)
	p, err := s.store.FindProjectByID(ctx, t.ProjectID)
	if err != nil {
		return err
	}
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
	if format == exportUser && (subject == nil || *subject == "") {
		return governance.Errorf(governance.EINVALID, "USER.md is about one subject: give subject_id.")
	}
	return s.writeExport(c, p, format, subject, t.Actor())
}

// writeExport streams one export file as a download; a JSON Lines export is
// audited (who, which project, which subject; never content).
func (s *Server) writeExport(c echo.Context, p *governance.Project, format string, subject *string, actor string) error {
	ctx := c.Request().Context()
	res := c.Response()
	res.Header().Set("Cache-Control", "no-store")
	switch format {
	case exportJSONL:
		details := `{"subject":null}`
		name := p.Slug + ".jsonl"
		if subject != nil {
			details = fmt.Sprintf(`{"subject":%q}`, *subject)
			name = p.Slug + "-" + safeFileName(*subject) + ".jsonl"
		}
		if err := s.store.AppendAudit(ctx, &governance.AuditEntry{Actor: actor, Action: "project.export", ObjectType: "project",
			ObjectID: fmt.Sprint(p.ID), ProjectID: p.ID, Details: details}); err != nil {
			return err
		}
		res.Header().Set(echo.HeaderContentType, "application/x-ndjson; charset=utf-8")
		res.Header().Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", name))
		res.WriteHeader(http.StatusOK)
		// Once streaming has begun, a failure can only cut the file short.
		if _, err := s.store.ExportJSONL(ctx, p.ID, res, governance.ExportOptions{SubjectID: subject}); err != nil {
			return err
		}
		return nil
	default:
		sub := ""
		if subject != nil {
			sub = *subject
		}
		h, err := s.store.ExportHermes(ctx, p.ID, sub)
		if err != nil {
			return err
		}
		f := h.Memory
		if format == exportUser {
			f = h.User
		}
		res.Header().Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", f.Name))
		return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(f.Text))
	}
}

// safeFileName keeps letters, digits, dash and underscore.
func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// writeAgentFile sends one agent file (AGENTS.md, CLAUDE.md,
// claude-rules-<topic>.md) holding only its managed block, ready to be
// placed in a repository and kept current by console sync.
func (s *Server) writeAgentFile(c echo.Context, p *governance.Project, name, subject string) error {
	files, _, err := s.store.ExportAgentFiles(c.Request().Context(), p.ID, subject)
	if err != nil {
		return err
	}
	for _, f := range files {
		if templates.AgentFileDownload(f.Path) != name {
			continue
		}
		body, err := governance.MergeManagedBlock(nil, f.Block)
		if err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%q", name))
		return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", body)
	}
	return governance.Errorf(governance.ENOTFOUND, "There is no such export file.")
}
