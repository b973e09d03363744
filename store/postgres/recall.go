package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Recall on PostgreSQL: the store finds the candidates — the in-scope
// rules, the episodes and events whose words column holds a term of the
// task — and governance.Recall ranks them with the same relevance model
// as on SQLite (BM25 over the scope's documents, computed in Go), so both
// backends answer from the same scoring code; only candidate retrieval is
// the engine's (storetest.TestRecallContract holds them to one results
// contract).

// Limits on what recall reads for one request (the SQLite store's).
const (
	recallQueryTerms   = 64   // full-text terms taken from the task
	recallFTSEpisodes  = 100  // episodes found through the index, newest first
	recallRecentEpisod = 50   // most recent episodes of the scope
	recallEventMatches = 1000 // events found through the index, best first
	recallEpisodeTerms = 32   // terms of the episode index query
)

// recallRuleStatuses are the rule states recall considers (and explains in
// the trace); proposed, rejected and archived rules are not memories to
// recall.
var recallRuleStatuses = []string{
	string(governance.RuleActive), string(governance.RuleStale),
	string(governance.RuleSuperseded), string(governance.RuleForgotten),
}

// Recall builds the context package for a task: the hard scope filter runs
// first, in SQL; what it removed is only counted. The trace (ids, scores,
// reasons, never memory text) is stored, and the included rules' last use
// and use count are updated unless the request is a preview.
func (s *Store) Recall(ctx context.Context, actor string, req governance.RecallRequest) (*governance.RecallPackage, error) {
	req.Normalize()
	if err := req.Validate(); err != nil {
		return nil, err
	}
	in, err := s.LoadRecallInput(ctx, req)
	if err != nil {
		return nil, err
	}
	pkg := governance.Recall(req, *in, governance.DefaultRecallWeights())
	if err := s.fillRecallSources(ctx, pkg); err != nil {
		return nil, err
	}
	if err := s.recordRecall(ctx, actor, req, pkg); err != nil {
		return nil, err
	}
	return pkg, nil
}

// LoadRecallInput gathers what recall considers for req: the in-scope rules,
// the most recent in-scope episodes plus those the full-text index finds,
// matching raw events when asked, and the counts of active rules and
// episodes the scope filter removed. An unknown project is ENOTFOUND.
func (s *Store) LoadRecallInput(ctx context.Context, req governance.RecallRequest) (*governance.RecallInput, error) {
	in := &governance.RecallInput{Now: s.Now().UTC(), Evidence: map[int64]governance.RuleEvidence{}}
	var exists bool
	err := s.pool.QueryRow(ctx, `
		SELECT
			EXISTS (SELECT 1 FROM projects WHERE id = $1),
			(SELECT COALESCE(sum(active), 0) FROM recall_rule_counts WHERE project_id <> $1),
			(SELECT count(*) FROM rules WHERE status = 'active' AND project_id = $1 AND subject_id NOT IN ('', $2)),
			(SELECT count(*) FROM episodes WHERE project_id = $1 AND subject_id NOT IN ('', $2)),
			(SELECT count(*) FROM episodes WHERE project_id = $1 AND subject_id IN ('', $2))`,
		req.ProjectID, req.SubjectID).
		Scan(&exists, &in.Filtered.RulesOtherProjects, &in.Filtered.RulesOtherSubjects, &in.Filtered.EpisodesOtherSubjects,
			&in.Corpus.Episodes)
	if err != nil {
		return nil, fmt.Errorf("postgres: recall scope counts: %w", err)
	}
	if !exists {
		return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	err = queryAll(ctx, s.pool, `SELECT `+ruleColumns+` FROM rules r
		WHERE r.project_id = $1 AND r.subject_id IN ('', $2) AND r.status = ANY($3)
		ORDER BY r.id`, []any{req.ProjectID, req.SubjectID, recallRuleStatuses}, func(r pgx.Row) error {
		rule, err := scanRule(r)
		if err == nil {
			in.Rules = append(in.Rules, rule)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: recall rules: %w", err)
	}
	if in.Corpus.Episodes > 0 {
		if err := s.loadRecallEpisodes(ctx, req, in); err != nil {
			return nil, err
		}
	}
	if req.IncludeEvents {
		if err := s.loadRecallEvents(ctx, req, in); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// fillRecallSources adds to each included rule of pkg the sessions it was
// learned from and the number of events supporting it.
func (s *Store) fillRecallSources(ctx context.Context, pkg *governance.RecallPackage) error {
	at := map[int64]int{}
	var ids []int64
	for i, it := range pkg.Items {
		if it.Kind == governance.RecallKindRule {
			at[it.Source.RuleID] = i
			ids = append(ids, it.Source.RuleID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	err := queryAll(ctx, s.pool, `
		SELECT c.rule_id, c.session_id, count(DISTINCT v.event_seq)
		FROM candidates c JOIN evidence v ON v.candidate_id = c.id
		WHERE c.rule_id = ANY($1)
		GROUP BY c.rule_id, c.session_id ORDER BY c.rule_id, min(v.event_seq)`, []any{ids}, func(r pgx.Row) error {
		var (
			id      int64
			session string
			n       int
		)
		if err := r.Scan(&id, &session, &n); err != nil {
			return err
		}
		src := &pkg.Items[at[id]].Source
		src.SessionIDs = append(src.SessionIDs, session)
		src.EvidenceEvents += n
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres: recall sources: %w", err)
	}
	return nil
}

// loadRecallEpisodes offers the most recent in-scope episodes and the
// in-scope episodes of any age (the newest recallFTSEpisodes of them)
// whose words hold any of the task's CJK character pairs or words; the
// engine ranks them.
func (s *Store) loadRecallEpisodes(ctx context.Context, req governance.RecallRequest, in *governance.RecallInput) error {
	seen := map[int64]bool{}
	add := func(r pgx.Row) error {
		e, err := scanEpisode(r)
		if err == nil && !seen[e.ID] {
			seen[e.ID] = true
			in.Episodes = append(in.Episodes, governance.RecallEpisode{Episode: e})
		}
		return err
	}
	if q := recallEpisodeQuery(req); q != "" {
		err := queryAll(ctx, s.pool, `
			SELECT `+episodeColumns+` FROM episodes e
			WHERE e.project_id = $1 AND e.subject_id IN ('', $2) AND e.words @@ $3::tsquery
			ORDER BY e.id DESC LIMIT $4`,
			[]any{req.ProjectID, req.SubjectID, q, recallFTSEpisodes}, add)
		if err != nil {
			return fmt.Errorf("postgres: recall episodes by text: %w", err)
		}
	}
	err := queryAll(ctx, s.pool, `
		SELECT `+episodeColumns+` FROM episodes e
		WHERE e.project_id = $1 AND e.subject_id IN ('', $2)
		ORDER BY e.last_seq DESC LIMIT $3`,
		[]any{req.ProjectID, req.SubjectID, recallRecentEpisod}, add)
	if err != nil {
		return fmt.Errorf("postgres: recall recent episodes: %w", err)
	}
	return nil
}

// recallEpisodeQuery is the tsquery finding episodes for req: any of the
// task's CJK character pairs, then its words (stems, no stop words), as
// the SQLite store's episode index query reads the task. "" when the task
// has no such term.
func recallEpisodeQuery(req governance.RecallRequest) string {
	var pairs, words []string
	seen := map[string]bool{}
	tokenizer.PhraseTokens(req.Task+" "+req.TaskType, func(t string, _ int) {
		if seen[t] || len(t) > maxLexemeBytes {
			return
		}
		seen[t] = true
		r, _ := utf8.DecodeRuneInString(t)
		switch {
		case !tokenizer.IsCJK(r):
			words = append(words, t)
		case utf8.RuneCountInString(t) == 2:
			pairs = append(pairs, t)
		}
	})
	return anyOf(append(pairs, words...), recallEpisodeTerms)
}

// recallEventQuery is the tsquery finding events for req: any of the
// task's words, CJK character pairs and lone characters (the single
// characters of longer runs would match nearly every Chinese event).
func recallEventQuery(req governance.RecallRequest) string {
	var terms []string
	seen := map[string]bool{}
	tokenizer.PhraseTokens(req.Task+" "+req.TaskType, func(t string, _ int) {
		if !seen[t] && len(t) <= maxLexemeBytes {
			seen[t] = true
			terms = append(terms, t)
		}
	})
	return anyOf(terms, recallQueryTerms)
}

// anyOf is the tsquery matching any of the first limit terms.
func anyOf(terms []string, limit int) string {
	terms = terms[:min(len(terms), limit)]
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = quoteLexeme(t)
	}
	return strings.Join(q, " | ")
}

// loadRecallEvents offers the in-scope, unredacted message events holding
// any term of the task, however old (at most recallEventMatches, those
// ts_rank ranks best), and the size of the scope's event corpus; the
// engine ranks them with the scope's own statistics.
func (s *Store) loadRecallEvents(ctx context.Context, req governance.RecallRequest, in *governance.RecallInput) error {
	q := recallEventQuery(req)
	if q == "" {
		return nil
	}
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE project_id = $1 AND subject_id IN ('', $2)`,
		req.ProjectID, req.SubjectID).Scan(&in.Corpus.Events)
	if err != nil {
		return fmt.Errorf("postgres: recall event count: %w", err)
	}
	err = queryAll(ctx, s.pool, `
		SELECT `+eventColumns+` FROM (
			SELECT e.* FROM events e
			WHERE e.project_id = $1 AND e.subject_id IN ('', $2) AND NOT e.redacted AND e.kind = 'message'
				AND e.words @@ $3::tsquery
			ORDER BY ts_rank(e.words, $3::tsquery, 16) DESC, e.seq DESC LIMIT $4) e
		ORDER BY e.seq`,
		[]any{req.ProjectID, req.SubjectID, q, recallEventMatches}, func(r pgx.Row) error {
			e, err := scanEvent(r)
			if err == nil {
				in.Events = append(in.Events, governance.RecallEvent{Event: e})
			}
			return err
		})
	if err != nil {
		return fmt.Errorf("postgres: recall events: %w", err)
	}
	return nil
}

// recallTraceRecord is what recall_traces.trace holds: the request's shape
// and the trace, never the task text or memory text (the SQLite store's
// record, so traces read the same on both).
type recallTraceRecord struct {
	TaskType      string                 `json:"task_type,omitempty"`
	Risk          string                 `json:"risk,omitempty"`
	Budget        governance.Budget      `json:"budget"`
	IncludeEvents bool                   `json:"include_events,omitempty"`
	Preview       bool                   `json:"preview,omitempty"`
	Used          int                    `json:"used"`
	Trace         governance.RecallTrace `json:"trace"`
}

// recordRecall stores the trace and counts the use of the included rules.
func (s *Store) recordRecall(ctx context.Context, actor string, req governance.RecallRequest, pkg *governance.RecallPackage) error {
	body, err := json.Marshal(recallTraceRecord{
		TaskType: req.TaskType, Risk: req.Risk, Budget: pkg.Budget, IncludeEvents: req.IncludeEvents,
		Preview: req.Preview, Used: pkg.Used, Trace: pkg.Trace,
	})
	if err != nil {
		return fmt.Errorf("postgres: encode recall trace: %w", err)
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	sum := sha256.Sum256([]byte(req.Task))
	err = tx.QueryRow(ctx, `
		INSERT INTO recall_traces (project_id, subject_id, actor, task_hash, trace, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		req.ProjectID, req.SubjectID, actor, hex.EncodeToString(sum[:]), string(body), tx.now).Scan(&pkg.Trace.ID)
	if err != nil {
		return fmt.Errorf("postgres: insert recall trace: %w", err)
	}
	if !req.Preview {
		var ids []int64
		for _, it := range pkg.Items {
			if it.Kind == governance.RecallKindRule {
				ids = append(ids, it.Source.RuleID)
			}
		}
		if len(ids) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE rules SET last_used_at = $1, use_count = use_count + 1 WHERE id = ANY($2)`,
				tx.now, ids); err != nil {
				return fmt.Errorf("postgres: count rule use: %w", err)
			}
		}
	}
	return tx.Commit(ctx)
}

// FindRecallTraces lists stored recall traces, newest first.
func (s *Store) FindRecallTraces(ctx context.Context, f governance.RecallTraceFilter) ([]*governance.RecallTraceInfo, int, error) {
	w := &where{}
	w.add("true")
	if f.ProjectID != 0 {
		w.add("project_id = ?", f.ProjectID)
	}
	if f.SubjectID != nil {
		w.add("subject_id = ?", *f.SubjectID)
	}
	if f.RuleID != 0 {
		w.add("strpos(trace, ?) > 0", `"id":"`+governance.RecallRuleID(f.RuleID)+`"`)
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
				rec  recallTraceRecord
			)
			if err := r.Scan(&t.ID, &t.ProjectID, &t.SubjectID, &t.Actor, &t.TaskHash, &body, &t.CreatedAt, &total); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(body), &rec); err != nil {
				return fmt.Errorf("postgres: decode recall trace %d: %w", t.ID, err)
			}
			t.CreatedAt = t.CreatedAt.UTC()
			t.Budget, t.Used, t.Preview, t.Trace = rec.Budget, rec.Used, rec.Preview, rec.Trace
			t.Trace.ID = t.ID
			out = append(out, &t)
			return nil
		})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find recall traces: %w", err)
	}
	return out, total, nil
}
