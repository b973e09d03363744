package evals_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
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
	got := evals.OrphanScratch(slugs, map[int64]bool{12: true}, leases, now)
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
		prefix, run, ok := evals.ScratchOwner(slug)
		if !ok || prefix != want.prefix || run != want.run {
			t.Errorf("ScratchOwner(%q) = %q, %d, %v", slug, prefix, run, ok)
		}
	}
}

const leaseSuite = `
name: lease
project: travel
fixtures:
  sessions:
    - events: [{text: "nap: always keep 14:00-16:00 free"}]
cases:
  - {id: one, kind: recall, task: plan the nap, include: ["14:00"]}
  - {id: two, kind: recall, task: plan the nap, include: ["14:00"]}
`

// TestRunSuiteScratchOwnership: a CLI run first removes the scratch
// projects of killed CLI runs (no lease, or an expired one) and keeps
// those of a run whose lease is current; it holds its own lease while it
// runs and drops it, with its projects, at the end.
func TestRunSuiteScratchOwnership(t *testing.T) {
	ctx := context.Background()
	mem := newFakeMemory()
	for _, slug := range []string{"eval-cli-0000000a-s-travel", "eval-cli-0000000b-s-travel", "eval-cli-0000000c-s-travel"} {
		if _, err := mem.CreateScratchProject(ctx, slug, slug, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := mem.ClaimScratch(ctx, "eval-cli-0000000a-", "another process", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := mem.ClaimScratch(ctx, "eval-cli-0000000b-", "a killed process", time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	mem.recallDelay = 50 * time.Millisecond
	seen := make(chan []string, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		mem.mu.Lock()
		defer mem.mu.Unlock()
		seen <- slices.Collect(maps.Keys(mem.leases))
	}()
	rep := mustRun(t, mem, MustParseSuite(t, leaseSuite))
	during := <-seen
	wantStatus(t, rep, "one", evals.StatusPassed)
	mem.mu.Lock()
	defer mem.mu.Unlock()
	var left []string
	for _, p := range mem.projects {
		left = append(left, p.Slug)
	}
	if !slices.Equal(left, []string{"eval-cli-0000000a-s-travel"}) {
		t.Fatalf("scratch projects after the run = %q; want only the live run's", left)
	}
	if len(mem.leases) != 1 {
		t.Fatalf("leases after the run = %v; want only the live run's", mem.leases)
	}
	if !slices.ContainsFunc(during, func(p string) bool { return p != "eval-cli-0000000a-" && strings.HasPrefix(p, "eval-cli-") }) {
		t.Fatalf("leases while the run ran = %q; want its own too", during)
	}
}

// TestRunSuiteLostLease: a CLI run whose lease expired before it could
// renew it (its process was stopped; another run may have removed its
// projects as a killed run's) stops with that error instead of going on.
func TestRunSuiteLostLease(t *testing.T) {
	mem := newFakeMemory()
	mem.recallDelay = 300 * time.Millisecond
	go func() {
		// Another process found the lease expired: it is gone.
		for range 100 {
			time.Sleep(10 * time.Millisecond)
			mem.mu.Lock()
			n := len(mem.leases)
			clear(mem.leases)
			mem.mu.Unlock()
			if n > 0 {
				return
			}
		}
	}()
	_, err := evals.RunSuite(context.Background(), evals.Deps{Memory: mem, ScratchLease: 30 * time.Millisecond}, MustParseSuite(t, leaseSuite))
	if err == nil || !strings.Contains(err.Error(), "claim on its scratch projects expired") {
		t.Fatalf("err = %v; want the lost lease", err)
	}
	if n := mem.scratchCount(); n != 0 {
		t.Fatalf("%d scratch projects left", n)
	}
}
