package evalrow_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance/evalrow"
)

// TestOrphanScratch: the one decision both stores use. A server run's
// scratch is an orphan unless the run is queued or running; a CLI run's
// unless its lease is current; a slug neither kind of run makes (a live
// project that merely starts with "eval-") is never one.
func TestOrphanScratch(t *testing.T) {
	now := time.Date(2026, 12, 1, 4, 0, 0, 0, time.UTC)
	slugs := []string{
		"eval-r12-s-travel", "eval-r12-c0-case", // running
		"eval-r13-s-travel", "eval-r13-benchmark", "eval-r13-", // ended (the last is a copy record's prefix)
		"eval-cli-0000000a-s-travel",             // current lease
		"eval-cli-0000000b-s-travel",             // expired lease
		"eval-cli-0000000c-c1-case",              // no lease
		"eval-team", "eval-r-x", "eval-r012-s-a", // not made by a run
		"eval-cli-xyz-s-a", "eval-cli-0000000a", "eval-cli-0000000g-s-a",
	}
	leases := map[string]time.Time{
		"eval-cli-0000000a-": now.Add(time.Second),
		"eval-cli-0000000b-": now,
	}
	got := evalrow.OrphanScratch(slugs, map[int64]bool{12: true}, leases, now)
	want := []string{"eval-cli-0000000b-", "eval-cli-0000000c-", "eval-r13-"}
	if !slices.Equal(got, want) {
		t.Fatalf("orphans = %q, want %q", got, want)
	}
	for slug, want := range map[string]struct {
		prefix string
		run    int64
	}{
		"eval-r7-s-a":          {"eval-r7-", 7},
		"eval-cli-deadbeef-c2": {"eval-cli-deadbeef-", 0},
	} {
		prefix, run, ok := evalrow.ScratchOwner(slug)
		if !ok || prefix != want.prefix || run != want.run {
			t.Errorf("ScratchOwner(%q) = %q, %d, %v", slug, prefix, run, ok)
		}
	}
}
