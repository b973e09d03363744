package evals

import (
	"context"
	"log/slog"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/sashabaranov/go-openai"
)

// Memory is what the eval runner needs from the product. Services adapts
// the real store, heartbeat, recall engine and forget; tests use fakes.
type Memory interface {
	// CreateScratchProject creates a project for one run or case, flagged
	// as scratch (governance.Project.Scratch); slug starts with
	// evalrow.ScratchPrefix.
	CreateScratchProject(ctx context.Context, slug, name string, autoActivate bool) (*governance.Project, error)
	// DeleteScratchProjects removes every project flagged as scratch whose
	// slug starts with prefix (the run's or the case's own).
	DeleteScratchProjects(ctx context.Context, prefix string) error
	ScratchOwners
	// CopyEvents copies project sourceID's events that are not redacted
	// into scratch project scratchID (fixtures.copy_events) and records
	// that the scratch projects whose slug starts with prefix (the run's)
	// hold copies of them, in one step that a forget of the source either
	// precedes or follows: a forget then forgets the copy of what it
	// forgets there, counts itself on the record (EventCopyForgets) and
	// withholds the run's result details (docs/evals.md, "Scratch
	// projects"). It returns how many events it wrote.
	CopyEvents(ctx context.Context, prefix string, sourceID, scratchID int64) (int, error)
	// EventCopyForgets returns, for each live project the run of prefix
	// copied, how many forgets have reached its copy so far.
	EventCopyForgets(ctx context.Context, prefix string) (map[int64]int, error)
	FindProjectBySlug(ctx context.Context, slug string) (*governance.Project, error)
	IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error)
	FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error)
	SearchEvents(ctx context.Context, f governance.EventFilter) ([]*governance.EventHit, int, error)
	// RunHeartbeat consolidates everything new in the project, synchronously.
	RunHeartbeat(ctx context.Context, projectID int64) error
	Recall(ctx context.Context, q RecallQuery) (*RecallResult, error)
	// ForgetRule forgets a rule completely (docs/forget.md).
	ForgetRule(ctx context.Context, ruleID int64, actor string) error
	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
	// ApproveRules approves proposals as a reviewer does (fixtures with
	// auto_activate: the product activates on its own only what is in
	// the low-risk set).
	ApproveRules(ctx context.Context, actor string, ids []int64) error
	FindRuleEvidence(ctx context.Context, ruleID int64) ([]*governance.EvidenceLink, error)
	// FindRuleChecks returns the code checks (JSON arrays) stored on rules.
	FindRuleChecks(ctx context.Context, ruleIDs []int64) (map[int64]string, error)
}

// ScratchOwners keeps the claims of CLI runs (which have no eval_runs
// row) on their scratch projects, and removes the scratch projects no
// live run owns (OrphanScratch decides which).
type ScratchOwners interface {
	// ClaimScratch records that holder (a process, named for people)
	// owns the scratch projects whose slug starts with prefix until ttl
	// from now.
	ClaimScratch(ctx context.Context, prefix, holder string, ttl time.Duration) error
	// RenewScratch extends the claim to ttl from now. It reports false,
	// and renews nothing, once the claim has expired or is gone: its
	// scratch projects may have been removed as a killed run's.
	RenewScratch(ctx context.Context, prefix string, ttl time.Duration) (bool, error)
	// ReleaseScratch drops the claim (the run removed its projects).
	ReleaseScratch(ctx context.Context, prefix string) error
	// RemoveOrphanScratch removes the scratch projects (and copy
	// records) of server runs neither queued nor running and of CLI runs
	// whose claim expired; it returns how many runs it cleaned up after.
	RemoveOrphanScratch(ctx context.Context) (int64, error)
}

// BaselineMemory is a Memory that can build a TextBaseline.
type BaselineMemory interface {
	NewTextBaseline(ctx context.Context) (TextBaseline, error)
}

// RecallQuery asks the recall engine for a context package.
type RecallQuery struct {
	ProjectID int64
	SubjectID string
	Task      string
	// IncludeEvents asks for raw events too, with a large budget
	// (retrieval benchmarks).
	IncludeEvents bool
	// AsOf asks as of that time (zero: now): later events are not
	// recalled, and recency is measured from it.
	AsOf time.Time
}

// RecallItem is one memory in a package.
type RecallItem struct {
	ID     string  `json:"id"`
	Kind   string  `json:"kind"`
	RuleID int64   `json:"rule_id,omitempty"`
	Event  string  `json:"event_id,omitempty"`
	Text   string  `json:"text"`
	Score  float64 `json:"score"`
}

// TraceEntry is recall's decision on one in-scope candidate.
type TraceEntry struct {
	ID       string  `json:"id"`
	Kind     string  `json:"kind"`
	RuleID   int64   `json:"rule_id,omitempty"`
	Included bool    `json:"included"`
	Reason   string  `json:"reason"`
	Score    float64 `json:"score"`
}

// RecallResult is a context package as evals sees it.
type RecallResult struct {
	Items []RecallItem `json:"items"`
	// Text is the package fenced as recalled memory, as given to a model.
	Text  string       `json:"text"`
	Trace []TraceEntry `json:"trace,omitempty"`
	// OutOfScope counts what the hard scope filter removed.
	OutOfScope int `json:"out_of_scope"`
	// Match is how well the best events match the task (nil: events were
	// not asked for, or the task has no terms): Weak says there is no
	// strong match, the memory may not hold the answer.
	Match *RecallMatch `json:"match,omitempty"`
}

// RecallMatch is governance.RecallMatch: the share of the task's content
// the best events hold, and whether that is a weak match.
type RecallMatch struct {
	Coverage float64 `json:"coverage"`
	Weak     bool    `json:"weak,omitempty"`
}

// Rules returns the rule items of the package.
func (r *RecallResult) Rules() []RecallItem {
	var out []RecallItem
	for _, it := range r.Items {
		if it.RuleID != 0 {
			out = append(out, it)
		}
	}
	return out
}

// ChatCompleter is the model endpoint; *openai.Client satisfies it.
type ChatCompleter interface {
	CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error)
}

// Price converts token usage to cost, in the currency of the figures.
type Price struct {
	InputPerMTok  float64
	OutputPerMTok float64
}

// Cost of a call with the given usage.
func (p Price) Cost(u openai.Usage) float64 {
	return (float64(u.PromptTokens)*p.InputPerMTok + float64(u.CompletionTokens)*p.OutputPerMTok) / 1e6
}

// NoModelReason is why ab cases are skipped without a model endpoint.
const NoModelReason = "skipped: no model endpoint configured — set MNEMO_LLM_BASE_URL, MNEMO_LLM_API_KEY and MNEMO_LLM_MODEL"

// Deps are what running a suite needs.
type Deps struct {
	Memory Memory
	// Model answers ab tasks and judges rules without code checks; nil
	// means no endpoint (ab cases are skipped).
	Model     ChatCompleter
	ModelName string
	// Judge judges rules without code checks (governance/model's *Client);
	// nil makes such rules an error of their case.
	Judge Judge
	Price Price
	// Concurrency bounds the cases of one run that execute at once (default 4).
	Concurrency int
	// CaseTimeout bounds one case unless it sets its own (default 2m).
	CaseTimeout time.Duration
	// KeepScratch keeps scratch projects after a run, for debugging.
	KeepScratch bool
	// ScratchLease is how long a CLI run's claim on its scratch projects
	// lasts unless renewed (default DefaultScratchLease); a killed run's
	// projects are removed as orphans once it has expired.
	ScratchLease time.Duration
	// Actor is recorded for forgets done by sequence cases (default "eval").
	Actor  string
	Logger *slog.Logger
}

func (d *Deps) defaults() {
	if d.Concurrency <= 0 {
		d.Concurrency = 4
	}
	if d.CaseTimeout <= 0 {
		d.CaseTimeout = 2 * time.Minute
	}
	if d.Actor == "" {
		d.Actor = "eval"
	}
	if d.ScratchLease <= 0 {
		d.ScratchLease = DefaultScratchLease
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
}
