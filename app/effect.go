package app

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
)

// "What approving changes" (docs/outcomes.md): before a reviewer decides
// a proposal or an outcome review, the project's offline eval cases run
// against memory as it is and with the decision applied, in memory only:
// recall is computed from the store's input for each task with the
// proposal made active (or the rule demoted, or replaced), and no trace
// is stored. Results are kept per proposal version for EffectTTL.

// Bounds of a comparison.
const (
	// EffectTimeout bounds one comparison; cases not reached are "not
	// run (time limit)".
	EffectTimeout = 10 * time.Second
	// EffectTTL is how long a comparison is reused for the same proposal
	// version and suites; any decision in the project drops them sooner.
	EffectTTL     = 5 * time.Minute
	effectEntries = 256
)

// EffectTarget is what a comparison applies: a proposal (RuleID) or an
// outcome review (ReviewID).
type EffectTarget struct {
	RuleID   int64
	ReviewID int64
}

// ApprovalEffect is what approving a target changes in the project's
// offline eval suites.
type ApprovalEffect struct {
	Project *governance.Project
	Target  EffectTarget
	Suites  []evals.SuiteEffect
	// Regressed, Fixed, Unchanged and NotRun count the cases.
	Regressed, Fixed, Unchanged, NotRun int
	// Incomplete: the time bound ended the comparison before every case ran.
	Incomplete bool
	// RequireNoRegression is the project's policy.
	RequireNoRegression bool
	At                  time.Time
}

// Blocks reports whether the project's policy refuses the approval: it
// requires no regression and a case regressed (or could not be run in
// time to tell).
func (e *ApprovalEffect) Blocks() bool {
	return e.RequireNoRegression && (e.Regressed > 0 || e.Incomplete)
}

// Effects compute and keep comparisons.
type Effects struct {
	store    OutcomeStore
	projects Projects
	cache    *effectCache
	timeout  time.Duration
}

type effectCache struct {
	mu      sync.Mutex
	entries map[string]*effectEntry
	// suites caches parsed stored suites by id and update time.
	suites map[string]*evals.Suite
}

type effectEntry struct {
	effect  *ApprovalEffect
	project int64
	expires time.Time
}

func newEffectCache() *effectCache {
	return &effectCache{entries: map[string]*effectEntry{}, suites: map[string]*evals.Suite{}}
}

// Forget drops the cached comparisons of a project: something in it changed.
func (ef Effects) Forget(projectID int64) {
	ef.cache.mu.Lock()
	defer ef.cache.mu.Unlock()
	for k, e := range ef.cache.entries {
		if e.project == projectID {
			delete(ef.cache.entries, k)
		}
	}
}

// Of is the comparison for target, for the reviewers of its project.
func (ef Effects) Of(ctx context.Context, actor governance.Actor, t EffectTarget) (*ApprovalEffect, error) {
	p, err := ef.targetProject(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActReview, governance.InProject(p)); err != nil {
		return nil, err
	}
	return ef.compute(ctx, p, t)
}

func (ef Effects) targetProject(ctx context.Context, t EffectTarget) (*governance.Project, error) {
	var projectID int64
	switch {
	case t.ReviewID != 0:
		rv, err := ef.store.FindOutcomeReviewByID(ctx, t.ReviewID)
		if err != nil {
			return nil, err
		}
		projectID = rv.ProjectID
	default:
		rules, err := ef.store.FindRulesByIDs(ctx, []int64{t.RuleID})
		if err != nil {
			return nil, err
		}
		if len(rules) == 0 {
			return nil, governance.Errorf(governance.ENOTFOUND, "Rule not found.")
		}
		projectID = rules[0].ProjectID
	}
	return ef.store.FindProjectByID(ctx, projectID)
}

// compute returns the cached comparison for t or makes it.
func (ef Effects) compute(ctx context.Context, p *governance.Project, t EffectTarget) (*ApprovalEffect, error) {
	overlay, version, err := ef.overlay(ctx, t)
	if err != nil {
		return nil, err
	}
	suites, suiteKey, err := ef.suites(ctx, p.Slug)
	if err != nil {
		return nil, err
	}
	policy, err := ef.store.FindOutcomePolicy(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	stamp, err := ef.store.RulesStamp(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%d|%s|%s|%s", p.ID, version, suiteKey, stamp)
	now := time.Now()
	ef.cache.mu.Lock()
	if e := ef.cache.entries[key]; e != nil && now.Before(e.expires) {
		ef.cache.mu.Unlock()
		out := *e.effect
		out.RequireNoRegression = policy.RequireNoRegression
		return &out, nil
	}
	ef.cache.mu.Unlock()

	timeout := ef.timeout
	if timeout <= 0 {
		timeout = EffectTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	inputs := &inputCache{load: ef.store.LoadRecallInput, by: map[string]*governance.RecallInput{}}
	base := &evals.Services{Store: ef.store}
	before := evals.WithRecall(base, inputs.recall(nil))
	after := evals.WithRecall(base, inputs.recall(overlay))
	out := &ApprovalEffect{Project: p, Target: t, RequireNoRegression: policy.RequireNoRegression, At: now}
	deps := evals.Deps{Concurrency: 1, CaseTimeout: timeout}
	for _, s := range suites {
		se := evals.CompareSuite(cctx, deps, s, p.Slug, before, after)
		for _, c := range se.Cases {
			switch c.Change {
			case evals.Regression:
				out.Regressed++
			case evals.Fixed:
				out.Fixed++
			case evals.NotRunOffline:
				out.NotRun++
				out.Incomplete = out.Incomplete || c.NotRun == evals.NotRunTime
			default:
				out.Unchanged++
			}
		}
		out.Suites = append(out.Suites, se)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if !out.Incomplete {
		ef.cache.mu.Lock()
		if len(ef.cache.entries) >= effectEntries {
			for k, e := range ef.cache.entries {
				if !now.Before(e.expires) || len(ef.cache.entries) >= effectEntries {
					delete(ef.cache.entries, k)
				}
			}
		}
		ef.cache.entries[key] = &effectEntry{effect: out, project: p.ID, expires: now.Add(EffectTTL)}
		ef.cache.mu.Unlock()
	}
	return out, nil
}

// suites are the stored suites that read project slug's live memory,
// with a key naming their versions.
func (ef Effects) suites(ctx context.Context, slug string) ([]*evals.Suite, string, error) {
	rows, err := ef.store.FindEvalSuites(ctx)
	if err != nil {
		return nil, "", err
	}
	var out []*evals.Suite
	h := sha256.New()
	for _, row := range rows {
		if len(row.Body) > 0 && row.Body[0] == '[' {
			continue // a benchmark file: scratch fixtures only
		}
		id := fmt.Sprintf("%d@%s", row.ID, row.UpdatedAt.UTC().Format(time.RFC3339Nano))
		ef.cache.mu.Lock()
		s, ok := ef.cache.suites[id]
		ef.cache.mu.Unlock()
		if !ok {
			s, _ = evals.ParseSuite(row.Name+".yaml", []byte(row.Body))
			ef.cache.mu.Lock()
			if len(ef.cache.suites) > effectEntries {
				clear(ef.cache.suites)
			}
			ef.cache.suites[id] = s
			ef.cache.mu.Unlock()
		}
		if s == nil || !evals.ReadsLive(s, slug) {
			continue
		}
		out = append(out, s)
		fmt.Fprintln(h, id)
	}
	slices.SortFunc(out, func(a, b *evals.Suite) int { return cmp.Compare(a.Name, b.Name) })
	return out, hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// overlay is what target t changes in recall's input, and its version
// (what a cached comparison is valid for).
func (ef Effects) overlay(ctx context.Context, t EffectTarget) (overlayFunc, string, error) {
	if t.ReviewID != 0 {
		rv, err := ef.store.FindOutcomeReviewByID(ctx, t.ReviewID)
		if err != nil {
			return nil, "", err
		}
		rules, err := ef.store.FindRulesByIDs(ctx, []int64{rv.RuleID, rv.ReplacementID})
		if err != nil {
			return nil, "", err
		}
		var old, newer *governance.Rule
		for _, r := range rules {
			switch r.ID {
			case rv.RuleID:
				old = r
			case rv.ReplacementID:
				newer = r
			}
		}
		if old == nil {
			return nil, "", governance.Errorf(governance.ENOTFOUND, "Rule not found.")
		}
		version := fmt.Sprintf("review:%d:%d:%d:%s", rv.ID, old.ID, old.Version, old.Status)
		if newer != nil {
			version += fmt.Sprintf(":%d:%d:%s", newer.ID, newer.Version, newer.Status)
			return replaceOverlay(old, newer), version, nil
		}
		return demoteOverlay(old), version, nil
	}
	rules, err := ef.store.FindRulesByIDs(ctx, []int64{t.RuleID})
	if err != nil {
		return nil, "", err
	}
	if len(rules) == 0 {
		return nil, "", governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	r := rules[0]
	if r.Status != governance.RuleProposed {
		return nil, "", governance.Errorf(governance.EINVALID, "Rule %d is %s; only a proposal is compared.", r.ID, r.Status)
	}
	version := fmt.Sprintf("rule:%d:%d:%d:%s", r.ID, r.Version, r.Supersedes, r.UpdatedAt.UTC().Format(time.RFC3339Nano))
	var old *governance.Rule
	if r.Supersedes != 0 {
		olds, err := ef.store.FindRulesByIDs(ctx, []int64{r.Supersedes})
		if err != nil {
			return nil, "", err
		}
		if len(olds) == 1 {
			old = olds[0]
		}
	}
	if old != nil {
		return replaceOverlay(old, r), version, nil
	}
	return replaceOverlay(nil, r), version, nil
}

// overlayFunc returns recall's input for req with a decision applied; it
// never changes in.
type overlayFunc func(req governance.RecallRequest, in *governance.RecallInput) *governance.RecallInput

// inScope reports whether rule r is in req's scope.
func inScope(req governance.RecallRequest, r *governance.Rule) bool {
	return r.ProjectID == req.ProjectID && (r.SubjectID == "" || r.SubjectID == req.SubjectID)
}

// withRules is in with its rules replaced by set (by id) and add appended.
func withRules(in *governance.RecallInput, set map[int64]*governance.Rule, add ...*governance.Rule) *governance.RecallInput {
	out := *in
	out.Rules = make([]*governance.Rule, 0, len(in.Rules)+len(add))
	for _, r := range in.Rules {
		if x, ok := set[r.ID]; ok {
			if x != nil {
				out.Rules = append(out.Rules, x)
			}
			continue
		}
		out.Rules = append(out.Rules, r)
	}
	for _, r := range add {
		if r != nil {
			out.Rules = append(out.Rules, r)
		}
	}
	return &out
}

// replaceOverlay makes newer active and old (if any) superseded by it.
func replaceOverlay(old, newer *governance.Rule) overlayFunc {
	return func(req governance.RecallRequest, in *governance.RecallInput) *governance.RecallInput {
		set := map[int64]*governance.Rule{}
		var add *governance.Rule
		if inScope(req, newer) {
			n := *newer
			n.Status, n.Paused = governance.RuleActive, false
			set[n.ID] = nil // replaced below, wherever it was
			add = &n
		}
		if old != nil {
			for _, r := range in.Rules {
				if r.ID == old.ID {
					o := *r
					o.Status, o.SupersededBy = governance.RuleSuperseded, newer.ID
					set[o.ID] = &o
				}
			}
		}
		return withRules(in, set, add)
	}
}

// demoteOverlay moves old one step down, as a demotion does.
func demoteOverlay(old *governance.Rule) overlayFunc {
	return func(req governance.RecallRequest, in *governance.RecallInput) *governance.RecallInput {
		set := map[int64]*governance.Rule{}
		for _, r := range in.Rules {
			if r.ID == old.ID {
				o := *r
				o.Status = governance.RuleStale
				if r.Status == governance.RuleStale {
					o.Status = governance.RuleArchived
				}
				set[o.ID] = &o
			}
		}
		return withRules(in, set)
	}
}

// inputCache loads recall's input once per request for both sides of a
// comparison.
type inputCache struct {
	load func(ctx context.Context, req governance.RecallRequest) (*governance.RecallInput, error)
	mu   sync.Mutex
	by   map[string]*governance.RecallInput
}

// recall answers evals' recalls from the store's input with overlay
// applied (none: memory as it is), storing nothing.
func (c *inputCache) recall(overlay overlayFunc) func(ctx context.Context, q evals.RecallQuery) (*evals.RecallResult, error) {
	return func(ctx context.Context, q evals.RecallQuery) (*evals.RecallResult, error) {
		req := governance.RecallRequest{Task: q.Task, ProjectID: q.ProjectID, SubjectID: q.SubjectID, Preview: true}
		if q.IncludeEvents {
			req.IncludeEvents = true
			req.Budget = governance.Budget{Total: governance.MaxRecallTotal, PerItem: 2000}
		}
		req.Normalize()
		if err := req.Validate(); err != nil {
			return nil, err
		}
		key := fmt.Sprintf("%d\x00%s\x00%t\x00%s", req.ProjectID, req.SubjectID, req.IncludeEvents, req.Task)
		c.mu.Lock()
		in := c.by[key]
		c.mu.Unlock()
		if in == nil {
			var err error
			if in, err = c.load(ctx, req); err != nil {
				return nil, err
			}
			c.mu.Lock()
			c.by[key] = in
			c.mu.Unlock()
		}
		if overlay != nil {
			in = overlay(req, in)
		}
		return evals.FromPackage(recall.Recall(req, *in, governance.DefaultRecallWeights())), nil
	}
}
