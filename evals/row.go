package evals

import "time"

// The rows the store keeps for evals: stored suites, runs (background jobs)
// and the results of their cases. They are declared here, by their only
// consumer, so evals does not depend on the store; the store imports them.

// Suite origins.
const (
	OriginBuiltin  = "builtin"
	OriginUploaded = "uploaded"
	// OriginRegression: a project's regression suite, whose cases
	// reviewers added from outcome reviews (regression.go).
	OriginRegression = "regression"
)

// SuiteRow is a stored eval suite: its YAML body and where it came from.
type SuiteRow struct {
	ID        int64
	Name      string
	Origin    string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// RunStatus is where an eval run (a background job) stands.
type RunStatus string

const (
	RunQueued    RunStatus = "queued"
	RunRunning   RunStatus = "running"
	RunDone      RunStatus = "done"
	RunFailed    RunStatus = "failed"
	RunCancelled RunStatus = "cancelled"
)

// Terminal reports whether a run in this status will never change again.
func (s RunStatus) Terminal() bool {
	return s == RunDone || s == RunFailed || s == RunCancelled
}

// RunRow is one run of a suite. Done, Passed, Failed and Skipped count the
// stored results; a result with status "error" counts as failed here.
type RunRow struct {
	ID          int64
	SuiteID     int64
	SuiteName   string
	Status      RunStatus
	Total       int
	Done        int
	CurrentCase string
	Passed      int
	Failed      int
	Skipped     int
	// Summary is JSON written by the runner (metrics, snapshot of the suite).
	Summary    string
	Tokens     int
	Cost       float64
	Error      string
	CreatedBy  string
	CreatedAt  time.Time
	StartedAt  *time.Time
	FinishedAt *time.Time
}

// ResultRow is the stored outcome of one case of a run.
type ResultRow struct {
	ID     int64
	RunID  int64
	CaseID string
	Kind   string
	// Status is passed, failed, skipped or error.
	Status string
	Reason string
	// Detail is JSON written by the runner.
	Detail    string
	CreatedAt time.Time
}

// RunFilter selects runs; zero fields are ignored.
type RunFilter struct {
	SuiteID  *int64
	Statuses []RunStatus
	// IDs restricts to these runs when not nil.
	IDs    []int64
	Offset int
	Limit  int
}

// RunUpdate patches a running run; nil fields are left alone.
type RunUpdate struct {
	Total       *int
	CurrentCase *string
	Summary     *string
}
