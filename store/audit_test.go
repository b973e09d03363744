package store_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// A reason given in the audit log may quote the memory (a reject reason
// repeating its words). Forgetting the rule blanks the reason everywhere,
// the database file included, and the chain still verifies.
func TestForgetBlanksAuditReasons(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	const secret = "QuokkaZebraMarmalade"
	now := time.Now().UTC().Format(time.RFC3339)
	res, err := s.DB().ExecContext(ctx, `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, created_at, updated_at)
		VALUES (?, 'u1', 'user_preference', ?, 'explicit_user_instruction', 'proposed', ?, ?)`, p.ID, "Always pack "+secret, now, now)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	if _, err := s.RejectRule(ctx, "account:rita", id, "We do not keep \"Always pack "+secret+"\"."); err != nil {
		t.Fatal(err)
	}
	entries, _, err := s.FindAudit(ctx, governance.AuditFilter{ObjectType: "rule", ObjectID: fmt.Sprint(id)})
	if err != nil || len(entries) == 0 || !strings.Contains(entries[0].Reason, secret) {
		t.Fatalf("audit before the forget = %+v, %v; want the reason shown", entries, err)
	}
	if _, err := s.ForgetRule(ctx, "account:rita", id, false); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(fileBytes(t, s), []byte(secret)) {
		t.Fatal("the forgotten text is still in the database file")
	}
	entries, _, _ = s.FindAudit(ctx, governance.AuditFilter{ObjectType: "rule", ObjectID: fmt.Sprint(id)})
	for _, e := range entries {
		if strings.Contains(e.Reason, secret) {
			t.Fatalf("audit reason still quotes the memory: %q", e.Reason)
		}
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("chain after the forget = %+v, %v", v, err)
	}
	// The reason column is still covered by the chain: changing it is caught.
	if _, err := s.DB().ExecContext(ctx, `DROP TRIGGER audit_no_update`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE audit SET reason = 'edited' WHERE action = 'rule.reject'`); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.VerifyAudit(ctx); v.OK {
		t.Fatal("an edited reason column verifies")
	}
}
