package evals

import "github.com/mnemo-console/mnemo/governance/evalrow"

// The rows the store keeps for evals (stored suites, runs and the results
// of their cases) and the scratch projects' naming are declared in
// governance/evalrow, which imports only the domain: the stores implement
// this package's interfaces without importing it. These are their names
// here.

type (
	SuiteRow     = evalrow.SuiteRow
	RunStatus    = evalrow.RunStatus
	RunRow       = evalrow.RunRow
	ResultRow    = evalrow.ResultRow
	RunFilter    = evalrow.RunFilter
	RunUpdate    = evalrow.RunUpdate
	TextBaseline = evalrow.TextBaseline
)

// Suite origins.
const (
	OriginBuiltin  = evalrow.OriginBuiltin
	OriginUploaded = evalrow.OriginUploaded
	// OriginRegression: a project's regression suite, whose cases
	// reviewers added from outcome reviews (regression.go).
	OriginRegression = evalrow.OriginRegression
)

// Run statuses.
const (
	RunQueued    = evalrow.RunQueued
	RunRunning   = evalrow.RunRunning
	RunDone      = evalrow.RunDone
	RunFailed    = evalrow.RunFailed
	RunCancelled = evalrow.RunCancelled
)
