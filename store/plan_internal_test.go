package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestStatementsSeek: the statements an ingest runs over "the events
// of this batch" (seq > last) inside its writer turn find them by rowid.
// The index-version bump used to be answered by walking the whole
// events_subject index — one read of every event's index entry in each
// 20-event ingest, which at 1M events was most of the writer's time under
// the mixed load (cmd/mnemo-load).
func TestIngestStatementsSeek(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, q := range map[string]struct {
		sql  string
		args []any
	}{
		"batchIndexSQL":        {batchIndexSQL, []any{1000}},
		"batchIndexVersionSQL": {batchIndexVersionSQL, []any{1, 1000}},
	} {
		plan := queryPlan(t, s, q.sql, q.args...)
		for _, step := range plan {
			if strings.HasPrefix(step, "SCAN events") {
				t.Errorf("%s scans the events (%q); want a search by rowid. Plan: %q", name, step, plan)
			}
		}
		if !strings.Contains(strings.Join(plan, "\n"), "SEARCH events") {
			t.Errorf("%s does not search the events by rowid: %q", name, plan)
		}
	}
}

// TestForgetSubjectTracesSeek: a subject forget counts and deletes the
// subject's recall traces inside the writer's turn through their index
// (project, subject), never by reading every trace of the project — a
// number that grows with every recall.
func TestForgetSubjectTracesSeek(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		`SELECT COUNT(*) FROM recall_traces WHERE ` + subjectTracesWhere,
		`DELETE FROM recall_traces WHERE ` + subjectTracesWhere,
	} {
		plan := strings.Join(queryPlan(t, s, q, 1, "u1"), "\n")
		if !strings.Contains(plan, "(project_id=? AND subject_id=?)") {
			t.Errorf("%s: plan %q; want a search by project and subject", q, plan)
		}
	}
}

// queryPlan returns the steps of SQLite's plan for query.
func queryPlan(t *testing.T, s *Store, query string, args ...any) []string {
	t.Helper()
	var plan []string
	err := queryAll(context.Background(), s.db, `EXPLAIN QUERY PLAN `+query, args, func(r scanner) error {
		var id, parent, unused int
		var detail string
		err := r.Scan(&id, &parent, &unused, &detail)
		plan = append(plan, detail)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}
