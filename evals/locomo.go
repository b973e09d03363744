package evals

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-console/mnemo/governance"
)

// Conversation is one LoCoMo sample: sessions of turns and QA items whose
// evidence names turns by dia_id.
type Conversation struct {
	ID       string
	SpeakerA string
	SpeakerB string
	Sessions []*LoCoMoSession
	QA       []*QA
	// BadEvidence counts evidence ids that were malformed or name no turn.
	BadEvidence int
}

// LoCoMoSession is one session of a conversation.
type LoCoMoSession struct {
	N     int
	At    time.Time
	Turns []*Turn
}

// Turn is one dialogue turn.
type Turn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
}

// QA is one question with the turns that hold its answer.
type QA struct {
	Question string
	Answer   string
	// Evidence are the normalised dia_ids that exist in the conversation.
	Evidence []string
	Category int
}

// LoCoMo categories (as numbered in the data set).
var LoCoMoCategories = map[int]string{
	1: "multi-hop",
	2: "temporal",
	3: "open-domain",
	4: "single-hop",
	5: "adversarial",
}

// CategoryName names a LoCoMo category.
func CategoryName(c int) string {
	if n, ok := LoCoMoCategories[c]; ok {
		return n
	}
	return "category " + strconv.Itoa(c)
}

type locomoSample struct {
	SampleID     json.RawMessage            `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question          string          `json:"question"`
		Answer            json.RawMessage `json:"answer"`
		AdversarialAnswer json.RawMessage `json:"adversarial_answer"`
		Evidence          json.RawMessage `json:"evidence"`
		Category          json.RawMessage `json:"category"`
	} `json:"qa"`
}

var (
	sessionKeyRe = regexp.MustCompile(`^session_(\d+)$`)
	diaIDRe      = regexp.MustCompile(`(?i)^D\s*:?\s*(\d+)\s*:\s*(\d+)$`)
	diaIDFindRe  = regexp.MustCompile(`(?i)D\s*:?\s*\d+\s*:\s*\d+`)
)

// ParseLoCoMo reads a LoCoMo-format file: a JSON array of samples (or an
// object with a "samples" array). Malformed evidence ids (and ids naming
// no turn) are dropped and counted; QA items keep an empty evidence list.
func ParseLoCoMo(r io.Reader) ([]*Conversation, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSuiteBytes+1))
	if err != nil {
		return nil, err
	}
	var samples []locomoSample
	if err := json.Unmarshal(data, &samples); err != nil {
		var wrapped struct {
			Samples []locomoSample `json:"samples"`
		}
		if err2 := json.Unmarshal(data, &wrapped); err2 != nil || wrapped.Samples == nil {
			return nil, fmt.Errorf("not a LoCoMo file (a JSON array of samples): %v", jsonProblem(err))
		}
		samples = wrapped.Samples
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("the file holds no conversations")
	}
	var out []*Conversation
	seen := map[string]bool{}
	for i, s := range samples {
		c, err := parseSample(i, s)
		if err != nil {
			return nil, err
		}
		if seen[c.ID] {
			c.ID = fmt.Sprintf("%s-%d", c.ID, i+1)
		}
		seen[c.ID] = true
		out = append(out, c)
	}
	return out, nil
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return err.Error()
}

func parseSample(i int, s locomoSample) (*Conversation, error) {
	c := &Conversation{ID: rawString(s.SampleID)}
	if c.ID == "" {
		c.ID = fmt.Sprintf("conv-%d", i+1)
	}
	c.ID = regexp.MustCompile(`[^A-Za-z0-9._:-]+`).ReplaceAllString(c.ID, "-")
	if s.Conversation == nil {
		return nil, fmt.Errorf("sample %d (%s): conversation is missing", i+1, c.ID)
	}
	c.SpeakerA = rawString(s.Conversation["speaker_a"])
	c.SpeakerB = rawString(s.Conversation["speaker_b"])
	turns := map[string]bool{}
	for key, raw := range s.Conversation {
		m := sessionKeyRe.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		var ts []*Turn
		if err := json.Unmarshal(raw, &ts); err != nil {
			return nil, fmt.Errorf("sample %d (%s): %s is not a list of turns: %v", i+1, c.ID, key, err)
		}
		sess := &LoCoMoSession{N: n, At: parseLoCoMoTime(rawString(s.Conversation[key+"_date_time"]), n)}
		for j, t := range ts {
			if t == nil || strings.TrimSpace(t.Text) == "" {
				continue
			}
			id, ok := normalizeDiaID(t.DiaID)
			if !ok {
				id = fmt.Sprintf("D%d:%d", n, j+1)
			}
			t.DiaID = id
			turns[id] = true
			sess.Turns = append(sess.Turns, t)
		}
		c.Sessions = append(c.Sessions, sess)
	}
	slices.SortFunc(c.Sessions, func(a, b *LoCoMoSession) int { return cmp.Compare(a.N, b.N) })
	for _, q := range s.QA {
		qa := &QA{Question: strings.TrimSpace(q.Question), Answer: rawString(q.Answer), Category: rawInt(q.Category)}
		if qa.Answer == "" {
			qa.Answer = rawString(q.AdversarialAnswer)
		}
		if qa.Question == "" {
			continue
		}
		for _, e := range evidenceIDs(q.Evidence) {
			id, ok := normalizeDiaID(e)
			if !ok || !turns[id] {
				c.BadEvidence++
				continue
			}
			if !slices.Contains(qa.Evidence, id) {
				qa.Evidence = append(qa.Evidence, id)
			}
		}
		c.QA = append(c.QA, qa)
	}
	return c, nil
}

// evidenceIDs flattens evidence: a list of strings, one string, ids joined
// by ";" or ",", or nested lists.
func evidenceIDs(raw json.RawMessage) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			for _, p := range strings.FieldsFunc(t, func(r rune) bool { return r == ';' || r == ',' }) {
				if p = strings.TrimSpace(p); p == "" {
					continue
				}
				if ids := diaIDFindRe.FindAllString(p, -1); len(ids) > 0 {
					out = append(out, ids...)
				} else {
					out = append(out, p) // malformed: counted by the caller
				}
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	var v any
	if json.Unmarshal(raw, &v) == nil {
		walk(v)
	}
	return out
}

// normalizeDiaID turns "D1:3", "d1:03", "D:1:3" into "D1:3".
func normalizeDiaID(s string) (string, bool) {
	m := diaIDRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", false
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return fmt.Sprintf("D%d:%d", a, b), true
}

func rawString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var v any
	if json.Unmarshal(raw, &v) == nil && v != nil {
		return strings.Trim(string(raw), `"`)
	}
	return ""
}

func rawInt(raw json.RawMessage) int {
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return int(f)
	}
	n, _ := strconv.Atoi(rawString(raw))
	return n
}

// parseLoCoMoTime reads "1:56 pm on 8 May, 2023"; unknown formats get a
// fixed date one day per session.
func parseLoCoMoTime(s string, n int) time.Time {
	for _, layout := range []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "3:04 PM on 2 January, 2006"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t.UTC()
		}
	}
	return time.Date(2023, 1, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, n)
}

// Events turns a conversation into events for a scratch project: one
// session per LoCoMo session, the subject the conversation's id, the event
// id conversation/dia_id, and the text prefixed with the speaker's name.
func (c *Conversation) Events() []*governance.Event {
	var out []*governance.Event
	for _, s := range c.Sessions {
		for j, t := range s.Turns {
			role := governance.RoleUser
			if t.Speaker != "" && t.Speaker == c.SpeakerB {
				role = governance.RoleAssistant
			}
			text := t.Text
			if t.Speaker != "" {
				text = t.Speaker + ": " + text
			}
			out = append(out, &governance.Event{
				ID: c.ID + "/" + t.DiaID, SessionID: fmt.Sprintf("%s/session_%d", c.ID, s.N), SubjectID: c.ID,
				Turn: j + 1, Role: role, Text: text, OccurredAt: s.At.Add(time.Duration(j) * time.Second),
			})
		}
		out = append(out, &governance.Event{
			ID: fmt.Sprintf("%s/session_%d/end", c.ID, s.N), SessionID: fmt.Sprintf("%s/session_%d", c.ID, s.N),
			SubjectID: c.ID, Turn: len(s.Turns) + 1, Kind: governance.KindSessionEnd,
			OccurredAt: s.At.Add(time.Duration(len(s.Turns)) * time.Second),
		})
	}
	return out
}

// QAResult is how one retriever did on one question.
type QAResult struct {
	Question string `json:"question"`
	// Category is LoCoMo's; Type is LongMemEval's question type.
	Category int    `json:"category"`
	Type     string `json:"type,omitempty"`
	Evidence int    `json:"evidence"`
	// Ranks are the 1-based ranks of the evidence turns found in the top
	// max(10, largest k) (0 = not found), in evidence order.
	Ranks []int `json:"ranks"`
	// SessionRanks are the ranks of the answer sessions (oldest first)
	// among the sessions of the results, by their first result
	// (LongMemEval).
	SessionRanks []int `json:"session_ranks,omitempty"`
	// NewestFirst says, for a knowledge-update question whose answer
	// sessions have different dates, whether the newest ranks above every
	// older one.
	NewestFirst *bool `json:"newest_first,omitempty"`
	// Returned is how many results the retriever gave.
	Returned int `json:"returned,omitempty"`
	// Weak says the retriever found no strong match for the question
	// (recall's RecallMatch); nil for a retriever that does not say.
	Weak *bool `json:"weak,omitempty"`
}

// MetricRow aggregates one retriever over a set of questions.
type MetricRow struct {
	Retriever string  `json:"retriever"`
	Category  string  `json:"category"`
	Questions int     `json:"questions"`
	HitAt     []Score `json:"hit_at"`
	AllAt     []Score `json:"all_at"`
	NDCG10    float64 `json:"ndcg10"`
}

// Score is a metric at a cut-off.
type Score struct {
	K     int     `json:"k"`
	Value float64 `json:"value"`
}

// BenchmarkDetail is the result of one conversation.
type BenchmarkDetail struct {
	Conversation string `json:"conversation"`
	Turns        int    `json:"turns"`
	Questions    int    `json:"questions"`
	NoEvidence   int    `json:"no_evidence"`
	BadEvidence  int    `json:"bad_evidence"`
	// LongMemEval: answer turns dated after their question (left out of
	// its memory), and abstention questions (measured apart).
	LateEvidence int                   `json:"late_evidence,omitempty"`
	Abstention   int                   `json:"abstention,omitempty"`
	Results      map[string][]QAResult `json:"results"`
}

// BenchmarkTable is the benchmark's summary: per retriever, overall and per
// category.
type BenchmarkTable struct {
	K           []int       `json:"k"`
	Rows        []MetricRow `json:"rows"`
	Questions   int         `json:"questions"`
	NoEvidence  int         `json:"no_evidence"`
	BadEvidence int         `json:"bad_evidence"`
	Turns       int         `json:"turns"`
	// LongMemEval adds the same table at session level (relevant: the
	// answer sessions), the abstention questions apart, the share of
	// knowledge-update questions whose newest answer session comes first,
	// and how many answer turns were dated after their question.
	Format      string          `json:"format,omitempty"`
	SessionRows []MetricRow     `json:"session_rows,omitempty"`
	Abstention  []AbstentionRow `json:"abstention,omitempty"`
	NewestFirst []ShareRow      `json:"newest_first,omitempty"`
	// NoStrongMatch is, for each retriever that says when it found no
	// strong match, how often it said so of the abstention questions
	// (rightly) and of the answerable ones (wrongly).
	NoStrongMatch []MatchRow `json:"no_strong_match,omitempty"`
	LateEvidence  int        `json:"late_evidence,omitempty"`
}

// AbstentionRow is what one retriever returned for the questions whose
// answer is not in the haystack: results on average, and the share of
// questions where a session the question draws on (its answer_session_ids)
// is among the first ten sessions.
type AbstentionRow struct {
	Retriever string  `json:"retriever"`
	Questions int     `json:"questions"`
	Returned  float64 `json:"returned"`
	Sessions  float64 `json:"sessions_at_10"`
}

// MatchRow is how often one retriever said it found no strong match: of
// the abstention questions (the answer is not in the haystack) and of the
// answerable questions.
type MatchRow struct {
	Retriever  string  `json:"retriever"`
	Abstention int     `json:"abstention"`
	Flagged    float64 `json:"flagged"`
	Answerable int     `json:"answerable"`
	Wrongly    float64 `json:"wrongly"`
}

// ShareRow is the share of questions where something held, per retriever.
type ShareRow struct {
	Retriever string  `json:"retriever"`
	Questions int     `json:"questions"`
	Share     float64 `json:"share"`
}

const ndcgK = 10

// runConversation measures every retriever on the questions of one
// conversation (setup ingested it).
func (e *engine) runConversation(ctx context.Context, conv *Conversation) (*CaseResult, error) {
	b := e.suite.Benchmark
	projectID := e.projects["benchmark"]
	events := conv.Events()
	var baseline TextBaseline
	if slices.Contains(b.Retrievers, RetrieverFTS5) {
		var ids, texts []string
		for _, ev := range events {
			if ev.Kind != governance.KindSessionEnd {
				ids, texts = append(ids, ev.ID), append(texts, ev.Text)
			}
		}
		var err error
		if baseline, err = e.newBaseline(ctx, ids, texts); err != nil {
			return nil, err
		}
		defer baseline.Close()
	}
	limit := e.benchmarkLimit()
	d := &BenchmarkDetail{Conversation: conv.ID, Turns: len(events) - len(conv.Sessions), BadEvidence: conv.BadEvidence,
		Results: map[string][]QAResult{}}
	res := &CaseResult{CaseID: conv.ID, Kind: KindBenchmark, Detail: &Detail{Benchmark: d}}
	for _, qa := range conv.QA {
		if len(qa.Evidence) == 0 {
			d.NoEvidence++
			continue
		}
		d.Questions++
		for _, r := range b.Retrievers {
			var (
				ids []string
				err error
			)
			if r == RetrieverFTS5 {
				ids, err = baseline.Search(ctx, qa.Question, limit)
			} else {
				ids, err = e.retrieve(ctx, r, retrieval{project: projectID, subject: conv.ID, question: qa.Question, limit: limit})
			}
			if err != nil {
				return nil, fmt.Errorf("%s retrieval for %q: %w", r, qa.Question, err)
			}
			d.Results[r] = append(d.Results[r], rankEvidence(qa, ids, conv.ID, limit))
		}
	}
	res.Status = StatusPassed
	res.because(governance.Say("%d questions measured, %d without usable evidence, %d malformed evidence ids",
		d.Questions, d.NoEvidence, d.BadEvidence))
	return res, nil
}

// benchmarkLimit is how many results each retriever returns: enough for
// the largest k and for nDCG@10.
func (e *engine) benchmarkLimit() int {
	limit := ndcgK
	for _, k := range e.suite.Benchmark.K {
		limit = max(limit, k)
	}
	return limit
}

// rankEvidence finds the rank of each evidence turn among the first limit
// ids (0 = not among them).
func rankEvidence(qa *QA, ids []string, convID string, limit int) QAResult {
	r := QAResult{Question: qa.Question, Category: qa.Category, Evidence: len(qa.Evidence)}
	for _, ev := range qa.Evidence {
		rank := 0
		for i, id := range ids {
			if i >= limit {
				break
			}
			if id == convID+"/"+ev {
				rank = i + 1
				break
			}
		}
		r.Ranks = append(r.Ranks, rank)
	}
	return r
}

// newBaseline indexes texts (named by ids) in a fresh fts5 baseline.
func (e *engine) newBaseline(ctx context.Context, ids, texts []string) (TextBaseline, error) {
	bm, ok := e.deps.Memory.(BaselineMemory)
	if !ok {
		return nil, fmt.Errorf("the fts5 retriever needs a memory that can build a text baseline")
	}
	baseline, err := bm.NewTextBaseline(ctx)
	if err != nil {
		return nil, fmt.Errorf("fts5 baseline: %w", err)
	}
	if err := baseline.Add(ctx, ids, texts); err != nil {
		baseline.Close()
		return nil, fmt.Errorf("fts5 baseline: %w", err)
	}
	return baseline, nil
}

// baselineSearch is the fts5 baseline's answer to one question over texts.
func (e *engine) baselineSearch(ctx context.Context, ids, texts []string, question string, limit int) ([]string, error) {
	baseline, err := e.newBaseline(ctx, ids, texts)
	if err != nil {
		return nil, err
	}
	defer baseline.Close()
	return baseline.Search(ctx, question, limit)
}

// retrieval is one question put to a retriever: in a project, about a
// subject, as of a time (zero: now), for at most limit ids.
type retrieval struct {
	project  int64
	subject  string
	question string
	asOf     time.Time
	limit    int
}

// retrieve returns event ids, best first (at most q.limit).
func (e *engine) retrieve(ctx context.Context, retriever string, q retrieval) ([]string, error) {
	ids, _, err := e.retrieveMatch(ctx, retriever, q)
	return ids, err
}

// retrieveMatch is retrieve with whether the retriever found no strong
// match (nil: it does not say).
func (e *engine) retrieveMatch(ctx context.Context, retriever string, q retrieval) ([]string, *bool, error) {
	limit, projectID, subject, question := q.limit, q.project, q.subject, q.question
	mem := e.deps.Memory
	switch retriever {
	case RetrieverSearch:
		q := strings.Join(queryWords(question, false), " ")
		if q == "" {
			return nil, nil, nil
		}
		hits, _, err := mem.SearchEvents(ctx, governance.EventFilter{ProjectID: &projectID, SubjectID: &subject, Query: q, Limit: limit})
		if err != nil && governance.ErrorCode(err) != governance.EINVALID {
			return nil, nil, err
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Event.ID)
		}
		return out, nil, nil
	case RetrieverKeywords:
		score := map[string]int{}
		first := map[string]int{}
		n := 0
		for _, w := range queryWords(question, true) {
			hits, _, err := mem.SearchEvents(ctx, governance.EventFilter{ProjectID: &projectID, SubjectID: &subject, Query: w, Limit: 200})
			if err != nil && governance.ErrorCode(err) != governance.EINVALID {
				return nil, nil, err
			}
			for _, h := range hits {
				if _, ok := first[h.Event.ID]; !ok {
					first[h.Event.ID] = n
					n++
				}
				score[h.Event.ID]++
			}
		}
		ids := slices.Collect(mapKeys(score))
		slices.SortFunc(ids, func(a, b string) int {
			if c := cmp.Compare(score[b], score[a]); c != 0 {
				return c
			}
			return cmp.Compare(first[a], first[b])
		})
		return ids[:min(len(ids), limit)], nil, nil
	case RetrieverRecall:
		pkg, err := mem.Recall(ctx, RecallQuery{ProjectID: projectID, SubjectID: subject, Task: question, IncludeEvents: true, AsOf: q.asOf})
		if err != nil {
			return nil, nil, err
		}
		var out []string
		for _, it := range pkg.Items {
			if it.Event != "" {
				out = append(out, it.Event)
			}
		}
		var weak *bool
		if pkg.Match != nil {
			weak = &pkg.Match.Weak
		}
		return out[:min(len(out), limit)], weak, nil
	}
	return nil, nil, fmt.Errorf("unknown retriever %q", retriever)
}

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at for from by with about as is are was were be been being
		do does did done have has had having what when where which who whom whose why how that this these those there
		it its it's i me my we our you your he him his she her they them their not no yes can could would should will
		shall may might must any some all than then so if into over after before during since until up down out off
		again very just also ever likely`) {
		stopWords[w] = true
	}
}

// queryWords splits a question into words (punctuation dropped); keywords
// also drops stop words and words shorter than three characters.
func queryWords(q string, keywords bool) []string {
	var out []string
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }) {
		w = strings.Trim(w, "'")
		lw := strings.ToLower(strings.TrimSuffix(w, "'s"))
		if w == "" {
			continue
		}
		if keywords && (stopWords[lw] || len([]rune(lw)) < 3) {
			continue
		}
		if !slices.Contains(out, lw) {
			out = append(out, lw)
		}
	}
	return out
}

// benchmarkTable aggregates the conversations' (or questions') results.
func benchmarkTable(b *Benchmark, details []*BenchmarkDetail) *BenchmarkTable {
	k, retrievers := b.K, b.Retrievers
	t := &BenchmarkTable{K: k}
	if b.Format == FormatLongMemEval {
		t.Format = b.Format
	}
	byRetriever := map[string][]QAResult{}
	abstain := map[string][]QAResult{}
	for _, d := range details {
		t.Questions += d.Questions
		t.NoEvidence += d.NoEvidence
		t.BadEvidence += d.BadEvidence
		t.LateEvidence += d.LateEvidence
		t.Turns += d.Turns
		for r, rs := range d.Results {
			switch {
			case d.Abstention > 0:
				abstain[r] = append(abstain[r], rs...)
			case t.Format == "" || d.NoEvidence == 0: // a LongMemEval question without evidence is not measured
				byRetriever[r] = append(byRetriever[r], rs...)
			}
		}
	}
	for _, r := range retrievers {
		t.Rows = append(t.Rows, categoryRows(r, k, byRetriever[r], func(q QAResult) []int { return q.Ranks })...)
	}
	if t.Format == "" {
		return t
	}
	for _, r := range retrievers {
		t.SessionRows = append(t.SessionRows, categoryRows(r, k, byRetriever[r], func(q QAResult) []int { return q.SessionRanks })...)
		if rs := abstain[r]; len(rs) > 0 {
			row := AbstentionRow{Retriever: r, Questions: len(rs)}
			for _, q := range rs {
				row.Returned += float64(q.Returned)
				if slices.ContainsFunc(q.SessionRanks, func(rank int) bool { return rank > 0 && rank <= 10 }) {
					row.Sessions++
				}
			}
			row.Returned, row.Sessions = round3(row.Returned/float64(len(rs))), round3(row.Sessions/float64(len(rs)))
			t.Abstention = append(t.Abstention, row)
		}
		var n, newest int
		for _, q := range byRetriever[r] {
			if q.NewestFirst != nil {
				n++
				if *q.NewestFirst {
					newest++
				}
			}
		}
		if n > 0 {
			t.NewestFirst = append(t.NewestFirst, ShareRow{Retriever: r, Questions: n, Share: round3(float64(newest) / float64(n))})
		}
		if row, ok := matchRow(r, abstain[r], byRetriever[r]); ok {
			t.NoStrongMatch = append(t.NoStrongMatch, row)
		}
	}
	return t
}

// matchRow counts how often a retriever said it found no strong match, of
// the abstention and of the answerable questions; false when it never
// says.
func matchRow(r string, abstain, answerable []QAResult) (MatchRow, bool) {
	row := MatchRow{Retriever: r}
	var flagged, wrongly int
	for _, q := range abstain {
		if q.Weak != nil {
			row.Abstention++
			if *q.Weak {
				flagged++
			}
		}
	}
	for _, q := range answerable {
		if q.Weak != nil {
			row.Answerable++
			if *q.Weak {
				wrongly++
			}
		}
	}
	if row.Abstention+row.Answerable == 0 {
		return row, false
	}
	if row.Abstention > 0 {
		row.Flagged = round3(float64(flagged) / float64(row.Abstention))
	}
	if row.Answerable > 0 {
		row.Wrongly = round3(float64(wrongly) / float64(row.Answerable))
	}
	return row, true
}

// categoryRows are one retriever's rows, overall and per category (LoCoMo's
// by number, LongMemEval's question types by name), over the ranks each
// result gives (questions without any are left out).
func categoryRows(r string, k []int, results []QAResult, ranks func(QAResult) []int) []MetricRow {
	var rs []QAResult
	for _, q := range results {
		if rk := ranks(q); len(rk) > 0 {
			q.Ranks = rk
			rs = append(rs, q)
		}
	}
	rows := []MetricRow{metricRow(r, "overall", k, rs)}
	cats := map[string][]QAResult{}
	for _, q := range rs {
		c := q.Type
		if c == "" {
			c = fmt.Sprintf("%d %s", q.Category, CategoryName(q.Category))
		}
		cats[c] = append(cats[c], q)
	}
	for _, c := range slices.SortedFunc(mapKeys(cats), func(a, b string) int {
		na, _ := strconv.Atoi(strings.Fields(a)[0])
		nb, _ := strconv.Atoi(strings.Fields(b)[0])
		return cmp.Or(cmp.Compare(na, nb), strings.Compare(a, b))
	}) {
		rows = append(rows, metricRow(r, c, k, cats[c]))
	}
	return rows
}

func metricRow(retriever, category string, ks []int, rs []QAResult) MetricRow {
	row := MetricRow{Retriever: retriever, Category: category, Questions: len(rs)}
	if len(rs) == 0 {
		return row
	}
	for _, k := range ks {
		var hit, all float64
		for _, q := range rs {
			found := 0
			for _, rank := range q.Ranks {
				if rank > 0 && rank <= k {
					found++
				}
			}
			if found > 0 {
				hit++
			}
			if found == len(q.Ranks) {
				all++
			}
		}
		row.HitAt = append(row.HitAt, Score{K: k, Value: round3(hit / float64(len(rs)))})
		row.AllAt = append(row.AllAt, Score{K: k, Value: round3(all / float64(len(rs)))})
	}
	var sum float64
	for _, q := range rs {
		sum += ndcg(q.Ranks, ndcgK)
	}
	row.NDCG10 = round3(sum / float64(len(rs)))
	return row
}

// ndcg is binary-relevance nDCG@k of the ranks at which the relevant items
// were found (0 = not found).
func ndcg(ranks []int, k int) float64 {
	var dcg, idcg float64
	for _, r := range ranks {
		if r > 0 && r <= k {
			dcg += 1 / math.Log2(float64(r)+1)
		}
	}
	for i := 1; i <= min(len(ranks), k); i++ {
		idcg += 1 / math.Log2(float64(i)+1)
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
