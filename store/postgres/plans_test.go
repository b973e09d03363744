package postgres_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestPageReadsKeepTheirPlans: the reads every page makes (the signed-in
// account, the project by slug, a session, its events, a page of a kept
// search window) go through the plans pool, whose connections keep a
// generic plan after a few runs instead of planning every run, as the main
// pool's do (plan_cache_mode force_custom_plan). Planning was most of
// those statements' time. TestRewriteSparesOtherPartitions checks that
// the plans they keep lock no other project's partition.
func TestPageReadsKeepTheirPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	p := storetest.MustCreateProject(t, s, "plans")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
		{ID: "e1", SessionID: "s1", Turn: 1, Role: governance.RoleUser, Text: "the blue kayak", OccurredAt: at},
		{ID: "e2", SessionID: "s1", Turn: 2, Role: governance.RoleAssistant, Text: "a kayak is booked", OccurredAt: at},
	}); err != nil {
		t.Fatal(err)
	}
	acc := &governance.Account{Username: "rita", PasswordHash: "x",
		Memberships: []governance.Membership{{ProjectID: p.ID, Role: governance.ProjectReviewer}}}
	if err := s.CreateAccount(ctx, acc); err != nil {
		t.Fatal(err)
	}
	session := "s1"
	for range 12 {
		if _, err := s.FindAccountByID(ctx, acc.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FindProjectBySlug(ctx, p.Slug); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FindSession(ctx, p.ID, session); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, SessionID: &session, Limit: 50}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "kayak", Limit: 20}); err != nil {
			t.Fatal(err)
		}
	}
	// Each connection of the plans pool (all idle now) reports its
	// prepared statements.
	generic := map[string]int64{}
	all := postgres.PlansPool(s).AcquireAllIdle(ctx)
	if len(all) == 0 {
		t.Fatal("the plans pool has no connection")
	}
	for _, c := range all {
		rows, err := c.Query(ctx, `SELECT statement, generic_plans FROM pg_prepared_statements`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var (
				stmt string
				n    int64
			)
			if err := rows.Scan(&stmt, &n); err != nil {
				t.Fatal(err)
			}
			generic[strings.Join(strings.Fields(stmt), " ")] += n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range all {
		c.Release()
	}
	for _, read := range []struct{ name, from string }{
		{"account", "FROM accounts a"},
		{"project by slug", "FROM projects WHERE slug"},
		{"session", "FROM sessions WHERE"},
		{"timeline", "FROM events e WHERE e.project_id = " + strconv.FormatInt(p.ID, 10) + " AND e.session_id"},
		{"search window page", "FROM events e WHERE e.project_id = " + strconv.FormatInt(p.ID, 10) + " AND e.seq = ANY"},
	} {
		var n int64
		found := false
		for stmt, g := range generic {
			if strings.Contains(stmt, read.from) {
				n, found = n+g, true
			}
		}
		if !found {
			t.Errorf("%s: no statement %q prepared on the plans pool", read.name, read.from)
		} else if n == 0 {
			t.Errorf("%s: planned at every run (no generic plan kept)", read.name)
		}
	}
}
