package store_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/store/storetest"
)

func TestRankTriggers(t *testing.T) {
	s := MustOpenStore(t)
	ctx := context.Background()
	storetest.TestRankTriggers(t, s, storetest.SQL{
		Exec: func(t *testing.T, q string, args ...any) {
			t.Helper()
			if _, err := s.DB().ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		},
		Scalar: func(t *testing.T, q string, args ...any) int64 {
			t.Helper()
			var n int64
			if err := s.DB().QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return n
		},
	})
}
