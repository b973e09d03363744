package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
)

// Fixture is the use-case layer over a temp-dir store with two projects,
// an actor of every kind, a few events and memories about two subjects of
// the travel project.
type Fixture struct {
	Store   *store.Store
	App     *app.App
	Travel  *governance.Project
	Expense *governance.Project
	// Actors by name: see the constants below.
	Actors map[string]governance.Actor
	// Tokens by name (the token actors' tokens).
	Tokens map[string]*governance.APIToken
}

// Actors of the fixture.
const (
	Anonymous       = "anonymous"
	Admin           = "admin"
	TravelReviewer  = "rita"  // reviews travel-agent
	ExpenseReviewer = "eve"   // reviews expense-agent only
	MemberLi        = "mia"   // member of travel-agent for family-li
	MemberWang      = "otto"  // member of travel-agent for family-wang
	TokenForget     = "tok-f" // travel-agent token: forget
	TokenRecall     = "tok-r" // travel-agent token: recall only
	TokenOther      = "tok-x" // expense-agent token: forget, recall
)

var t0 = time.Date(2025, 6, 14, 9, 0, 0, 0, time.UTC)

func ev(id, session, subject string, turn int, text string) *governance.Event {
	return &governance.Event{ID: id, SessionID: session, SubjectID: subject, Turn: turn, Role: governance.RoleUser, Text: text,
		OccurredAt: t0.Add(time.Duration(turn) * time.Minute)}
}

// NewFixture opens a fresh store and fills it.
func NewFixture(tb testing.TB) *Fixture {
	tb.Helper()
	ctx := context.Background()
	s := sqlitetest.Open(tb)
	f := &Fixture{Store: s, App: app.New(s), Actors: map[string]governance.Actor{Anonymous: {}},
		Tokens: map[string]*governance.APIToken{}}
	f.Travel = f.project(tb, "travel-agent", "Travel agent")
	f.Expense = f.project(tb, "expense-agent", "Expense agent")
	f.account(tb, &governance.Account{Username: Admin, IsAdmin: true})
	f.account(tb, &governance.Account{Username: TravelReviewer, Memberships: []governance.Membership{
		{ProjectID: f.Travel.ID, Role: governance.ProjectReviewer}}})
	f.account(tb, &governance.Account{Username: ExpenseReviewer, Memberships: []governance.Membership{
		{ProjectID: f.Expense.ID, Role: governance.ProjectReviewer}}})
	f.account(tb, &governance.Account{Username: MemberLi, Memberships: []governance.Membership{
		{ProjectID: f.Travel.ID, Role: governance.ProjectMember, SubjectID: "family-li"}}})
	f.account(tb, &governance.Account{Username: MemberWang, Memberships: []governance.Membership{
		{ProjectID: f.Travel.ID, Role: governance.ProjectMember, SubjectID: "family-wang"}}})
	f.token(tb, TokenForget, f.Travel, governance.ScopeForget)
	f.token(tb, TokenRecall, f.Travel, governance.ScopeRecall)
	f.token(tb, TokenOther, f.Expense, governance.ScopeForget, governance.ScopeRecall)
	if _, err := s.IngestEvents(ctx, f.Travel.ID, []*governance.Event{
		ev("bj-1-1", "bj-1", "family-li", 1, "我们想带五岁的女儿去北京玩三天。"),
		ev("bj-1-2", "bj-1", "family-li", 2, "孩子每天下午两点到四点要午睡。"),
		ev("sh-1-1", "sh-1", "family-wang", 1, "王家想去上海迪士尼乐园，孩子七岁。"),
	}); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, f.Expense.ID, []*governance.Event{
		ev("ex-1-1", "ex-1", "emp-7", 1, "200 元以下的报销不需要扫描发票吗？"),
	}); err != nil {
		tb.Fatal(err)
	}
	return f
}

func (f *Fixture) project(tb testing.TB, slug, name string) *governance.Project {
	tb.Helper()
	p := &governance.Project{Slug: slug, Name: name}
	if err := f.Store.CreateProject(context.Background(), p); err != nil {
		tb.Fatal(err)
	}
	return p
}

// account creates a and keeps it, read back with its memberships, as an actor.
func (f *Fixture) account(tb testing.TB, a *governance.Account) {
	tb.Helper()
	ctx := context.Background()
	a.PasswordHash = "unused"
	if err := f.Store.CreateAccount(ctx, a); err != nil {
		tb.Fatal(err)
	}
	got, err := f.Store.FindAccountByUsername(ctx, a.Username)
	if err != nil {
		tb.Fatal(err)
	}
	f.Actors[a.Username] = governance.AccountActor(got)
}

func (f *Fixture) token(tb testing.TB, name string, p *governance.Project, scopes ...governance.TokenScope) {
	tb.Helper()
	t := &governance.APIToken{ProjectID: p.ID, Name: name, Scopes: scopes, CreatedBy: Admin}
	if err := f.Store.CreateToken(context.Background(), t, governance.HashTokenSecret("secret-"+name)); err != nil {
		tb.Fatal(err)
	}
	f.Tokens[name] = t
	f.Actors[name] = governance.TokenActor(t)
}

// Rule inserts an active rule of p about subject ("" = project-wide).
func (f *Fixture) Rule(tb testing.TB, p *governance.Project, subject, text string) int64 {
	tb.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	res, err := f.Store.DB().ExecContext(context.Background(), `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, trust, created_at, updated_at)
		VALUES (?, ?, 'fact', ?, 'explicit_user_instruction', 'active', 0.8, ?, ?)`, p.ID, subject, text, now, now)
	if err != nil {
		tb.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}

// Candidate inserts a held candidate of p about subject.
func (f *Fixture) Candidate(tb testing.TB, p *governance.Project, session, subject, text string) int64 {
	tb.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Format(time.RFC3339)
	res, err := f.Store.DB().ExecContext(ctx, `
		INSERT INTO candidates (project_id, session_id, subject_id, type, statement, extractor, status, created_at, updated_at)
		VALUES (?, ?, ?, 'fact', ?, 'test', 'held', ?, ?)`, p.ID, session, subject, text, now, now)
	if err != nil {
		tb.Fatal(err)
	}
	id, _ := res.LastInsertId()
	if _, err := f.Store.DB().ExecContext(ctx, `UPDATE candidates SET group_id = id WHERE id = ?`, id); err != nil {
		tb.Fatal(err)
	}
	return id
}

// wantCode fails unless err has code want ("" = nil error).
func wantCode(tb testing.TB, what string, err error, want string) {
	tb.Helper()
	if got := governance.ErrorCode(err); got != want {
		tb.Fatalf("%s: code = %q (%v), want %q", what, got, err, want)
	}
}

// outcomes is the expected error code per actor.
type outcomes map[string]string

// check calls op for every actor of want and compares the codes.
func (f *Fixture) check(t *testing.T, want outcomes, op func(actor governance.Actor) error) {
	t.Helper()
	for name, code := range want {
		actor, ok := f.Actors[name]
		if !ok {
			t.Fatalf("no actor %s", name)
		}
		wantCode(t, name, op(actor), code)
	}
}
