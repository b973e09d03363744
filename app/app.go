// Package app is the use-case layer: one method per operation the console
// performs — for the HTML pages, the agent REST API, the MCP tools and the
// CLI alike. Each use case validates its input, asks the policy
// (governance.Can) on behalf of an explicit actor, and calls the store
// through the narrow interface its service declares. Handlers and tools are
// adapters around it: bind input, call one use case, render.
//
// app imports governance, never store, echo or database/sql; any type that
// satisfies Store (the SQLite store today) can sit behind it. See
// docs/ARCHITECTURE.md.
package app

import (
	"context"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"

	"golang.org/x/time/rate"
)

// Store is everything the use cases need from a store: the union of the
// services' narrow interfaces. store.Store satisfies it; a second backend
// implements it too.
type Store interface {
	AdminStore
	ProjectStore
	RuleStore
	ReviewStore
	AuditStore
	MemoryStore
	SystemStore
	ForgetStore
	MeStore
	AccountStore
	TokenStore
	DashboardStore
	HeartbeatStore
	EvalStore
	EventStore
	RecallStore
	ExportStore
	ImportStore
	SourceStore
	OutcomeStore
	SkillStore
}

// SystemStore is what the console's plumbing needs from the store.
type SystemStore interface {
	// SessionKeys returns the cookie keys shared by every instance on the
	// database (generated on first use).
	SessionKeys(ctx context.Context) (hashKey, blockKey []byte, err error)
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	// CurrentTime is the store's clock (tests move it).
	CurrentTime() time.Time
}

// App holds the use cases, grouped by aggregate.
type App struct {
	Admin     Admin
	Projects  Projects
	Rules     Rules
	Reviews   Reviews
	AuditLog  AuditLog
	Memories  Memories
	Forget    Forget
	Me        Me
	Account   Account
	Tokens    Tokens
	Dashboard Dashboard
	Heartbeat Heartbeat
	Evals     Evals
	Events    Events
	Recalls   Recalls
	Exports   Exports
	Imports   Imports
	Sources   Sources
	Outcomes  Outcomes
	Effects   Effects
	Skills    Skills

	system SystemStore
}

// New builds the use-case layer over st.
func New(st Store) *App {
	projects := Projects{store: st}
	rules := Rules{store: st, projects: projects}
	events := Events{store: st, projects: projects}
	forget := Forget{store: st, projects: projects, rules: rules}
	effects := Effects{store: st, projects: projects, cache: newEffectCache()}
	recent := newTargetCache(8192)
	skills := Skills{store: st, projects: projects, catalog: newSkillCatalog(), gate: gate.Patterns}
	return &App{
		Admin:     Admin{store: st},
		Projects:  projects,
		Rules:     rules,
		Reviews:   Reviews{store: st, projects: projects, rules: rules, effects: effects},
		AuditLog:  AuditLog{store: st},
		Memories:  Memories{store: st, projects: projects},
		Forget:    forget,
		Me:        Me{store: st, projects: projects, forget: forget, rules: rules},
		Account:   Account{store: st},
		Tokens:    Tokens{store: st},
		Dashboard: Dashboard{store: st, projects: projects},
		Heartbeat: Heartbeat{store: st},
		Evals:     Evals{store: st, projects: st},
		Events:    events,
		Recalls:   Recalls{store: st, projects: projects, recent: recent, skills: skills},
		Exports:   Exports{store: st, projects: projects, events: events},
		Imports:   Imports{store: st, projects: projects, events: events},
		Sources:   Sources{store: st, projects: projects},
		Outcomes: Outcomes{store: st, projects: projects, recent: recent,
			limits: &outcomeLimiter{limit: DefaultOutcomeLimit, by: map[string]*rate.Limiter{}}, gate: gate.Patterns},
		Effects: effects,
		Skills:  skills,
		system:  st,
	}
}

// SetSkillDrafter has d (a model) word the draft skills the heartbeat
// proposes; without one the code words them. Call it before the app
// serves.
func (a *App) SetSkillDrafter(d governance.SkillDrafter) { a.Skills.drafter = d }

// SetClassifier has cl read what agents write beside events: outcome
// reports' notes and tasks and skills for their risk review. The default
// is the pattern gate (gate.Patterns); with a model configured the console
// puts the model's classifier beside it, as the heartbeat does. Call it
// before the app serves.
func (a *App) SetClassifier(cl governance.Classifier) {
	a.Outcomes.gate, a.Skills.gate = cl, cl
	a.Recalls.skills.gate = cl
}

// SetEmbedder adds semantic search to the reviewers' rules list (e not
// nil) or takes it away; call it before the app serves.
func (a *App) SetEmbedder(e governance.Embedder) { a.Rules.embedder = e }

// SessionKeys returns the session cookie keys kept in the database.
func (a *App) SessionKeys(ctx context.Context) (hashKey, blockKey []byte, err error) {
	return a.system.SessionKeys(ctx)
}

// Ping reports whether the database answers (the health check).
func (a *App) Ping(ctx context.Context) error { return a.system.Ping(ctx) }

// Now is the time the use cases work with: the store's clock.
func (a *App) Now() time.Time { return a.system.CurrentTime() }
