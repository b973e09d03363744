package evals

import (
	"context"
	"slices"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
)

// What approving a proposal changes (docs/outcomes.md): the cases of a
// project's suites that read its live memory — recall and isolation
// cases of use_live_project suites — run once against memory as it is and
// once with the proposal applied (two Memory values whose Recall differs),
// and each case is fixed, regressed or unchanged. Nothing is written: the
// Memory values recall without storing a trace.

// NotRunOffline is the change of a case the comparison did not run.
const NotRunOffline Change = "not_run"

// NotRun says why a case of a project's suite did not run offline.
type NotRun string

const (
	// NotRunModel: the case needs a model endpoint (ab).
	NotRunModel NotRun = "needs_model"
	// NotRunFixtures: the case runs in a scratch project on its own
	// fixtures (sequence, poisoning, a copy of the events), which the
	// proposal does not reach.
	NotRunFixtures NotRun = "own_fixtures"
	// NotRunTime: the comparison's time ran out first.
	NotRunTime NotRun = "time_limit"
)

// NotRunReasons lists every reason.
var NotRunReasons = []NotRun{NotRunModel, NotRunFixtures, NotRunTime}

// CaseEffect is one case compared.
type CaseEffect struct {
	CaseID string `json:"case_id"`
	Kind   Kind   `json:"kind"`
	Change Change `json:"change"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Reason is the result's reason with the proposal applied (before it,
	// when only that one failed); Why is the same sentence as its format
	// and values (CaseResult.Why), empty in effects stored before it was
	// kept.
	Reason string          `json:"reason,omitempty"`
	Why    governance.Text `json:"why,omitzero"`
	NotRun NotRun          `json:"not_run,omitempty"`
}

// Sentence is the reason as a Text: Why, or the English Reason of an
// effect stored before Why was kept.
func (e CaseEffect) Sentence() governance.Text {
	if e.Why.IsZero() {
		return governance.Text{ID: e.Reason}
	}
	return e.Why
}

// SuiteEffect is one suite compared.
type SuiteEffect struct {
	Suite string       `json:"suite"`
	Cases []CaseEffect `json:"cases"`
}

// Count counts the suite's cases with change c.
func (s SuiteEffect) Count(c Change) int {
	n := 0
	for _, e := range s.Cases {
		if e.Change == c {
			n++
		}
	}
	return n
}

// ReadsLive reports whether suite s reads project slug's live memory, and
// so belongs to what approving in that project can change.
func ReadsLive(s *Suite, slug string) bool {
	return s.Benchmark == nil && (s.Fixtures.UseLiveProject || len(s.Fixtures.CopyEvents) > 0) && slices.Contains(s.LiveProjects(), slug)
}

// offline reports whether case c of s runs in the comparison for project
// slug, and why not.
func offline(s *Suite, c *Case, slug string) (bool, NotRun) {
	switch {
	case c.Kind == KindAB:
		return false, NotRunModel
	case !s.Fixtures.UseLiveProject || !readsShared(c.Kind):
		return false, NotRunFixtures
	}
	reads := cmpOr(c.Project, s.Project) == slug || c.Foreign != nil && c.Foreign.Project == slug
	if !reads {
		return false, NotRunFixtures
	}
	return true, ""
}

// CompareSuite runs suite s's offline cases for project slug against
// before and after and says how each changed. Cases not reached before
// ctx ends are NotRunTime.
func CompareSuite(ctx context.Context, deps Deps, s *Suite, slug string, before, after Memory) SuiteEffect {
	out := SuiteEffect{Suite: s.Name}
	run := func(m Memory, i int, c *Case) *CaseResult {
		d := deps
		d.Memory, d.Model, d.Judge = m, nil, nil
		return newEngine(d, s, evalrow.ScratchPrefix+"whatif-").runUnit(ctx, i, c.ID)
	}
	var was, now Report
	at := map[string]int{}
	for i, c := range s.Cases {
		e := CaseEffect{CaseID: c.ID, Kind: c.Kind}
		ok, why := offline(s, c, slug)
		if ok && ctx.Err() == nil {
			b, a := run(before, i, c), run(after, i, c)
			if ctx.Err() == nil {
				at[c.ID] = len(out.Cases)
				was.Cases, now.Cases = append(was.Cases, b), append(now.Cases, a)
				e.Before, e.After = b.Status, a.Status
			}
		}
		if _, done := at[c.ID]; !done {
			if why == "" {
				why = NotRunTime
			}
			e.Change, e.NotRun = NotRunOffline, why
		}
		out.Cases = append(out.Cases, e)
	}
	// The changes are Compare's, as between two runs of the suite.
	for _, ch := range Compare(&was, &now).Cases {
		e := &out.Cases[at[ch.CaseID]]
		e.Change, e.Reason, e.Why = ch.Change, ch.After.Reason, ch.After.Sentence()
		switch ch.Change {
		case Fixed:
			e.Reason, e.Why = ch.Before.Reason, ch.Before.Sentence()
		case Different:
			e.Change = Same
		}
	}
	return out
}

// WithRecall is m with its Recall answered by recall instead.
func WithRecall(m Memory, recall func(ctx context.Context, q RecallQuery) (*RecallResult, error)) Memory {
	return recallOverride{Memory: m, recall: recall}
}

type recallOverride struct {
	Memory
	recall func(ctx context.Context, q RecallQuery) (*RecallResult, error)
}

func (r recallOverride) Recall(ctx context.Context, q RecallQuery) (*RecallResult, error) {
	return r.recall(ctx, q)
}
