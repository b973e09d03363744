package postgres_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/store/storetest"
)

// dollars numbers a statement's "?" placeholders as PostgreSQL's $n.
func dollars(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestRankTriggers(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	ctx := context.Background()
	storetest.TestRankTriggers(t, s, storetest.SQL{
		Exec: func(t *testing.T, q string, args ...any) {
			t.Helper()
			if _, err := s.Pool().Exec(ctx, dollars(q), args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		},
		Scalar: func(t *testing.T, q string, args ...any) int64 {
			t.Helper()
			var n int64
			if err := s.Pool().QueryRow(ctx, dollars(q), args...).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return n
		},
	})
}
