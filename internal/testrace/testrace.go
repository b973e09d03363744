// Package testrace tells a test whether the race detector is on. A test
// that only needs volume (thousands of rows, a whole corpus) and checks no
// concurrency calls Skip: under -race it skips, and CI runs every such test
// again without the detector (.ci/run finds them by their call to Skip).
package testrace

import "testing"

// Skip skips t under the race detector, saying why.
func Skip(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skip(why + "; CI runs it without -race")
	}
}
