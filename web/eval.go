package web

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Evals are for reviewers and admins. A suite that reads live projects
// (use_live_project, copy_events) shows their memories in its results, so
// only admins and reviewers of every one of those projects may see or run it.

var errEvalsForbidden = governance.Errorf(governance.EFORBIDDEN, "Only reviewers and admins run evals.")

const (
	evalRunHistory  = 50
	evalRecentRuns  = 20
	evalUploadField = "file"
)

// evalAccount returns the signed-in account if the policy lets it use
// evals (reviewers of any project and admins).
func evalAccount(c echo.Context) (*governance.Account, error) {
	if err := can(c.Request().Context(), governance.ActReviewAny, governance.Object{}); err != nil {
		return nil, errEvalsForbidden
	}
	return auth.UserFrom(c.Request().Context()), nil
}

// canAccessLive reports whether a may see suites reading these live
// projects: the policy must let it review every one.
func (s *Server) canAccessLive(ctx context.Context, a *governance.Account, live []string) bool {
	for _, slug := range live {
		p, err := s.store.FindProjectBySlug(ctx, slug)
		if err != nil {
			if a.IsAdmin {
				continue // an admin may run a suite naming a project that does not exist yet
			}
			return false
		}
		if governance.Can(governance.AccountActor(a), governance.ActReview, governance.InProject(p)) != nil {
			return false
		}
	}
	return true
}

// evalSuite loads a suite the account may see.
func (s *Server) evalSuite(c echo.Context, a *governance.Account, id int64) (*evals.SuiteRow, error) {
	ctx := c.Request().Context()
	row, err := s.store.FindEvalSuiteByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if !s.canAccessLive(ctx, a, evals.LiveProjectsOf(row.Body)) {
		return nil, governance.Errorf(governance.EFORBIDDEN, "Suite %s reads live projects you do not review.", row.Name)
	}
	return row, nil
}

// evalRun loads a run of a suite the account may see.
func (s *Server) evalRun(c echo.Context, a *governance.Account, param string) (*evals.RunRow, error) {
	id, err := idParam(c, param, "run")
	if err != nil {
		return nil, err
	}
	run, err := s.store.FindEvalRunByID(c.Request().Context(), id)
	if err != nil {
		return nil, err
	}
	if _, err := s.evalSuite(c, a, run.SuiteID); err != nil {
		return nil, err
	}
	return run, nil
}

// visibleSuites lists the suites the account may see.
func (s *Server) visibleSuites(ctx context.Context, a *governance.Account) ([]*evals.SuiteRow, error) {
	rows, err := s.store.FindEvalSuites(ctx)
	if err != nil {
		return nil, err
	}
	var out []*evals.SuiteRow
	for _, row := range rows {
		if s.canAccessLive(ctx, a, evals.LiveProjectsOf(row.Body)) {
			out = append(out, row)
		}
	}
	return out, nil
}

// handleEvalIndex lists suites and recent runs, with the upload form.
func (s *Server) handleEvalIndex(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	v, err := s.evalIndexView(c, a)
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Evals", "evals")
	if err != nil {
		return err
	}
	v.CSRF = meta.CSRF
	return render(c, http.StatusOK, templates.EvalsPage(meta, v))
}

func (s *Server) evalIndexView(c echo.Context, a *governance.Account) (templates.EvalIndexView, error) {
	ctx := c.Request().Context()
	rows, err := s.visibleSuites(ctx, a)
	if err != nil {
		return templates.EvalIndexView{}, err
	}
	var v templates.EvalIndexView
	ids := make([]int64, 0, len(rows))
	for _, row := range rows {
		ids = append(ids, row.ID)
	}
	last, err := s.lastRuns(ctx, ids)
	if err != nil {
		return v, err
	}
	for _, row := range rows {
		sr := suiteRow(evals.Describe(row))
		sr.Last = last[row.ID]
		v.Suites = append(v.Suites, sr)
	}
	runs, _, err := s.store.FindEvalRuns(ctx, evals.RunFilter{Limit: evalRecentRuns * 3})
	if err != nil {
		return v, err
	}
	visible := map[int64]bool{}
	for _, id := range ids {
		visible[id] = true
	}
	for _, r := range runs {
		if visible[r.SuiteID] && len(v.Runs) < evalRecentRuns {
			v.Runs = append(v.Runs, runRow(r))
		}
	}
	return v, nil
}

// lastRuns finds the newest run of each suite.
func (s *Server) lastRuns(ctx context.Context, suiteIDs []int64) (map[int64]*templates.EvalRunRow, error) {
	out := map[int64]*templates.EvalRunRow{}
	for _, id := range suiteIDs {
		runs, _, err := s.store.FindEvalRuns(ctx, evals.RunFilter{SuiteID: &id, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(runs) == 1 {
			r := runRow(runs[0])
			out[id] = &r
		}
	}
	return out, nil
}

// readUpload reads the uploaded file, or the pasted text.
func readUpload(c echo.Context, maxBytes int64) (name string, body []byte, err error) {
	if fh, err := c.FormFile(evalUploadField); err == nil && fh.Size > 0 {
		if fh.Size > maxBytes {
			return "", nil, governance.Errorf(governance.ETOOLARGE, "The file is larger than %d MiB.", maxBytes>>20)
		}
		f, err := fh.Open()
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		body, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
		return filepath.Base(fh.Filename), body, err
	}
	text := c.FormValue("body")
	if strings.TrimSpace(text) == "" {
		return "", nil, nil
	}
	name = "pasted.yaml"
	if strings.HasPrefix(strings.TrimSpace(text), "[") {
		name = "pasted.json"
	}
	return name, []byte(text), nil
}

// handleEvalSuiteCreate stores an uploaded suite (YAML or LoCoMo JSON).
func (s *Server) handleEvalSuiteCreate(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	row, form, err := s.uploadSuite(c, a)
	if err != nil {
		return err
	}
	if row == nil {
		v, err := s.evalIndexView(c, a)
		if err != nil {
			return err
		}
		meta, err := s.meta(c, "Evals", "evals")
		if err != nil {
			return err
		}
		v.CSRF, v.Upload = meta.CSRF, form
		return render(c, http.StatusUnprocessableEntity, templates.EvalsPage(meta, v))
	}
	if err := s.flash(c, auth.FlashSuccess, "Suite "+row.Name+" stored."); err != nil {
		return err
	}
	return redirect(c, templates.EvalSuiteURL(row.ID))
}

// uploadSuite validates and stores an upload; an invalid one returns a nil
// row and the form to show again with its problems.
func (s *Server) uploadSuite(c echo.Context, a *governance.Account) (*evals.SuiteRow, templates.EvalUploadForm, error) {
	name, body, err := readUpload(c, evals.MaxSuiteBytes)
	if err != nil {
		return nil, templates.EvalUploadForm{}, err
	}
	form := templates.EvalUploadForm{Body: c.FormValue("body")}
	if body == nil {
		form.Problems = []string{"Choose a file or paste a suite."}
		return nil, form, nil
	}
	suite, err := evals.ParseSuite(name, body)
	if ve, ok := evals.IsValidation(err); ok {
		for _, p := range ve.Problems {
			form.Problems = append(form.Problems, ve.File+": "+p.String())
		}
		return nil, form, nil
	}
	if err != nil {
		return nil, form, err
	}
	if !s.canAccessLive(c.Request().Context(), a, suite.LiveProjects()) {
		form.Problems = []string{"The suite reads live projects you do not review: " + strings.Join(suite.LiveProjects(), ", ") + "."}
		return nil, form, nil
	}
	row, err := evals.Upload(c.Request().Context(), s.store, name, body, "account:"+a.Username)
	if governance.ErrorCode(err) == governance.ECONFLICT {
		form.Problems = []string{governance.ErrorMessage(err)}
		return nil, form, nil
	}
	return row, form, err
}

// handleEvalSuiteShow shows a suite with its trend and history.
func (s *Server) handleEvalSuiteShow(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	id, err := idParam(c, "id", "suite")
	if err != nil {
		return err
	}
	row, err := s.evalSuite(c, a, id)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	runs, _, err := s.store.FindEvalRuns(ctx, evals.RunFilter{SuiteID: &row.ID, Limit: evalRunHistory})
	if err != nil {
		return err
	}
	info := evals.Describe(row)
	v := templates.EvalSuiteView{Suite: suiteRow(info), Chart: trendChart(runs)}
	if !info.Benchmark {
		v.Body = row.Body
		if suite, err := evals.ParseSuite(row.Name+".yaml", []byte(row.Body)); err == nil {
			for _, c := range suite.Cases {
				v.Cases = append(v.Cases, templates.EvalCaseRow{ID: c.ID, Kind: string(c.Kind), Description: c.Description})
			}
		}
	}
	for _, r := range runs {
		v.Runs = append(v.Runs, runRow(r))
		if r.Status == evals.RunDone {
			v.Done = append(v.Done, runRow(r))
		}
	}
	meta, err := s.meta(c, row.Name, "evals")
	if err != nil {
		return err
	}
	v.CSRF = meta.CSRF
	return render(c, http.StatusOK, templates.EvalSuitePage(meta, v))
}

// handleEvalRunCreate queues a run; the background runner picks it up.
func (s *Server) handleEvalRunCreate(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	id, err := idParam(c, "id", "suite")
	if err != nil {
		return err
	}
	if _, err := s.evalSuite(c, a, id); err != nil {
		return err
	}
	run, err := evals.Enqueue(c.Request().Context(), s.store, id, "account:"+a.Username)
	if err != nil {
		return err
	}
	return redirect(c, templates.EvalRunURL(run.ID))
}

// handleEvalRunShow is a run's page.
func (s *Server) handleEvalRunShow(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	run, err := s.evalRun(c, a, "id")
	if err != nil {
		return err
	}
	v, err := s.evalRunView(c.Request().Context(), run)
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Run #"+strconv.FormatInt(run.ID, 10)+" · "+run.SuiteName, "evals")
	if err != nil {
		return err
	}
	v.CSRF = meta.CSRF
	return render(c, http.StatusOK, templates.EvalRunPage(meta, v))
}

// handleEvalRunPanel is the progress panel a running run's page polls. When
// the run has ended it asks htmx to reload the page, which then shows the
// results.
func (s *Server) handleEvalRunPanel(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	run, err := s.evalRun(c, a, "id")
	if err != nil {
		return err
	}
	v, err := s.evalRunView(c.Request().Context(), run)
	if err != nil {
		return err
	}
	v.CSRF = csrfToken(c)
	if !v.Active && isHTMX(c) {
		c.Response().Header().Set("HX-Refresh", "true")
	}
	return render(c, http.StatusOK, templates.EvalRunPanel(v))
}

// handleEvalRunCancel cancels a queued or running run.
func (s *Server) handleEvalRunCancel(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	run, err := s.evalRun(c, a, "id")
	if err != nil {
		return err
	}
	if err := s.store.CancelEvalRun(c.Request().Context(), run.ID, "account:"+a.Username); err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashInfo, "Run #"+strconv.FormatInt(run.ID, 10)+" cancelled; the results so far are kept."); err != nil {
		return err
	}
	return redirect(c, templates.EvalRunURL(run.ID))
}

// handleEvalRunCompare compares two runs of one suite (?a=before&b=after).
func (s *Server) handleEvalRunCompare(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var runs [2]*evals.RunRow
	for i, key := range []string{"a", "b"} {
		id, err := strconv.ParseInt(c.QueryParam(key), 10, 64)
		if err != nil {
			return governance.Errorf(governance.EINVALID, "Choose two runs to compare.")
		}
		run, err := s.store.FindEvalRunByID(ctx, id)
		if err != nil {
			return err
		}
		if _, err := s.evalSuite(c, a, run.SuiteID); err != nil {
			return err
		}
		runs[i] = run
	}
	if runs[0].SuiteID != runs[1].SuiteID {
		return governance.Errorf(governance.EINVALID, "Only runs of the same suite can be compared.")
	}
	var reports [2]*evals.Report
	for i, run := range runs {
		results, err := s.store.FindEvalResults(ctx, run.ID)
		if err != nil {
			return err
		}
		reports[i] = evals.ReportOf(run, results)
	}
	v := compareView(runs[0], runs[1], evals.Compare(reports[0], reports[1]))
	meta, err := s.meta(c, "Compare runs", "evals")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.EvalComparePage(meta, v))
}

// handleEvalBenchmarkIndex lists the retrieval benchmarks.
func (s *Server) handleEvalBenchmarkIndex(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	v, err := s.benchmarkIndexView(c, a)
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Benchmarks", "evals")
	if err != nil {
		return err
	}
	v.CSRF = meta.CSRF
	return render(c, http.StatusOK, templates.EvalBenchmarksPage(meta, v))
}

func (s *Server) benchmarkIndexView(c echo.Context, a *governance.Account) (templates.EvalBenchmarkIndexView, error) {
	ctx := c.Request().Context()
	var v templates.EvalBenchmarkIndexView
	rows, err := s.visibleSuites(ctx, a)
	if err != nil {
		return v, err
	}
	for _, row := range rows {
		info := evals.Describe(row)
		if !info.Benchmark {
			continue
		}
		b := templates.EvalBenchmarkSuite{Suite: suiteRow(info)}
		runs, _, err := s.store.FindEvalRuns(ctx, evals.RunFilter{SuiteID: &row.ID, Limit: 1})
		if err != nil {
			return v, err
		}
		if len(runs) == 1 {
			r := runRow(runs[0])
			b.Run = &r
		}
		done, _, err := s.store.FindEvalRuns(ctx, evals.RunFilter{SuiteID: &row.ID, Statuses: []evals.RunStatus{evals.RunDone}, Limit: 1})
		if err != nil {
			return v, err
		}
		if len(done) == 1 {
			if m := evals.ParseRunSummary(done[0].Summary).Metrics; m != nil && m.Benchmark != nil {
				b.Table = benchmarkView(m.Benchmark)
			}
		}
		v.Suites = append(v.Suites, b)
	}
	return v, nil
}

// handleEvalBenchmarkCreate imports a LoCoMo file and starts its run.
func (s *Server) handleEvalBenchmarkCreate(c echo.Context) error {
	a, err := evalAccount(c)
	if err != nil {
		return err
	}
	row, form, err := s.uploadSuite(c, a)
	if err != nil {
		return err
	}
	if row != nil && !evals.Describe(row).Benchmark {
		form.Problems = []string{"This is a suite, not a benchmark file; it was stored under Evals."}
		row = nil
	}
	if row == nil {
		v, err := s.benchmarkIndexView(c, a)
		if err != nil {
			return err
		}
		meta, err := s.meta(c, "Benchmarks", "evals")
		if err != nil {
			return err
		}
		v.CSRF, v.Upload = meta.CSRF, form
		return render(c, http.StatusUnprocessableEntity, templates.EvalBenchmarksPage(meta, v))
	}
	run, err := evals.Enqueue(c.Request().Context(), s.store, row.ID, "account:"+a.Username)
	if err != nil {
		return err
	}
	return redirect(c, templates.EvalRunURL(run.ID))
}
