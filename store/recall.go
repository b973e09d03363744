package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Limits on what recall reads for one request.
const (
	recallQueryTerms   = 64   // full-text terms taken from the task
	recallFTSEpisodes  = 100  // episodes found through the index, newest first
	recallRecentEpisod = 50   // most recent episodes of the scope
	recallEventMatches = 1000 // events found through the index, best first
	recallEpisodeTerms = 32   // terms of the episode index query
	// recallScanEpisodes: a scope with at most this many episodes offers
	// them all, without the index (no more candidates than the index and
	// the recent window give, and cheaper: the index's lists span every
	// project).
	recallScanEpisodes = recallFTSEpisodes + recallRecentEpisod
)

// recallRuleStatuses are the rule states recall considers (and explains in
// the trace); proposed, rejected and archived rules are not memories to
// recall.
var recallRuleStatuses = []any{
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
// (Recall adds the evidence of the rules it includes to their sources.)
func (s *Store) LoadRecallInput(ctx context.Context, req governance.RecallRequest) (*governance.RecallInput, error) {
	release, err := s.heavyRead(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	in := &governance.RecallInput{Now: s.Now().UTC(), Evidence: map[int64]governance.RuleEvidence{}}
	var exists bool
	err = s.read.QueryRowContext(ctx, `
		SELECT
			EXISTS (SELECT 1 FROM projects WHERE id = ?),
			(SELECT COALESCE(SUM(active), 0) FROM recall_rule_counts WHERE project_id <> ?),
			(SELECT COUNT(*) FROM rules WHERE status = 'active' AND project_id = ? AND subject_id NOT IN ('', ?)),
			(SELECT COUNT(*) FROM episodes WHERE project_id = ? AND subject_id NOT IN ('', ?))`,
		req.ProjectID, req.ProjectID, req.ProjectID, req.SubjectID, req.ProjectID, req.SubjectID).
		Scan(&exists, &in.Filtered.RulesOtherProjects, &in.Filtered.RulesOtherSubjects, &in.Filtered.EpisodesOtherSubjects)
	if err != nil {
		return nil, fmt.Errorf("store: recall scope counts: %w", err)
	}
	if !exists {
		return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	err = queryAll(ctx, s.read, `SELECT `+ruleColumns+` FROM rules r
		WHERE r.project_id = ? AND (r.subject_id = '' OR r.subject_id = ?) AND r.status IN (`+placeholders(len(recallRuleStatuses))+`)
		ORDER BY r.id`,
		append([]any{req.ProjectID, req.SubjectID}, recallRuleStatuses...), func(r scanner) error {
			rule, err := scanRule(r)
			if err == nil {
				in.Rules = append(in.Rules, rule)
			}
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("store: recall rules: %w", err)
	}
	if err := s.loadRecallEpisodes(ctx, req, in); err != nil {
		return nil, err
	}
	if req.IncludeEvents {
		if err := s.loadRecallEvents(ctx, req, in); err != nil {
			return nil, err
		}
	}
	if s.Embedder != nil {
		if err := s.loadRecallSemantic(ctx, req, in); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// recallEmbedTimeout bounds the embedding of a task: past it recall ranks
// by words alone rather than keep an agent waiting.
const recallEmbedTimeout = 5 * time.Second

// loadRecallSemantic embeds the task and finds, per kind, the in-scope
// memories whose vectors are closest to it; episodes and events among them
// that the words did not find are added to the candidates. A failed
// embedding call is no error: the trace says so and the words rank alone.
func (s *Store) loadRecallSemantic(ctx context.Context, req governance.RecallRequest, in *governance.RecallInput) error {
	model := s.Embedder.EmbedModel()
	in.Semantic = &governance.RecallSemantic{Model: model}
	w := governance.DefaultRecallWeights()
	ectx, cancel := context.WithTimeout(ctx, recallEmbedTimeout)
	vecs, err := s.Embedder.Embed(ectx, []string{strings.TrimSpace(req.Task + " " + req.TaskType)})
	cancel()
	if err == nil && (len(vecs) != 1 || governance.Normalized(vecs[0]) == nil) {
		err = fmt.Errorf("no usable vector")
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		in.Semantic.Error = "The task could not be embedded; relevance is the words' alone."
		return nil
	}
	q := governance.Normalized(vecs[0])
	top := func(kind governance.RecallKind) ([]governance.SemanticHit, error) {
		var hits []governance.SemanticHit
		err := queryAll(ctx, s.read, `
			SELECT item_id, vector FROM embeddings
			WHERE project_id = ? AND model = ? AND kind = ? AND subject_id IN ('', ?)`,
			[]any{req.ProjectID, model, string(kind), req.SubjectID}, func(r scanner) error {
				var (
					id  int64
					vec []byte
				)
				if err := r.Scan(&id, &vec); err != nil {
					return err
				}
				hits = append(hits, governance.SemanticHit{ID: id, Cosine: dotEncoded(q, vec)})
				return nil
			})
		if err != nil {
			return nil, fmt.Errorf("store: recall %s vectors: %w", kind, err)
		}
		return governance.TopSemantic(hits, w.SemanticTopK, w.MinCosine), nil
	}
	if in.Semantic.Rules, err = top(governance.RecallKindRule); err != nil {
		return err
	}
	if in.Semantic.Episodes, err = top(governance.RecallKindEpisode); err != nil {
		return err
	}
	have := map[int64]bool{}
	for _, e := range in.Episodes {
		have[e.Episode.ID] = true
	}
	var missing []int64
	for _, h := range in.Semantic.Episodes {
		if !have[h.ID] {
			missing = append(missing, h.ID)
		}
	}
	if len(missing) > 0 {
		err := queryAll(ctx, s.read, `SELECT `+episodeColumns+` FROM episodes e
			WHERE e.id IN (SELECT value FROM json_each(?)) AND e.project_id = ? AND e.subject_id IN ('', ?) ORDER BY e.id`,
			[]any{listArg(missing), req.ProjectID, req.SubjectID}, func(r scanner) error {
				e, err := scanEpisode(r)
				if err == nil {
					in.Episodes = append(in.Episodes, governance.RecallEpisode{Episode: e})
				}
				return err
			})
		if err != nil {
			return fmt.Errorf("store: recall episodes by vector: %w", err)
		}
	}
	if !req.IncludeEvents {
		return nil
	}
	if in.Semantic.Events, err = top(governance.RecallKindEvent); err != nil {
		return err
	}
	clear(have)
	for _, e := range in.Events {
		have[e.Event.Seq] = true
	}
	missing = missing[:0]
	for _, h := range in.Semantic.Events {
		if !have[h.ID] {
			missing = append(missing, h.ID)
		}
	}
	if len(missing) > 0 {
		err := queryAll(ctx, s.read, `SELECT `+eventColumns+` FROM events e
			WHERE e.seq IN (SELECT value FROM json_each(?)) AND e.project_id = ? AND e.subject_id IN ('', ?)
				AND e.redacted = 0 AND e.kind = 'message' ORDER BY e.seq`,
			[]any{listArg(missing), req.ProjectID, req.SubjectID}, func(r scanner) error {
				e, err := scanEvent(r)
				if err == nil {
					in.Events = append(in.Events, governance.RecallEvent{Event: e})
				}
				return err
			})
		if err != nil {
			return fmt.Errorf("store: recall events by vector: %w", err)
		}
	}
	return nil
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
	err := queryAll(ctx, s.read, `
		SELECT c.rule_id, c.session_id, COUNT(DISTINCT v.event_seq)
		FROM candidates c JOIN evidence v ON v.candidate_id = c.id
		WHERE c.rule_id IN (SELECT value FROM json_each(?))
		GROUP BY c.rule_id, c.session_id ORDER BY c.rule_id, MIN(v.event_seq)`, []any{listArg(ids)}, func(r scanner) error {
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
		return fmt.Errorf("store: recall sources: %w", err)
	}
	return nil
}

// loadRecallEpisodes offers every in-scope episode when the scope holds
// few (recallScanEpisodes), else the most recent in-scope episodes and the
// in-scope episodes of any age (the newest recallFTSEpisodes of them) that
// recall's
// scope-partitioned index (episodes_recall) finds for any of the task's CJK
// character pairs or words; the engine ranks them (BM25 over the scope's
// episodes, whose number it is told).
func (s *Store) loadRecallEpisodes(ctx context.Context, req governance.RecallRequest, in *governance.RecallInput) error {
	seen := map[int64]bool{}
	add := func(r scanner) error {
		e, err := scanEpisode(r)
		if err == nil && !seen[e.ID] {
			seen[e.ID] = true
			in.Episodes = append(in.Episodes, governance.RecallEpisode{Episode: e})
		}
		return err
	}
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes WHERE project_id = ? AND subject_id IN ('', ?)`,
		req.ProjectID, req.SubjectID).Scan(&in.Corpus.Episodes)
	if err != nil {
		return fmt.Errorf("store: recall episode count: %w", err)
	}
	if in.Corpus.Episodes == 0 {
		return nil
	}
	if in.Corpus.Episodes <= recallScanEpisodes {
		err := queryAll(ctx, s.read, `
			SELECT `+episodeColumns+` FROM episodes e
			WHERE e.project_id = ? AND e.subject_id IN ('', ?) ORDER BY e.id`,
			[]any{req.ProjectID, req.SubjectID}, add)
		if err != nil {
			return fmt.Errorf("store: recall scope episodes: %w", err)
		}
		return nil
	}
	if q := recallEpisodeMatch(req); q != "" {
		err := queryAll(ctx, s.read, `
			SELECT `+episodeColumns+`
			FROM episodes_recall JOIN episodes e ON e.id = episodes_recall.rowid
			WHERE episodes_recall MATCH ? AND e.project_id = ? AND (e.subject_id = '' OR e.subject_id = ?)
			ORDER BY episodes_recall.rowid DESC LIMIT ?`,
			[]any{q, req.ProjectID, req.SubjectID, recallFTSEpisodes}, add)
		if err != nil {
			return fmt.Errorf("store: recall episodes by text: %w", err)
		}
	}
	err = queryAll(ctx, s.read, `
		SELECT `+episodeColumns+` FROM episodes e
		WHERE e.project_id = ? AND e.subject_id IN ('', ?)
		ORDER BY e.last_seq DESC LIMIT ?`,
		[]any{req.ProjectID, req.SubjectID, recallRecentEpisod}, add)
	if err != nil {
		return fmt.Errorf("store: recall recent episodes: %w", err)
	}
	return nil
}

// recallScope is the MATCH expression selecting req's scope in an index
// with a scope column: the project, and project-wide or the subject's rows.
func recallScope(req governance.RecallRequest) string {
	scope := fmt.Sprintf("scope:p%d AND (scope:s0", req.ProjectID)
	if req.SubjectID != "" {
		scope += " OR scope:s" + strings.ToUpper(hex.EncodeToString([]byte(req.SubjectID))) + "0"
	}
	return scope + ")"
}

// recallEpisodeMatch builds the episodes_recall query for req: its scope
// AND any of the task's CJK character pairs (grams column) and words (text
// column, porter stems). "" when the task has no such term.
func recallEpisodeMatch(req governance.RecallRequest) string {
	text := req.Task + " " + req.TaskType
	var terms []string
	seen := map[string]bool{}
	add := func(t string) {
		if t != "" && !seen[t] && len(terms) < recallEpisodeTerms {
			seen[t] = true
			terms = append(terms, ftsPhrase(t))
		}
	}
	for _, pair := range strings.Fields(cjkBigrams(text)) {
		add(pair)
	}
	for _, w := range tokenizer.Words(text) {
		if len(w) > 1 && !tokenizer.IsStopWord(w) {
			add(w)
		}
	}
	if len(terms) == 0 {
		return ""
	}
	return recallScope(req) + " AND {grams text}: (" + strings.Join(terms, " OR ") + ")"
}

// recallEventMatch builds the events_words query for req: its scope AND
// any of the task's terms. "" when the task has none.
func recallEventMatch(req governance.RecallRequest) string {
	var terms []string
	seen := map[string]bool{}
	// Words, CJK character pairs and lone characters: the single characters
	// of longer runs would match nearly every Chinese event; they still
	// count in the engine's score of the events found.
	tokenizer.PhraseTokens(req.Task+" "+req.TaskType, func(t string, _ int) {
		if !seen[t] && len(terms) < recallQueryTerms {
			seen[t] = true
			terms = append(terms, ftsPhrase(t))
		}
	})
	if len(terms) == 0 {
		return ""
	}
	return recallScope(req) + " AND terms: (" + strings.Join(terms, " OR ") + ")"
}

// loadRecallEvents offers the in-scope, unredacted message events holding
// any term of the task, however old (at most recallEventMatches, those
// FTS5 ranks best), and the size of the scope's event corpus; the engine
// ranks them with the scope's own statistics.
func (s *Store) loadRecallEvents(ctx context.Context, req governance.RecallRequest, in *governance.RecallInput) error {
	q := recallEventMatch(req)
	if q == "" {
		return nil
	}
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE project_id = ? AND subject_id IN ('', ?)`,
		req.ProjectID, req.SubjectID).Scan(&in.Corpus.Events)
	if err != nil {
		return fmt.Errorf("store: recall event count: %w", err)
	}
	err = queryAll(ctx, s.read, `
		SELECT `+eventColumns+`
		FROM (SELECT rowid FROM events_words WHERE events_words MATCH ? ORDER BY rank LIMIT ?) w
		JOIN events e ON e.seq = w.rowid
		WHERE e.project_id = ? AND e.subject_id IN ('', ?) AND e.redacted = 0 AND e.kind = 'message'
		ORDER BY e.seq`,
		[]any{q, recallEventMatches, req.ProjectID, req.SubjectID}, func(r scanner) error {
			e, err := scanEvent(r)
			if err == nil {
				in.Events = append(in.Events, governance.RecallEvent{Event: e})
			}
			return err
		})
	if err != nil {
		return fmt.Errorf("store: recall events: %w", err)
	}
	return nil
}

// recallTraceRecord is what recall_traces.trace holds: the request's shape
// and the trace, never the task text or memory text.
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
		return fmt.Errorf("store: encode recall trace: %w", err)
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	sum := sha256.Sum256([]byte(req.Task))
	res, err := tx.ExecContext(ctx, `
		INSERT INTO recall_traces (project_id, subject_id, actor, task_hash, trace, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		req.ProjectID, req.SubjectID, actor, hex.EncodeToString(sum[:]), string(body), formatTime(tx.now))
	if err != nil {
		return fmt.Errorf("store: insert recall trace: %w", err)
	}
	pkg.Trace.ID, _ = res.LastInsertId()
	if !req.Preview {
		var ids []int64
		for _, it := range pkg.Items {
			if it.Kind == governance.RecallKindRule {
				ids = append(ids, it.Source.RuleID)
			}
		}
		if len(ids) > 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE rules SET last_used_at = ?, use_count = use_count + 1 WHERE id IN (SELECT value FROM json_each(?))`,
				formatTime(tx.now), listArg(ids)); err != nil {
				return fmt.Errorf("store: count rule use: %w", err)
			}
		}
	}
	return tx.Commit()
}

// FindRecallTraces lists stored recall traces, newest first.
func (s *Store) FindRecallTraces(ctx context.Context, f governance.RecallTraceFilter) ([]*governance.RecallTraceInfo, int, error) {
	where, args := []string{"1 = 1"}, []any{}
	if f.ProjectID != 0 {
		where, args = append(where, "project_id = ?"), append(args, f.ProjectID)
	}
	if f.SubjectID != nil {
		where, args = append(where, "subject_id = ?"), append(args, *f.SubjectID)
	}
	if f.RuleID != 0 {
		where, args = append(where, "instr(trace, ?) > 0"), append(args, `"id":"`+governance.RecallRuleID(f.RuleID)+`"`)
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
				rec           recallTraceRecord
			)
			if err := r.Scan(&t.ID, &t.ProjectID, &t.SubjectID, &t.Actor, &t.TaskHash, &body, &created, &total); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(body), &rec); err != nil {
				return fmt.Errorf("store: decode recall trace %d: %w", t.ID, err)
			}
			t.CreatedAt = parseTime(created)
			t.Budget, t.Used, t.Preview, t.Trace = rec.Budget, rec.Used, rec.Preview, rec.Trace
			t.Trace.ID = t.ID
			out = append(out, &t)
			return nil
		})
	if err != nil {
		return nil, 0, fmt.Errorf("store: find recall traces: %w", err)
	}
	return out, total, nil
}
