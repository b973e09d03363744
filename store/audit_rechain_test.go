package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestForgetRechainsLegacyAudit: audit rows written before keyed subject
// references (migration 0026) name the subject in plain text. A forget of
// the subject rewrites them, re-chains the audit from the first and
// records the epoch (audit.rechain): afterwards no row names the subject,
// the chain verifies, and the rows before the first rewritten one keep
// their hashes. A subject forgotten before 0026 is done at startup.
func TestForgetRechainsLegacyAudit(t *testing.T) {
	ctx := context.Background()
	s, p := mustSubjectSession(t, "we always pack the green umbrella")
	// Rows as the console wrote them before 0026.
	legacy := func(e governance.AuditEntry) *governance.AuditEntry {
		e.Actor, e.ProjectID = "admin", p.ID
		if err := s.AppendAudit(ctx, &e); err != nil {
			t.Fatal(err)
		}
		return &e
	}
	before := legacy(governance.AuditEntry{Action: "project.update", ObjectType: "project", ObjectID: "travel"})
	legacy(governance.AuditEntry{Action: "membership.set", ObjectType: "account", ObjectID: "chen", Details: `{"role":"member","subject":"u1"}`})
	legacy(governance.AuditEntry{Action: "subject.forget", ObjectType: "subject", ObjectID: "u7", Details: `{"events":2}`})
	legacy(governance.AuditEntry{Action: "membership.set", ObjectType: "account", ObjectID: "li", Details: `{"role":"member","subject":"u7"}`})
	legacy(governance.AuditEntry{Action: "rule.approve", ObjectType: "rule", ObjectID: "1"})

	names := func(subject string) []string {
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
	// And the account bound to the subject now (a membership names the
	// plain id): the forget ends the membership, the account stays.
	chen := &governance.Account{Username: "chen", PasswordHash: "x"}
	if err := s.CreateAccount(ctx, chen); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMembershipBy(ctx, "admin", governance.Membership{AccountID: chen.ID, ProjectID: p.ID, Role: governance.ProjectMember, SubjectID: "u1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetSubject(ctx, "admin", p.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM memberships WHERE subject_id = 'u1'`); n != 0 {
		t.Fatalf("%d memberships still name the forgotten subject", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM accounts WHERE username = 'chen'`); n != 1 {
		t.Fatal("the member's account went with the subject")
	}
	if n := count(t, s, `SELECT COUNT(*) FROM audit WHERE action = 'membership.remove' AND object_type = 'subject' AND details LIKE '%"accounts":1%'`); n != 1 {
		t.Fatalf("%d membership.remove rows; want the forget's one", n)
	}
	if got := names("u1"); len(got) != 0 {
		t.Fatalf("audit rows still naming the forgotten subject: %v", got)
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit after the re-chain = %+v, %v", v, err)
	}
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
	if _, err := s.DB().ExecContext(ctx, `UPDATE audit SET details = '{}' WHERE id = ?`, before.ID); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("an update of an audit row = %v; want it refused", err)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE audit SET actor = 'x' WHERE id = ?`, before.ID); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("an update of an audit row's actor = %v; want it refused", err)
	}
	// A subject forgotten before 0026: its forget row and membership are
	// rewritten at startup, and its key does not survive.
	if _, err := s.RepairInterrupted(ctx); err != nil {
		t.Fatal(err)
	}
	if got := names("u7"); len(got) != 0 {
		t.Fatalf("audit rows still naming the subject forgotten before 0026: %v", got)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM subject_keys`); n != 0 {
		t.Fatalf("%d subject keys left: a reference could be confirmed", n)
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit after the startup re-chain = %+v, %v", v, err)
	}
}
