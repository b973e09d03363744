package evals

import (
	"context"
	"errors"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// MemoryStore is the part of the store Services needs: projects, events,
// rules, recall, eval scratch projects and rule checks. The store
// implements it; evals never imports the store.
type MemoryStore interface {
	CreateProject(ctx context.Context, p *governance.Project) error
	DeleteScratchProjects(ctx context.Context, prefix string) error
	ScratchOwners
	CopyEvents(ctx context.Context, prefix string, sourceID, scratchID int64) (int, error)
	EventCopyForgets(ctx context.Context, prefix string) (map[int64]int, error)
	FindProjectBySlug(ctx context.Context, slug string) (*governance.Project, error)
	IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error)
	FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error)
	SearchEvents(ctx context.Context, f governance.EventFilter) ([]*governance.EventHit, int, error)
	Recall(ctx context.Context, actor string, req governance.RecallRequest) (*governance.RecallPackage, error)
	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
	ApproveRules(ctx context.Context, actor string, ids []int64) error
	FindRuleEvidence(ctx context.Context, ruleID int64) ([]*governance.EvidenceLink, error)
	FindRuleChecks(ctx context.Context, ruleIDs []int64) (map[int64]string, error)
	NewTextBaseline(ctx context.Context) (TextBaseline, error)
}

// Services is the product's Memory: the store plus the heartbeat and
// forget, which live elsewhere and are passed in as functions.
type Services struct {
	Store MemoryStore
	// Beat consolidates one project synchronously. It must be serialised
	// with the background heartbeat (two beats over the same project at
	// once would both write the same outputs).
	Beat func(ctx context.Context, projectID int64) error
	// Forget forgets one rule completely (docs/forget.md); nil makes
	// sequence steps with forget fail with a clear error.
	Forget func(ctx context.Context, ruleID int64, actor string) error
	// Actor is recorded on recall traces (default "eval").
	Actor string
}

var _ Memory = (*Services)(nil)

// CreateScratchProject creates a project for a run or a case, flagged as
// scratch.
func (s *Services) CreateScratchProject(ctx context.Context, slug, name string, autoActivate bool) (*governance.Project, error) {
	p := &governance.Project{Slug: slug, Name: name, AutoActivate: autoActivate, Scratch: true,
		Description: "Created by an eval run; removed when the run ends."}
	if err := s.Store.CreateProject(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// ApproveRules approves proposals as a reviewer does.
func (s *Services) ApproveRules(ctx context.Context, actor string, ids []int64) error {
	return s.Store.ApproveRules(ctx, actor, ids)
}

// DeleteScratchProjects removes the flagged scratch projects whose slug
// starts with prefix.
func (s *Services) DeleteScratchProjects(ctx context.Context, prefix string) error {
	return s.Store.DeleteScratchProjects(ctx, prefix)
}

// ClaimScratch records a CLI run's claim on its scratch projects.
func (s *Services) ClaimScratch(ctx context.Context, prefix, holder string, ttl time.Duration) error {
	return s.Store.ClaimScratch(ctx, prefix, holder, ttl)
}

// RenewScratch extends a claim; false once it expired.
func (s *Services) RenewScratch(ctx context.Context, prefix string, ttl time.Duration) (bool, error) {
	return s.Store.RenewScratch(ctx, prefix, ttl)
}

// ReleaseScratch drops a claim.
func (s *Services) ReleaseScratch(ctx context.Context, prefix string) error {
	return s.Store.ReleaseScratch(ctx, prefix)
}

// RemoveOrphanScratch removes the scratch projects no live run owns.
func (s *Services) RemoveOrphanScratch(ctx context.Context) (int64, error) {
	return s.Store.RemoveOrphanScratch(ctx)
}

// CopyEvents copies a live project's events into a run's scratch project.
func (s *Services) CopyEvents(ctx context.Context, prefix string, sourceID, scratchID int64) (int, error) {
	return s.Store.CopyEvents(ctx, prefix, sourceID, scratchID)
}

// EventCopyForgets counts the forgets that reached a run's copies.
func (s *Services) EventCopyForgets(ctx context.Context, prefix string) (map[int64]int, error) {
	return s.Store.EventCopyForgets(ctx, prefix)
}

// NewTextBaseline opens the store's bare full-text table in a temporary
// database, the fts5 retriever's index.
func (s *Services) NewTextBaseline(ctx context.Context) (TextBaseline, error) {
	return s.Store.NewTextBaseline(ctx)
}

// FindProjectBySlug finds a project.
func (s *Services) FindProjectBySlug(ctx context.Context, slug string) (*governance.Project, error) {
	return s.Store.FindProjectBySlug(ctx, slug)
}

// IngestEvents stores events.
func (s *Services) IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	return s.Store.IngestEvents(ctx, projectID, events)
}

// FindEvents lists events.
func (s *Services) FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error) {
	return s.Store.FindEvents(ctx, f)
}

// SearchEvents is the product's full-text search.
func (s *Services) SearchEvents(ctx context.Context, f governance.EventFilter) ([]*governance.EventHit, int, error) {
	return s.Store.SearchEvents(ctx, f)
}

// RunHeartbeat consolidates one project.
func (s *Services) RunHeartbeat(ctx context.Context, projectID int64) error {
	if s.Beat == nil {
		return errors.New("no heartbeat is wired into the eval runner")
	}
	return s.Beat(ctx, projectID)
}

// Recall asks the recall engine for a package. It is a preview, so evals
// never count as use of a rule.
func (s *Services) Recall(ctx context.Context, q RecallQuery) (*RecallResult, error) {
	req := governance.RecallRequest{Task: q.Task, ProjectID: q.ProjectID, SubjectID: q.SubjectID, Preview: true, AsOf: q.AsOf}
	if q.IncludeEvents {
		// At least fifty items fit: a benchmark reads sessions off them.
		req.IncludeEvents = true
		req.Budget = governance.Budget{Total: governance.MaxRecallTotal, PerItem: governance.MaxRecallTotal / 50}
	}
	pkg, err := s.Store.Recall(ctx, cmpOr(s.Actor, "eval"), req)
	if err != nil {
		return nil, err
	}
	return FromPackage(pkg), nil
}

// FromPackage converts a context package to the form evals checks.
func FromPackage(pkg *governance.RecallPackage) *RecallResult {
	out := &RecallResult{Text: pkg.Text, OutOfScope: pkg.Trace.ScopeFiltered.Total()}
	if m := pkg.Trace.Match; m != nil {
		out.Match = &RecallMatch{Coverage: m.Coverage, Weak: m.Weak}
	}
	for _, it := range pkg.Items {
		out.Items = append(out.Items, RecallItem{ID: it.ID, Kind: string(it.Kind), RuleID: it.Source.RuleID,
			Event: it.Source.EventID, Text: it.Text, Score: it.Score})
	}
	for _, t := range pkg.Trace.Considered {
		e := TraceEntry{ID: t.ID, Kind: string(t.Kind), Included: t.Included, Reason: t.Reason, Score: t.Score.Total}
		if kind, n, ok := governance.ParseRecallID(t.ID); ok && kind == governance.RecallKindRule {
			e.RuleID = n
		}
		out.Trace = append(out.Trace, e)
	}
	return out
}

// ForgetRule forgets a rule through the wired forget.
func (s *Services) ForgetRule(ctx context.Context, ruleID int64, actor string) error {
	if s.Forget == nil {
		return errors.New("forget is not wired into the eval runner")
	}
	return s.Forget(ctx, ruleID, actor)
}

// FindRules lists rules.
func (s *Services) FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error) {
	return s.Store.FindRules(ctx, f)
}

// FindRuleEvidence returns a rule's evidence chain.
func (s *Services) FindRuleEvidence(ctx context.Context, ruleID int64) ([]*governance.EvidenceLink, error) {
	return s.Store.FindRuleEvidence(ctx, ruleID)
}

// FindRuleChecks returns the code checks stored on rules.
func (s *Services) FindRuleChecks(ctx context.Context, ruleIDs []int64) (map[int64]string, error) {
	return s.Store.FindRuleChecks(ctx, ruleIDs)
}
