package web

import (
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
	"github.com/mnemo-console/mnemo/web/templates"
)

// importForm is the upload form as posted.
type importForm struct {
	Project string
	Format  string
	Skip    bool
	File    *multipart.FileHeader
}

func newImportForm(c echo.Context) (importForm, error) {
	f := importForm{
		Project: strings.TrimSpace(c.FormValue("project")),
		Format:  strings.TrimSpace(c.FormValue("format")),
		Skip:    c.FormValue("skip_malformed") != "",
	}
	fh, err := c.FormFile("file")
	switch {
	case err == nil:
		f.File = fh
	case errors.Is(err, http.ErrMissingFile), errors.Is(err, http.ErrNotMultipart):
	default:
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return f, governance.Errorf(governance.ETOOLARGE, "The file is larger than %d MiB.", mbe.Limit>>20)
		}
		return f, governance.Errorf(governance.EINVALID, "The upload could not be read.")
	}
	return f, nil
}

// Validate returns the problems of each field; project must be one of projects.
func (f importForm) Validate(projects []*governance.Project) (templates.FieldErrors, *governance.Project) {
	errs := templates.FieldErrors{}
	var chosen *governance.Project
	for _, p := range projects {
		if p.Slug == f.Project {
			chosen = p
		}
	}
	switch {
	case f.Project == "":
		errs["project"] = "Choose a project."
	case chosen == nil:
		errs["project"] = "There is no such project."
	}
	if _, err := transcript.ParseFormat(f.Format); err != nil {
		errs["format"] = governance.ErrorMessage(err)
	}
	switch {
	case f.File == nil:
		errs["file"] = "Choose a file."
	case f.File.Size == 0:
		errs["file"] = "The file is empty."
	}
	return errs, chosen
}

// handleImportNew shows the upload form.
func (s *Server) handleImportNew(c echo.Context) error {
	ctx := c.Request().Context()
	projects, err := s.app.Projects.All(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Import events", "import")
	if err != nil {
		return err
	}
	v := templates.ImportView{Projects: projects, Project: c.QueryParam("project"), Formats: importFormats()}
	return render(c, http.StatusOK, templates.ImportPage(meta, v))
}

// handleImportCreate imports an uploaded JSON Lines file into a project, all
// or nothing: a file with any bad line is rejected with every problem listed
// by line number. Events already present (same id) are skipped and counted.
func (s *Server) handleImportCreate(c echo.Context) error {
	ctx := c.Request().Context()
	projects, err := s.app.Projects.All(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	f, err := newImportForm(c)
	if err != nil {
		return err
	}
	v := templates.ImportView{Projects: projects, Project: f.Project, Format: f.Format, Skip: f.Skip, Formats: importFormats()}
	errs, project := f.Validate(projects)
	if len(errs) > 0 {
		v.Errors = errs
		return s.renderImport(c, http.StatusUnprocessableEntity, v)
	}
	v.FileName = f.File.Filename

	format, _ := transcript.ParseFormat(f.Format)
	file, err := f.File.Open()
	if err != nil {
		return fmt.Errorf("web: open upload: %w", err)
	}
	defer file.Close()
	opts := transcript.Options{Format: format, Name: f.File.Filename, SkipMalformed: f.Skip}
	res, err := s.app.Imports.Transcript(ctx, actorOf(ctx), project.ID, file, opts)
	var rejected *governance.ImportError
	switch {
	case errors.As(err, &rejected):
		v.LineErrors, v.InvalidLines = rejected.Lines, rejected.Count()
		return s.renderImport(c, http.StatusUnprocessableEntity, v)
	case err != nil:
		if code := governance.ErrorCode(err); code == governance.EINVALID {
			v.Errors = templates.FieldErrors{"file": governance.ErrorMessage(err)}
			return s.renderImport(c, http.StatusUnprocessableEntity, v)
		}
		return err
	case res.Inserted+res.Skipped == 0 && res.MalformedCount == 0:
		v.Errors = templates.FieldErrors{"file": "The file holds no events."}
		return s.renderImport(c, http.StatusUnprocessableEntity, v)
	}
	msg := fmt.Sprintf("%d imported, %d skipped (already present).", res.Inserted, res.Skipped)
	if res.MalformedCount > 0 {
		var lines []string
		for _, l := range res.Malformed {
			lines = append(lines, strconv.Itoa(l.Line))
		}
		msg += fmt.Sprintf(" %d malformed line(s) skipped: %s.", res.MalformedCount, strings.Join(lines, ", "))
	}
	if err := s.flash(c, auth.FlashSuccess, msg); err != nil {
		return err
	}
	return redirect(c, "/admin/import?project="+project.Slug)
}

// importFormats lists the formats the upload form offers.
func importFormats() []string {
	out := []string{"auto"}
	for _, f := range transcript.Formats {
		out = append(out, string(f))
	}
	return out
}

func (s *Server) renderImport(c echo.Context, status int, v templates.ImportView) error {
	meta, err := s.meta(c, "Import events", "import")
	if err != nil {
		return err
	}
	return render(c, status, templates.ImportPage(meta, v))
}
