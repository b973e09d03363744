package web

import (
	"encoding/csv"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

const auditPageSize = 50

// newAuditForm reads the audit filters; dates are validated.
func newAuditForm(c echo.Context) (templates.AuditFilterForm, templates.FieldErrors) {
	f := templates.AuditFilterForm{
		Actor:      strings.TrimSpace(c.QueryParam("actor")),
		Action:     strings.TrimSpace(c.QueryParam("action")),
		ObjectType: strings.TrimSpace(c.QueryParam("object_type")),
		ObjectID:   strings.TrimSpace(c.QueryParam("object_id")),
		Since:      strings.TrimSpace(c.QueryParam("since")),
		Until:      strings.TrimSpace(c.QueryParam("until")),
		Eval:       c.QueryParam("eval") == "1",
	}
	errs := templates.FieldErrors{}
	for field, v := range map[string]string{"since": f.Since, "until": f.Until} {
		if v == "" {
			continue
		}
		if _, err := time.Parse("2006-01-02", v); err != nil {
			errs[field] = governance.Say("Use a date like 2026-06-15.")
		}
	}
	return f, errs
}

// auditFilter turns the form into a filter; the use cases limit it to
// what the viewer may see (admins everything, reviewers their projects' rows).
func auditFilter(f templates.AuditFilterForm, errs templates.FieldErrors) governance.AuditFilter {
	af := governance.AuditFilter{Actor: f.Actor, Action: f.Action, ObjectType: f.ObjectType, ObjectID: f.ObjectID, HideEval: !f.Eval}
	if f.Since != "" && errs["since"].IsZero() {
		af.Since = f.Since + "T00:00:00Z"
	}
	if f.Until != "" && errs["until"].IsZero() {
		af.Until = f.Until + "T23:59:59Z"
	}
	return af
}

// handleAuditIndex is the audit log: filters, paging, CSV, and whether the
// hash chain verifies.
func (s *Server) handleAuditIndex(c echo.Context) error {
	ctx := c.Request().Context()
	form, errs := newAuditForm(c)
	af := auditFilter(form, errs)
	page := pageParam(c)
	af.Offset, af.Limit = (page-1)*auditPageSize, auditPageSize
	log, err := s.app.AuditLog.Page(ctx, actorOf(ctx), af)
	if err != nil {
		return err
	}
	check := log.Check
	v := templates.AuditView{Form: form, Errors: errs, Entries: log.Entries, Scoped: log.Scoped, Live: log.Live,
		Check: templates.AuditCheck{OK: check.OK, Rows: check.Rows, BadID: check.BadID, Problem: check.Problem, Head: check.Head.String()}}
	v.Pager = newPager(page, auditPageSize, log.Total, false, "audit", func(p int) string {
		return withPage("/audit", form.Values(), p)
	})
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusUnprocessableEntity
	}
	meta, err := s.meta(c, "Audit log", "audit")
	if err != nil {
		return err
	}
	return render(c, status, templates.AuditPage(meta, v))
}

// errStopCSV ends an export whose client went away.
var errStopCSV = errors.New("web: audit CSV: client gone")

// handleAuditCSV exports the filtered audit rows as CSV, newest first.
func (s *Server) handleAuditCSV(c echo.Context) error {
	ctx := c.Request().Context()
	form, errs := newAuditForm(c)
	if len(errs) > 0 {
		return governance.Errorf(governance.EINVALID, "Use dates like 2026-06-15.")
	}
	w := csv.NewWriter(c.Response())
	started := false
	err := s.app.AuditLog.Export(ctx, actorOf(ctx), auditFilter(form, errs), 1000, func(entries []*governance.AuditEntry) error {
		if !started {
			started = true
			h := c.Response().Header()
			h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
			h.Set(echo.HeaderContentDisposition, `attachment; filename="audit.csv"`)
			h.Set("Cache-Control", "no-store")
			c.Response().WriteHeader(http.StatusOK)
			// A byte order mark, so spreadsheet programs read UTF-8 (Chinese).
			if _, err := c.Response().Write([]byte("\ufeff")); err != nil {
				return errStopCSV
			}
			w.Write([]string{"id", "at", "actor", "action", "object_type", "object_id", "project_id", "reason",
				"policy_version", "details", "prev_hash", "hash"})
		}
		for _, e := range entries {
			w.Write([]string{
				strconv.FormatInt(e.ID, 10), e.At.UTC().Format(time.RFC3339), csvCell(e.Actor), csvCell(e.Action),
				csvCell(e.ObjectType), csvCell(e.ObjectID), strconv.FormatInt(e.ProjectID, 10), csvCell(e.Reason),
				csvCell(e.PolicyVersion), csvCell(e.Details), e.PrevHash, e.Hash,
			})
		}
		return nil
	})
	switch {
	case errors.Is(err, errStopCSV):
		return nil
	case err != nil && !started:
		return err
	}
	// A store error once rows were sent ends the file where it is.
	w.Flush()
	if err != nil {
		return nil
	}
	return w.Error()
}

// csvCell keeps a spreadsheet from reading a cell as a formula.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
