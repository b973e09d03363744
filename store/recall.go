package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
	"github.com/mnemo-console/mnemo/store/internal/semantic"
)

// Recall builds the context package for a task: the hard scope filter runs
// first, in SQL; what it removed is only counted. The trace (ids, scores,
// reasons, never memory text) is stored, and the included rules' last use
// and use count are updated unless the request is a preview. What is
// gathered, in which order, and what is stored is governance/recall's;
// the SQL is this file's.
func (s *Store) Recall(ctx context.Context, actor string, req governance.RecallRequest) (*governance.RecallPackage, error) {
	ctx = withQueueOp(ctx, "Recall") // the load's and the trace's turns
	return recall.Run(ctx, recallRecorder{s}, s.LoadRecallInput, actor, req)
}

// LoadRecallInput gathers what recall considers for req (recall.Load), and
// with an embeddings model the memories closest to the task's vector.
// (Recall adds the evidence of the rules it includes to their sources.)
// The task is embedded before the queries take a heavy-read slot: a slow
// embeddings endpoint keeps no slot from the searches and recalls that
// need one.
func (s *Store) LoadRecallInput(ctx context.Context, req governance.RecallRequest) (*governance.RecallInput, error) {
	var query *semantic.Query
	if s.Embedder != nil {
		var err error
		if query, err = semantic.Embed(ctx, s.Embedder, req); err != nil {
			return nil, err
		}
	}
	release, err := s.heavyRead(ctx, "LoadRecallInput")
	if err != nil {
		return nil, err
	}
	defer release()
	in, err := recall.Load(ctx, recallSource{s, req}, req, s.Now().UTC())
	if err != nil {
		return nil, err
	}
	if query != nil {
		if err := semantic.Find(ctx, query, recallSemantic{s, req}, req, in); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// recallSource is recall.Source in SQLite for one request.
type recallSource struct {
	s   *Store
	req governance.RecallRequest
}

func (r recallSource) Scope(ctx context.Context, in *governance.RecallInput) (bool, error) {
	var exists bool
	err := r.s.read.QueryRowContext(ctx, `
		SELECT
			EXISTS (SELECT 1 FROM projects WHERE id = ?),
			(SELECT COALESCE(SUM(active), 0) FROM recall_rule_counts WHERE project_id <> ?),
			(SELECT COUNT(*) FROM rules WHERE status = 'active' AND project_id = ? AND subject_id NOT IN ('', ?)),
			(SELECT COUNT(*) FROM episodes WHERE project_id = ? AND subject_id NOT IN ('', ?))`,
		r.req.ProjectID, r.req.ProjectID, r.req.ProjectID, r.req.SubjectID, r.req.ProjectID, r.req.SubjectID).
		Scan(&exists, &in.Filtered.RulesOtherProjects, &in.Filtered.RulesOtherSubjects, &in.Filtered.EpisodesOtherSubjects)
	if err != nil {
		return false, fmt.Errorf("store: recall scope counts: %w", err)
	}
	return exists, nil
}

func (r recallSource) Rules(ctx context.Context, add func(*governance.Rule)) error {
	args := []any{r.req.ProjectID, r.req.SubjectID}
	for _, st := range recall.RuleStatuses {
		args = append(args, st)
	}
	err := queryAll(ctx, r.s.read, `SELECT `+ruleColumns+` FROM rules r
		WHERE r.project_id = ? AND (r.subject_id = '' OR r.subject_id = ?) AND r.status IN (`+placeholders(len(recall.RuleStatuses))+`)
		ORDER BY r.id`, args, func(row scanner) error {
		rule, err := scanRule(row)
		if err == nil {
			add(rule)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: recall rules: %w", err)
	}
	return nil
}

func (r recallSource) count(ctx context.Context, table string) (int, error) {
	var n int
	err := r.s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table+` WHERE project_id = ? AND subject_id IN ('', ?)`,
		r.req.ProjectID, r.req.SubjectID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: recall %s count: %w", table, err)
	}
	return n, nil
}

func (r recallSource) CountEpisodes(ctx context.Context) (int, error) {
	return r.count(ctx, "episodes")
}
func (r recallSource) CountEvents(ctx context.Context) (int, error) { return r.count(ctx, "events") }

// episodes runs an episode query whose first two parameters are the scope.
func (r recallSource) episodes(ctx context.Context, what, query string, add func(*governance.Episode), args ...any) error {
	err := queryAll(ctx, r.s.read, query, append([]any{r.req.ProjectID, r.req.SubjectID}, args...), func(row scanner) error {
		e, err := scanEpisode(row)
		if err == nil {
			add(e)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: recall %s: %w", what, err)
	}
	return nil
}

func (r recallSource) AllEpisodes(ctx context.Context, add func(*governance.Episode)) error {
	return r.episodes(ctx, "scope episodes", `SELECT `+episodeColumns+` FROM episodes e
		WHERE e.project_id = ? AND e.subject_id IN ('', ?) ORDER BY e.id`, add)
}

func (r recallSource) RecentEpisodes(ctx context.Context, limit int, add func(*governance.Episode)) error {
	return r.episodes(ctx, "recent episodes", `SELECT `+episodeColumns+` FROM episodes e
		WHERE e.project_id = ? AND e.subject_id IN ('', ?)
		ORDER BY e.last_seq DESC LIMIT ?`, add, limit)
}

// EpisodesByTerms reads the project-scoped episode index (episodes_recall).
func (r recallSource) EpisodesByTerms(ctx context.Context, terms []string, limit int, add func(*governance.Episode)) error {
	return r.episodes(ctx, "episodes by text", `SELECT `+episodeColumns+`
		FROM episodes_recall JOIN episodes e ON e.id = episodes_recall.rowid
		WHERE e.project_id = ? AND e.subject_id IN ('', ?) AND episodes_recall MATCH ?
		ORDER BY episodes_recall.rowid DESC LIMIT ?`, add,
		anyTermMatch(r.req.ProjectID, recallSubjects(r.req.SubjectID), terms), limit)
}

// EventTermStats are the scope's, kept by the store (term_stats.go).
func (r recallSource) EventTermStats(ctx context.Context, terms []string) (*governance.TermStats, error) {
	return r.s.eventTermStats(ctx, r.req.ProjectID, r.req.SubjectID, terms)
}

// EventsByTerms reads the project-scoped event index (events_words), best
// FTS5 rank first (among the events up to the request's AsOf, when set).
func (r recallSource) EventsByTerms(ctx context.Context, terms []string, limit int, add func(*governance.Event)) error {
	match := anyTermMatch(r.req.ProjectID, recallSubjects(r.req.SubjectID), terms)
	best, args := `SELECT rowid FROM events_words WHERE events_words MATCH ? ORDER BY rank LIMIT ?`, []any{match, limit}
	if !r.req.AsOf.IsZero() {
		best = `SELECT w.rowid FROM events_words w JOIN events e ON e.seq = w.rowid
			WHERE events_words MATCH ? AND e.occurred_at <= ? ORDER BY w.rank LIMIT ?`
		args = []any{match, formatTime(r.req.AsOf), limit}
	}
	err := queryAll(ctx, r.s.read, `
		SELECT `+eventColumns+`
		FROM (`+best+`) w
		JOIN events e ON e.seq = w.rowid
		WHERE e.project_id = ? AND e.subject_id IN ('', ?) AND e.redacted = 0 AND e.kind = 'message'
		ORDER BY e.seq`,
		append(args, r.req.ProjectID, r.req.SubjectID),
		func(row scanner) error {
			e, err := scanEvent(row)
			if err == nil {
				add(e)
			}
			return err
		})
	if err != nil {
		return fmt.Errorf("store: recall events: %w", err)
	}
	return nil
}

// recallSemantic is semantic.Source in SQLite for one request.
type recallSemantic recallSource

func (r recallSemantic) Vectors(ctx context.Context, model string, kind governance.RecallKind, fn func(int64, []byte)) error {
	err := queryAll(ctx, r.s.read, `
		SELECT item_id, vector FROM embeddings
		WHERE project_id = ? AND model = ? AND kind = ? AND subject_id IN ('', ?)`,
		[]any{r.req.ProjectID, model, string(kind), r.req.SubjectID}, semantic.VectorRow[scanner](fn))
	if err != nil {
		return fmt.Errorf("store: recall %s vectors: %w", kind, err)
	}
	return nil
}

func (r recallSemantic) Episodes(ctx context.Context, ids []int64, add func(*governance.Episode)) error {
	err := queryAll(ctx, r.s.read, `SELECT `+episodeColumns+` FROM episodes e
		WHERE e.id IN (SELECT value FROM json_each(?)) AND e.project_id = ? AND e.subject_id IN ('', ?) ORDER BY e.id`,
		[]any{listArg(ids), r.req.ProjectID, r.req.SubjectID}, func(row scanner) error {
			e, err := scanEpisode(row)
			if err == nil {
				add(e)
			}
			return err
		})
	if err != nil {
		return fmt.Errorf("store: recall episodes by vector: %w", err)
	}
	return nil
}

func (r recallSemantic) Events(ctx context.Context, seqs []int64, add func(*governance.Event)) error {
	err := queryAll(ctx, r.s.read, `SELECT `+eventColumns+` FROM events e
		WHERE e.seq IN (SELECT value FROM json_each(?)) AND e.project_id = ? AND e.subject_id IN ('', ?)
			AND e.redacted = 0 AND e.kind = 'message' ORDER BY e.seq`,
		[]any{listArg(seqs), r.req.ProjectID, r.req.SubjectID}, func(row scanner) error {
			e, err := scanEvent(row)
			if err == nil {
				add(e)
			}
			return err
		})
	if err != nil {
		return fmt.Errorf("store: recall events by vector: %w", err)
	}
	return nil
}

// recallRecorder is recall.Recorder in SQLite.
type recallRecorder struct{ s *Store }

func (r recallRecorder) RuleSources(ctx context.Context, ids []int64, add func(int64, string, int)) error {
	err := queryAll(ctx, r.s.read, `
		SELECT c.rule_id, c.session_id, COUNT(DISTINCT v.event_seq)
		FROM candidates c JOIN evidence v ON v.candidate_id = c.id
		WHERE c.rule_id IN (SELECT value FROM json_each(?))
		GROUP BY c.rule_id, c.session_id ORDER BY c.rule_id, MIN(v.event_seq)`, []any{listArg(ids)}, func(row scanner) error {
		return recall.SourceRow(row.Scan, add)
	})
	if err != nil {
		return fmt.Errorf("store: recall sources: %w", err)
	}
	return nil
}

func (r recallRecorder) SaveTrace(ctx context.Context, t recall.Trace, used []int64) (int64, error) {
	tx, err := r.s.begin(ctx, "SaveTrace")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `
		INSERT INTO recall_traces (project_id, subject_id, actor, task_hash, trace, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		t.ProjectID, t.SubjectID, t.Actor, t.TaskHash, t.Body, formatTime(tx.now))
	if err != nil {
		return 0, fmt.Errorf("store: insert recall trace: %w", err)
	}
	id, _ := res.LastInsertId()
	if len(used) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE rules SET last_used_at = ?, use_count = use_count + 1 WHERE id IN (SELECT value FROM json_each(?))`,
			formatTime(tx.now), listArg(used)); err != nil {
			return 0, fmt.Errorf("store: count rule use: %w", err)
		}
	}
	return id, tx.Commit()
}

// FindRecallTraces lists stored recall traces, newest first.
func (s *Store) FindRecallTraces(ctx context.Context, f governance.RecallTraceFilter) ([]*governance.RecallTraceInfo, int, error) {
	where, args := []string{"1 = 1"}, []any{}
	if f.ID != 0 {
		where, args = append(where, "id = ?"), append(args, f.ID)
	}
	if f.ProjectID != 0 {
		where, args = append(where, "project_id = ?"), append(args, f.ProjectID)
	}
	if f.SubjectID != nil {
		where, args = append(where, "subject_id = ?"), append(args, *f.SubjectID)
	}
	if f.RuleID != 0 {
		where, args = append(where, "instr(trace, ?) > 0"), append(args, recall.TraceRuleNeedle(f.RuleID))
	}
	var (
		out   []*governance.RecallTraceInfo
		total int
	)
	err := queryAll(ctx, s.read, `
		SELECT id, project_id, subject_id, actor, task_hash, trace, created_at, COUNT(*) OVER ()
		FROM recall_traces WHERE `+strings.Join(where, " AND ")+` ORDER BY id DESC`+pageSQL, pageArgs(args, f.Limit, f.Offset),
		func(r scanner) error {
			var (
				t             governance.RecallTraceInfo
				body, created string
			)
			if err := r.Scan(&t.ID, &t.ProjectID, &t.SubjectID, &t.Actor, &t.TaskHash, &body, &created, &total); err != nil {
				return err
			}
			if err := recall.DecodeTrace(&t, body); err != nil {
				return fmt.Errorf("store: %w", err)
			}
			t.CreatedAt = parseTime(created)
			out = append(out, &t)
			return nil
		})
	if err != nil {
		return nil, 0, fmt.Errorf("store: find recall traces: %w", err)
	}
	return out, total, nil
}
