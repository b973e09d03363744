package web

import (
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Evals are for reviewers and admins. A suite that reads live projects
// (use_live_project, copy_events) shows their memories in its results, so
// only admins and reviewers of every one of those projects may see or run it.

const (
	evalRunHistory  = 50
	evalRecentRuns  = 20
	evalUploadField = "file"
)

// handleEvalIndex lists suites and recent runs, with the upload form.
func (s *Server) handleEvalIndex(c echo.Context) error {
	v, err := s.evalIndexView(c)
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

func (s *Server) evalIndexView(c echo.Context) (templates.EvalIndexView, error) {
	ctx := c.Request().Context()
	ix, err := s.app.Evals.Index(ctx, actorOf(ctx), evalRecentRuns)
	if err != nil {
		return templates.EvalIndexView{}, err
	}
	var v templates.EvalIndexView
	for _, row := range ix.Suites {
		sr := suiteRow(evals.Describe(row))
		if last := ix.Last[row.ID]; last != nil {
			r := runRow(last)
			sr.Last = &r
		}
		v.Suites = append(v.Suites, sr)
	}
	for _, r := range ix.Recent {
		v.Runs = append(v.Runs, runRow(r))
	}
	return v, nil
}

// readUpload reads the uploaded file, or the pasted text (a nil body:
// neither).
func readUpload(c echo.Context, maxBytes int64) (name string, body []byte, err error) {
	if fh, err := c.FormFile(evalUploadField); err == nil && fh.Size > 0 {
		if fh.Size > maxBytes {
			return "", nil, governance.Errorf(governance.ETOOLARGE, "%s", tr(c, "data.file_too_large", "MiB", maxBytes>>20))
		}
		f, err := fh.Open()
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		body, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
		return filepath.Base(fh.Filename), body, err
	}
	name, text := pasted(c)
	if name == "" {
		return "", nil, nil
	}
	return name, []byte(text), nil
}

// pasted is the text pasted in the upload form and the name it goes by
// ("": none).
func pasted(c echo.Context) (name, text string) {
	text = c.FormValue("body")
	if strings.TrimSpace(text) == "" {
		return "", ""
	}
	if strings.HasPrefix(strings.TrimSpace(text), "[") {
		return "pasted.json", text
	}
	return "pasted.yaml", text
}

// uploadFunc reads the request's upload for the evals use cases, at most
// maxBytes.
func uploadFunc(c echo.Context, maxBytes int64) app.UploadFunc {
	return func() (string, []byte, error) { return readUpload(c, maxBytes) }
}

// benchmarkFile gives the use case the uploaded benchmark file, at most
// maxBytes (larger: refused), without reading it: the multipart form keeps
// a file of more than auth.FormMemory in a temporary file, which the use
// case reads as it needs and the server removes after the request. Pasted
// text is read from the form.
func benchmarkFile(c echo.Context, maxBytes int64, refused error) app.FileFunc {
	return func() (string, func() (io.ReadCloser, error), error) {
		fh, err := c.FormFile(evalUploadField)
		if err == nil && fh.Size > 0 {
			if fh.Size > maxBytes {
				return "", nil, refused
			}
			return filepath.Base(fh.Filename), func() (io.ReadCloser, error) { return fh.Open() }, nil
		}
		name, text := pasted(c)
		if name == "" {
			return "", nil, nil
		}
		return name, func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text)), nil }, nil
	}
}

// uploadProblems turns an upload's *app.SuiteProblems into the form to show
// again; any other error is returned.
func uploadProblems(c echo.Context, err error) (templates.EvalUploadForm, error) {
	var sp *app.SuiteProblems
	if !errors.As(err, &sp) {
		return templates.EvalUploadForm{}, err
	}
	return templates.EvalUploadForm{Body: c.FormValue("body"), Problems: sp.Texts}, nil
}

// handleEvalSuiteCreate stores an uploaded suite (YAML or LoCoMo JSON).
func (s *Server) handleEvalSuiteCreate(c echo.Context) error {
	ctx := c.Request().Context()
	row, err := s.app.Evals.Upload(ctx, actorOf(ctx), uploadFunc(c, evals.MaxSuiteBytes))
	if err != nil {
		form, err := uploadProblems(c, err)
		if err != nil {
			return err
		}
		v, err := s.evalIndexView(c)
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
	if err := s.flash(c, auth.FlashSuccess, tr(c, "eval.flash.stored", "Name", row.Name)); err != nil {
		return err
	}
	return redirect(c, templates.EvalSuiteURL(row.ID))
}

// handleEvalSuiteShow shows a suite with its trend and history.
func (s *Server) handleEvalSuiteShow(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := s.evalID(c, "suite")
	if err != nil {
		return err
	}
	h, err := s.app.Evals.Suite(ctx, actorOf(ctx), id, evalRunHistory)
	if err != nil {
		return err
	}
	row, runs := h.Suite, h.Runs
	info := evals.Describe(row)
	v := templates.EvalSuiteView{Suite: suiteRow(info), Chart: trendChart(locale.From(ctx), runs)}
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
	ctx := c.Request().Context()
	id, err := s.evalID(c, "suite")
	if err != nil {
		return err
	}
	run, err := s.app.Evals.Enqueue(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	return redirect(c, templates.EvalRunURL(run.ID))
}

// handleEvalRunShow is a run's page.
func (s *Server) handleEvalRunShow(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := s.evalID(c, "run")
	if err != nil {
		return err
	}
	d, err := s.app.Evals.Run(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	run, v := d.Run, evalRunView(locale.From(ctx), d)
	meta, err := s.meta(c, tr(c, "eval.run_title", "ID", run.ID, "Suite", run.SuiteName), "evals")
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
	ctx := c.Request().Context()
	id, err := s.evalID(c, "run")
	if err != nil {
		return err
	}
	d, err := s.app.Evals.Run(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	v := evalRunView(locale.From(ctx), d)
	v.CSRF = csrfToken(c)
	if !v.Active && isHTMX(c) {
		c.Response().Header().Set("HX-Refresh", "true")
	}
	return render(c, http.StatusOK, templates.EvalRunPanel(v))
}

// handleEvalRunCancel cancels a queued or running run.
func (s *Server) handleEvalRunCancel(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := s.evalID(c, "run")
	if err != nil {
		return err
	}
	run, err := s.app.Evals.Cancel(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashInfo, tr(c, "eval.flash.cancelled", "ID", run.ID)); err != nil {
		return err
	}
	return redirect(c, templates.EvalRunURL(run.ID))
}

// handleEvalRunCompare compares two runs of one suite (?a=before&b=after).
func (s *Server) handleEvalRunCompare(c echo.Context) error {
	ctx := c.Request().Context()
	// An id that does not parse is 0, which the use case refuses.
	a, _ := strconv.ParseInt(c.QueryParam("a"), 10, 64)
	b, _ := strconv.ParseInt(c.QueryParam("b"), 10, 64)
	cmp, err := s.app.Evals.Compare(ctx, actorOf(ctx), a, b)
	if err != nil {
		return err
	}
	v := compareView(locale.From(ctx), cmp.A, cmp.B, cmp.Change)
	meta, err := s.meta(c, "Compare runs", "evals")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.EvalComparePage(meta, v))
}

// handleEvalBenchmarkIndex lists the retrieval benchmarks.
func (s *Server) handleEvalBenchmarkIndex(c echo.Context) error {
	v, err := s.benchmarkIndexView(c)
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

func (s *Server) benchmarkIndexView(c echo.Context) (templates.EvalBenchmarkIndexView, error) {
	ctx := c.Request().Context()
	var v templates.EvalBenchmarkIndexView
	benchmarks, err := s.app.Evals.Benchmarks(ctx, actorOf(ctx))
	if err != nil {
		return v, err
	}
	for _, bm := range benchmarks {
		b := templates.EvalBenchmarkSuite{Suite: suiteRow(evals.Describe(bm.Suite))}
		if bm.Last != nil {
			r := runRow(bm.Last)
			b.Run = &r
		}
		if bm.LastDone != nil {
			if m := evals.ParseRunSummary(bm.LastDone.Summary).Metrics; m != nil && m.Benchmark != nil {
				b.Table = benchmarkView(locale.From(ctx), m.Benchmark)
			}
		}
		v.Suites = append(v.Suites, b)
	}
	return v, nil
}

// handleEvalBenchmarkCreate imports a LoCoMo or LongMemEval file and
// starts its run.
func (s *Server) handleEvalBenchmarkCreate(c echo.Context) error {
	ctx := c.Request().Context()
	limit, refused := s.benchmarkLimit(c)
	run, err := s.app.Evals.UploadBenchmark(ctx, actorOf(ctx), benchmarkFile(c, limit, refused))
	if err != nil {
		form, err := uploadProblems(c, err)
		if err != nil {
			return err
		}
		v, err := s.benchmarkIndexView(c)
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
	return redirect(c, templates.EvalRunURL(run.ID))
}

// evalID reads the id in an evals page's path. A viewer who may not use
// evals at all gets the evals use cases' answer (403) before a malformed
// id would answer 404.
func (s *Server) evalID(c echo.Context, what string) (int64, error) {
	if err := s.app.Evals.Allowed(actorOf(c.Request().Context())); err != nil {
		return 0, err
	}
	return idParam(c, "id", what)
}
