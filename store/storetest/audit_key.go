package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// KeyedStore is a store whose audit chain can be keyed.
type KeyedStore interface {
	Store
	SetAuditKey(ctx context.Context, actor string, key []byte) (bool, int, error)
	VerifyAuditHead(ctx context.Context, expect *governance.AuditHead) (*governance.AuditVerification, error)
	AuditHead(ctx context.Context) (governance.AuditHead, error)
}

// Tamper runs SQL on a store's database as someone with the file or the
// database's credentials would (the append-only guards dropped first).
type Tamper func(tb testing.TB, query string, args ...any)

// TestAuditKeyedChain: a chain written without a key is keyed from an
// epoch row on and keeps verifying; another key is refused; and with the
// head kept from before, verify detects a cut tail, and without it a
// keyed row edited with its chain recomputed without the key (SHA-256) or
// a reason text replaced apart from its row.
func TestAuditKeyedChain(t *testing.T, s KeyedStore, tamper Tamper) {
	ctx := context.Background()
	p := MustCreateProject(t, s, "audit")
	appendRows := func(actor string) {
		t.Helper()
		for _, e := range []*governance.AuditEntry{
			{Actor: actor, Action: "rule.approve", ObjectType: "rule", ObjectID: "1", ProjectID: p.ID},
			{Actor: actor, Action: "rule.reject", ObjectType: "rule", ObjectID: "2", ProjectID: p.ID, Reason: "not durable"},
		} {
			if err := s.AppendAudit(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendRows("before")
	// A row naming a subject in plain text, as rows were written before
	// keyed references: the subject's forget re-chains across the epoch.
	if err := s.AppendAudit(ctx, &governance.AuditEntry{Actor: "admin", Action: "membership.set", ObjectType: "account",
		ObjectID: "chen", ProjectID: p.ID, Details: `{"role":"member","subject":"u1"}`}); err != nil {
		t.Fatal(err)
	}
	before, err := s.AuditHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	keyedNow, n, err := s.SetAuditKey(ctx, "system", key)
	if err != nil || !keyedNow || n != before.Rows {
		t.Fatalf("keying = %v, %d, %v; want keyed after %d rows", keyedNow, n, err, before.Rows)
	}
	if again, _, err := s.SetAuditKey(ctx, "system", key); err != nil || again {
		t.Fatalf("keying again = %v, %v; want nothing to do", again, err)
	}
	if _, _, err := s.SetAuditKey(ctx, "system", []byte("another key, 32 bytes long......")); governance.ErrorCode(err) != governance.EINVALID {
		t.Fatalf("another key: %v, want EINVALID", err)
	}
	appendRows("after")
	v, err := s.VerifyAudit(ctx)
	if err != nil || !v.OK || v.KeyedFrom == 0 || v.Rows != before.Rows+3 {
		t.Fatalf("verify of the keyed chain = %+v, %v", v, err)
	}
	if _, err := s.ForgetSubject(ctx, "admin", p.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	v, err = s.VerifyAudit(ctx)
	if err != nil || !v.OK {
		t.Fatalf("verify after a re-chain across the key epoch = %+v, %v", v, err)
	}
	all, _, _ := s.FindAudit(ctx, governance.AuditFilter{})
	for _, e := range all {
		if strings.Contains(e.Details, `"u1"`) {
			t.Fatalf("row %d still names the subject: %s", e.ID, e.Details)
		}
	}
	head, err := s.AuditHead(ctx)
	if err != nil || head != v.Head {
		t.Fatalf("head = %v, %v; verify's %v", head, err, v.Head)
	}

	// A reason text changed apart from its row.
	tamper(t, `UPDATE audit_reasons SET reason = 'durable after all' WHERE audit_id = (SELECT max(audit_id) FROM audit_reasons WHERE reason = 'not durable')`)
	if v, _ := s.VerifyAudit(ctx); v.OK || !strings.Contains(v.Problem.String(), "reason text") {
		t.Errorf("an edited reason text verifies: %+v", v)
	}
	tamper(t, `UPDATE audit_reasons SET reason = 'not durable' WHERE reason = 'durable after all'`)

	// The tail cut: only the head kept outside tells.
	tamper(t, `DELETE FROM audit_reasons WHERE audit_id = (SELECT max(id) FROM audit)`)
	tamper(t, `DELETE FROM audit WHERE id = (SELECT max(id) FROM audit)`)
	if v, _ := s.VerifyAudit(ctx); !v.OK {
		t.Fatalf("a chain cut at a row boundary no longer verifies on its own: %+v", v)
	}
	if v, _ := s.VerifyAuditHead(ctx, &head); v.OK || !strings.Contains(v.Problem.String(), "removed from its end") {
		t.Errorf("a cut tail verifies against the head kept before: %+v", v)
	}

	// A keyed row edited and the chain recomputed without the key.
	rows, _, err := s.FindAudit(ctx, governance.AuditFilter{Actor: "after"})
	if err != nil || len(rows) == 0 {
		t.Fatalf("rows after the key = %v, %v", rows, err)
	}
	e := rows[len(rows)-1] // the first of them
	e.Actor = "mallory"
	e.Hash = governance.AuditHash(e, "")
	tamper(t, `UPDATE audit SET actor = 'mallory', hash = $1 WHERE id = $2`, e.Hash, e.ID)
	if v, _ := s.VerifyAudit(ctx); v.OK || v.BadID != e.ID || !strings.Contains(v.Problem.String(), "keyed hash") {
		t.Errorf("a keyed row re-hashed without the key verifies: %+v", v)
	}
}
