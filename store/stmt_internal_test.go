package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// Pages, count bounds and lists are parameters, so paging through a list
// or asking for more ids adds no statement, and a full cache keeps what it
// holds.
func TestStatementCacheBounded(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := &governance.Project{Slug: "p", Name: "p"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	size := func() int {
		s.read.mu.Lock()
		defer s.read.mu.Unlock()
		return len(s.read.m)
	}
	page := func(offset int) {
		if _, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 10, Offset: offset}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID, Limit: 10, Offset: offset, CountCap: 100}); err != nil {
			t.Fatal(err)
		}
	}
	page(0)
	before := size()
	for off := 10; off <= 500; off += 10 {
		page(off)
	}
	if got := size(); got != before {
		t.Fatalf("cached statements grew from %d to %d over 50 pages", before, got)
	}

	// A list of ids or statuses is one JSON parameter: every length is the
	// same statement.
	lists := func(n int) {
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = int64(i + 1)
		}
		statuses := governance.RuleStatuses[:1+n%len(governance.RuleStatuses)]
		if _, err := s.FindRulesByIDs(ctx, ids); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectIDs: append(ids, p.ID), Statuses: statuses, Limit: 10}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CountProposals(ctx, ids); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectIDs: ids, Limit: 10}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FindRuleChecks(ctx, ids); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CountRuleCandidates(ctx, ids); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectIDs: ids, Statuses: []governance.CandidateStatus{"held", "blocked"}[:1+n%2], Limit: 10}); err != nil {
			t.Fatal(err)
		}
	}
	lists(1)
	before = size()
	for _, n := range []int{2, 3, 7, 40, 900, 5000} {
		lists(n)
	}
	if got := size(); got != before {
		t.Fatalf("cached statements grew from %d to %d over lists of 2 to 5000 ids", before, got)
	}

	// Fill the cache: the statements already cached stay usable.
	for i := size(); i < maxCachedStmts; i++ {
		if err := s.read.QueryRowContext(ctx, fmt.Sprintf("SELECT %d", i)).Scan(new(int)); err != nil {
			t.Fatal(err)
		}
	}
	cached := map[string]bool{}
	s.read.mu.Lock()
	for q := range s.read.m {
		cached[q] = true
	}
	s.read.mu.Unlock()
	var n int
	if err := s.read.QueryRowContext(ctx, "SELECT 4242").Scan(&n); err != nil || n != 4242 {
		t.Fatalf("uncached query past the bound: %d, %v", n, err)
	}
	page(20)
	s.read.mu.Lock()
	defer s.read.mu.Unlock()
	if len(s.read.m) != maxCachedStmts {
		t.Fatalf("cache size %d, want %d", len(s.read.m), maxCachedStmts)
	}
	for q := range cached {
		if s.read.m[q] == nil {
			t.Fatalf("a cached statement was evicted: %q", q)
		}
	}
}
