package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
	"github.com/mnemo-console/mnemo/store/internal/semantic"
)

// Recall on PostgreSQL: the store finds the candidates — the in-scope
// rules, the episodes and events whose words column holds a term of the
// task — and governance.Recall ranks them with the same relevance model
// as on SQLite (BM25 over the scope's documents, computed in Go), so both
// backends answer from the same scoring code; only candidate retrieval is
// the engine's (storetest.TestRecallContract holds them to one results
// contract).

// Recall builds the context package for a task: the hard scope filter runs
// first, in SQL; what it removed is only counted. The trace (ids, scores,
// reasons, never memory text) is stored, and the included rules' last use
// and use count are updated unless the request is a preview. What is
// gathered, in which order, and what is stored is governance/recall's
// (shared with SQLite); the SQL is this file's.
func (s *Store) Recall(ctx context.Context, actor string, req governance.RecallRequest) (*governance.RecallPackage, error) {
	return recall.Run(ctx, recallRecorder{s}, s.LoadRecallInput, actor, req)
}

// LoadRecallInput gathers what recall considers for req (recall.Load), and
// with an embeddings model the memories closest to the task's vector
// (semantic.Load).
func (s *Store) LoadRecallInput(ctx context.Context, req governance.RecallRequest) (*governance.RecallInput, error) {
	in, err := recall.Load(ctx, recallSource{s, req}, req, s.Now().UTC())
	if err != nil || s.Embedder == nil {
		return in, err
	}
	if err := semantic.Load(ctx, s.Embedder, recallSemantic{s, req}, req, in); err != nil {
		return nil, err
	}
	return in, nil
}

// recallSource is recall.Source in PostgreSQL for one request.
type recallSource struct {
	s   *Store
	req governance.RecallRequest
}

func (r recallSource) Scope(ctx context.Context, in *governance.RecallInput) (bool, error) {
	var exists bool
	err := r.s.pool.QueryRow(ctx, `
		SELECT
			EXISTS (SELECT 1 FROM projects WHERE id = $1),
			(SELECT COALESCE(sum(active), 0) FROM recall_rule_counts WHERE project_id <> $1),
			(SELECT count(*) FROM rules WHERE status = 'active' AND project_id = $1 AND subject_id NOT IN ('', $2)),
			(SELECT count(*) FROM episodes WHERE project_id = $1 AND subject_id NOT IN ('', $2))`,
		r.req.ProjectID, r.req.SubjectID).
		Scan(&exists, &in.Filtered.RulesOtherProjects, &in.Filtered.RulesOtherSubjects, &in.Filtered.EpisodesOtherSubjects)
	if err != nil {
		return false, fmt.Errorf("postgres: recall scope counts: %w", err)
	}
	return exists, nil
}

func (r recallSource) Rules(ctx context.Context, add func(*governance.Rule)) error {
	err := queryAll(ctx, r.s.pool, `SELECT `+ruleColumns+` FROM rules r
		WHERE r.project_id = $1 AND r.subject_id IN ('', $2) AND r.status = ANY($3)
		ORDER BY r.id`, []any{r.req.ProjectID, r.req.SubjectID, recall.RuleStatuses}, func(row pgx.Row) error {
		rule, err := scanRule(row)
		if err == nil {
			add(rule)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: recall rules: %w", err)
	}
	return nil
}

func (r recallSource) count(ctx context.Context, table string) (int, error) {
	var n int
	err := r.s.pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE project_id = $1 AND subject_id IN ('', $2)`,
		r.req.ProjectID, r.req.SubjectID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres: recall %s count: %w", table, err)
	}
	return n, nil
}

func (r recallSource) CountEpisodes(ctx context.Context) (int, error) {
	return r.count(ctx, "episodes")
}
func (r recallSource) CountEvents(ctx context.Context) (int, error) { return r.count(ctx, "events") }

// episodes runs an episode query whose first two parameters are the scope.
func (r recallSource) episodes(ctx context.Context, what, query string, add func(*governance.Episode), args ...any) error {
	err := queryAll(ctx, r.s.pool, query, append([]any{r.req.ProjectID, r.req.SubjectID}, args...), func(row pgx.Row) error {
		e, err := scanEpisode(row)
		if err == nil {
			add(e)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: recall %s: %w", what, err)
	}
	return nil
}

func (r recallSource) AllEpisodes(ctx context.Context, add func(*governance.Episode)) error {
	return r.episodes(ctx, "scope episodes", `SELECT `+episodeColumns+` FROM episodes e
		WHERE e.project_id = $1 AND e.subject_id IN ('', $2) ORDER BY e.id`, add)
}

func (r recallSource) RecentEpisodes(ctx context.Context, limit int, add func(*governance.Episode)) error {
	return r.episodes(ctx, "recent episodes", `SELECT `+episodeColumns+` FROM episodes e
		WHERE e.project_id = $1 AND e.subject_id IN ('', $2)
		ORDER BY e.last_seq DESC LIMIT $3`, add, limit)
}

// EpisodesByTerms reads the episodes' words column.
func (r recallSource) EpisodesByTerms(ctx context.Context, terms []string, limit int, add func(*governance.Episode)) error {
	return r.episodes(ctx, "episodes by text", `SELECT `+episodeColumns+` FROM episodes e
		WHERE e.project_id = $1 AND e.subject_id IN ('', $2) AND e.words @@ $3::tsquery
		ORDER BY e.id DESC LIMIT $4`, add, anyLexeme(terms), limit)
}

// EventTermStats: PostgreSQL keeps none; the engine counts the document
// frequencies over the events offered.
func (r recallSource) EventTermStats(context.Context, []string) (*governance.TermStats, error) {
	return nil, nil
}

// EventsByTerms reads the events' words column, best ts_rank first.
func (r recallSource) EventsByTerms(ctx context.Context, terms []string, limit int, add func(*governance.Event)) error {
	err := queryAll(ctx, r.s.pool, `
		SELECT `+eventColumns+` FROM (
			SELECT e.* FROM events e
			WHERE e.project_id = $1 AND e.subject_id IN ('', $2) AND NOT e.redacted AND e.kind = 'message'
				AND e.words @@ $3::tsquery AND ($5::timestamptz IS NULL OR e.occurred_at <= $5)
			ORDER BY ts_rank(e.words, $3::tsquery, 16) DESC, e.seq DESC LIMIT $4) e
		ORDER BY e.seq`,
		[]any{r.req.ProjectID, r.req.SubjectID, anyLexeme(terms), limit, asOfArg(r.req.AsOf)}, func(row pgx.Row) error {
			e, err := scanEvent(row)
			if err == nil {
				add(e)
			}
			return err
		})
	if err != nil {
		return fmt.Errorf("postgres: recall events: %w", err)
	}
	return nil
}

// asOfArg is a request's AsOf as a parameter: NULL when unset.
func asOfArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// anyLexeme is the tsquery matching any of terms.
func anyLexeme(terms []string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = quoteLexeme(t)
	}
	return strings.Join(q, " | ")
}

// recallRecorder is recall.Recorder in PostgreSQL.
type recallRecorder struct{ s *Store }

func (r recallRecorder) RuleSources(ctx context.Context, ids []int64, add func(int64, string, int)) error {
	err := queryAll(ctx, r.s.pool, `
		SELECT c.rule_id, c.session_id, count(DISTINCT v.event_seq)
		FROM candidates c JOIN evidence v ON v.candidate_id = c.id
		WHERE c.rule_id = ANY($1)
		GROUP BY c.rule_id, c.session_id ORDER BY c.rule_id, min(v.event_seq)`, []any{ids}, func(row pgx.Row) error {
		return recall.SourceRow(row.Scan, add)
	})
	if err != nil {
		return fmt.Errorf("postgres: recall sources: %w", err)
	}
	return nil
}

func (r recallRecorder) SaveTrace(ctx context.Context, t recall.Trace, used []int64) (int64, error) {
	tx, err := r.s.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.rollback()
	var id int64
	err = tx.QueryRow(ctx, `
		INSERT INTO recall_traces (project_id, subject_id, actor, task_hash, trace, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		t.ProjectID, t.SubjectID, t.Actor, t.TaskHash, t.Body, tx.now).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("postgres: insert recall trace: %w", err)
	}
	if len(used) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE rules SET last_used_at = $1, use_count = use_count + 1 WHERE id = ANY($2)`,
			tx.now, used); err != nil {
			return 0, fmt.Errorf("postgres: count rule use: %w", err)
		}
	}
	return id, tx.Commit(ctx)
}

// FindRecallTraces lists stored recall traces, newest first.
func (s *Store) FindRecallTraces(ctx context.Context, f governance.RecallTraceFilter) ([]*governance.RecallTraceInfo, int, error) {
	w := &where{}
	w.add("true")
	if f.ID != 0 {
		w.add("id = ?", f.ID)
	}
	if f.ProjectID != 0 {
		w.add("project_id = ?", f.ProjectID)
	}
	if f.SubjectID != nil {
		w.add("subject_id = ?", *f.SubjectID)
	}
	if f.RuleID != 0 {
		w.add("strpos(trace, ?) > 0", recall.TraceRuleNeedle(f.RuleID))
	}
	var (
		out   []*governance.RecallTraceInfo
		total int
	)
	limit, args := page(w.args, f.Limit, f.Offset)
	err := queryAll(ctx, s.pool, `
		SELECT id, project_id, subject_id, actor, task_hash, trace, created_at, count(*) OVER ()
		FROM recall_traces WHERE `+w.String()+` ORDER BY id DESC`+limit, args,
		func(r pgx.Row) error {
			var (
				t    governance.RecallTraceInfo
				body string
			)
			if err := r.Scan(&t.ID, &t.ProjectID, &t.SubjectID, &t.Actor, &t.TaskHash, &body, &t.CreatedAt, &total); err != nil {
				return err
			}
			if err := recall.DecodeTrace(&t, body); err != nil {
				return fmt.Errorf("postgres: %w", err)
			}
			t.CreatedAt = t.CreatedAt.UTC()
			out = append(out, &t)
			return nil
		})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find recall traces: %w", err)
	}
	return out, total, nil
}
