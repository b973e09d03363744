package postgres

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
)

// TestEventStatsFollowAnalyze: search reads the words' statistics once
// and reuses them while their version holds, and reads them again after
// an ANALYZE changed them.
func TestEventStatsFollowAnalyze(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := &governance.Project{Slug: "stats", Name: "stats"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, p.ID, seed.SyntheticEvents(2000, 3)); err != nil {
		t.Fatal(err)
	}
	before, err := s.eventStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.parts) != 0 {
		t.Fatalf("statistics of %d partitions before any ANALYZE", len(before.parts))
	}
	again, err := s.eventStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again != before {
		t.Fatal("the statistics were read again though their version had not changed")
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE events`); err != nil {
		t.Fatal(err)
	}
	after, err := s.eventStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after == before || after.version == before.version || len(after.parts) == 0 || after.total < 2000 {
		t.Fatalf("after ANALYZE: version %q (before %q), %d partitions with statistics, %v events",
			after.version, before.version, len(after.parts), after.total)
	}
	if f, ok := after.parts[0].freqs["酒店"]; !ok || f <= 0 {
		t.Errorf("酒店 is not among the most common lexemes after ANALYZE (frequency %v)", f)
	}
}
