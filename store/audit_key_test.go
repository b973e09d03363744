package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestAuditKeyedChain runs storetest.TestAuditKeyedChain on SQLite; a
// store opened without the key then refuses to append to the keyed chain.
func TestAuditKeyedChain(t *testing.T) {
	s := MustOpenStore(t)
	for _, trigger := range []string{"audit_no_update", "audit_no_delete", "audit_rechain_only"} {
		if _, err := s.DB().Exec(`DROP TRIGGER IF EXISTS ` + trigger); err != nil {
			t.Fatal(err)
		}
	}
	storetest.TestAuditKeyedChain(t, s, func(tb testing.TB, query string, args ...any) {
		tb.Helper()
		query = strings.NewReplacer("$1", "?1", "$2", "?2").Replace(query)
		if _, err := s.DB().Exec(query, args...); err != nil {
			tb.Fatal(err)
		}
	})
	path := s.Path()
	s.Close()
	plain, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	err = plain.AppendAudit(context.Background(), &governance.AuditEntry{Actor: "x", Action: "rule.approve", ObjectType: "rule", ObjectID: "9"})
	if err == nil || !strings.Contains(err.Error(), "keyed") {
		t.Fatalf("a store without the key appended to a keyed chain: %v", err)
	}
}
