// Package projectstats is how both stores tally the per-project counts
// of the overview (governance.ProjectStats) from their count queries
// (Queries): each query's rows are (project id, count, a second count, a
// key) and its layer's Add says what they count. Each store keeps its
// SQL.
package projectstats

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

// Scanner reads one row's columns (a database/sql row, a pgx row).
type Scanner interface{ Scan(dest ...any) error }

// Add adds one row's counts n and m, under key, to a project's stats.
type Add func(st *governance.ProjectStats, n, m int, key string)

// Events counts a project's events (n) and sessions (m).
func Events(st *governance.ProjectStats, n, m int, _ string) { st.Events, st.Sessions = n, m }

// Episodes counts a project's episodes (n).
func Episodes(st *governance.ProjectStats, n, _ int, _ string) { st.Episodes = n }

// Candidates counts a project's candidates of the status key (n).
func Candidates(st *governance.ProjectStats, n, _ int, status string) {
	count(&st.Candidates, n, status, map[string]*int{
		string(governance.CandidateHeld): &st.Held, string(governance.CandidateBlocked): &st.Blocked})
}

// Rules counts a project's rules of the status key (n), forgotten ones
// left out by the query.
func Rules(st *governance.ProjectStats, n, _ int, status string) {
	count(&st.Rules, n, status, map[string]*int{
		string(governance.RuleProposed): &st.Proposed, string(governance.RuleActive): &st.Active})
}

// count adds n to total and to the count byStatus names for status, if
// any.
func count(total *int, n int, status string, byStatus map[string]*int) {
	*total += n
	if c := byStatus[status]; c != nil {
		*c += n
	}
}

// Queries are a store's count queries by layer, each selecting rows of
// (project id, n, m, key): events (n events, m sessions), episodes (n),
// candidates and rules not forgotten (n of the status key).
type Queries struct {
	Events, Episodes, Candidates, Rules string
}

// Count runs each of qs with run and tallies the rows into the stats of
// the projects find lists, in their order; rows of projects not listed
// (created since the list was read) are passed over.
func Count[R Scanner](ctx context.Context, find func(context.Context) ([]*governance.Project, error), qs Queries,
	run func(query string, row func(R) error) error) ([]*governance.ProjectStats, error) {
	projects, err := find(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*governance.ProjectStats, 0, len(projects))
	byID := make(map[int64]*governance.ProjectStats, len(projects))
	for _, p := range projects {
		st := &governance.ProjectStats{Project: p}
		byID[p.ID] = st
		out = append(out, st)
	}
	for _, q := range []struct {
		sql string
		add Add
	}{{qs.Events, Events}, {qs.Episodes, Episodes}, {qs.Candidates, Candidates}, {qs.Rules, Rules}} {
		err := run(q.sql, func(row R) error {
			var (
				id     int64
				n, m   int
				status string
			)
			if err := row.Scan(&id, &n, &m, &status); err != nil {
				return err
			}
			if st := byID[id]; st != nil {
				q.add(st, n, m, status)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("project stats: %w", err)
		}
	}
	return out, nil
}

// SubjectColumns are the destinations of the one row a subject's stats
// query selects: events, sessions, episodes, candidates, held, blocked,
// proposed, active and (not forgotten) rules.
func SubjectColumns(st *governance.ProjectStats) []any {
	return []any{&st.Events, &st.Sessions, &st.Episodes, &st.Candidates, &st.Held, &st.Blocked, &st.Proposed, &st.Active, &st.Rules}
}
