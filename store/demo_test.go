package store_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// demo is the demo data after its first heartbeat (storetest.LoadDemo) on
// a SQLite store, for the tests about SQLite itself.
type demo struct {
	*storetest.Demo
	Store *store.Store
}

// MustLoadDemo is a copy of the demo after its first beat with the
// offline extractor (built once per test binary).
func MustLoadDemo(tb testing.TB) *demo {
	tb.Helper()
	d := storetest.LoadDemo(tb, openConformance)
	return &demo{Demo: d, Store: d.Store.(*store.Store)}
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := governance.ErrorCode(err); got != code {
		tb.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

func ptr[T any](v T) *T { return &v }
