package web

import (
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// importForm is the upload form as posted.
type importForm struct {
	Project string
	File    *multipart.FileHeader
}

func newImportForm(c echo.Context) (importForm, error) {
	f := importForm{Project: strings.TrimSpace(c.FormValue("project"))}
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
	switch {
	case f.File == nil:
		errs["file"] = "Choose a JSON Lines file."
	case f.File.Size == 0:
		errs["file"] = "The file is empty."
	}
	return errs, chosen
}

// handleImportNew shows the upload form.
func (s *Server) handleImportNew(c echo.Context) error {
	projects, err := s.store.FindProjects(c.Request().Context())
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Import events", "import")
	if err != nil {
		return err
	}
	v := templates.ImportView{Projects: projects, Project: c.QueryParam("project")}
	return render(c, http.StatusOK, templates.ImportPage(meta, v))
}

// handleImportCreate imports an uploaded JSON Lines file into a project, all
// or nothing: a file with any bad line is rejected with every problem listed
// by line number. Events already present (same id) are skipped and counted.
func (s *Server) handleImportCreate(c echo.Context) error {
	ctx := c.Request().Context()
	projects, err := s.store.FindProjects(ctx)
	if err != nil {
		return err
	}
	f, err := newImportForm(c)
	if err != nil {
		return err
	}
	v := templates.ImportView{Projects: projects, Project: f.Project}
	errs, project := f.Validate(projects)
	if len(errs) > 0 {
		v.Errors = errs
		return s.renderImport(c, http.StatusUnprocessableEntity, v)
	}
	v.FileName = f.File.Filename

	events, err := parseUpload(f.File, s.cfg.MaxLineBytes)
	var rejected *governance.ImportError
	switch {
	case errors.As(err, &rejected):
		v.LineErrors, v.InvalidLines = rejected.Lines, rejected.Count()
		return s.renderImport(c, http.StatusUnprocessableEntity, v)
	case err != nil:
		return err
	case len(events) == 0:
		v.Errors = templates.FieldErrors{"file": "The file holds no events."}
		return s.renderImport(c, http.StatusUnprocessableEntity, v)
	}
	res, err := s.store.ImportEvents(ctx, "account:"+auth.UserFrom(ctx).Username, project.ID, events)
	if errors.As(err, &rejected) {
		v.LineErrors, v.InvalidLines = rejected.Lines, rejected.Count()
		return s.renderImport(c, http.StatusUnprocessableEntity, v)
	} else if err != nil {
		return err
	}
	msg := fmt.Sprintf("%d imported, %d skipped (already present).", res.Inserted, res.Skipped)
	if err := s.flash(c, auth.FlashSuccess, msg); err != nil {
		return err
	}
	return redirect(c, "/admin/import?project="+project.Slug)
}

func (s *Server) renderImport(c echo.Context, status int, v templates.ImportView) error {
	meta, err := s.meta(c, "Import events", "import")
	if err != nil {
		return err
	}
	return render(c, status, templates.ImportPage(meta, v))
}

// parseUpload reads the events of an uploaded file; a bad file yields a
// *governance.ImportError.
func parseUpload(fh *multipart.FileHeader, maxLine int) ([]*governance.Event, error) {
	file, err := fh.Open()
	if err != nil {
		return nil, fmt.Errorf("web: open upload: %w", err)
	}
	defer file.Close()
	return governance.ParseEventsJSONLLimit(file, maxLine)
}
