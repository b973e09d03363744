package recall

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Limits on what recall reads for one request.
const (
	QueryTerms     = 64   // full-text terms taken from the task for events
	EpisodeTerms   = 32   // terms of the episode index query
	IndexEpisodes  = 100  // episodes found through the index, newest first
	RecentEpisodes = 50   // most recent episodes of the scope
	EventMatches   = 1000 // events found through the index, best first
	// ScanEpisodes: a scope with at most this many episodes offers them
	// all, without the index (no more candidates than the index and the
	// recent window give).
	ScanEpisodes = IndexEpisodes + RecentEpisodes
	// MaxTermBytes: longer terms are left out of queries (PostgreSQL's
	// lexeme limit; no text worth recalling has a longer word).
	MaxTermBytes = 2046
)

// RuleStatuses are the rule states recall considers (and explains in the
// trace); proposed, rejected and archived rules are not memories to recall.
var RuleStatuses = []string{
	string(governance.RuleActive), string(governance.RuleStale),
	string(governance.RuleSuperseded), string(governance.RuleForgotten),
}

// Run is a backend's Recall: req validated, its input loaded (load, which
// is Load plus whatever the backend adds), scored by governance.Recall, and
// finished (Finish).
func Run(ctx context.Context, rec Recorder, load func(context.Context, governance.RecallRequest) (*governance.RecallInput, error),
	actor string, req governance.RecallRequest) (*governance.RecallPackage, error) {
	req.Normalize()
	if err := req.Validate(); err != nil {
		return nil, err
	}
	in, err := load(ctx, req)
	if err != nil {
		return nil, err
	}
	w := governance.DefaultRecallWeights()
	pkg := Recall(req, *in, w)
	pkg.Receipt = Receipt(pkg, in, w)
	if err := Finish(ctx, rec, actor, req, pkg); err != nil {
		return nil, err
	}
	return pkg, nil
}

// Source answers the queries of one request, all within its scope (the
// request's project; project-wide rows and the subject's own).
type Source interface {
	// Scope fills in.Filtered with what the scope removes and reports
	// whether the project exists.
	Scope(ctx context.Context, in *governance.RecallInput) (bool, error)
	// Rules calls add for each in-scope rule in RuleStatuses, by id.
	Rules(ctx context.Context, add func(*governance.Rule)) error
	// CountEpisodes and CountEvents size the scope's corpora.
	CountEpisodes(ctx context.Context) (int, error)
	CountEvents(ctx context.Context) (int, error)
	// AllEpisodes gives every in-scope episode; RecentEpisodes the newest
	// limit by last event; EpisodesByTerms the newest limit holding any of
	// terms.
	AllEpisodes(ctx context.Context, add func(*governance.Episode)) error
	RecentEpisodes(ctx context.Context, limit int, add func(*governance.Episode)) error
	EpisodesByTerms(ctx context.Context, terms []string, limit int, add func(*governance.Episode)) error
	// EventsByTerms gives the unredacted message events holding any of
	// terms, at most limit, those the engine's full-text rank puts first.
	EventsByTerms(ctx context.Context, terms []string, limit int, add func(*governance.Event)) error
	// EventTermStats gives the scope's event count and the document
	// frequencies of terms (every term of the task, as the relevance model
	// reads it) when the backend keeps them; nil: the engine counts them
	// over the events offered.
	EventTermStats(ctx context.Context, terms []string) (*governance.TermStats, error)
}

// Load gathers what recall considers for req (governance.RecallInput): the
// in-scope rules; every in-scope episode when the scope holds at most
// ScanEpisodes, else the ones the index finds for the task's terms and the
// most recent; with req.IncludeEvents, the events holding a term of the
// task; the counts of what the scope filter removed and the sizes of the
// scope's corpora. An unknown project is ENOTFOUND.
func Load(ctx context.Context, src Source, req governance.RecallRequest, now time.Time) (*governance.RecallInput, error) {
	in := &governance.RecallInput{Now: now, Evidence: map[int64]governance.RuleEvidence{}}
	exists, err := src.Scope(ctx, in)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err := src.Rules(ctx, func(r *governance.Rule) { in.Rules = append(in.Rules, r) }); err != nil {
		return nil, err
	}
	if err := loadEpisodes(ctx, src, req, in); err != nil {
		return nil, err
	}
	if !req.IncludeEvents {
		return in, nil
	}
	terms := Terms(req, QueryTerms, true)
	if len(terms) == 0 {
		return in, nil
	}
	err = src.EventsByTerms(ctx, terms, EventMatches, func(e *governance.Event) {
		in.Events = append(in.Events, governance.RecallEvent{Event: e})
	})
	if err != nil || len(in.Events) == 0 {
		return in, err
	}
	if in.Corpus.EventTerms, err = src.EventTermStats(ctx, tokenizer.Terms(req.Task+" "+req.TaskType)); err != nil {
		return nil, err
	}
	if in.Corpus.EventTerms != nil {
		in.Corpus.Events = in.Corpus.EventTerms.Docs
		return in, nil
	}
	in.Corpus.Events, err = src.CountEvents(ctx)
	return in, err
}

func loadEpisodes(ctx context.Context, src Source, req governance.RecallRequest, in *governance.RecallInput) error {
	n, err := src.CountEpisodes(ctx)
	if err != nil || n == 0 {
		return err
	}
	in.Corpus.Episodes = n
	seen := map[int64]bool{}
	add := func(e *governance.Episode) {
		if !seen[e.ID] {
			seen[e.ID] = true
			in.Episodes = append(in.Episodes, governance.RecallEpisode{Episode: e})
		}
	}
	if n <= ScanEpisodes {
		return src.AllEpisodes(ctx, add)
	}
	if terms := Terms(req, EpisodeTerms, false); len(terms) > 0 {
		if err := src.EpisodesByTerms(ctx, terms, IndexEpisodes, add); err != nil {
			return err
		}
	}
	return src.RecentEpisodes(ctx, RecentEpisodes, add)
}

// Terms are the distinct terms of the task (tokenizer.PhraseTokens of its
// text and type) that recall's full-text queries look for, at most limit.
// With chars, a lone CJK character is a term (events); without, the
// task's CJK character pairs come first, then its words (episodes). The
// single characters of longer runs are never terms: they would match
// nearly every Chinese text (they still count in the engine's score).
func Terms(req governance.RecallRequest, limit int, chars bool) []string {
	var pairs, words []string
	seen := map[string]bool{}
	tokenizer.PhraseTokens(req.Task+" "+req.TaskType, func(t string, kind int) {
		if seen[t] || len(t) > MaxTermBytes {
			return
		}
		seen[t] = true
		switch {
		case chars:
			words = append(words, t)
		case kind == tokenizer.CJKPair:
			pairs = append(pairs, t)
		case kind == tokenizer.Word:
			words = append(words, t)
		}
	})
	terms := append(pairs, words...)
	return terms[:min(len(terms), limit)]
}

// Receipt seals what shaped pkg: each included item's id, version and the
// hash of its stored text (as in, the input it was built from, holds it;
// an item's delivered text may be shortened or masked), under the
// weights' policy version.
func Receipt(pkg *governance.RecallPackage, in *governance.RecallInput, w governance.RecallWeights) *governance.RecallReceipt {
	rules := map[int64]*governance.Rule{}
	for _, r := range in.Rules {
		rules[r.ID] = r
	}
	episodes := map[int64]*governance.Episode{}
	for _, e := range in.Episodes {
		episodes[e.Episode.ID] = e.Episode
	}
	events := map[int64]*governance.Event{}
	for _, e := range in.Events {
		events[e.Event.Seq] = e.Event
	}
	items := make([]governance.ReceiptItem, 0, len(pkg.Items))
	for _, it := range pkg.Items {
		version, text := it.Source.Version, it.Text
		switch it.Kind {
		case governance.RecallKindRule:
			if r := rules[it.Source.RuleID]; r != nil {
				version, text = r.Version, r.Text
			}
		case governance.RecallKindEpisode:
			if e := episodes[it.Source.EpisodeID]; e != nil {
				text = e.Summary
			}
		case governance.RecallKindEvent:
			if e := events[it.Source.EventSeq]; e != nil {
				text = e.Text
			}
		}
		items = append(items, governance.ReceiptItemOf(it.ID, version, text))
	}
	return governance.NewReceipt(governance.RecallPolicyVersion(w), items)
}

// Recorder is a backend's writing side of a recall.
type Recorder interface {
	// RuleSources calls add for each (rule, session) of the given rules'
	// evidence: the session and its number of distinct events, by rule
	// and then by the session's first event.
	RuleSources(ctx context.Context, ruleIDs []int64, add func(ruleID int64, session string, events int)) error
	// SaveTrace stores the trace in one transaction with the use count of
	// used (the included rules; none for a preview) and returns its id.
	SaveTrace(ctx context.Context, t Trace, used []int64) (int64, error)
}

// SourceRow reads one row of a RuleSources query — rule id, session,
// number of events — through scan and hands it to add.
func SourceRow(scan func(dest ...any) error, add func(ruleID int64, session string, events int)) error {
	var (
		id      int64
		session string
		n       int
	)
	if err := scan(&id, &session, &n); err != nil {
		return err
	}
	add(id, session, n)
	return nil
}

// Trace is a stored recall trace row.
type Trace struct {
	ProjectID int64
	SubjectID string
	Actor     string
	TaskHash  string // hex SHA-256 of the task, never the task
	Body      string // the JSON of record
}

// record is what recall_traces.trace holds: the request's shape and the
// trace, never the task text or memory text.
type record struct {
	TaskType      string                 `json:"task_type,omitempty"`
	Risk          string                 `json:"risk,omitempty"`
	Budget        governance.Budget      `json:"budget"`
	IncludeEvents bool                   `json:"include_events,omitempty"`
	Preview       bool                   `json:"preview,omitempty"`
	Used          int                    `json:"used"`
	Trace         governance.RecallTrace `json:"trace"`
	// Receipt holds ids, versions and hashes only, never text.
	Receipt *governance.RecallReceipt `json:"receipt,omitempty"`
}

// Finish completes a package the engine built: the sources of its
// included rules, then its trace stored (and the rules' use counted
// unless req is a preview).
func Finish(ctx context.Context, rec Recorder, actor string, req governance.RecallRequest, pkg *governance.RecallPackage) error {
	at := map[int64]int{}
	var ids []int64
	for i, it := range pkg.Items {
		if it.Kind == governance.RecallKindRule {
			at[it.Source.RuleID] = i
			ids = append(ids, it.Source.RuleID)
		}
	}
	if len(ids) > 0 {
		err := rec.RuleSources(ctx, ids, func(id int64, session string, n int) {
			src := &pkg.Items[at[id]].Source
			src.SessionIDs = append(src.SessionIDs, session)
			src.EvidenceEvents += n
		})
		if err != nil {
			return err
		}
	}
	body, err := json.Marshal(record{
		TaskType: req.TaskType, Risk: req.Risk, Budget: pkg.Budget, IncludeEvents: req.IncludeEvents,
		Preview: req.Preview, Used: pkg.Used, Trace: pkg.Trace, Receipt: pkg.Receipt,
	})
	if err != nil {
		return fmt.Errorf("recall: encode trace: %w", err)
	}
	sum := sha256.Sum256([]byte(req.Task))
	used := ids
	if req.Preview {
		used = nil
	}
	pkg.Trace.ID, err = rec.SaveTrace(ctx, Trace{ProjectID: req.ProjectID, SubjectID: req.SubjectID, Actor: actor,
		TaskHash: hex.EncodeToString(sum[:]), Body: string(body)}, used)
	return err
}

// DecodeTrace fills t from a stored trace body.
func DecodeTrace(t *governance.RecallTraceInfo, body string) error {
	var rec record
	if err := json.Unmarshal([]byte(body), &rec); err != nil {
		return fmt.Errorf("decode recall trace %d: %w", t.ID, err)
	}
	t.Budget, t.Used, t.Preview, t.Trace, t.Receipt = rec.Budget, rec.Used, rec.Preview, rec.Trace, rec.Receipt
	t.Trace.ID = t.ID
	return nil
}

// TraceRuleNeedle is the text a stored trace body holds when it names rule
// id (for finding the traces of a rule).
func TraceRuleNeedle(id int64) string { return `"id":"` + governance.RecallRuleID(id) + `"` }
