package app

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"golang.org/x/time/rate"
)

// OutcomeStore keeps agents' outcome reports, the reviews drafted from
// them and each project's outcome policy; it also answers what the
// receipts of recalls and the approval panel read.
type OutcomeStore interface {
	FindRecallTraces(ctx context.Context, f governance.RecallTraceFilter) ([]*governance.RecallTraceInfo, int, error)
	FindOutcomeTarget(ctx context.Context, traceID int64) (*governance.OutcomeTarget, error)
	SaveOutcome(ctx context.Context, actor string, r *governance.OutcomeReport) error
	FindOutcomes(ctx context.Context, f governance.OutcomeFilter) ([]*governance.OutcomeReport, int, error)
	FindRuleOutcomes(ctx context.Context, ruleIDs []int64) (map[int64]governance.OutcomeCounts, error)
	FindOutcomePolicy(ctx context.Context, projectID int64) (governance.OutcomePolicy, error)
	SetOutcomePolicy(ctx context.Context, actor string, p governance.OutcomePolicy) error
	FindOutcomeReviews(ctx context.Context, f governance.OutcomeReviewFilter) ([]*governance.OutcomeReview, int, error)
	FindOutcomeReviewByID(ctx context.Context, id int64) (*governance.OutcomeReview, error)
	DecideOutcomeReview(ctx context.Context, actor string, id int64, accept bool, reason string, caseAdded bool) (*governance.OutcomeReview, error)
	RecallItemsNow(ctx context.Context, projectID int64, ids []string) (map[string]governance.ReceiptItem, error)
	FindRulesByIDs(ctx context.Context, ids []int64) ([]*governance.Rule, error)
	FindProjectByID(ctx context.Context, id int64) (*governance.Project, error)
	RulesStamp(ctx context.Context, projectID int64) (string, error)
	LoadRecallInput(ctx context.Context, req governance.RecallRequest) (*governance.RecallInput, error)
	UpsertEvalSuite(ctx context.Context, s *evals.SuiteRow, actor string) error
	FindEvalSuites(ctx context.Context) ([]*evals.SuiteRow, error)
	FindEvalSuiteByName(ctx context.Context, name string) (*evals.SuiteRow, error)
	evals.MemoryStore
}

// OutcomeLimit is how many outcome reports one API token may send: Burst
// at once, then Rate a second.
type OutcomeLimit struct {
	Rate  float64
	Burst int
}

// DefaultOutcomeLimit allows 20 reports a second per token, 200 at once.
var DefaultOutcomeLimit = OutcomeLimit{Rate: 20, Burst: 200}

// Outcomes are the use cases of outcome reports: an agent reports what a
// recalled item did, and the console shows the figures, the traces behind
// them and each recall's receipt.
type Outcomes struct {
	store    OutcomeStore
	projects Projects
	limits   *outcomeLimiter
	// recent are the latest recalls' targets (Recalls puts them), so a
	// report soon after its recall does not read the trace back.
	recent *targetCache
	// gate reads a report's note and task (App.SetClassifier).
	gate governance.Classifier
}

// targetCache keeps the report targets of the latest recalls, by trace id;
// the oldest go first. A trace's target never changes; a forgotten
// trace's report fails on its foreign key instead.
type targetCache struct {
	mu    sync.Mutex
	by    map[int64]*governance.OutcomeTarget
	ring  []int64
	next  int
	limit int
}

func newTargetCache(limit int) *targetCache {
	return &targetCache{by: map[int64]*governance.OutcomeTarget{}, ring: make([]int64, limit), limit: limit}
}

func (c *targetCache) put(t *governance.OutcomeTarget) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.by, c.ring[c.next])
	c.ring[c.next], c.by[t.TraceID] = t.TraceID, t
	c.next = (c.next + 1) % c.limit
}

func (c *targetCache) get(id int64) *governance.OutcomeTarget {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.by[id]
}

// targetOf is what a report on pkg's recall is checked against.
func targetOf(req governance.RecallRequest, pkg *governance.RecallPackage) *governance.OutcomeTarget {
	t := &governance.OutcomeTarget{TraceID: pkg.Trace.ID, ProjectID: req.ProjectID, SubjectID: req.SubjectID,
		TaskHash: governance.TaskHash(strings.TrimSpace(req.Task))}
	for _, e := range pkg.Trace.Considered {
		if e.Included {
			t.Included = append(t.Included, e.ID)
		}
	}
	return t
}

// outcomeLimiter keeps one token bucket per actor, in memory (per
// instance); idle buckets are dropped once there are many.
type outcomeLimiter struct {
	mu    sync.Mutex
	limit OutcomeLimit
	by    map[string]*rate.Limiter
}

// SetOutcomeLimit changes the reports' rate limit (tests and benchmarks
// raise it; a zero Rate turns it off).
func (a *App) SetOutcomeLimit(l OutcomeLimit) {
	a.Outcomes.limits.mu.Lock()
	defer a.Outcomes.limits.mu.Unlock()
	a.Outcomes.limits.limit, a.Outcomes.limits.by = l, map[string]*rate.Limiter{}
}

func (l *outcomeLimiter) allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit.Rate <= 0 {
		return true
	}
	lim := l.by[key]
	if lim == nil {
		if len(l.by) >= 10000 {
			for k, v := range l.by {
				if v.Tokens() >= float64(l.limit.Burst) {
					delete(l.by, k)
				}
			}
		}
		lim = rate.NewLimiter(rate.Limit(l.limit.Rate), l.limit.Burst)
		l.by[key] = lim
	}
	return lim.Allow()
}

// trace loads recall trace id for actor: ENOTFOUND for a trace of another
// project (a token) or another subject (a member) as for one that does
// not exist.
func (o Outcomes) trace(ctx context.Context, actor governance.Actor, id int64, action governance.Action) (*governance.RecallTraceInfo, error) {
	if actor.Anonymous() {
		return nil, errSignIn
	}
	notFound := governance.Errorf(governance.ENOTFOUND, "Recall %d not found.", id)
	if id <= 0 {
		return nil, notFound
	}
	traces, _, err := o.store.FindRecallTraces(ctx, governance.RecallTraceFilter{ID: id, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(traces) == 0 {
		return nil, notFound
	}
	t := traces[0]
	if err := o.authorize(ctx, actor, action, id, t.ProjectID, t.SubjectID); err != nil {
		return nil, err
	}
	return t, nil
}

// authorize asks the policy whether actor may do action on recall id of
// project projectID about subjectID.
func (o Outcomes) authorize(ctx context.Context, actor governance.Actor, action governance.Action, id, projectID int64, subjectID string) error {
	notFound := governance.Errorf(governance.ENOTFOUND, "Recall %d not found.", id)
	switch {
	case actor.Anonymous():
		return errSignIn
	case actor.Token != nil && actor.Token.ProjectID != projectID:
		return notFound // another project's recall does not exist for a token
	case actor.Token == nil:
		// An account with no role in the project is EFORBIDDEN, naming it.
		if _, err := o.projects.ScopeByID(ctx, actor, projectID); err != nil {
			return err
		}
	}
	obj := governance.Object{ProjectID: projectID}.About(subjectID).Named("Recall")
	if err := governance.Can(actor, action, obj); err != nil {
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			return notFound
		}
		return err
	}
	return nil
}

// Report stores an agent's outcome report about recall traceID: the trace
// must be of the token's project and the item in its package; the note
// and the task pass the write gate. A report is evidence about a memory,
// never a memory: nothing recall reads changes. Reports beyond the
// actor's rate are ETOOMANY.
func (o Outcomes) Report(ctx context.Context, actor governance.Actor, traceID int64, in governance.OutcomeInput) (*governance.OutcomeReport, error) {
	if actor.Anonymous() {
		return nil, errSignIn
	}
	t := o.recent.get(traceID)
	if t == nil {
		var err error
		if t, err = o.store.FindOutcomeTarget(ctx, traceID); err != nil {
			return nil, err
		}
	}
	if err := o.authorize(ctx, actor, governance.ActRecall, traceID, t.ProjectID, t.SubjectID); err != nil {
		return nil, err
	}
	if !o.limits.allow(actor.Name()) {
		return nil, governance.Errorf(governance.ETOOMANY, "Too many outcome reports; wait a moment and send again.")
	}
	in.Normalize()
	if err := in.Validate(); err != nil {
		return nil, err
	}
	ruleID, err := governance.CheckOutcome(t, in)
	if err != nil {
		return nil, err
	}
	note, err := gated(ctx, o.gate, in.Note, "note")
	if err != nil {
		return nil, err
	}
	task, err := gated(ctx, o.gate, in.Task, "task")
	if err != nil {
		return nil, err
	}
	r := &governance.OutcomeReport{ProjectID: t.ProjectID, TraceID: t.TraceID, SubjectID: t.SubjectID, ItemID: in.ItemID,
		RuleID: ruleID, Verdict: in.Verdict, Note: note, Task: task, SessionID: in.SessionID}
	if err := o.store.SaveOutcome(ctx, actor.Name(), r); err != nil {
		return nil, err
	}
	return r, nil
}

// gated passes a report's text through the write gate's classifier cl:
// blocked text is EINVALID naming the field, a credential is masked, and a
// classifier that fails refuses the report (it fails closed).
func gated(ctx context.Context, cl governance.Classifier, text, field string) (string, error) {
	if text == "" {
		return "", nil
	}
	res, err := cl.Classify(ctx, text)
	if err != nil {
		return "", err
	}
	if res.Blocked() {
		var cats []string
		for _, f := range res.Findings {
			if !f.Redacted && !strings.Contains(strings.Join(cats, ","), f.Category) {
				cats = append(cats, f.Category)
			}
		}
		return "", governance.Errorf(governance.EINVALID, "The write gate blocks this %s (%s).", field, strings.Join(cats, ", "))
	}
	return res.Text, nil
}

// TraceView is one stored recall with its receipt checked against memory
// now and the outcome reports about it.
type TraceView struct {
	Trace *governance.RecallTraceInfo
	Scope Scope
	// Intact says the stored receipt's hash matches its contents.
	Intact bool
	Checks []governance.ReceiptCheck
	// Labels maps the items that still exist (unchanged or edited) to
	// their text now; forgotten items have none. Empty for tokens.
	Labels  map[string]string
	Reports []*governance.OutcomeReport
}

// Trace loads a stored recall for its receipt: what shaped the package and
// whether each item still exists unchanged, was edited or was forgotten
// (a forgotten item shows only that). Tokens with the recall scope of the
// trace's project, its reviewers, and the member it was for may see it.
func (o Outcomes) Trace(ctx context.Context, actor governance.Actor, id int64) (*TraceView, error) {
	action := governance.ActSee
	if actor.Token != nil {
		action = governance.ActRecall
	}
	t, err := o.trace(ctx, actor, id, action)
	if err != nil {
		return nil, err
	}
	v := &TraceView{Trace: t, Intact: t.Receipt.Intact(), Labels: map[string]string{}}
	if v.Scope, err = o.projects.ScopeByID(ctx, actor, t.ProjectID); err != nil {
		return nil, err
	}
	if t.Receipt != nil {
		ids := make([]string, len(t.Receipt.Items))
		for i, it := range t.Receipt.Items {
			ids[i] = it.ID
		}
		now, err := o.store.RecallItemsNow(ctx, t.ProjectID, ids)
		if err != nil {
			return nil, err
		}
		v.Checks = governance.CheckReceipt(t.Receipt, now)
		if actor.Account != nil {
			if err := o.labels(ctx, v); err != nil {
				return nil, err
			}
		}
	}
	if v.Reports, _, err = o.store.FindOutcomes(ctx, governance.OutcomeFilter{TraceID: t.ID, Limit: 100}); err != nil {
		return nil, err
	}
	return v, nil
}

// labels fills the text of the trace's rules that still exist.
func (o Outcomes) labels(ctx context.Context, v *TraceView) error {
	var ids []int64
	for _, c := range v.Checks {
		if kind, n, ok := governance.ParseRecallID(c.ID); ok && kind == governance.RecallKindRule && c.State != governance.ReceiptForgotten {
			ids = append(ids, n)
		}
	}
	rules, err := o.store.FindRulesByIDs(ctx, ids)
	if err != nil {
		return err
	}
	for _, r := range rules {
		if r.Status != governance.RuleForgotten {
			v.Labels[governance.RecallRuleID(r.ID)] = r.Text
		}
	}
	return nil
}

// RuleOutcomes is a rule's outcome figures with the latest reports behind
// them (each naming its recall trace).
type RuleOutcomes struct {
	Counts  governance.OutcomeCounts
	Reports []*governance.OutcomeReport
}

// ForRule loads rule r's figures and latest reports (the caller has
// authorized the rule).
func (o Outcomes) ForRule(ctx context.Context, r *governance.Rule, limit int) (RuleOutcomes, error) {
	counts, err := o.store.FindRuleOutcomes(ctx, []int64{r.ID})
	if err != nil {
		return RuleOutcomes{}, err
	}
	out := RuleOutcomes{Counts: counts[r.ID]}
	out.Reports, _, err = o.store.FindOutcomes(ctx, governance.OutcomeFilter{RuleID: r.ID, Limit: limit})
	return out, err
}

// Counts returns the outcome figures of rules (the caller has authorized
// them); rules without reports are absent.
func (o Outcomes) Counts(ctx context.Context, rules []*governance.Rule) (map[int64]governance.OutcomeCounts, error) {
	ids := make([]int64, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	return o.store.FindRuleOutcomes(ctx, ids)
}

// Policy returns a project's outcome policy for its reviewers; CanSet says
// whether the actor may change it (admins).
func (o Outcomes) Policy(ctx context.Context, actor governance.Actor, slug string) (governance.OutcomePolicy, bool, error) {
	sc, err := o.projects.ReviewScope(ctx, actor, slug)
	if err != nil {
		return governance.OutcomePolicy{}, false, err
	}
	p, err := o.store.FindOutcomePolicy(ctx, sc.Project.ID)
	return p, governance.Can(actor, governance.ActAdminister, governance.InProject(sc.Project)) == nil, err
}

// SetPolicy changes a project's outcome policy: the project's admins
// only. A threshold that is not a whole number from 1 to
// governance.MaxOutcomeThreshold is FieldErrors ("threshold").
func (o Outcomes) SetPolicy(ctx context.Context, actor governance.Actor, slug, threshold string, requireNoRegression bool) (*governance.Project, error) {
	sc, err := o.projects.ReviewScope(ctx, actor, slug)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActAdminister, governance.InProject(sc.Project)); err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(threshold))
	p := governance.OutcomePolicy{ProjectID: sc.Project.ID, Threshold: n, RequireNoRegression: requireNoRegression}
	if err != nil || p.Validate() != nil {
		return nil, FieldErrors{"threshold": governance.Say("A whole number from 1 to 100.")}
	}
	if err := o.store.SetOutcomePolicy(ctx, actor.Name(), p); err != nil {
		return nil, err
	}
	return sc.Project, nil
}
