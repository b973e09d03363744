package web

import (
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
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
			return f, governance.Errorf(governance.ETOOLARGE, "%s", tr(c, "data.file_too_large", "MiB", mbe.Limit>>20))
		}
		return f, governance.Errorf(governance.EINVALID, "The upload could not be read.")
	}
	return f, nil
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
	in := app.UploadInput{Project: f.Project, Format: f.Format, SkipMalformed: f.Skip}
	if f.File != nil {
		file, err := f.File.Open()
		if err != nil {
			return fmt.Errorf("web: open upload: %w", err)
		}
		defer file.Close()
		in.File, in.Name, in.Size = file, f.File.Filename, f.File.Size
		v.FileName = f.File.Filename
	}
	res, project, err := s.app.Imports.Upload(ctx, actorOf(ctx), in)
	var rejected *governance.ImportError
	if errors.As(err, &rejected) {
		v.LineErrors, v.InvalidLines = rejected.Lines, rejected.Count()
		return s.renderImport(c, http.StatusUnprocessableEntity, v)
	}
	if errs, ok := app.AsFieldErrors(err); ok {
		v.Errors = templates.FieldErrors(errs)
		return s.renderImport(c, http.StatusUnprocessableEntity, v)
	}
	if err != nil {
		return err
	}
	msg := tr(c, "import.flash.done", "Inserted", trNum(c, res.Inserted), "Skipped", trNum(c, res.Skipped))
	if res.MalformedCount > 0 {
		var lines []string
		for _, l := range res.Malformed {
			lines = append(lines, strconv.Itoa(l.Line))
		}
		msg += " " + tr(c, "import.flash.malformed", "Count", trNum(c, res.MalformedCount), "Lines", strings.Join(lines, ", "))
	}
	if res.Clipped > 0 {
		msg += " " + tr(c, "import.flash.clipped", "Count", trNum(c, res.Clipped), "KiB", trNum(c, governance.MaxEventTextBytes>>10),
			"Lines", transcript.LineList(res.ClippedLines))
	}
	if res.Cleaned > 0 {
		msg += " " + tr(c, "import.flash.cleaned", "Count", trNum(c, res.Cleaned))
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

// trNum formats an integer with the request language's digit grouping.
func trNum(c echo.Context, n int) string {
	return locale.From(c.Request().Context()).Number(n)
}
