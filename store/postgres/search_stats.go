package postgres

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
)

// eventStats is what search weighs words by (idf): the planner's size of
// each partition of events and the most common lexemes of its words
// column with their frequencies, as ANALYZE (autovacuum) left them.
type eventStats struct {
	// version identifies the statistics read: each partition's size
	// estimate and how many times it has been analysed.
	version string
	total   float64
	parts   []partStats
}

// partStats is one partition's statistics of events.words.
type partStats struct {
	rows float64
	// freqs maps each most common lexeme to its frequency; least is the
	// least frequency listed.
	freqs map[string]float64
	least float64
}

// statsCache keeps the last statistics read, so that a search reads them
// (a thousand lexemes a partition, parsed into maps) only after an ANALYZE
// or a VACUUM changed them: it first reads their version, one small row.
// They hold the words common to a large share of the events, never a
// sentence (docs/forget.md, "Forget on PostgreSQL").
type statsCache struct {
	mu   sync.Mutex
	last *eventStats
}

// eventPartitions selects the tables of events in pg_class (c): its
// partitions, or events itself before it was partitioned. By oid, so the
// catalog's index finds them (an OR of the two made it a scan of
// pg_class, 1.2 ms a search on a loaded machine against 0.3 ms).
const eventPartitions = `c.relkind = 'r' AND c.oid = ANY(ARRAY(SELECT inhrelid FROM pg_inherits WHERE inhparent = 'events'::regclass)
	|| 'events'::regclass::oid)`

// eventStats returns the statistics of events.words, read again only when
// their version changed.
func (s *Store) eventStats(ctx context.Context) (*eventStats, error) {
	var version string
	if err := s.pool.QueryRow(ctx, `
		SELECT COALESCE(string_agg(c.oid::text || ':' || c.reltuples::text || ':' ||
			(pg_stat_get_analyze_count(c.oid) + pg_stat_get_autoanalyze_count(c.oid))::text, ',' ORDER BY c.oid), '')
		FROM pg_class c WHERE `+eventPartitions).Scan(&version); err != nil {
		return nil, fmt.Errorf("postgres: search statistics version: %w", err)
	}
	c := &s.stats
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	if last != nil && last.version == version {
		return last, nil
	}
	st := &eventStats{version: version}
	err := queryAll(ctx, s.pool, `
		SELECT greatest(c.reltuples, 0)::float8, s.most_common_elems::text::text[], s.most_common_elem_freqs
		FROM pg_class c LEFT JOIN pg_stats s
			ON s.schemaname = current_schema() AND s.tablename = c.relname AND s.attname = 'words' AND NOT s.inherited
		WHERE `+eventPartitions, nil, func(r pgx.Row) error {
		var (
			rows  float64
			elems []string
			freqs []float32
		)
		if err := r.Scan(&rows, &elems, &freqs); err != nil {
			return err
		}
		st.total += rows
		// most_common_elem_freqs: one per element, then the least and the
		// greatest of them (and the frequency of nulls).
		if len(elems) > 0 && len(freqs) > len(elems) {
			p := partStats{rows: rows, freqs: make(map[string]float64, len(elems)), least: float64(freqs[len(elems)])}
			for i, e := range elems {
				p.freqs[e] = float64(freqs[i])
			}
			st.parts = append(st.parts, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: search statistics: %w", err)
	}
	c.mu.Lock()
	c.last = st
	c.mu.Unlock()
	return st, nil
}
