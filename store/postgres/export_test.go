package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// SetStatsFrom sets the table size from which search weighs words by the
// column statistics (tests force either path).
func SetStatsFrom(s *Store, n float64) { s.statsFrom = n }

// OpenBefore opens the database at url with only the migrations whose
// file names sort before stop applied (benchmarks compare a schema change
// with the schema before it in one run).
func OpenBefore(ctx context.Context, url, stop string) (*Store, error) { return open(ctx, url, stop) }

// SearchWindows reports how many searches found their ranked window kept
// (hits), how many did not (misses), and how many kept windows were found
// out of date (stale).
func SearchWindows(s *Store) (hits, misses, stale int) {
	s.windows.mu.Lock()
	defer s.windows.mu.Unlock()
	return s.windows.hits, s.windows.misses, s.windows.stale
}

// DisableSearchWindows makes every search rank its window again (the
// reference the kept windows are compared with).
func DisableSearchWindows(s *Store) { s.windows = nil }

// PlansPool is the pool whose connections keep their statements' plans.
func PlansPool(s *Store) *pgxpool.Pool { return s.plans }
