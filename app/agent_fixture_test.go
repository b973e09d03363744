package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
)

// agentWorld is two projects (travel with the subjects ann and bob, code)
// and one actor of every kind the agent-facing use cases distinguish.
type agentWorld struct {
	st     *store.Store
	app    *app.App
	travel *governance.Project
	code   *governance.Project

	admin, reviewer, reviewerOfCode, ann, bob governance.Actor
}

func newAgentWorld(t *testing.T) *agentWorld {
	t.Helper()
	ctx := context.Background()
	st := sqlitetest.Open(t)
	w := &agentWorld{st: st, app: app.New(st)}
	w.travel = &governance.Project{Slug: "travel", Name: "Travel"}
	w.code = &governance.Project{Slug: "code", Name: "Code"}
	for _, p := range []*governance.Project{w.travel, w.code} {
		if err := st.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	account := func(id int64, name string, ms ...governance.Membership) governance.Actor {
		return governance.AccountActor(&governance.Account{ID: id, Username: name, Memberships: ms})
	}
	w.admin = governance.AccountActor(&governance.Account{ID: 1, Username: "root", IsAdmin: true})
	w.reviewer = account(2, "rita", governance.Membership{ProjectID: w.travel.ID, ProjectSlug: "travel", Role: governance.ProjectReviewer})
	w.reviewerOfCode = account(3, "carl", governance.Membership{ProjectID: w.code.ID, ProjectSlug: "code", Role: governance.ProjectReviewer})
	w.ann = account(4, "ann", governance.Membership{ProjectID: w.travel.ID, ProjectSlug: "travel", Role: governance.ProjectMember, SubjectID: "ann"})
	w.bob = account(5, "bob", governance.Membership{ProjectID: w.travel.ID, ProjectSlug: "travel", Role: governance.ProjectMember, SubjectID: "bob"})

	at := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)
	w.mustIngest(t, w.travel, []*governance.Event{
		{ID: "a1", SessionID: "s-ann", SubjectID: "ann", Turn: 1, Role: governance.RoleUser, Text: "I love the Shanghai aquarium", OccurredAt: at},
		{ID: "a2", SessionID: "s-ann", SubjectID: "ann", Turn: 2, Role: governance.RoleAssistant, Text: "Noted: aquarium first", OccurredAt: at.Add(time.Minute)},
		{ID: "b1", SessionID: "s-bob", SubjectID: "bob", Turn: 1, Role: governance.RoleUser, Text: "Book the aquarium for bob", OccurredAt: at},
	})
	w.mustIngest(t, w.code, []*governance.Event{
		{ID: "c1", SessionID: "s-code", Turn: 1, Role: governance.RoleUser, Text: "The aquarium service needs tests", OccurredAt: at},
	})
	return w
}

// token is a project API token of p with scopes.
func (w *agentWorld) token(p *governance.Project, scopes ...governance.TokenScope) governance.Actor {
	return governance.TokenActor(&governance.APIToken{ID: 40 + p.ID, ProjectID: p.ID, ProjectSlug: p.Slug, Name: "agent", Scopes: scopes})
}

func (w *agentWorld) mustIngest(t *testing.T, p *governance.Project, events []*governance.Event) {
	t.Helper()
	if _, err := w.st.IngestEvents(context.Background(), p.ID, events); err != nil {
		t.Fatal(err)
	}
}

// mustRule inserts an active rule with SQL (the heartbeat and review paths
// are not under test here) and returns its id.
func (w *agentWorld) mustRule(t *testing.T, p *governance.Project, subject, text string) int64 {
	t.Helper()
	now := w.st.Now().UTC().Format(time.RFC3339)
	res, err := w.st.DB().ExecContext(context.Background(), `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, trust, paused, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
		p.ID, subject, governance.TypePreference, text, governance.ReasonExplicit, governance.RuleActive, 0.9, now, now)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}

// eventCount counts a project's events.
func (w *agentWorld) eventCount(t *testing.T, p *governance.Project) int {
	t.Helper()
	_, total, err := w.st.FindEvents(context.Background(), governance.EventFilter{ProjectID: &p.ID, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// traces counts the travel project's stored recall traces.
func (w *agentWorld) traces(t *testing.T) int {
	t.Helper()
	_, total, err := w.st.FindRecallTraces(context.Background(), governance.RecallTraceFilter{ProjectID: w.travel.ID, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// wantImportError fails unless err is a rejected batch.
func wantImportError(t *testing.T, err error) *governance.ImportError {
	t.Helper()
	var ie *governance.ImportError
	if !errors.As(err, &ie) {
		t.Fatalf("error = %v, want a *governance.ImportError", err)
	}
	return ie
}
