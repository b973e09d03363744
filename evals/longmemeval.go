package evals

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// LongMemEval (Wu et al., ICLR 2025) asks questions each over its own
// haystack of dated sessions of one user's chats with an assistant; the
// turns that hold the answer are marked has_answer. The file is a JSON
// array of questions (gzip-compressed or not), tens of megabytes: it is
// read one question at a time and never whole.

// FormatLoCoMo and FormatLongMemEval name the benchmark formats.
const (
	FormatLoCoMo      = "locomo"
	FormatLongMemEval = "longmemeval"
)

// LMEQuestion is one LongMemEval question with its haystack, the sessions
// in date order (a stable sort: sessions of the same minute keep the
// file's order).
type LMEQuestion struct {
	// Index is the question's position in the file, from 0.
	Index    int
	ID       string
	Type     string
	Question string
	Answer   string
	// Date is when the question is asked (question_date); nothing later
	// is part of its memory.
	Date           time.Time
	AnswerSessions []string
	Sessions       []*LMESession
}

// LMESession is one session of a haystack. ID is the file's session id,
// made unique within the haystack (a repeated id gets "#2", "#3").
type LMESession struct {
	ID    string
	At    time.Time
	Turns []LMETurn
}

// LMETurn is one turn of a session.
type LMETurn struct {
	Role      governance.Role
	Text      string
	HasAnswer bool
}

// Abstention reports whether the question has no answer in its haystack
// (LongMemEval marks them with an id ending in "_abs").
func (q *LMEQuestion) Abstention() bool { return strings.HasSuffix(q.ID, "_abs") }

type lmeRaw struct {
	QuestionID         json.RawMessage `json:"question_id"`
	QuestionType       string          `json:"question_type"`
	Question           string          `json:"question"`
	QuestionDate       string          `json:"question_date"`
	Answer             json.RawMessage `json:"answer"`
	AnswerSessionIDs   []string        `json:"answer_session_ids"`
	HaystackDates      []string        `json:"haystack_dates"`
	HaystackSessionIDs []string        `json:"haystack_session_ids"`
	HaystackSessions   [][]struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		HasAnswer bool   `json:"has_answer"`
	} `json:"haystack_sessions"`
}

// LMEReader reads a LongMemEval file one question at a time.
type LMEReader struct {
	dec  *json.Decoder
	n    int
	seen map[string]bool
}

// NewLMEReader starts reading a LongMemEval file (gzip-compressed or
// not) from r.
func NewLMEReader(r io.Reader) (*LMEReader, error) {
	r, err := decompressed(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not a LongMemEval file (a JSON array of questions): %v", jsonProblem(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("not a LongMemEval file: it does not start with a JSON array of questions")
	}
	return &LMEReader{dec: dec, seen: map[string]bool{}}, nil
}

// Next returns the next question; io.EOF after the last. A malformed
// question is an error naming it (its position and id).
func (r *LMEReader) Next() (*LMEQuestion, error) {
	if !r.dec.More() {
		if _, err := r.dec.Token(); err != nil {
			return nil, fmt.Errorf("after question %d: %v", r.n, jsonProblem(err))
		}
		return nil, io.EOF
	}
	var raw lmeRaw
	if err := r.dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("question %d: %v", r.n+1, jsonProblem(err))
	}
	q, err := parseLMEQuestion(r.n, raw)
	if err != nil {
		return nil, err
	}
	if r.seen[q.ID] {
		return nil, fmt.Errorf("question %d: question_id %q appears twice", r.n+1, q.ID)
	}
	r.seen[q.ID] = true
	r.n++
	return q, nil
}

// decompressed reads r through gzip when it starts with gzip's magic
// bytes.
func decompressed(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("not a readable gzip file: %v", err)
		}
		return zr, nil
	}
	return br, nil
}

// SniffBenchmark names the benchmark format of a JSON file's beginning
// (after gzip, when compressed): FormatLongMemEval when its first
// question has LongMemEval's fields, FormatLoCoMo for any other JSON
// array or object, "" for what is not JSON.
func SniffBenchmark(head []byte) string {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return ""
		}
		head, _ = io.ReadAll(io.LimitReader(zr, sniffBytes))
		if len(head) == 0 {
			return ""
		}
	}
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(head) == 0 || (head[0] != '[' && head[0] != '{') {
		return ""
	}
	if lmeFieldRe.Match(head[:min(len(head), sniffBytes)]) {
		return FormatLongMemEval
	}
	return FormatLoCoMo
}

// sniffBytes is how much of a file SniffBenchmark looks at.
const sniffBytes = 64 << 10

var lmeFieldRe = regexp.MustCompile(`"(?:question_id|haystack_sessions)"\s*:`)

// lmeDateLayouts are the dates LongMemEval writes ("2023/05/20 (Sat)
// 02:21") and plainer forms of them.
var lmeDateLayouts = []string{"2006/01/02 (Mon) 15:04", "2006/01/02 15:04", "2006/01/02", time.RFC3339, "2006-01-02 15:04", "2006-01-02"}

func parseLMEDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range lmeDateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func parseLMEQuestion(i int, raw lmeRaw) (*LMEQuestion, error) {
	q := &LMEQuestion{Index: i, ID: strings.TrimSpace(rawString(raw.QuestionID)), Type: strings.TrimSpace(raw.QuestionType),
		Question: strings.TrimSpace(raw.Question), Answer: rawString(raw.Answer), AnswerSessions: raw.AnswerSessionIDs}
	where := fmt.Sprintf("question %d", i+1)
	if q.ID != "" {
		where += fmt.Sprintf(" (%s)", q.ID)
	}
	switch {
	case q.ID == "":
		return nil, fmt.Errorf("%s: question_id is missing", where)
	case governance.CheckIdentifier(q.ID) != "" || len(q.ID) > 100:
		return nil, fmt.Errorf("%s: question_id is not a usable id", where)
	case q.Question == "":
		return nil, fmt.Errorf("%s: question is missing", where)
	case len(q.Question) > governance.MaxRecallTaskBytes:
		return nil, fmt.Errorf("%s: question is longer than %d bytes", where, governance.MaxRecallTaskBytes)
	case len(raw.HaystackSessions) == 0:
		return nil, fmt.Errorf("%s: haystack_sessions is missing or empty", where)
	case len(raw.HaystackDates) != len(raw.HaystackSessions) || len(raw.HaystackSessionIDs) != len(raw.HaystackSessions):
		return nil, fmt.Errorf("%s: haystack_sessions, haystack_dates and haystack_session_ids differ in length (%d, %d, %d)",
			where, len(raw.HaystackSessions), len(raw.HaystackDates), len(raw.HaystackSessionIDs))
	}
	if q.Type == "" {
		q.Type = "unknown"
	}
	if !lmeTypeRe.MatchString(q.Type) {
		return nil, fmt.Errorf("%s: question_type %q is not a plain name", where, q.Type)
	}
	var ok bool
	if q.Date, ok = parseLMEDate(raw.QuestionDate); !ok {
		return nil, fmt.Errorf("%s: question_date %q is not a date like 2023/05/20 (Sat) 02:21", where, raw.QuestionDate)
	}
	seen := map[string]int{}
	for j, turns := range raw.HaystackSessions {
		at, ok := parseLMEDate(raw.HaystackDates[j])
		if !ok {
			return nil, fmt.Errorf("%s: haystack_dates[%d] %q is not a date", where, j, raw.HaystackDates[j])
		}
		id := strings.TrimSpace(raw.HaystackSessionIDs[j])
		if id == "" || governance.CheckIdentifier(id) != "" || len(id) > 100 {
			return nil, fmt.Errorf("%s: haystack_session_ids[%d] is not a usable id", where, j)
		}
		if seen[id]++; seen[id] > 1 {
			id = fmt.Sprintf("%s#%d", id, seen[id])
		}
		s := &LMESession{ID: id, At: at}
		for k, t := range turns {
			role := governance.Role(strings.ToLower(strings.TrimSpace(t.Role)))
			if role != governance.RoleUser && role != governance.RoleAssistant {
				return nil, fmt.Errorf("%s: session %s, turn %d: role %q is not user or assistant", where, id, k+1, t.Role)
			}
			s.Turns = append(s.Turns, LMETurn{Role: role, Text: cleanTurnText(t.Content), HasAnswer: t.HasAnswer})
		}
		q.Sessions = append(q.Sessions, s)
	}
	slices.SortStableFunc(q.Sessions, func(a, b *LMESession) int { return a.At.Compare(b.At) })
	return q, nil
}

var lmeTypeRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// cleanTurnText makes a turn's text storable as an event: control
// characters become spaces and a text longer than an event may hold is cut
// on a rune boundary.
func cleanTurnText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.ContainsFunc(s, governance.IsControl) {
		s = strings.Map(func(r rune) rune {
			if governance.IsControl(r) {
				return ' '
			}
			return r
		}, s)
	}
	if len(s) > governance.MaxEventTextBytes {
		cut := governance.MaxEventTextBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// lmeTurnID names a turn's event within its question's project.
func lmeTurnID(session string, turn int) string { return fmt.Sprintf("%s/%d", session, turn) }

// Memory is what the question's memory holds on its date: the sessions
// dated no later than the question (a session of the very minute counts),
// each as one subject's events in date order. Empty turns are left out.
// It also says which of those events hold the answer (has_answer) and
// how many answer turns the question's date left out.
func (q *LMEQuestion) Memory() (events []*governance.Event, evidence []string, late int) {
	for _, s := range q.Sessions {
		if s.At.After(q.Date) {
			for _, t := range s.Turns {
				if t.HasAnswer {
					late++
				}
			}
			continue
		}
		n := 0
		for j, t := range s.Turns {
			if strings.TrimSpace(t.Text) == "" {
				continue
			}
			n++
			id := lmeTurnID(s.ID, j+1)
			events = append(events, &governance.Event{ID: id, SessionID: s.ID, SubjectID: q.ID, Turn: n, Role: t.Role,
				Text: t.Text, OccurredAt: s.At.Add(time.Duration(j) * time.Second)})
			if t.HasAnswer {
				evidence = append(evidence, id)
			}
		}
		events = append(events, &governance.Event{ID: s.ID + "/end", SessionID: s.ID, SubjectID: q.ID, Turn: n + 1,
			Kind: governance.KindSessionEnd, OccurredAt: s.At.Add(time.Duration(len(s.Turns)) * time.Second)})
	}
	return events, evidence, late
}

// lmeFetch is how many results each retriever gives a LongMemEval question:
// the sessions of the session-level table are read off them.
const lmeFetch = 50

// lmeCase is what the run keeps of a question once its haystack is in its
// scratch project: the question and the answer's whereabouts, not the
// haystack.
type lmeCase struct {
	q        LMEQuestion // Sessions dropped
	project  int64
	turns    int
	evidence []string // the event ids of the answer turns in memory
	late     int      // answer turns dated after the question
	// answerAt are the answer sessions in memory, with their dates.
	answerAt map[string]time.Time
	fts5     []string
}

// setupLongMemEval reads the file once, question by question: each of
// caseIDs gets its own scratch project holding its haystack as of its
// date (and, with the fts5 retriever, its baseline's answer, computed
// while the haystack is at hand). Every question is ingested before any is
// asked, so each sees the same database whatever order the workers take.
func (e *engine) setupLongMemEval(ctx context.Context, caseIDs []string) error {
	b := e.suite.Benchmark
	if b.open == nil {
		return fmt.Errorf("the LongMemEval file of suite %s is not at hand", e.suite.Name)
	}
	want := map[string]bool{}
	for _, id := range caseIDs {
		want[id] = true
	}
	rc, err := b.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	r, err := NewLMEReader(rc)
	if err != nil {
		return err
	}
	e.lme = map[string]*lmeCase{}
	for len(e.lme) < len(want) {
		q, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if !want[q.ID] {
			continue
		}
		c, err := e.ingestQuestion(ctx, q)
		if err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		e.lme[q.ID] = c
	}
	for _, id := range caseIDs {
		if e.lme[id] == nil {
			return fmt.Errorf("question %s is no longer in the file", id)
		}
	}
	return nil
}

func (e *engine) ingestQuestion(ctx context.Context, q *LMEQuestion) (*lmeCase, error) {
	pid, err := e.scratchProject(ctx, fmt.Sprintf("%sq%d", e.prefix, q.Index), false, false)
	if err != nil {
		return nil, err
	}
	events, evidence, late := q.Memory()
	if err := e.ingest(ctx, pid, events); err != nil {
		return nil, err
	}
	c := &lmeCase{q: *q, project: pid, evidence: evidence, late: late, answerAt: map[string]time.Time{}}
	c.q.Sessions = nil
	var ids, texts []string
	for _, ev := range events {
		if ev.Kind != governance.KindSessionEnd {
			ids, texts = append(ids, ev.ID), append(texts, ev.Text)
		}
	}
	c.turns = len(ids)
	for _, s := range q.Sessions {
		if slices.Contains(q.AnswerSessions, s.ID) && !s.At.After(q.Date) {
			c.answerAt[s.ID] = s.At
		}
	}
	if slices.Contains(e.suite.Benchmark.Retrievers, RetrieverFTS5) {
		if c.fts5, err = e.baselineSearch(ctx, ids, texts, q.Question, lmeFetch); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// runQuestion measures every retriever on one LongMemEval question.
func (e *engine) runQuestion(ctx context.Context, id string) (*CaseResult, error) {
	c := e.lme[id]
	if c == nil {
		return nil, fmt.Errorf("question %s was not set up", id)
	}
	d := &BenchmarkDetail{Conversation: id, Turns: c.turns, LateEvidence: c.late, Results: map[string][]QAResult{}}
	res := &CaseResult{CaseID: id, Kind: KindBenchmark, Detail: &Detail{Benchmark: d}}
	switch {
	case c.q.Abstention():
		d.Abstention = 1
	case len(c.evidence) == 0:
		d.NoEvidence = 1
	default:
		d.Questions = 1
	}
	limit := e.benchmarkLimit()
	for _, r := range e.suite.Benchmark.Retrievers {
		ids := c.fts5
		var weak *bool
		if r != RetrieverFTS5 {
			var err error
			if ids, weak, err = e.retrieveMatch(ctx, r, retrieval{project: c.project, subject: c.q.ID, question: c.q.Question, asOf: c.q.Date, limit: lmeFetch}); err != nil {
				return nil, fmt.Errorf("%s retrieval: %w", r, err)
			}
		}
		res := c.result(ids, limit)
		res.Weak = weak
		d.Results[r] = append(d.Results[r], res)
	}
	res.Status = StatusPassed
	switch {
	case d.Abstention > 0:
		res.because(governance.Say("abstention question measured apart"))
	case d.NoEvidence > 0:
		res.because(governance.Say("no answer turn dated before the question"))
	default:
		res.because(governance.Say("%d answer turns in %d sessions", len(c.evidence), len(c.answerAt)))
	}
	return res, nil
}

// sessionOf is the session of a LongMemEval turn's event id.
func sessionOf(eventID string) string {
	if i := strings.LastIndexByte(eventID, '/'); i > 0 {
		return eventID[:i]
	}
	return eventID
}

// result ranks the answer turns among the first limit ids, and the answer
// sessions among the sessions of all ids (in order of their first turn).
func (c *lmeCase) result(ids []string, limit int) QAResult {
	r := QAResult{Question: c.q.Question, Type: c.q.Type, Evidence: len(c.evidence), Returned: len(ids)}
	for _, ev := range c.evidence {
		rank := slices.Index(ids[:min(len(ids), limit)], ev) + 1
		r.Ranks = append(r.Ranks, rank)
	}
	var sessions []string
	for _, id := range ids {
		if s := sessionOf(id); !slices.Contains(sessions, s) {
			sessions = append(sessions, s)
		}
	}
	answer := slices.SortedFunc(mapKeys(c.answerAt), func(a, b string) int {
		if d := c.answerAt[a].Compare(c.answerAt[b]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for _, s := range answer {
		r.SessionRanks = append(r.SessionRanks, slices.Index(sessions[:min(len(sessions), limit)], s)+1)
	}
	// Knowledge updates: the newest answer session above every older one
	// (among all the sessions returned), when the answer sessions have
	// different dates.
	if c.q.Type == "knowledge-update" && len(answer) > 1 && c.answerAt[answer[0]].Before(c.answerAt[answer[len(answer)-1]]) {
		newest := slices.Index(sessions, answer[len(answer)-1])
		ok := newest >= 0
		for _, s := range answer[:len(answer)-1] {
			if c.answerAt[s].Before(c.answerAt[answer[len(answer)-1]]) {
				if i := slices.Index(sessions, s); i >= 0 && i < newest {
					ok = false
				}
			}
		}
		r.NewestFirst = &ok
	}
	return r
}
