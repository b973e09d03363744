package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// handleSourceIndex lists the followed directories with each file's
// checkpoint and last problem.
func (s *Server) handleSourceIndex(c echo.Context) error {
	return s.renderSources(c, http.StatusOK, templates.SourceFormValues{}, nil)
}

// handleSourceCreate follows a new directory (the console's follow loop
// picks it up at its next tick).
func (s *Server) handleSourceCreate(c echo.Context) error {
	ctx := c.Request().Context()
	form := templates.SourceFormValues{
		Project: strings.TrimSpace(c.FormValue("project")),
		Dir:     strings.TrimSpace(c.FormValue("dir")),
		Format:  strings.TrimSpace(c.FormValue("format")),
	}
	src, err := s.app.Sources.Ensure(ctx, actorOf(ctx), app.SourceInput{Project: form.Project, Dir: form.Dir, Format: form.Format})
	if fe, ok := app.AsFieldErrors(err); ok {
		return s.renderSources(c, http.StatusUnprocessableEntity, form, templates.FieldErrors(fe))
	}
	if err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, tr(c, "source.flash.following", "Dir", src.Dir)); err != nil {
		return err
	}
	return redirect(c, templates.SourcesURL)
}

// handleSourceStopShow asks to confirm stopping to follow a directory,
// naming what stops and what stays.
func (s *Server) handleSourceStopShow(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "followed directory")
	if err != nil {
		return err
	}
	src, err := s.app.Sources.Get(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	v := templates.SourceStopView{Source: sourceRow(src)}
	for _, f := range src.Files {
		v.Events += f.Events
	}
	meta, err := s.meta(c, "Stop following a directory", "sources")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.SourceStopPage(meta, v))
}

// handleSourceStop stops following a directory once the confirmation
// page's form is sent (confirm=yes); without it nothing stops and the
// browser is sent to the confirmation page.
func (s *Server) handleSourceStop(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "followed directory")
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "yes" {
		return redirect(c, templates.SourceStopURL(id))
	}
	src, err := s.app.Sources.Stop(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, tr(c, "source.flash.stopped", "Dir", src.Dir)); err != nil {
		return err
	}
	return redirect(c, templates.SourcesURL)
}

// sourceRow is a followed directory as the pages show it.
func sourceRow(src *governance.FollowSource) templates.SourceRow {
	row := templates.SourceRow{ID: src.ID, Project: src.Project, Dir: src.Dir, Format: src.Format}
	for _, f := range src.Files {
		row.Files = append(row.Files, templates.SourceFileRow{Path: f.Path, Offset: f.Offset, Lines: f.Lines, Database: f.Database,
			Events: f.Events, LastError: governance.ParseText(f.LastError), UpdatedAt: parseStamp(f.UpdatedAt)})
	}
	return row
}

// parseStamp reads a stored RFC 3339 time (zero when it does not parse).
func parseStamp(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func (s *Server) renderSources(c echo.Context, status int, form templates.SourceFormValues, errs templates.FieldErrors) error {
	ctx := c.Request().Context()
	projects, err := s.app.Projects.All(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	sources, err := s.app.Sources.List(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	v := templates.SourceView{Projects: projects, Formats: importFormats(), Form: form, Errors: errs, Roots: s.app.Sources.Roots()}
	for _, src := range sources {
		v.Sources = append(v.Sources, sourceRow(src))
	}
	meta, err := s.meta(c, "Sources", "sources")
	if err != nil {
		return err
	}
	return render(c, status, templates.SourcePage(meta, v))
}
