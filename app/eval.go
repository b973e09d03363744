package app

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// EvalStore keeps eval suites, runs and results.
type EvalStore interface {
	evals.SuiteStore
	FindEvalRunByID(ctx context.Context, id int64) (*evals.RunRow, error)
	FindEvalRuns(ctx context.Context, f evals.RunFilter) ([]*evals.RunRow, int, error)
	FindEvalResults(ctx context.Context, runID int64) ([]*evals.ResultRow, error)
	CancelEvalRun(ctx context.Context, id int64, actor string) error
}

// Evals is the use cases of the evals and benchmarks pages, for reviewers
// and admins. A suite that reads live projects (use_live_project,
// copy_events) shows their memories in its results, so only admins and
// reviewers of every one of those projects may see, run or upload it.
type Evals struct {
	store    EvalStore
	projects ProjectStore
}

var errEvalsForbidden = governance.Errorf(governance.EFORBIDDEN, "Only reviewers and admins run evals.")

// evalAccount is actor's account if the policy lets it use evals
// (reviewers of any project and admins).
func evalAccount(actor governance.Actor) (*governance.Account, error) {
	if actor.Account == nil || governance.Can(actor, governance.ActReviewAny, governance.Object{}) != nil {
		return nil, errEvalsForbidden
	}
	return actor.Account, nil
}

// Allowed reports whether actor may use evals at all (reviewers of any
// project and admins): nil, or the EFORBIDDEN every evals use case answers.
func (e Evals) Allowed(actor governance.Actor) error {
	_, err := evalAccount(actor)
	return err
}

// evalActor names an account in eval audit rows and run rows.
func evalActor(a *governance.Account) string { return "account:" + a.Username }

// canAccessLive reports whether a may see suites reading these live
// projects: the policy must let it review every one.
func (e Evals) canAccessLive(ctx context.Context, a *governance.Account, live []string) bool {
	for _, slug := range live {
		p, err := e.projects.FindProjectBySlug(ctx, slug)
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

// suite loads a suite a may see.
func (e Evals) suite(ctx context.Context, a *governance.Account, id int64) (*evals.SuiteRow, error) {
	row, err := e.store.FindEvalSuiteByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if !e.canAccessLive(ctx, a, evals.LiveProjectsOf(row.Body)) {
		return nil, governance.Errorf(governance.EFORBIDDEN, "Suite %s reads live projects you do not review.", row.Name)
	}
	return row, nil
}

// run loads a run of a suite a may see.
func (e Evals) run(ctx context.Context, a *governance.Account, id int64) (*evals.RunRow, error) {
	run, err := e.store.FindEvalRunByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, err := e.suite(ctx, a, run.SuiteID); err != nil {
		return nil, err
	}
	return run, nil
}

// visible lists the suites a may see.
func (e Evals) visible(ctx context.Context, a *governance.Account) ([]*evals.SuiteRow, error) {
	rows, err := e.store.FindEvalSuites(ctx)
	if err != nil {
		return nil, err
	}
	var out []*evals.SuiteRow
	for _, row := range rows {
		if e.canAccessLive(ctx, a, evals.LiveProjectsOf(row.Body)) {
			out = append(out, row)
		}
	}
	return out, nil
}

// latest is the newest run of a suite matching statuses (any when nil), or nil.
func (e Evals) latest(ctx context.Context, suiteID int64, statuses ...evals.RunStatus) (*evals.RunRow, error) {
	runs, _, err := e.store.FindEvalRuns(ctx, evals.RunFilter{SuiteID: &suiteID, Statuses: statuses, Limit: 1})
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	return runs[0], nil
}

// EvalIndex is the evals page: the suites the actor may see, the newest
// run of each, and the newest runs of those suites.
type EvalIndex struct {
	Suites []*evals.SuiteRow
	// Last is each suite's newest run, by suite id (absent: never run).
	Last   map[int64]*evals.RunRow
	Recent []*evals.RunRow
}

// Index lists the suites actor may see with their newest runs, and up to
// recent of the newest runs among them.
func (e Evals) Index(ctx context.Context, actor governance.Actor, recent int) (EvalIndex, error) {
	a, err := evalAccount(actor)
	if err != nil {
		return EvalIndex{}, err
	}
	rows, err := e.visible(ctx, a)
	if err != nil {
		return EvalIndex{}, err
	}
	ix := EvalIndex{Suites: rows, Last: map[int64]*evals.RunRow{}}
	visible := map[int64]bool{}
	for _, row := range rows {
		visible[row.ID] = true
		last, err := e.latest(ctx, row.ID)
		if err != nil {
			return EvalIndex{}, err
		}
		if last != nil {
			ix.Last[row.ID] = last
		}
	}
	runs, _, err := e.store.FindEvalRuns(ctx, evals.RunFilter{Limit: recent * 3})
	if err != nil {
		return EvalIndex{}, err
	}
	for _, r := range runs {
		if visible[r.SuiteID] && len(ix.Recent) < recent {
			ix.Recent = append(ix.Recent, r)
		}
	}
	return ix, nil
}

// SuiteHistory is one suite with its newest runs.
type SuiteHistory struct {
	Suite *evals.SuiteRow
	Runs  []*evals.RunRow
}

// Suite loads suite id, if actor may see it, with up to history of its
// newest runs.
func (e Evals) Suite(ctx context.Context, actor governance.Actor, id int64, history int) (SuiteHistory, error) {
	a, err := evalAccount(actor)
	if err != nil {
		return SuiteHistory{}, err
	}
	row, err := e.suite(ctx, a, id)
	if err != nil {
		return SuiteHistory{}, err
	}
	runs, _, err := e.store.FindEvalRuns(ctx, evals.RunFilter{SuiteID: &row.ID, Limit: history})
	if err != nil {
		return SuiteHistory{}, err
	}
	return SuiteHistory{Suite: row, Runs: runs}, nil
}

// SuiteProblems is the error of an upload that was not stored: what to fix,
// one line each, for the form shown again.
type SuiteProblems struct {
	Problems []string
	// Texts are the same problems as their formats and values.
	Texts []governance.Text
}

func (e *SuiteProblems) Error() string { return "evals: upload: " + strings.Join(e.Problems, "; ") }

func problems(ts ...governance.Text) error {
	e := &SuiteProblems{Texts: ts}
	for _, t := range ts {
		e.Problems = append(e.Problems, t.String())
	}
	return e
}

// UploadFunc reads an upload: the file's name and body, or a nil body when
// nothing was sent. Use cases call it only once the actor may upload.
type UploadFunc func() (name string, body []byte, err error)

// Upload validates and stores a suite (YAML, or a LoCoMo JSON benchmark)
// for actor; a suite of the same name is replaced. An upload that cannot be
// stored is a *SuiteProblems: invalid, empty, reading live projects actor
// does not review, or named like a built-in suite.
func (e Evals) Upload(ctx context.Context, actor governance.Actor, read UploadFunc) (*evals.SuiteRow, error) {
	a, err := evalAccount(actor)
	if err != nil {
		return nil, err
	}
	return e.upload(ctx, a, read)
}

func (e Evals) upload(ctx context.Context, a *governance.Account, read UploadFunc) (*evals.SuiteRow, error) {
	name, body, err := read()
	if err != nil {
		return nil, err
	}
	if body == nil {
		return nil, problems(governance.Say("Choose a file or paste a suite."))
	}
	suite, err := evals.ParseSuite(name, body)
	if err != nil {
		return nil, suiteProblems(err)
	}
	return e.save(ctx, a, suite, name, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil })
}

// suiteProblems turns a suite's validation error into a *SuiteProblems.
func suiteProblems(err error) error {
	if ve, ok := evals.IsValidation(err); ok {
		var out []governance.Text
		for _, p := range ve.Problems {
			out = append(out, governance.Say("%s: %s", ve.File, p.Sentence()))
		}
		return problems(out...)
	}
	return err
}

// save stores a parsed suite for a, unless it reads live projects a does
// not review.
func (e Evals) save(ctx context.Context, a *governance.Account, suite *evals.Suite, name string, open func() (io.ReadCloser, error)) (*evals.SuiteRow, error) {
	if !e.canAccessLive(ctx, a, suite.LiveProjects()) {
		return nil, problems(governance.Say("The suite reads live projects you do not review: %s.", strings.Join(suite.LiveProjects(), ", ")))
	}
	row, err := evals.Save(ctx, e.store, suite, name, open, evalActor(a))
	if governance.ErrorCode(err) == governance.ECONFLICT {
		return nil, problems(governance.ErrorText(err))
	}
	return row, err
}

// FileFunc reads an upload that may be large: the file's name and a way
// to read it from the start, as often as needed (nil when nothing was
// sent). Use cases call it only once the actor may upload.
type FileFunc func() (name string, open func() (io.ReadCloser, error), err error)

// UploadBenchmark stores a LoCoMo or LongMemEval benchmark file and queues
// its run. A LongMemEval file is read as it streams from open, never held
// whole. A suite that is not a benchmark is stored as a suite and
// reported as a *SuiteProblems.
func (e Evals) UploadBenchmark(ctx context.Context, actor governance.Actor, read FileFunc) (*evals.RunRow, error) {
	a, err := evalAccount(actor)
	if err != nil {
		return nil, err
	}
	name, open, err := read()
	if err != nil {
		return nil, err
	}
	if open == nil {
		return nil, problems(governance.Say("Choose a file or paste a suite."))
	}
	suite, err := evals.ParseSuiteFrom(name, open)
	if err != nil {
		return nil, suiteProblems(err)
	}
	row, err := e.save(ctx, a, suite, name, open)
	if err != nil {
		return nil, err
	}
	if !evals.Describe(row).Benchmark {
		return nil, problems(governance.Say("This is a suite, not a benchmark file; it was stored under Evals."))
	}
	return evals.Enqueue(ctx, e.store, row.ID, evalActor(a))
}

// Enqueue queues a run of suite id; the background runner picks it up.
func (e Evals) Enqueue(ctx context.Context, actor governance.Actor, suiteID int64) (*evals.RunRow, error) {
	a, err := evalAccount(actor)
	if err != nil {
		return nil, err
	}
	if _, err := e.suite(ctx, a, suiteID); err != nil {
		return nil, err
	}
	return evals.Enqueue(ctx, e.store, suiteID, evalActor(a))
}

// RunDetail is one run with the report of its stored results.
type RunDetail struct {
	Run    *evals.RunRow
	Report *evals.Report
	// Previous is the newest finished run of the same suite before this
	// one, once this one has ended (0: none).
	Previous int64
}

// Run loads run id, if actor may see its suite, with its results so far.
func (e Evals) Run(ctx context.Context, actor governance.Actor, id int64) (RunDetail, error) {
	a, err := evalAccount(actor)
	if err != nil {
		return RunDetail{}, err
	}
	run, err := e.run(ctx, a, id)
	if err != nil {
		return RunDetail{}, err
	}
	results, err := e.store.FindEvalResults(ctx, run.ID)
	if err != nil {
		return RunDetail{}, err
	}
	d := RunDetail{Run: run, Report: evals.ReportOf(run, results)}
	if run.Status.Terminal() {
		prev, _, err := e.store.FindEvalRuns(ctx, evals.RunFilter{SuiteID: &run.SuiteID, Statuses: []evals.RunStatus{evals.RunDone}, Limit: 10})
		if err != nil {
			return RunDetail{}, err
		}
		for _, p := range prev {
			if p.ID < run.ID {
				d.Previous = p.ID
				break
			}
		}
	}
	return d, nil
}

// Cancel cancels a queued or running run; the results so far are kept.
func (e Evals) Cancel(ctx context.Context, actor governance.Actor, id int64) (*evals.RunRow, error) {
	a, err := evalAccount(actor)
	if err != nil {
		return nil, err
	}
	run, err := e.run(ctx, a, id)
	if err != nil {
		return nil, err
	}
	if err := e.store.CancelEvalRun(ctx, run.ID, evalActor(a)); err != nil {
		return nil, err
	}
	return run, nil
}

// RunComparison is two runs of one suite and what changed between them.
type RunComparison struct {
	A, B   *evals.RunRow
	Change *evals.Comparison
}

// Compare compares run a (before) with run b (after), two runs of one
// suite actor may see.
func (e Evals) Compare(ctx context.Context, actor governance.Actor, a, b int64) (RunComparison, error) {
	acc, err := evalAccount(actor)
	if err != nil {
		return RunComparison{}, err
	}
	var runs [2]*evals.RunRow
	for i, id := range []int64{a, b} {
		if id <= 0 {
			return RunComparison{}, governance.Errorf(governance.EINVALID, "Choose two runs to compare.")
		}
		if runs[i], err = e.run(ctx, acc, id); err != nil {
			return RunComparison{}, err
		}
	}
	if runs[0].SuiteID != runs[1].SuiteID {
		return RunComparison{}, governance.Errorf(governance.EINVALID, "Only runs of the same suite can be compared.")
	}
	var reports [2]*evals.Report
	for i, run := range runs {
		results, err := e.store.FindEvalResults(ctx, run.ID)
		if err != nil {
			return RunComparison{}, err
		}
		reports[i] = evals.ReportOf(run, results)
	}
	return RunComparison{A: runs[0], B: runs[1], Change: evals.Compare(reports[0], reports[1])}, nil
}

// Benchmark is a retrieval benchmark suite with its newest run and its
// newest finished run (nil: none).
type Benchmark struct {
	Suite    *evals.SuiteRow
	Last     *evals.RunRow
	LastDone *evals.RunRow
}

// Benchmarks lists the benchmark suites actor may see.
func (e Evals) Benchmarks(ctx context.Context, actor governance.Actor) ([]Benchmark, error) {
	a, err := evalAccount(actor)
	if err != nil {
		return nil, err
	}
	rows, err := e.visible(ctx, a)
	if err != nil {
		return nil, err
	}
	var out []Benchmark
	for _, row := range rows {
		if !evals.Describe(row).Benchmark {
			continue
		}
		b := Benchmark{Suite: row}
		if b.Last, err = e.latest(ctx, row.ID); err != nil {
			return nil, err
		}
		if b.LastDone, err = e.latest(ctx, row.ID, evals.RunDone); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
