package evals

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// RunStore is the part of the store the runner uses; *store.Store satisfies it.
type RunStore interface {
	FindEvalSuiteByID(ctx context.Context, id int64) (*SuiteRow, error)
	FindEvalRuns(ctx context.Context, f RunFilter) ([]*RunRow, int, error)
	ClaimEvalRun(ctx context.Context) (*RunRow, error)
	UpdateEvalRun(ctx context.Context, id int64, upd RunUpdate) error
	SaveEvalResult(ctx context.Context, res *ResultRow, tokens int, cost float64) error
	FindEvalResults(ctx context.Context, runID int64) ([]*ResultRow, error)
	FinishEvalRun(ctx context.Context, id int64, status RunStatus, summary, errMsg string) (bool, error)
	// OpenEvalSuiteData reads the benchmark file kept beside suite id
	// (suite_data.go); ENOTFOUND when it has none.
	OpenEvalSuiteData(ctx context.Context, suiteID int64) (io.ReadCloser, error)
}

// Runner executes queued eval runs in the background. Runs are rows in the
// database: a run found "running" when Run starts was interrupted by a
// restart and is resumed (results already stored are kept, the remaining
// cases run). A run cancelled in the database stops within one interval.
type Runner struct {
	Store RunStore
	Deps  Deps
	// Interval is how often the runner looks for queued and cancelled runs
	// (default 1s); Nudge wakes it at once.
	Interval time.Duration
	// Workers bounds the runs executed at once (default 1); Deps.Concurrency
	// bounds the cases of each.
	Workers int
	Logger  *slog.Logger

	nudge  chan struct{}
	mu     sync.Mutex
	active map[int64]context.CancelCauseFunc
}

// NewRunner returns a runner over st with deps.
func NewRunner(st RunStore, deps Deps, logger *slog.Logger) *Runner {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if deps.Logger == nil {
		deps.Logger = logger
	}
	return &Runner{Store: st, Deps: deps, Logger: logger, Interval: time.Second, Workers: 1,
		nudge: make(chan struct{}, 1), active: map[int64]context.CancelCauseFunc{}}
}

// Nudge wakes the runner without waiting for the next tick; it never blocks.
func (r *Runner) Nudge() {
	select {
	case r.nudge <- struct{}{}:
	default:
	}
}

var errCancelled = errors.New("eval run cancelled")

// Run executes runs until ctx is cancelled, then waits for the runs in
// flight to stop (they stay "running" and resume on the next start).
func (r *Runner) Run(ctx context.Context) error {
	resume, _, err := r.Store.FindEvalRuns(ctx, RunFilter{Statuses: []RunStatus{RunRunning}})
	if err != nil {
		return fmt.Errorf("evals: find interrupted runs: %w", err)
	}
	slices.Reverse(resume) // oldest first
	ticker := time.NewTicker(max(r.Interval, 10*time.Millisecond))
	defer ticker.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		r.stopCancelled(ctx)
		for r.slots() > 0 && ctx.Err() == nil {
			var run *RunRow
			if len(resume) > 0 {
				run, resume = resume[0], resume[1:]
				r.Logger.Info("resuming eval run", slog.Int64("run_id", run.ID), slog.Int("done", run.Done), slog.Int("total", run.Total))
			} else {
				run, err = r.Store.ClaimEvalRun(ctx)
				if governance.ErrorCode(err) == governance.ENOTFOUND || ctx.Err() != nil {
					break
				}
				if err != nil {
					r.Logger.Error("claiming an eval run failed", slog.Any("error", err))
					break
				}
			}
			runCtx, cancel := context.WithCancelCause(ctx)
			r.mu.Lock()
			r.active[run.ID] = cancel
			r.mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() {
					r.mu.Lock()
					delete(r.active, run.ID)
					r.mu.Unlock()
					cancel(nil)
				}()
				r.execute(runCtx, run)
			}()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		case <-r.nudge:
		}
	}
}

func (r *Runner) slots() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(r.Workers, 1) - len(r.active)
}

// stopCancelled cancels the context of every active run whose row is no
// longer running (cancelled from the console or the CLI).
func (r *Runner) stopCancelled(ctx context.Context) {
	r.mu.Lock()
	ids := slices.Collect(func(yield func(int64) bool) {
		for id := range r.active {
			if !yield(id) {
				return
			}
		}
	})
	r.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	runs, _, err := r.Store.FindEvalRuns(ctx, RunFilter{IDs: ids})
	if err != nil {
		if ctx.Err() == nil {
			r.Logger.Warn("checking eval runs for cancellation failed", slog.Any("error", err))
		}
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, run := range runs {
		if run.Status != RunRunning {
			if cancel := r.active[run.ID]; cancel != nil {
				cancel(errCancelled)
			}
		}
	}
}

// RunScratchPrefix starts the slug of every scratch project of a run.
func RunScratchPrefix(runID int64) string { return fmt.Sprintf("%sr%d-", ScratchPrefix, runID) }

// execute runs (or resumes) one run to its end.
func (r *Runner) execute(ctx context.Context, run *RunRow) {
	log := r.Logger.With(slog.Int64("run_id", run.ID))
	start := time.Now()
	fail := func(msg string) {
		if _, err := r.Store.FinishEvalRun(context.WithoutCancel(ctx), run.ID, RunFailed, run.Summary, msg); err != nil {
			log.Error("recording a failed eval run failed", slog.Any("error", err))
		}
		log.Warn("eval run failed", slog.String("reason", msg))
	}
	suite, err := r.loadSuite(ctx, run)
	if err != nil {
		if governance.ErrorCode(err) == governance.EINTERNAL {
			fail(err.Error())
		} else {
			fail(governance.ErrorMessage(err))
		}
		return
	}
	stored, err := r.Store.FindEvalResults(ctx, run.ID)
	if err != nil {
		log.Error("loading eval results failed", slog.Any("error", err))
		return
	}
	done := map[string]bool{}
	for _, s := range stored {
		done[s.CaseID] = true
	}
	ids := suite.CaseIDs()
	total := len(ids)
	if err := r.Store.UpdateEvalRun(ctx, run.ID, RunUpdate{Total: &total}); err != nil {
		r.stopped(ctx, log, run, nil)
		return
	}
	var units []unit
	for i, id := range ids {
		if !done[id] {
			units = append(units, unit{index: i, id: id})
		}
	}
	eng := newEngine(r.Deps, suite, RunScratchPrefix(run.ID))
	remaining := make([]string, len(units))
	for i, u := range units {
		remaining[i] = u.id
	}
	if err := eng.setup(ctx, remaining); err != nil {
		if ctx.Err() != nil {
			r.stopped(ctx, log, run, eng)
			return
		}
		fail("setting up the fixtures failed: " + err.Error())
		eng.cleanup(context.WithoutCancel(ctx), "")
		return
	}
	var (
		saveMu  sync.Mutex
		saveErr error
	)
	eng.runAll(ctx, units, func(id string) {
		cur := id
		_ = r.Store.UpdateEvalRun(ctx, run.ID, RunUpdate{CurrentCase: &cur})
	}, func(res *CaseResult) {
		detail, _ := json.Marshal(res)
		err := r.Store.SaveEvalResult(ctx, &ResultRow{RunID: run.ID, CaseID: res.CaseID, Kind: string(res.Kind),
			Status: res.Status, Reason: res.Reason, Detail: string(detail)}, res.Tokens, res.Cost)
		if err != nil && ctx.Err() == nil {
			saveMu.Lock()
			saveErr = cmpErr(saveErr, err)
			saveMu.Unlock()
		}
	})
	if ctx.Err() != nil {
		r.stopped(ctx, log, run, eng)
		return
	}
	if saveErr != nil {
		fail("storing results failed: " + saveErr.Error())
		eng.cleanup(context.WithoutCancel(ctx), "")
		return
	}
	stored, err = r.Store.FindEvalResults(ctx, run.ID)
	if err != nil {
		fail("loading results failed: " + err.Error())
		return
	}
	results := SortResults(suite, DecodeResults(stored))
	forgets := eng.copyForgets(ctx) // before the cleanup drops the copy records
	// The run's time includes removing its scratch projects.
	cleanStart := time.Now()
	eng.cleanup(ctx, "")
	cleanup := time.Since(cleanStart)
	dur := time.Since(start)
	if run.StartedAt != nil {
		dur = time.Since(*run.StartedAt)
	}
	summary := ParseRunSummary(run.Summary)
	m := Summarize(suite, results, dur)
	m.CleanupMS, m.Forgets = cleanup.Milliseconds(), forgets
	summary.Metrics = &m
	body, _ := json.Marshal(summary)
	ok, err := r.Store.FinishEvalRun(ctx, run.ID, RunDone, string(body), "")
	switch {
	case err != nil:
		log.Error("finishing an eval run failed", slog.Any("error", err))
	case ok:
		log.Info("eval run done", slog.Int("passed", m.Passed), slog.Int("failed", m.Failed+m.Errors), slog.Int("skipped", m.Skipped),
			slog.Duration("took", time.Since(start)))
	}
}

// stopped handles a run whose context ended: cancelled runs lose their
// scratch projects; runs stopped by shutdown stay running to resume.
func (r *Runner) stopped(ctx context.Context, log *slog.Logger, run *RunRow, eng *engine) {
	if errors.Is(context.Cause(ctx), errCancelled) {
		log.Info("eval run cancelled")
		if eng != nil {
			eng.cleanup(context.WithoutCancel(ctx), "")
		}
		return
	}
	log.Info("eval run interrupted; it resumes on the next start")
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// loadSuite parses the suite snapshot taken when the run was queued, or
// the stored suite when the snapshot was too large to keep.
func (r *Runner) loadSuite(ctx context.Context, run *RunRow) (*Suite, error) {
	sum := ParseRunSummary(run.Summary)
	var (
		suite *Suite
		err   error
	)
	if sum.SuiteYAML != "" {
		suite, err = ParseSuite(run.SuiteName+".yaml", []byte(sum.SuiteYAML))
	} else {
		row, ferr := r.Store.FindEvalSuiteByID(ctx, run.SuiteID)
		if ferr != nil {
			return nil, ferr
		}
		if sum.SuiteSHA256 != "" && sum.SuiteSHA256 != bodyHash(row.Body) {
			return nil, governance.Errorf(governance.ECONFLICT, "Suite %s changed after the run was queued; start a new run.", row.Name)
		}
		suite, err = ParseSuite(row.Name+".yaml", []byte(row.Body))
	}
	if err != nil || suite.Benchmark == nil || suite.Benchmark.Stored == "" {
		return suite, err
	}
	// The file kept beside the suite must be the one the run was queued
	// with: the suite as it is now names it.
	row, err := r.Store.FindEvalSuiteByID(ctx, run.SuiteID)
	if err != nil {
		return nil, err
	}
	now, err := ParseSuite(row.Name+".yaml", []byte(row.Body))
	if err != nil || now.Benchmark == nil || now.Benchmark.Stored != suite.Benchmark.Stored {
		return nil, errStoredChanged(row.Name)
	}
	suite.Benchmark.OpenWith(func() (io.ReadCloser, error) { return r.Store.OpenEvalSuiteData(ctx, run.SuiteID) })
	return suite, nil
}

func bodyHash(body string) string {
	h := sha256.Sum256([]byte(body))
	return hex.EncodeToString(h[:])
}

// DecodeResults turns stored results back into case results.
func DecodeResults(stored []*ResultRow) []*CaseResult {
	out := make([]*CaseResult, 0, len(stored))
	for _, s := range stored {
		var res CaseResult
		if err := json.Unmarshal([]byte(s.Detail), &res); err != nil || res.CaseID == "" {
			res = CaseResult{CaseID: s.CaseID, Kind: Kind(s.Kind), Reason: s.Reason}
		}
		res.Status, res.Reason = s.Status, s.Reason
		out = append(out, &res)
	}
	return out
}

type unit struct {
	index int
	id    string
}

// runAll runs units with bounded concurrency; onDone is not called for
// units interrupted by the end of ctx.
func (e *engine) runAll(ctx context.Context, units []unit, onStart func(id string), onDone func(*CaseResult)) {
	sem := make(chan struct{}, e.deps.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, u := range units {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		if ctx.Err() != nil {
			<-sem
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			onStart(u.id)
			res := e.runUnit(ctx, u.index, u.id)
			if ctx.Err() != nil {
				return
			}
			e.cleanupCase(ctx, u.index)
			onDone(res)
		}()
	}
}

// cleanup removes the run's scratch projects (those whose slug starts
// with prefix+suffix).
func (e *engine) cleanup(ctx context.Context, suffix string) {
	if e.deps.KeepScratch {
		return
	}
	if err := e.deps.Memory.DeleteScratchProjects(ctx, e.prefix+suffix); err != nil && ctx.Err() == nil {
		e.deps.Logger.Warn("removing eval scratch projects failed", slog.String("prefix", e.prefix+suffix), slog.Any("error", err))
	}
}

// cleanupCase removes the scratch project of a sequence or poisoning case.
func (e *engine) cleanupCase(ctx context.Context, index int) {
	if e.suite.Benchmark != nil || index >= len(e.suite.Cases) {
		return
	}
	if ownsProject(e.suite.Cases[index].Kind) {
		e.cleanup(ctx, fmt.Sprintf("c%d-", index))
	}
}

// RunSuite runs a suite synchronously (the CLI) in scratch projects it
// removes afterwards; nothing is recorded as a run. It first removes the
// scratch projects killed runs left (RemoveOrphanScratch), then claims its
// own prefix with a lease it renews while it runs (claimScratch), so a
// run in another process never takes this one's projects for a killed
// run's. The error is set only when the suite could not run at all (setup
// failed, ctx ended, the lease was lost).
func RunSuite(ctx context.Context, deps Deps, suite *Suite) (*Report, error) {
	deps.defaults()
	if _, err := deps.Memory.RemoveOrphanScratch(ctx); err != nil {
		return nil, fmt.Errorf("evals: remove scratch projects left by killed runs: %w", err)
	}
	eng := newEngine(deps, suite, newCLIScratchPrefix())
	ctx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	release, err := claimScratch(ctx, deps.Memory, eng.prefix, deps.ScratchLease, lost)
	if err != nil {
		return nil, err
	}
	defer func() {
		eng.cleanup(context.WithoutCancel(ctx), "")
		release(context.WithoutCancel(ctx))
	}()
	start := time.Now()
	ids := suite.CaseIDs()
	if err := eng.setup(ctx, ids); err != nil {
		return nil, fmt.Errorf("evals: set up %s: %w", suite.Name, cmpErr(context.Cause(ctx), err))
	}
	units := make([]unit, len(ids))
	for i, id := range ids {
		units[i] = unit{index: i, id: id}
	}
	results := make([]*CaseResult, len(ids))
	var mu sync.Mutex
	eng.runAll(ctx, units, func(string) {}, func(res *CaseResult) {
		mu.Lock()
		defer mu.Unlock()
		results[slices.Index(ids, res.CaseID)] = res
	})
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("evals: run %s: %w", suite.Name, err)
	}
	forgets := eng.copyForgets(ctx) // before the cleanup drops the copy records
	// The run's time includes removing its scratch projects.
	cleanStart := time.Now()
	eng.cleanup(context.WithoutCancel(ctx), "")
	m := Summarize(suite, results, time.Since(start))
	m.CleanupMS, m.Forgets = time.Since(cleanStart).Milliseconds(), forgets
	return &Report{Suite: suite.Name, Cases: results, Metrics: m}, nil
}

// SortResults puts results in the suite's case order (stored results are
// in the order they finished).
func SortResults(suite *Suite, results []*CaseResult) []*CaseResult {
	if suite == nil {
		return results
	}
	pos := map[string]int{}
	for i, id := range suite.CaseIDs() {
		pos[id] = i
	}
	slices.SortStableFunc(results, func(a, b *CaseResult) int { return pos[a.CaseID] - pos[b.CaseID] })
	return results
}

// SnapshotSuite parses the suite a run was queued with, when the run kept
// a copy.
func SnapshotSuite(run *RunRow) *Suite {
	sum := ParseRunSummary(run.Summary)
	if sum.SuiteYAML == "" {
		return nil
	}
	s, err := ParseSuite(run.SuiteName+".yaml", []byte(sum.SuiteYAML))
	if err != nil {
		return nil
	}
	return s
}

// ReportOf builds the report of a stored run, cases in suite order.
func ReportOf(run *RunRow, stored []*ResultRow) *Report {
	rep := &Report{Suite: run.SuiteName, Cases: SortResults(SnapshotSuite(run), DecodeResults(stored)), Err: run.Error}
	if m := ParseRunSummary(run.Summary).Metrics; m != nil {
		rep.Metrics = *m
	} else {
		rep.Metrics = Summarize(nil, rep.Cases, 0)
	}
	return rep
}
