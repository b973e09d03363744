package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestSystem: the database answers and the store's clock is the time.
func TestSystem(t *testing.T, open Opener) {
	s := open(t)
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("ping: %v", err)
	}
	if d := time.Since(s.CurrentTime()); d < -time.Minute || d > time.Minute {
		t.Fatalf("CurrentTime is %v off", d)
	}
}

// TestProjects: creation as the CLI does it, lookups, order, and the
// errors of a bad or duplicate project.
func TestProjects(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	travel := &governance.Project{Slug: "travel-agent", Name: "Travel agent", Description: "family trips", AutoActivate: true}
	if err := s.CreateProject(ctx, travel); err != nil {
		t.Fatal(err)
	}
	if travel.ID == 0 || travel.CreatedAt.IsZero() {
		t.Fatalf("created project = %+v; want its id and time", travel)
	}
	expense := MustCreateProject(t, s, "expense-agent")
	coding := MustCreateProject(t, s, "coding-assistant")

	t.Run("FindBySlug", func(t *testing.T) {
		got, err := s.FindProjectBySlug(ctx, "travel-agent")
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != travel.ID || got.Name != "Travel agent" || got.Description != "family trips" || !got.AutoActivate || got.Scratch ||
			!got.CreatedAt.Equal(travel.CreatedAt) {
			t.Fatalf("got %+v, want %+v", got, travel)
		}
	})
	t.Run("FindByID", func(t *testing.T) {
		got, err := s.FindProjectByID(ctx, expense.ID)
		if err != nil || got.Slug != "expense-agent" {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := s.FindProjectBySlug(ctx, "nope"); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("by slug: err = %v, want ENOTFOUND", err)
		}
		if _, err := s.FindProjectByID(ctx, coding.ID+100); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("by id: err = %v, want ENOTFOUND", err)
		}
	})
	t.Run("OrderBySlug", func(t *testing.T) {
		all, err := s.FindProjects(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var slugs []string
		for _, p := range all {
			slugs = append(slugs, p.Slug)
		}
		if got, want := strings.Join(slugs, " "), "coding-assistant expense-agent travel-agent"; got != want {
			t.Fatalf("projects = %s, want %s", got, want)
		}
	})
	t.Run("ErrConflict", func(t *testing.T) {
		err := s.CreateProject(ctx, &governance.Project{Slug: "travel-agent", Name: "again"})
		if governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("err = %v, want ECONFLICT", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, p := range []*governance.Project{
			{Slug: "Bad Slug", Name: "x"},
			{Slug: "no-name"},
		} {
			if err := s.CreateProject(ctx, p); governance.ErrorCode(err) != governance.EINVALID {
				t.Errorf("%+v: err = %v, want EINVALID", p, err)
			}
		}
		if all, _ := s.FindProjects(ctx); len(all) != 3 {
			t.Fatalf("projects = %d after rejected creations, want 3", len(all))
		}
	})
	t.Run("IDsNotReused", func(t *testing.T) {
		p := MustCreateProject(t, s, "later")
		if p.ID <= coding.ID {
			t.Fatalf("new id %d, want above %d", p.ID, coding.ID)
		}
	})
}

// TestProjectPolicy: a person switching a project's policy is audited;
// the plumbing's switch is not; an unknown project is ENOTFOUND.
func TestProjectPolicy(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "travel")
	if err := s.SetProjectAutoActivate(ctx, "admin", p.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.FindProjectByID(ctx, p.ID); !got.AutoActivate {
		t.Fatal("policy not changed")
	}
	rows, _, _ := s.FindAudit(ctx, governance.AuditFilter{Action: "project.policy", Limit: 1})
	if len(rows) != 1 || rows[0].Actor != "admin" || rows[0].ProjectID != p.ID || !strings.Contains(rows[0].Details, "auto_activate") {
		t.Fatalf("audit = %+v", rows)
	}
	if err := s.SetProjectAutoActivate(ctx, "admin", p.ID+100, true); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("unknown project: err = %v, want ENOTFOUND", err)
	}
	if err := s.SetProjectPolicy(ctx, p.ID, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.FindProjectByID(ctx, p.ID); got.AutoActivate {
		t.Fatal("policy not changed back")
	}
	if _, total, _ := s.FindAudit(ctx, governance.AuditFilter{}); total != 1 {
		t.Fatalf("audit rows = %d, want 1", total)
	}
	// A single trusted user is part of the policy, audited and kept.
	if err := s.SetProjectSingleUser(ctx, "admin", p.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.FindProjectByID(ctx, p.ID); !got.SingleUser || got.AutoActivate {
		t.Fatalf("single user not recorded alone: %+v", got)
	}
	rows, _, _ = s.FindAudit(ctx, governance.AuditFilter{Action: "project.policy", Limit: 1})
	if len(rows) != 1 || !strings.Contains(rows[0].Details, `"single_user":true`) {
		t.Fatalf("audit = %+v", rows)
	}
	if err := s.SetProjectSingleUser(ctx, "admin", p.ID+100, true); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("unknown project: err = %v, want ENOTFOUND", err)
	}
}

// TestAccounts: an account with its memberships, found by id or by name
// whatever its case, and the errors of a bad or duplicate account; a
// rejected membership leaves no account behind.
func TestAccounts(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	travel := MustCreateProject(t, s, "travel")
	expense := MustCreateProject(t, s, "expense")
	a := &governance.Account{Username: "  Alice ", PasswordHash: "hash-a", Memberships: []governance.Membership{
		{ProjectID: travel.ID, Role: governance.ProjectMember, SubjectID: "family-1"},
		{ProjectID: expense.ID, Role: governance.ProjectReviewer, SubjectID: "ignored"},
	}}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	if a.ID == 0 || a.Username != "Alice" {
		t.Fatalf("created = %+v", a)
	}
	admin := &governance.Account{Username: "root", PasswordHash: "hash-r", IsAdmin: true}
	if err := s.CreateAccount(ctx, admin); err != nil {
		t.Fatal(err)
	}

	t.Run("FindByUsername", func(t *testing.T) {
		for _, name := range []string{"Alice", "alice", " ALICE"} {
			got, err := s.FindAccountByUsername(ctx, name)
			if err != nil {
				t.Fatalf("%q: %v", name, err)
			}
			if got.ID != a.ID || got.PasswordHash != "hash-a" || got.IsAdmin || got.SessionGen != 0 || got.DisabledAt != nil {
				t.Fatalf("%q: got %+v", name, got)
			}
			if len(got.Memberships) != 2 {
				t.Fatalf("memberships = %+v", got.Memberships)
			}
			m := got.Memberships // by project slug
			if m[0].ProjectSlug != "expense" || m[0].Role != governance.ProjectReviewer || m[0].SubjectID != "" ||
				m[1].ProjectSlug != "travel" || m[1].Role != governance.ProjectMember || m[1].SubjectID != "family-1" {
				t.Fatalf("memberships = %+v", m)
			}
		}
	})
	t.Run("FindByID", func(t *testing.T) {
		got, err := s.FindAccountByID(ctx, admin.ID)
		if err != nil || !got.IsAdmin || got.Username != "root" || len(got.Memberships) != 0 {
			t.Fatalf("got %+v, %v", got, err)
		}
		if _, err := s.FindAccountByID(ctx, admin.ID+100); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("err = %v, want ENOTFOUND", err)
		}
		if _, err := s.FindAccountByUsername(ctx, "bob"); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("err = %v, want ENOTFOUND", err)
		}
	})
	t.Run("ErrConflict", func(t *testing.T) {
		err := s.CreateAccount(ctx, &governance.Account{Username: "ALICE", PasswordHash: "h"})
		if governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("err = %v, want ECONFLICT", err)
		}
	})
	t.Run("ErrInvalidWritesNothing", func(t *testing.T) {
		for _, bad := range []*governance.Account{
			{Username: " ", PasswordHash: "h"},
			{Username: "carol"},
			{Username: "dave", PasswordHash: "h", Memberships: []governance.Membership{{ProjectID: travel.ID, Role: governance.ProjectMember}}},
			{Username: "erin", PasswordHash: "h", Memberships: []governance.Membership{{ProjectID: travel.ID, Role: "owner"}}},
		} {
			if err := s.CreateAccount(ctx, bad); governance.ErrorCode(err) != governance.EINVALID {
				t.Errorf("%+v: err = %v, want EINVALID", bad, err)
			}
		}
		all, err := s.FindAccounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, a := range all {
			names = append(names, a.Username)
		}
		if got := strings.Join(names, " "); got != "Alice root" {
			t.Fatalf("accounts = %s, want Alice root", got)
		}
	})
}

// TestAccountChanges: a new password or signing out everywhere moves the
// session generation on; the language is kept; memberships are set,
// replaced and removed; an unknown account is ENOTFOUND.
func TestAccountChanges(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "travel")
	a := &governance.Account{Username: "alice", PasswordHash: "old"}
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	find := func() *governance.Account {
		t.Helper()
		got, err := s.FindAccountByID(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if err := s.SetPasswordHash(ctx, a.ID, "new"); err != nil {
		t.Fatal(err)
	}
	if got := find(); got.PasswordHash != "new" || got.SessionGen != 1 {
		t.Fatalf("after new password: %+v", got)
	}
	if err := s.EndSessions(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAccountLanguage(ctx, a.ID, "zh-CN"); err != nil {
		t.Fatal(err)
	}
	if got := find(); got.SessionGen != 2 || got.Language != "zh-CN" {
		t.Fatalf("after sign-out and language: %+v", got)
	}
	for _, err := range []error{
		s.SetPasswordHash(ctx, a.ID+100, "x"),
		s.SetAccountLanguage(ctx, a.ID+100, "en"),
	} {
		if governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("unknown account: err = %v, want ENOTFOUND", err)
		}
	}

	if err := s.SetMembership(ctx, governance.Membership{AccountID: a.ID, ProjectID: p.ID, Role: governance.ProjectMember, SubjectID: "family-1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMembership(ctx, governance.Membership{AccountID: a.ID, ProjectID: p.ID, Role: governance.ProjectReviewer, SubjectID: "dropped"}); err != nil {
		t.Fatal(err)
	}
	if m := find().Memberships; len(m) != 1 || m[0].Role != governance.ProjectReviewer || m[0].SubjectID != "" || m[0].ProjectSlug != "travel" {
		t.Fatalf("memberships = %+v, want reviewer of travel", m)
	}
	if err := s.SetMembership(ctx, governance.Membership{AccountID: a.ID, ProjectID: p.ID, Role: governance.ProjectMember}); governance.ErrorCode(err) != governance.EINVALID {
		t.Fatalf("member without subject: err = %v, want EINVALID", err)
	}
	if err := s.SetMembership(ctx, governance.Membership{AccountID: a.ID, ProjectID: p.ID + 100, Role: governance.ProjectReviewer}); governance.ErrorCode(err) != governance.ECONFLICT {
		t.Fatalf("unknown project: err = %v, want ECONFLICT", err)
	}
	if err := s.RemoveMembership(ctx, a.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if m := find().Memberships; len(m) != 0 {
		t.Fatalf("memberships after removal = %+v", m)
	}
}

// TestSessionKeys: the keys are made once and every caller, concurrent
// first callers included, gets the same ones.
func TestSessionKeys(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = map[string]bool{}
		errs []error
	)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, b, err := s.SessionKeys(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			if len(h) != 64 || len(b) != 32 {
				errs = append(errs, errors.New("keys of the wrong length"))
			}
			seen[string(h)+string(b)] = true
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	h, b, err := s.SessionKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || !seen[string(h)+string(b)] {
		t.Fatalf("%d different key pairs handed out, want 1", len(seen))
	}
}

// TestAudit: rows chain and verify; filters select; a reason is kept beside
// the chain.
func TestAudit(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "travel")
	for i, e := range []*governance.AuditEntry{
		{Actor: "admin", Action: "rule.approve", ObjectType: "rule", ObjectID: "1", ProjectID: p.ID},
		{Actor: "alice", Action: "rule.reject", ObjectType: "rule", ObjectID: "2", ProjectID: p.ID, Reason: "not durable"},
		{Actor: "cli", Action: "account.create", ObjectType: "account", ObjectID: "bob"},
	} {
		if err := s.AppendAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
		if e.ID == 0 || e.Hash == "" || (i == 0) != (e.PrevHash == "") || e.PolicyVersion == "" {
			t.Fatalf("appended %+v", e)
		}
	}
	v, err := s.VerifyAudit(ctx)
	if err != nil || !v.OK || v.Rows != 3 {
		t.Fatalf("verify = %+v, %v", v, err)
	}
	rows, total, err := s.FindAudit(ctx, governance.AuditFilter{ProjectIDs: []int64{p.ID}})
	if err != nil || total != 2 || len(rows) != 2 || rows[0].Action != "rule.reject" || rows[0].Reason != "not durable" {
		t.Fatalf("project rows = %+v (total %d), %v", rows, total, err)
	}
	rows, total, err = s.FindAudit(ctx, governance.AuditFilter{Actor: "cli", Limit: 1})
	if err != nil || total != 1 || rows[0].ObjectID != "bob" || rows[0].ProjectID != 0 {
		t.Fatalf("cli rows = %+v (total %d), %v", rows, total, err)
	}
	rows, total, _ = s.FindAudit(ctx, governance.AuditFilter{Limit: 1, Offset: 1})
	if total != 3 || len(rows) != 1 || rows[0].Actor != "alice" {
		t.Fatalf("page 2 = %+v (total %d)", rows, total)
	}
}
