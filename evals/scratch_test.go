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
