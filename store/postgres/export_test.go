package postgres

import "context"

// SetStatsFrom sets the table size from which search weighs words by the
// column statistics (tests force either path).
func SetStatsFrom(s *Store, n float64) { s.statsFrom = n }

// OpenBefore opens the database at url with only the migrations whose
// file names sort before stop applied (benchmarks compare a schema change
// with the schema before it in one run).
func OpenBefore(ctx context.Context, url, stop string) (*Store, error) { return open(ctx, url, stop) }
