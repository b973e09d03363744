package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestForgetRechainsLegacyAudit: audit rows written before keyed subject
// references (SQLite's migration 0026, PostgreSQL's 0014) name the
// subject in plain text; they are planted here as the console wrote them
// then (AppendAudit with the plain id). A forget of the subject rewrites
// them, re-chains the audit from the first and records the epoch
// (audit.rechain): afterwards no row names the subject, the chain
// verifies, and the rows before the first rewritten one keep their
// hashes; the subject's membership is removed with one membership.remove
// row. Subjects forgotten before keyed references, one of a project
// deleted since among them, are done at startup (RepairInterrupted).
func TestForgetRechainsLegacyAudit(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	p := MustCreateProject(t, s, "travel")
	gone := MustCreateProject(t, s, "gone")
	if _, err := s.IngestEvents(ctx, p.ID, Session("s1", time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC), true,
		"we always pack the green umbrella")); err != nil {
		t.Fatal(err)
	}
	legacy := func(project int64, e governance.AuditEntry) *governance.AuditEntry {
		e.Actor, e.ProjectID = "admin", project
		if err := s.AppendAudit(ctx, &e); err != nil {
			t.Fatal(err)
		}
		return &e
	}
	before := legacy(p.ID, governance.AuditEntry{Action: "project.update", ObjectType: "project", ObjectID: "travel"})
	legacy(p.ID, governance.AuditEntry{Action: "membership.set", ObjectType: "account", ObjectID: "chen", Details: `{"role":"member","subject":"u1"}`})
	legacy(p.ID, governance.AuditEntry{Action: "subject.forget", ObjectType: "subject", ObjectID: "u7", Details: `{"events":2}`})
	legacy(p.ID, governance.AuditEntry{Action: "membership.set", ObjectType: "account", ObjectID: "li", Details: `{"role":"member","subject":"u7"}`})
	legacy(gone.ID, governance.AuditEntry{Action: "subject.forget", ObjectType: "subject", ObjectID: "u9", Details: `{"events":1}`})
	legacy(p.ID, governance.AuditEntry{Action: "rule.approve", ObjectType: "rule", ObjectID: "1"})
	if _, err := s.DeleteProject(ctx, "admin", gone.ID); err != nil {
		t.Fatal(err)
	}

	names := func(subject string) []string {
		t.Helper()
		rows, _, err := s.FindAudit(ctx, governance.AuditFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			if r.ObjectID == subject || strings.Contains(r.Details, `"`+subject+`"`) {
				out = append(out, r.Action)
			}
		}
		return out
	}
	verify := func(when string) {
		t.Helper()
		if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
			t.Fatalf("audit %s = %+v, %v", when, v, err)
		}
	}
	// The account bound to the subject now (a membership names the plain
	// id): the forget ends the membership, the account stays.
	chen := &governance.Account{Username: "chen", PasswordHash: "x"}
	if err := s.CreateAccount(ctx, chen); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMembershipBy(ctx, "admin", governance.Membership{AccountID: chen.ID, ProjectID: p.ID,
		Role: governance.ProjectMember, SubjectID: "u1"}); err != nil {
		t.Fatal(err)
	}
	if got := names("u1"); len(got) != 1 {
		t.Fatalf("precondition: audit rows naming u1 = %v, want the legacy membership.set", got)
	}
	rep, err := s.ForgetSubject(ctx, "admin", p.ID, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events == 0 {
		t.Fatalf("report = %+v; want the subject's lines forgotten", rep)
	}
	if a, err := s.FindAccountByUsername(ctx, "chen"); err != nil || len(a.Memberships) != 0 {
		t.Fatalf("the member's account = %+v, %v; want it kept, without its membership", a, err)
	}
	removed, _, err := s.FindAudit(ctx, governance.AuditFilter{Action: "membership.remove", ObjectType: "subject"})
	if err != nil || len(removed) != 1 || !strings.HasPrefix(removed[0].ObjectID, "subject:") ||
		!strings.Contains(removed[0].Details, `"accounts":1`) {
		t.Fatalf("membership.remove rows = %+v, %v; want one naming the subject's reference, one account", removed, err)
	}
	if got := names("u1"); len(got) != 0 {
		t.Fatalf("audit rows still naming the forgotten subject: %v", got)
	}
	verify("after the re-chain")
	epochs, _, err := s.FindAudit(ctx, governance.AuditFilter{Action: "audit.rechain", Limit: 10})
	if err != nil || len(epochs) != 1 {
		t.Fatalf("epoch rows = %d, %v", len(epochs), err)
	}
	var d struct {
		From     int64  `json:"from"`
		Rewrote  int    `json:"rows_rewritten"`
		KeptHash string `json:"kept_hash"`
	}
	if err := json.Unmarshal([]byte(epochs[0].Details), &d); err != nil || d.From != before.ID+1 || d.Rewrote != 1 || d.KeptHash != before.Hash {
		t.Fatalf("epoch = %s (%v); want from %d, one row, kept hash %s", epochs[0].Details, err, before.ID+1, before.Hash)
	}
	// Outside a re-chain the audit stays append-only.
	for _, q := range []string{
		fmt.Sprintf(`UPDATE audit SET details = '{}' WHERE id = %d`, before.ID),
		fmt.Sprintf(`UPDATE audit SET actor = 'x' WHERE id = %d`, before.ID),
	} {
		if err := rawExec(t, s, q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Fatalf("%s = %v; want it refused", q, err)
		}
	}
	// Subjects forgotten before keyed references: their forget rows and
	// memberships are rewritten at startup, and no key of theirs survives.
	if _, err := s.RepairInterrupted(ctx); err != nil {
		t.Fatal(err)
	}
	for _, subject := range []string{"u7", "u9"} {
		if got := names(subject); len(got) != 0 {
			t.Fatalf("audit rows still naming %s, forgotten before keyed references: %v", subject, got)
		}
	}
	for _, r := range rawRows(t, s) {
		if r.table == "subject_keys" {
			t.Fatalf("a subject key is left (%s): a reference could be confirmed", r.cols["subject_id"])
		}
	}
	verify("after the startup re-chain")
	if epochs, _, err := s.FindAudit(ctx, governance.AuditFilter{Action: "audit.rechain", Limit: 10}); err != nil || len(epochs) != 3 {
		t.Fatalf("epoch rows after the startup = %d, %v; want 3", len(epochs), err)
	}
	// A second start finds nothing left to do.
	if _, err := s.RepairInterrupted(ctx); err != nil {
		t.Fatal(err)
	}
	if epochs, _, err := s.FindAudit(ctx, governance.AuditFilter{Action: "audit.rechain", Limit: 10}); err != nil || len(epochs) != 3 {
		t.Fatalf("epoch rows after a second start = %d, %v; want still 3", len(epochs), err)
	}
}
