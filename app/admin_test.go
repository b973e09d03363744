package app_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
)

// cheap argon2 parameters keep the tests fast; verification reads the
// parameters from the stored hash.
var cheap = auth.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

type testPasswords struct{}

func (testPasswords) Generate() string { return auth.GeneratePassword() }
func (testPasswords) Hash(pw string) (string, error) {
	return auth.HashPasswordWith(pw, cheap)
}

type adminFixture struct {
	st       *store.Store
	app      *app.App
	admin    governance.Actor
	reviewer governance.Actor
	member   governance.Actor
	project  *governance.Project
}

func newAdminFixture(t *testing.T) *adminFixture {
	t.Helper()
	ctx := context.Background()
	st := sqlitetest.Open(t)
	f := &adminFixture{st: st, app: app.New(st)}
	f.app.SetPasswords(testPasswords{})
	f.project = &governance.Project{Slug: "travel-agent", Name: "Travel agent"}
	if err := st.CreateProject(ctx, f.project); err != nil {
		t.Fatal(err)
	}
	mk := func(a *governance.Account) governance.Actor {
		a.PasswordHash, _ = auth.HashPasswordWith("correct horse", cheap)
		if err := st.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, err := st.FindAccountByID(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		return governance.AccountActor(got)
	}
	f.admin = mk(&governance.Account{Username: "root", IsAdmin: true})
	f.reviewer = mk(&governance.Account{Username: "rita", Memberships: []governance.Membership{
		{ProjectID: f.project.ID, Role: governance.ProjectReviewer}}})
	f.member = mk(&governance.Account{Username: "mia", Memberships: []governance.Membership{
		{ProjectID: f.project.ID, Role: governance.ProjectMember, SubjectID: "family-li"}}})
	return f
}

func wantAdminCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := governance.ErrorCode(err); got != code {
		t.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

// TestAdminAuthorization: every administration use case refuses reviewers,
// members and anonymous callers before it touches anything.
func TestAdminAuthorization(t *testing.T) {
	f := newAdminFixture(t)
	ctx := context.Background()
	ad := f.app.Admin
	target := f.member.Account.ID
	calls := map[string]func(actor governance.Actor) error{
		"Accounts": func(a governance.Actor) error { _, err := ad.Accounts(ctx, a); return err },
		"Account":  func(a governance.Actor) error { _, err := ad.Account(ctx, a, target); return err },
		"CreateAccount": func(a governance.Actor) error {
			_, _, err := ad.CreateAccount(ctx, a, app.NewAccount{Username: "intruder"})
			return err
		},
		"ResetPassword": func(a governance.Actor) error { _, _, err := ad.ResetPassword(ctx, a, target); return err },
		"SetAdmin":      func(a governance.Actor) error { _, err := ad.SetAdmin(ctx, a, target, true); return err },
		"SetDisabled":   func(a governance.Actor) error { _, err := ad.SetDisabled(ctx, a, target, true); return err },
		"SetMembership": func(a governance.Actor) error {
			_, _, err := ad.SetMembership(ctx, a, target, governance.Membership{ProjectID: f.project.ID, Role: governance.ProjectReviewer})
			return err
		},
		"RemoveMembership": func(a governance.Actor) error {
			_, err := ad.RemoveMembership(ctx, a, target, f.project.ID)
			return err
		},
		"Projects":       func(a governance.Actor) error { _, err := ad.Projects(ctx, a); return err },
		"ProjectChoices": func(a governance.Actor) error { _, err := ad.ProjectChoices(ctx, a); return err },
		"Project":        func(a governance.Actor) error { _, err := ad.Project(ctx, a, f.project.ID); return err },
		"CreateProject": func(a governance.Actor) error {
			_, err := ad.CreateProject(ctx, a, app.NewProject{Slug: "new-one", Name: "New"})
			return err
		},
		"UpdateProject": func(a governance.Actor) error {
			name := "Renamed"
			_, err := ad.UpdateProject(ctx, a, f.project.ID, governance.ProjectUpdate{Name: &name})
			return err
		},
		"PreviewDeleteProject": func(a governance.Actor) error { _, err := ad.PreviewDeleteProject(ctx, a, f.project.ID); return err },
		"DeleteProject": func(a governance.Actor) error {
			_, err := ad.DeleteProject(ctx, a, f.project.ID, f.project.Slug)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			wantAdminCode(t, call(f.reviewer), governance.EFORBIDDEN)
			wantAdminCode(t, call(f.member), governance.EFORBIDDEN)
			wantAdminCode(t, call(governance.Actor{}), governance.EUNAUTHORIZED)
		})
	}
	// Nothing changed.
	if _, err := f.st.FindProjectByID(ctx, f.project.ID); err != nil {
		t.Fatalf("project gone after refused calls: %v", err)
	}
	if _, err := f.st.FindAccountByUsername(ctx, "intruder"); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("refused CreateAccount created an account: %v", err)
	}
	m, _ := f.st.FindAccountByID(ctx, target)
	if m.IsAdmin || m.Disabled() {
		t.Fatalf("refused calls changed the account: %+v", m)
	}
}

func TestAdminAccounts(t *testing.T) {
	f := newAdminFixture(t)
	ctx := context.Background()
	ad := f.app.Admin

	t.Run("CreateShowsPasswordOnce", func(t *testing.T) {
		a, pw, err := ad.CreateAccount(ctx, f.admin, app.NewAccount{Username: " lan ", Memberships: []governance.Membership{
			{ProjectID: f.project.ID, Role: governance.ProjectMember, SubjectID: "family-lan"}}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Username != "lan" || len(pw) < 16 {
			t.Fatalf("account %q, password %q", a.Username, pw)
		}
		got, err := f.st.FindAccountByUsername(ctx, "lan")
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := auth.VerifyPassword(got.PasswordHash, pw); !ok {
			t.Fatal("the returned password does not sign in")
		}
		if strings.Contains(got.PasswordHash, pw) {
			t.Fatal("the password is stored in clear")
		}
		if m, ok := got.MembershipFor(f.project.ID); !ok || m.SubjectID != "family-lan" {
			t.Fatalf("membership = %+v", got.Memberships)
		}
		entries, _, err := f.st.FindAudit(ctx, governance.AuditFilter{Action: "account.create", ObjectID: "lan"})
		if err != nil || len(entries) != 1 || entries[0].Actor != "root" {
			t.Fatalf("audit = %v, %v", entries, err)
		}
		if strings.Contains(entries[0].Details, pw) {
			t.Fatal("the audit row holds the password")
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		for _, in := range []app.NewAccount{
			{Username: ""},
			{Username: "two words"},
			{Username: strings.Repeat("x", 65)},
			{Username: "ok", Memberships: []governance.Membership{{ProjectID: f.project.ID, Role: governance.ProjectMember}}},
			{Username: "ok", Memberships: []governance.Membership{{ProjectID: f.project.ID, Role: "owner"}}},
		} {
			if _, _, err := ad.CreateAccount(ctx, f.admin, in); governance.ErrorCode(err) != governance.EINVALID {
				t.Errorf("%+v: error = %v, want EINVALID", in, err)
			}
		}
		if _, _, err := ad.CreateAccount(ctx, f.admin, app.NewAccount{Username: "RITA"}); governance.ErrorCode(err) != governance.ECONFLICT {
			t.Errorf("duplicate username: error = %v, want ECONFLICT", err)
		}
		if _, err := f.st.FindAccountByUsername(ctx, "ok"); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Error("a rejected account was created")
		}
	})
	t.Run("ResetPasswordEndsSessions", func(t *testing.T) {
		before, _ := f.st.FindAccountByID(ctx, f.member.Account.ID)
		_, pw, err := ad.ResetPassword(ctx, f.admin, before.ID)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := f.st.FindAccountByID(ctx, before.ID)
		if ok, _ := auth.VerifyPassword(after.PasswordHash, pw); !ok {
			t.Fatal("the new password does not sign in")
		}
		if after.SessionGen == before.SessionGen {
			t.Fatal("sessions did not end")
		}
	})
	t.Run("DisableEndsSessionsAndThePolicyRefuses", func(t *testing.T) {
		before, _ := f.st.FindAccountByID(ctx, f.reviewer.Account.ID)
		if _, err := ad.SetDisabled(ctx, f.admin, before.ID, true); err != nil {
			t.Fatal(err)
		}
		after, _ := f.st.FindAccountByID(ctx, before.ID)
		if !after.Disabled() || after.SessionGen == before.SessionGen {
			t.Fatalf("disabled = %v, session generation %d → %d", after.Disabled(), before.SessionGen, after.SessionGen)
		}
		wantAdminCode(t, governance.Can(governance.AccountActor(after), governance.ActSee, governance.InProject(f.project)), governance.EUNAUTHORIZED)
		if _, err := ad.SetDisabled(ctx, f.admin, before.ID, false); err != nil {
			t.Fatal(err)
		}
		if again, _ := f.st.FindAccountByID(ctx, before.ID); again.Disabled() {
			t.Fatal("enable did not enable")
		}
		for _, action := range []string{"account.disable", "account.enable"} {
			if entries, _, _ := f.st.FindAudit(ctx, governance.AuditFilter{Action: action, ObjectID: "rita"}); len(entries) != 1 {
				t.Errorf("%s audited %d times", action, len(entries))
			}
		}
	})
	t.Run("LastAdmin", func(t *testing.T) {
		root := f.admin.Account.ID
		_, err := ad.SetAdmin(ctx, f.admin, root, false)
		wantAdminCode(t, err, governance.ECONFLICT)
		if !strings.Contains(governance.ErrorMessage(err), "last administrator") {
			t.Fatalf("message = %q", governance.ErrorMessage(err))
		}
		_, err = ad.SetDisabled(ctx, f.admin, root, true)
		wantAdminCode(t, err, governance.ECONFLICT) // nobody disables themselves
		// A second admin, disabled, does not count: root is still the last.
		second, _, err := ad.CreateAccount(ctx, f.admin, app.NewAccount{Username: "root2", Admin: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ad.SetDisabled(ctx, f.admin, second.ID, true); err != nil {
			t.Fatal(err)
		}
		_, err = ad.SetAdmin(ctx, f.admin, root, false)
		wantAdminCode(t, err, governance.ECONFLICT)
		// Enabled, root2 lets root step down; then root2 is the last one.
		if _, err := ad.SetDisabled(ctx, f.admin, second.ID, false); err != nil {
			t.Fatal(err)
		}
		if _, err := ad.SetAdmin(ctx, f.admin, root, false); err != nil {
			t.Fatal(err)
		}
		r2, _ := f.st.FindAccountByID(ctx, second.ID)
		_, err = ad.SetAdmin(ctx, governance.AccountActor(r2), second.ID, false)
		wantAdminCode(t, err, governance.ECONFLICT)
		if got, _ := f.st.FindAccountByID(ctx, second.ID); !got.IsAdmin {
			t.Fatal("the last administrator was demoted")
		}
	})
	t.Run("Memberships", func(t *testing.T) {
		id := f.member.Account.ID
		if _, _, err := ad.SetMembership(ctx, f.admin, id, governance.Membership{ProjectID: f.project.ID, Role: governance.ProjectReviewer, SubjectID: "ignored"}); err != nil {
			t.Fatal(err)
		}
		a, _ := f.st.FindAccountByID(ctx, id)
		if !a.CanReview(f.project.ID) {
			t.Fatalf("memberships = %+v", a.Memberships)
		}
		if _, err := ad.RemoveMembership(ctx, f.admin, id, f.project.ID); err != nil {
			t.Fatal(err)
		}
		a, _ = f.st.FindAccountByID(ctx, id)
		if len(a.Memberships) != 0 {
			t.Fatalf("memberships = %+v", a.Memberships)
		}
		_, err := ad.RemoveMembership(ctx, f.admin, id, f.project.ID)
		wantAdminCode(t, err, governance.ENOTFOUND)
		_, _, err = ad.SetMembership(ctx, f.admin, id, governance.Membership{ProjectID: 999999, Role: governance.ProjectReviewer})
		wantAdminCode(t, err, governance.ENOTFOUND)
		for _, action := range []string{"membership.set", "membership.remove"} {
			if entries, _, _ := f.st.FindAudit(ctx, governance.AuditFilter{Action: action, ObjectID: "mia"}); len(entries) != 1 {
				t.Errorf("%s audited %d times", action, len(entries))
			}
		}
	})
}

func TestAdminProjects(t *testing.T) {
	f := newAdminFixture(t)
	ctx := context.Background()
	ad := f.app.Admin
	scratch := &governance.Project{Slug: "eval-run-1-x", Name: "scratch", Scratch: true}
	if err := f.st.CreateProject(ctx, scratch); err != nil {
		t.Fatal(err)
	}

	t.Run("ScratchProjectsAreNotOffered", func(t *testing.T) {
		stats, err := ad.Projects(ctx, f.admin)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range stats {
			if st.Project.Scratch {
				t.Fatalf("scratch project %s listed", st.Project.Slug)
			}
		}
		choices, _ := ad.ProjectChoices(ctx, f.admin)
		if len(choices) != 1 || choices[0].Slug != "travel-agent" {
			t.Fatalf("choices = %v", choices)
		}
		// The import, token, source and forget forms offer the same.
		all, err := f.app.Projects.All(ctx, f.admin)
		if err != nil || len(all) != 1 || all[0].Slug != "travel-agent" {
			t.Fatalf("Projects.All = %v, %v", all, err)
		}
		_, err = ad.PreviewDeleteProject(ctx, f.admin, scratch.ID)
		wantAdminCode(t, err, governance.ENOTFOUND)
		_, _, err = ad.SetMembership(ctx, f.admin, f.member.Account.ID, governance.Membership{ProjectID: scratch.ID, Role: governance.ProjectReviewer})
		wantAdminCode(t, err, governance.ENOTFOUND)
	})
	t.Run("CreateAndUpdate", func(t *testing.T) {
		for _, slug := range []string{"", "Has Caps", "-lead", strings.Repeat("a", 65)} {
			_, err := ad.CreateProject(ctx, f.admin, app.NewProject{Slug: slug, Name: "x"})
			wantAdminCode(t, err, governance.EINVALID)
		}
		_, err := ad.CreateProject(ctx, f.admin, app.NewProject{Slug: "ok-slug", Name: " "})
		wantAdminCode(t, err, governance.EINVALID)
		_, err = ad.CreateProject(ctx, f.admin, app.NewProject{Slug: "travel-agent", Name: "Again"})
		wantAdminCode(t, err, governance.ECONFLICT)
		p, err := ad.CreateProject(ctx, f.admin, app.NewProject{Slug: "support-bot", Name: "客服助手", Description: "售后"})
		if err != nil {
			t.Fatal(err)
		}
		name, on := "Support bot", true
		got, err := ad.UpdateProject(ctx, f.admin, p.ID, governance.ProjectUpdate{Name: &name, AutoActivate: &on})
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "Support bot" || !got.AutoActivate || got.Slug != "support-bot" || got.Description != "售后" {
			t.Fatalf("project = %+v", got)
		}
		empty := ""
		_, err = ad.UpdateProject(ctx, f.admin, p.ID, governance.ProjectUpdate{Name: &empty})
		wantAdminCode(t, err, governance.EINVALID)
		for _, action := range []string{"project.create", "project.rename", "project.policy"} {
			if entries, _, _ := f.st.FindAudit(ctx, governance.AuditFilter{Action: action}); len(entries) != 1 {
				t.Errorf("%s audited %d times", action, len(entries))
			}
		}
	})
}

// TestAdminDeleteProject: the preview counts exactly what goes; the
// deletion needs the slug typed, leaves no row of the project, no hit in
// the full-text index and no copy of its text in the database file, and
// the audit chain still verifies.
func TestAdminDeleteProject(t *testing.T) {
	f := newAdminFixture(t)
	ctx := context.Background()
	ad := f.app.Admin
	other := &governance.Project{Slug: "expense-agent", Name: "Expense"}
	if err := f.st.CreateProject(ctx, other); err != nil {
		t.Fatal(err)
	}
	const (
		eventText = "Zebraquokka 斑马袋鼠 must never leave a trace"
		ruleText  = "Always book Zebraquokka hotels 斑马袋鼠酒店"
		reason    = "approved because Zebraquokka said so"
		keep      = "Expense reports need receipts"
	)
	at := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	if _, err := f.st.IngestEvents(ctx, f.project.ID, []*governance.Event{
		{ID: "e1", SessionID: "s1", SubjectID: "family-li", Turn: 1, Role: governance.RoleUser, Text: eventText, OccurredAt: at},
		{ID: "e2", SessionID: "s1", SubjectID: "family-li", Turn: 2, Role: governance.RoleAssistant, Text: "noted", OccurredAt: at},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.IngestEvents(ctx, other.ID, []*governance.Event{
		{ID: "x1", SessionID: "s9", SubjectID: "emp-7", Turn: 1, Role: governance.RoleUser, Text: keep, OccurredAt: at},
	}); err != nil {
		t.Fatal(err)
	}
	now := at.Format(time.RFC3339)
	db := f.st.DB()
	res, err := db.ExecContext(ctx, `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, trust, created_at, updated_at)
		VALUES (?, 'family-li', 'user_preference', ?, 'explicit_user_instruction', 'active', 0.8, ?, ?)`, f.project.ID, ruleText, now, now)
	if err != nil {
		t.Fatal(err)
	}
	ruleID, _ := res.LastInsertId()
	if _, err := db.ExecContext(ctx, `
		INSERT INTO candidates (project_id, session_id, subject_id, type, statement, extractor, status, rule_id, created_at, updated_at)
		VALUES (?, 's1', 'family-li', 'user_preference', ?, 'test', 'promoted', ?, ?, ?)`, f.project.ID, ruleText, ruleID, now, now); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `
		INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at)
		VALUES (?, 's1', 'family-li', 'The family asked for Zebraquokka hotels.', 1, 2, 2, 'test', ?, ?)`, f.project.ID, now, now); err != nil {
		t.Fatal(err)
	}
	if err := f.st.AppendAudit(ctx, &governance.AuditEntry{Actor: "rita", Action: "rule.approve", ObjectType: "rule",
		ObjectID: "1", ProjectID: f.project.ID, Reason: reason}); err != nil {
		t.Fatal(err)
	}
	if err := f.st.CreateToken(ctx, &governance.APIToken{ProjectID: f.project.ID, Name: "bot", CreatedBy: "root",
		Scopes: []governance.TokenScope{governance.ScopeRecall}}, auth.HashToken("secret-zebra")); err != nil {
		t.Fatal(err)
	}

	wordHits := func(q string) int {
		t.Helper()
		var toks []string
		// The index holds the project's terms as <project id>_<term>.
		tokenizer.PhraseTokens(q, func(tok string, _ int) { toks = append(toks, fmt.Sprintf("%d_%s", f.project.ID, tok)) })
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM events_words WHERE events_words MATCH ?`,
			`terms: "`+strings.Join(toks, " ")+`"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, q := range []string{"Zebraquokka", "斑马袋鼠"} {
		if n := wordHits(q); n != 1 {
			t.Fatalf("before the deletion the word index matches %q %d times, want 1", q, n)
		}
	}

	d, err := ad.PreviewDeleteProject(ctx, f.admin, f.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := governance.ProjectDeletion{Events: 2, Sessions: 1, Episodes: 1, Candidates: 1, Rules: 1, Tokens: 1, Memberships: 2, AuditReasons: 1}
	if d.Events != want.Events || d.Sessions != want.Sessions || d.Episodes != want.Episodes || d.Candidates != want.Candidates || d.Rules != want.Rules ||
		d.Tokens != want.Tokens || d.Memberships != want.Memberships || d.AuditReasons != want.AuditReasons {
		t.Fatalf("preview = %+v, want %+v", *d, want)
	}

	_, err = ad.DeleteProject(ctx, f.admin, f.project.ID, "travel")
	wantAdminCode(t, err, governance.EINVALID)
	if _, err := f.st.FindProjectByID(ctx, f.project.ID); err != nil {
		t.Fatal("a deletion without the typed slug deleted the project")
	}

	done, err := ad.DeleteProject(ctx, f.admin, f.project.ID, " travel-agent ")
	if err != nil {
		t.Fatal(err)
	}
	if done.Events != 2 || done.Rules != 1 || !strings.HasPrefix(done.ContentHash, "sha256:") {
		t.Fatalf("deletion = %+v", *done)
	}

	t.Run("NoRowLeft", func(t *testing.T) {
		for _, table := range []string{"events", "sessions", "episodes", "candidates", "rules", "suppressions", "recall_traces",
			"api_tokens", "memberships", "sources", "checkpoints"} {
			var n int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table+` WHERE project_id = ?`, f.project.ID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%s still holds %d rows of the project", table, n)
			}
		}
		if _, err := f.st.FindProjectByID(ctx, f.project.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Errorf("project still found: %v", err)
		}
	})
	t.Run("NoFullTextHit", func(t *testing.T) {
		for _, q := range []string{"Zebraquokka", "斑马袋鼠"} {
			hits, _, err := f.st.SearchEvents(ctx, governance.EventFilter{Query: q, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 0 {
				t.Errorf("search %q finds %d events", q, len(hits))
			}
			if n := wordHits(q); n != 0 {
				t.Errorf("the word index still matches %q (%d rows)", q, n)
			}
		}
		hits, _, err := f.st.SearchEvents(ctx, governance.EventFilter{Query: "receipts", Limit: 10})
		if err != nil || len(hits) != 1 {
			t.Fatalf("the other project's event: %d hits, %v", len(hits), err)
		}
	})
	t.Run("NoCopyInTheFile", func(t *testing.T) {
		if err := f.st.Checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f.st.Path())
		if err != nil {
			t.Fatal(err)
		}
		if wal, err := os.ReadFile(f.st.Path() + "-wal"); err == nil {
			b = append(b, wal...)
		}
		for _, text := range []string{"Zebraquokka", "斑马袋鼠", reason} {
			if bytes.Contains(b, []byte(text)) {
				t.Errorf("the database file still holds %q", text)
			}
		}
		if !bytes.Contains(b, []byte(keep)) {
			t.Error("the other project's event is gone from the file")
		}
	})
	t.Run("Audited", func(t *testing.T) {
		entries, _, err := f.st.FindAudit(ctx, governance.AuditFilter{Action: "project.delete", HideEval: true})
		if err != nil || len(entries) != 1 {
			t.Fatalf("audit = %v, %v", entries, err)
		}
		if !strings.Contains(entries[0].Details, `"travel-agent"`) || strings.Contains(entries[0].Details, "Zebra") {
			t.Errorf("details = %s", entries[0].Details)
		}
		v, err := f.st.VerifyAudit(ctx)
		if err != nil || !v.OK {
			t.Fatalf("audit chain: %+v, %v", v, err)
		}
	})
	t.Run("IDsNotReused", func(t *testing.T) {
		p, err := ad.CreateProject(ctx, f.admin, app.NewProject{Slug: "travel-agent", Name: "Travel again"})
		if err != nil {
			t.Fatal(err)
		}
		if p.ID <= other.ID {
			t.Fatalf("new project id %d reuses an old one", p.ID)
		}
	})
}

// TestAdminDeleteLargeProject: a project large enough for the forget's bulk
// path (the full-text indexes rewritten once) leaves no copy either.
func TestAdminDeleteLargeProject(t *testing.T) {
	f := newAdminFixture(t)
	ctx := context.Background()
	at := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	var events []*governance.Event
	for i := 0; i < 1200; i++ {
		events = append(events, &governance.Event{ID: "e" + strconv.Itoa(i), SessionID: "s" + strconv.Itoa(i/40), SubjectID: "family-li",
			Turn: i%40 + 1, Role: governance.RoleUser, Text: "Okapimarmot 獾狸 line " + strconv.Itoa(i), OccurredAt: at})
	}
	if _, err := f.st.IngestEvents(ctx, f.project.ID, events); err != nil {
		t.Fatal(err)
	}
	d, err := f.app.Admin.DeleteProject(ctx, f.admin, f.project.ID, f.project.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if d.Events != 1200 || d.Sessions != 30 {
		t.Fatalf("deletion = %+v", *d)
	}
	if hits, _, err := f.st.SearchEvents(ctx, governance.EventFilter{Query: "Okapimarmot", Limit: 5}); err != nil || len(hits) != 0 {
		t.Fatalf("search finds %d events (%v)", len(hits), err)
	}
	if err := f.st.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f.st.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Okapimarmot", "獾狸"} {
		if bytes.Contains(b, []byte(text)) {
			t.Errorf("the database file still holds %q", text)
		}
	}
}

// TestAdminLastAdminConcurrent: two administrators demoting each other at
// the same moment cannot both succeed; the check and the change share one
// write transaction.
func TestAdminLastAdminConcurrent(t *testing.T) {
	f := newAdminFixture(t)
	ctx := context.Background()
	second, _, err := f.app.Admin.CreateAccount(ctx, f.admin, app.NewAccount{Username: "root2", Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := f.st.FindAccountByID(ctx, second.ID)
	errs := make(chan error, 2)
	go func() { _, err := f.app.Admin.SetAdmin(ctx, f.admin, second.ID, false); errs <- err }()
	go func() {
		_, err := f.app.Admin.SetAdmin(ctx, governance.AccountActor(r2), f.admin.Account.ID, false)
		errs <- err
	}()
	var refused int
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			wantAdminCode(t, err, governance.ECONFLICT)
			refused++
		}
	}
	if refused != 1 {
		t.Fatalf("%d of 2 demotions refused, want 1", refused)
	}
	accounts, _ := f.st.FindAccounts(ctx)
	admins := 0
	for _, a := range accounts {
		if a.IsAdmin {
			admins++
		}
	}
	if admins != 1 {
		t.Fatalf("%d administrators left, want 1", admins)
	}
}
