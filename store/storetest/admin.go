package storetest

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// auditActions lists the actions of the audit rows about objectID, oldest
// first.
func auditActions(tb testing.TB, s Store, objectID string) []string {
	tb.Helper()
	rows, _, err := s.FindAudit(context.Background(), governance.AuditFilter{})
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].ObjectID == objectID {
			out = append(out, rows[i].Action)
		}
	}
	return out
}

// TestAdminAccounts: an administrator's account changes, each with its
// audit row; a new password or disabling ends the sessions; the last
// enabled administrator can be neither demoted nor disabled, also when
// two administrators demote each other at once.
func TestAdminAccounts(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "travel")
	root := &governance.Account{Username: "root", PasswordHash: "h", IsAdmin: true}
	if err := s.CreateAccountBy(ctx, "cli", root); err != nil {
		t.Fatal(err)
	}
	ana := &governance.Account{Username: "ana", PasswordHash: "h",
		Memberships: []governance.Membership{{ProjectID: p.ID, Role: governance.ProjectReviewer}}}
	if err := s.CreateAccountBy(ctx, "root", ana); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAccountBy(ctx, "root", &governance.Account{Username: "ANA", PasswordHash: "h"}); governance.ErrorCode(err) != governance.ECONFLICT {
		t.Fatalf("duplicate username: %v, want ECONFLICT", err)
	}
	yes, no := true, false
	hash := "h2"

	t.Run("PasswordEndsSessions", func(t *testing.T) {
		before, _ := s.FindAccountByID(ctx, ana.ID)
		if err := s.UpdateAccount(ctx, "root", ana.ID, governance.AccountUpdate{PasswordHash: &hash}); err != nil {
			t.Fatal(err)
		}
		after, _ := s.FindAccountByID(ctx, ana.ID)
		if after.PasswordHash != "h2" || after.SessionGen != before.SessionGen+1 {
			t.Fatalf("after = %+v, want hash h2 and the next session generation", after)
		}
		empty := ""
		if err := s.UpdateAccount(ctx, "root", ana.ID, governance.AccountUpdate{PasswordHash: &empty}); governance.ErrorCode(err) != governance.EINVALID {
			t.Fatalf("empty password: %v, want EINVALID", err)
		}
	})
	t.Run("LastAdmin", func(t *testing.T) {
		if err := s.UpdateAccount(ctx, "root", root.ID, governance.AccountUpdate{IsAdmin: &no}); governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("demote the last administrator: %v, want ECONFLICT", err)
		}
		if err := s.UpdateAccount(ctx, "root", root.ID, governance.AccountUpdate{Disabled: &yes}); governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("disable the last administrator: %v, want ECONFLICT", err)
		}
		if err := s.UpdateAccount(ctx, "root", 9999, governance.AccountUpdate{IsAdmin: &no}); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("unknown account: %v, want ENOTFOUND", err)
		}
	})
	t.Run("DisableEnable", func(t *testing.T) {
		before, _ := s.FindAccountByID(ctx, ana.ID)
		if err := s.UpdateAccount(ctx, "root", ana.ID, governance.AccountUpdate{Disabled: &yes}); err != nil {
			t.Fatal(err)
		}
		got, _ := s.FindAccountByID(ctx, ana.ID)
		if got.DisabledAt == nil || got.SessionGen != before.SessionGen+1 {
			t.Fatalf("disabled account = %+v", got)
		}
		if err := s.UpdateAccount(ctx, "root", ana.ID, governance.AccountUpdate{Disabled: &no}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.FindAccountByID(ctx, ana.ID); got.DisabledAt != nil {
			t.Fatalf("enabled account still disabled: %+v", got)
		}
	})
	t.Run("ConcurrentDemotions", func(t *testing.T) {
		// Three administrators each demote another at once: exactly two
		// demotions go through, whatever the order.
		var admins []int64
		admins = append(admins, root.ID)
		for _, name := range []string{"root2", "root3"} {
			a := &governance.Account{Username: name, PasswordHash: "h", IsAdmin: true}
			if err := s.CreateAccountBy(ctx, "root", a); err != nil {
				t.Fatal(err)
			}
			admins = append(admins, a.ID)
		}
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			refused int
		)
		for _, id := range admins {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := s.UpdateAccount(ctx, "root", id, governance.AccountUpdate{IsAdmin: &no})
				mu.Lock()
				defer mu.Unlock()
				if governance.ErrorCode(err) == governance.ECONFLICT {
					refused++
				} else if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		accounts, _ := s.FindAccounts(ctx)
		left := 0
		for _, a := range accounts {
			if a.IsAdmin && a.DisabledAt == nil {
				left++
			}
		}
		if refused != 1 || left != 1 {
			t.Fatalf("%d of 3 demotions refused and %d administrators left; want 1 and 1", refused, left)
		}
	})
	t.Run("Audit", func(t *testing.T) {
		want := []string{"account.create", "account.passwd", "account.disable", "account.enable"}
		if got := auditActions(t, s, "ana"); !slices.Equal(got, want) {
			t.Fatalf("audit of ana = %v, want %v", got, want)
		}
		if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
			t.Fatalf("audit chain: %+v, %v", v, err)
		}
	})
}

// TestAdminMemberships: memberships set and removed by an administrator,
// with their audit rows.
func TestAdminMemberships(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "travel")
	ana := &governance.Account{Username: "ana", PasswordHash: "h"}
	if err := s.CreateAccount(ctx, ana); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMembershipBy(ctx, "root", governance.Membership{AccountID: ana.ID, ProjectID: p.ID, Role: governance.ProjectMember}); governance.ErrorCode(err) != governance.EINVALID {
		t.Fatalf("member without subject: %v, want EINVALID", err)
	}
	if err := s.SetMembershipBy(ctx, "root", governance.Membership{AccountID: 9999, ProjectID: p.ID, Role: governance.ProjectReviewer}); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("unknown account: %v, want ENOTFOUND", err)
	}
	if err := s.SetMembershipBy(ctx, "root", governance.Membership{AccountID: ana.ID, ProjectID: p.ID, Role: governance.ProjectMember, SubjectID: "family-1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMembershipBy(ctx, "root", governance.Membership{AccountID: ana.ID, ProjectID: p.ID, Role: governance.ProjectReviewer}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.FindAccountByID(ctx, ana.ID)
	if len(got.Memberships) != 1 || got.Memberships[0].Role != governance.ProjectReviewer || got.Memberships[0].SubjectID != "" {
		t.Fatalf("memberships = %+v, want one reviewer role", got.Memberships)
	}
	if err := s.RemoveMembershipBy(ctx, "root", ana.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveMembershipBy(ctx, "root", ana.ID, p.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("remove again: %v, want ENOTFOUND", err)
	}
	if got, _ := s.FindAccountByID(ctx, ana.ID); len(got.Memberships) != 0 {
		t.Fatalf("memberships after removal = %+v", got.Memberships)
	}
	want := []string{"membership.set", "membership.set", "membership.remove"}
	if got := auditActions(t, s, "ana"); !slices.Equal(got, want) {
		t.Fatalf("audit = %v, want %v", got, want)
	}
}

// TestAdminProjects: projects created and changed by an administrator,
// one audit row per kind of change and none for no change.
func TestAdminProjects(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := &governance.Project{Slug: "travel", Name: "Travel", Scratch: true}
	if err := s.CreateProjectBy(ctx, "root", p); err != nil {
		t.Fatal(err)
	}
	if p.ID == 0 || p.Scratch {
		t.Fatalf("created %+v: want an id and never a scratch project", p)
	}
	if err := s.CreateProjectBy(ctx, "root", &governance.Project{Slug: "travel", Name: "Again"}); governance.ErrorCode(err) != governance.ECONFLICT {
		t.Fatalf("taken slug: %v, want ECONFLICT", err)
	}
	if err := s.CreateProjectBy(ctx, "root", &governance.Project{Slug: "Bad Slug", Name: "x"}); governance.ErrorCode(err) != governance.EINVALID {
		t.Fatalf("bad slug: %v, want EINVALID", err)
	}
	name, desc, empty, on := "Family travel", "trips", " ", true
	if err := s.UpdateProject(ctx, "root", p.ID, governance.ProjectUpdate{Name: &empty}); governance.ErrorCode(err) != governance.EINVALID {
		t.Fatalf("blank name: %v, want EINVALID", err)
	}
	if err := s.UpdateProject(ctx, "root", p.ID, governance.ProjectUpdate{Name: &name, Description: &desc, AutoActivate: &on}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateProject(ctx, "root", p.ID, governance.ProjectUpdate{Name: &name, AutoActivate: &on}); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateProject(ctx, "root", p.ID+100, governance.ProjectUpdate{Name: &name}); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("unknown project: %v, want ENOTFOUND", err)
	}
	got, _ := s.FindProjectByID(ctx, p.ID)
	if got.Name != name || got.Description != desc || !got.AutoActivate {
		t.Fatalf("project = %+v", got)
	}
	want := []string{"project.create", "project.rename", "project.policy"}
	if got := auditActions(t, s, strconv.FormatInt(p.ID, 10)); !slices.Equal(got, want) {
		t.Fatalf("audit = %v, want %v", got, want)
	}
}
