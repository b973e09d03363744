package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
)

// FindProjectStats counts every layer per project.
func (s *Store) FindProjectStats(ctx context.Context) ([]*governance.ProjectStats, error) {
	projects, err := s.FindProjects(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*governance.ProjectStats, len(projects))
	out := make([]*governance.ProjectStats, 0, len(projects))
	for _, p := range projects {
		st := &governance.ProjectStats{Project: p}
		byID[p.ID] = st
		out = append(out, st)
	}
	queries := []struct {
		sql  string
		scan func(st *governance.ProjectStats, n, m int, key string)
	}{
		{`SELECT project_id, count(*), count(DISTINCT session_id), '' FROM events GROUP BY project_id`,
			func(st *governance.ProjectStats, n, m int, _ string) { st.Events, st.Sessions = n, m }},
		{`SELECT project_id, count(*), 0, '' FROM episodes GROUP BY project_id`,
			func(st *governance.ProjectStats, n, _ int, _ string) { st.Episodes = n }},
		{`SELECT project_id, count(*), 0, status FROM candidates GROUP BY project_id, status`, func(st *governance.ProjectStats, n, _ int, status string) {
			st.Candidates += n
			switch governance.CandidateStatus(status) {
			case governance.CandidateHeld:
				st.Held += n
			case governance.CandidateBlocked:
				st.Blocked += n
			}
		}},
		{`SELECT project_id, count(*), 0, status FROM rules WHERE status <> 'forgotten' GROUP BY project_id, status`, func(st *governance.ProjectStats, n, _ int, status string) {
			st.Rules += n
			switch governance.RuleStatus(status) {
			case governance.RuleProposed:
				st.Proposed += n
			case governance.RuleActive:
				st.Active += n
			}
		}},
	}
	for _, q := range queries {
		err := queryAll(ctx, s.pool, q.sql, nil, func(r pgx.Row) error {
			var (
				id     int64
				n, m   int
				status string
			)
			if err := r.Scan(&id, &n, &m, &status); err != nil {
				return err
			}
			if st := byID[id]; st != nil {
				q.scan(st, n, m, status)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("postgres: project stats: %w", err)
		}
	}
	return out, nil
}

// FindSubjectStats counts what every layer holds about one subject of a
// project: its events and sessions, episodes, candidates, and the rules
// scoped to it.
func (s *Store) FindSubjectStats(ctx context.Context, p *governance.Project, subjectID string) (*governance.ProjectStats, error) {
	st := &governance.ProjectStats{Project: p}
	err := s.pool.QueryRow(ctx, `
		SELECT
			(SELECT count(*) FROM events WHERE project_id = $1 AND subject_id = $2),
			(SELECT count(*) FROM sessions WHERE project_id = $1 AND subject_id = $2),
			(SELECT count(*) FROM episodes WHERE project_id = $1 AND subject_id = $2),
			(SELECT count(*) FROM candidates WHERE project_id = $1 AND subject_id = $2),
			(SELECT count(*) FROM candidates WHERE project_id = $1 AND subject_id = $2 AND status = 'held'),
			(SELECT count(*) FROM candidates WHERE project_id = $1 AND subject_id = $2 AND status = 'blocked'),
			(SELECT count(*) FROM rules WHERE project_id = $1 AND subject_id = $2 AND status = 'proposed'),
			(SELECT count(*) FROM rules WHERE project_id = $1 AND subject_id = $2 AND status = 'active'),
			(SELECT count(*) FROM rules WHERE project_id = $1 AND subject_id = $2 AND status <> 'forgotten')`,
		p.ID, subjectID).Scan(&st.Events, &st.Sessions, &st.Episodes, &st.Candidates, &st.Held, &st.Blocked,
		&st.Proposed, &st.Active, &st.Rules)
	if err != nil {
		return nil, fmt.Errorf("postgres: subject stats: %w", err)
	}
	return st, nil
}
