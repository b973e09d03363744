package postgres_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestAuditKeyedChain runs storetest.TestAuditKeyedChain on PostgreSQL.
func TestAuditKeyedChain(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	for _, q := range []string{`DROP TRIGGER IF EXISTS audit_no_update ON audit`, `DROP TRIGGER IF EXISTS audit_no_delete ON audit`} {
		if _, err := s.Pool().Exec(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	storetest.TestAuditKeyedChain(t, s, func(tb testing.TB, query string, args ...any) {
		tb.Helper()
		if _, err := s.Pool().Exec(t.Context(), query, args...); err != nil {
			tb.Fatal(err)
		}
	})
}
