package postgres

// SetStatsFrom sets the table size from which search weighs words by the
// column statistics (tests force either path).
func SetStatsFrom(s *Store, n float64) { s.statsFrom = n }
