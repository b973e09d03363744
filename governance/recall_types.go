package governance

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Recall budget defaults and limits, in characters (runes) of item text.
const (
	DefaultRecallTotal   = 1600
	DefaultRecallPerItem = 400
	MaxRecallTotal       = 20000
	MaxRecallTaskBytes   = 8 << 10
	MaxRecallTaskType    = 64
)

// Risk levels a caller may give a task.
const (
	RiskLow    = "low"
	RiskMedium = "medium"
	RiskHigh   = "high"
)

// Budget bounds a context package. Total counts the runes of every item's
// text together, PerItem the runes of one item's text; the fence around the
// text block is fixed overhead and not counted.
type Budget struct {
	Total   int `json:"total"`
	PerItem int `json:"per_item"`
}

// RecallRequest asks for the context package of one task.
type RecallRequest struct {
	Task      string `json:"task"`
	ProjectID int64  `json:"project_id"`
	// SubjectID is the end user the task is for; "" receives project-wide
	// memories only.
	SubjectID string `json:"subject_id,omitempty"`
	// TaskType is a free-form hint ("itinerary", "code_review"); it is added
	// to the text relevance is measured against.
	TaskType string `json:"task_type,omitempty"`
	// Risk "high" weighs lessons learned from failures more.
	Risk   string `json:"risk,omitempty"`
	Budget Budget `json:"budget"`
	// IncludeEvents adds matching raw events after rules and episodes.
	IncludeEvents bool `json:"include_events,omitempty"`
	// Preview computes and records the trace without counting the recalled
	// rules as used (the console playground).
	Preview bool `json:"-"`
	// AsOf recalls as of that time (zero: now): events that occurred
	// after it are not considered, and recency is measured from it (the
	// eval runner asks a benchmark's question on its date).
	AsOf time.Time `json:"-"`
}

// Normalize trims the text fields and fills the default budget.
func (r *RecallRequest) Normalize() {
	r.Task = strings.TrimSpace(r.Task)
	r.TaskType = strings.TrimSpace(r.TaskType)
	r.Risk = strings.ToLower(strings.TrimSpace(r.Risk))
	if r.Budget.Total == 0 {
		r.Budget.Total = DefaultRecallTotal
	}
	if r.Budget.PerItem == 0 {
		r.Budget.PerItem = min(DefaultRecallPerItem, r.Budget.Total)
	}
}

// Validate returns an EINVALID error naming the first problem, or nil.
func (r *RecallRequest) Validate() error {
	switch {
	case r.ProjectID <= 0:
		return Errorf(EINVALID, "A project is required.")
	case r.Task == "":
		return Errorf(EINVALID, "task is required.")
	case !utf8.ValidString(r.Task) || !utf8.ValidString(r.TaskType) || !utf8.ValidString(r.SubjectID):
		return Errorf(EINVALID, "task, task_type and subject_id must be valid UTF-8.")
	case len(r.Task) > MaxRecallTaskBytes:
		return Errorf(EINVALID, "task is longer than %d bytes.", MaxRecallTaskBytes)
	case len(r.TaskType) > MaxRecallTaskType:
		return Errorf(EINVALID, "task_type is longer than %d bytes.", MaxRecallTaskType)
	case len(r.SubjectID) > MaxIDBytes:
		return Errorf(EINVALID, "subject_id is longer than %d bytes.", MaxIDBytes)
	case r.Risk != "" && r.Risk != RiskLow && r.Risk != RiskMedium && r.Risk != RiskHigh:
		return Errorf(EINVALID, "risk %q is not one of low, medium, high.", r.Risk)
	case r.Budget.Total < 1 || r.Budget.Total > MaxRecallTotal:
		return Errorf(EINVALID, "budget.total must be between 1 and %d characters.", MaxRecallTotal)
	case r.Budget.PerItem < 1 || r.Budget.PerItem > r.Budget.Total:
		return Errorf(EINVALID, "budget.per_item must be between 1 and budget.total.")
	}
	return nil
}

// RecallWeights holds every number the recall score uses, in one place.
//
// Each candidate gets components in [0, 1]:
//   - relevance: Okapi BM25 of the item for the task (plus task type) over
//     the tokenizer's terms (English stems, CJK characters and character
//     pairs), with the document frequencies of the request's own scope and
//     one kind of memory (relevance.go), blended with the store's rank when
//     the store gives one;
//   - scope match: 1 for a memory about this very subject, ProjectScopeMatch
//     for a project-wide memory;
//   - trust: the rule's trust; fixed values for episodes and events by source;
//   - recency: 0.5^(age in days / RecencyHalfLifeDays), age since the last
//     content change;
//   - importance: by promotion channel (explicit instruction > tool failure >
//     repetition); lessons get HighRiskLessonBonus for high-risk tasks;
//   - sensitivity: 1 when the write gate recorded findings on a rule, and
//     for untrusted (external) events;
//   - use: how often recall has included the rule, saturating at
//     UseSaturation uses (0 for episodes and events);
//   - conflict: 1 for the loser of a conflict between two rules.
//
// total = Σ weight × component for the first six, minus Sensitivity ×
// sensitivity and Conflict × conflict. The positive weights sum to 1.
type RecallWeights struct {
	Relevance   float64 `json:"relevance"`
	ScopeMatch  float64 `json:"scope_match"`
	Trust       float64 `json:"trust"`
	Recency     float64 `json:"recency"`
	Importance  float64 `json:"importance"`
	Use         float64 `json:"use"`
	Sensitivity float64 `json:"sensitivity"`
	Conflict    float64 `json:"conflict"`

	// BM25K1 and BM25B are BM25's term-frequency saturation and length
	// normalisation.
	BM25K1 float64 `json:"bm25_k1"`
	BM25B  float64 `json:"bm25_b"`
	// UseSaturation is the use count that counts as fully used.
	UseSaturation float64 `json:"use_saturation"`
	// NeighbourShare is the part of the relevance of the adjacent turn of
	// the same session an event adds to its own.
	NeighbourShare float64 `json:"neighbour_share"`
	// SpeakerDiscount is the part of its relevance an event loses when
	// the task asks about the other role's words: the user's turns for a
	// task in the first person singular, the assistant's for one that
	// refers to what the assistant said (governance/recall/speaker.go).
	SpeakerDiscount float64 `json:"speaker_discount"`
	// AnswerShare is the part of the relevance of a turn that ends with a
	// question its reply (the next turn of the session) gets, when that is
	// more than NeighbourShare gives it: the answer to a question is in
	// the reply. QuestionDemote is the part of its own relevance such a
	// question loses. Neither applies to the role the task asks about.
	AnswerShare    float64 `json:"answer_share"`
	QuestionDemote float64 `json:"question_demote"`
	// LatestDepth and SameThing: among the best LatestDepth events, two of
	// one role from different sessions are statements about the same
	// thing when the task's terms both hold weigh at least SameThing of
	// the task's (by idf); the latest of such statements is named
	// (governance/recall/latest.go).
	LatestDepth int     `json:"latest_depth"`
	SameThing   float64 `json:"same_thing"`
	// MatchDepth and StrongMatch: the best MatchDepth events match the
	// task strongly when those of one session hold at least StrongMatch
	// of its terms between them, each term weighed by its idf over the
	// scope's events (a term no event holds weighs the most); less is a
	// weak match, which the package says (RecallMatch,
	// governance/recall/match.go).
	MatchDepth  int     `json:"match_depth"`
	StrongMatch float64 `json:"strong_match"`
	// ExpandDepth, ExpandTerms, ExpandShare and ExpandKeep are the second
	// hop over the events: the ExpandTerms terms of the best ExpandDepth
	// events the task does not hold (weighed by those events' relevance
	// and their idf) are a second query, and each event gains ExpandShare
	// of its relevance to it, never passing the first hop's best
	// ExpandKeep events (governance/recall/expand.go).
	ExpandDepth int     `json:"expand_depth"`
	ExpandTerms int     `json:"expand_terms"`
	ExpandShare float64 `json:"expand_share"`
	ExpandKeep  int     `json:"expand_keep"`

	// MinRuleScore: a usable rule scoring below it is excluded as "low
	// relevance" — the task-independent components cannot carry it alone.
	MinRuleScore float64 `json:"min_rule_score"`
	// MinContextRelevance: episodes need at least this relevance.
	MinContextRelevance float64 `json:"min_context_relevance"`
	// MinEventRelevance: raw events, which a caller asks for explicitly,
	// need at least this relevance.
	MinEventRelevance float64 `json:"min_event_relevance"`
	// FTSShare is the part of relevance taken from the store's rank, when given.
	FTSShare float64 `json:"fts_share"`
	// ProjectScopeMatch is the scope match of a project-wide memory.
	ProjectScopeMatch float64 `json:"project_scope_match"`

	// The semantic channel (only when an embeddings model is configured):
	// the SemanticTopK memories of each kind whose vectors are closest to
	// the task's (cosine at least MinCosine) are fused with the words'
	// ranking by reciprocal rank fusion, Σ 1/(RRFK + rank) over the two
	// lists, divided by its most, 2/(RRFK + 1); that is the relevance.
	RRFK         float64 `json:"rrf_k,omitempty"`
	SemanticTopK int     `json:"semantic_top_k,omitempty"`
	MinCosine    float64 `json:"min_cosine,omitempty"`
	// RecencyHalfLifeDays halves the recency component.
	RecencyHalfLifeDays float64 `json:"recency_half_life_days"`

	// Importance by promotion channel, and of the context kinds.
	ImportanceExplicit  float64 `json:"importance_explicit"`
	ImportanceToolFail  float64 `json:"importance_tool_failure"`
	ImportanceRepeated  float64 `json:"importance_repeated"`
	ImportanceReviewer  float64 `json:"importance_reviewer"`
	ImportanceEpisode   float64 `json:"importance_episode"`
	ImportanceEvent     float64 `json:"importance_event"`
	HighRiskLessonBonus float64 `json:"high_risk_lesson_bonus"`
	EpisodeTrust        float64 `json:"episode_trust"`
	EventTrust          float64 `json:"event_trust"`
	ToolEventTrust      float64 `json:"tool_event_trust"`
	ExternalEventTrust  float64 `json:"external_event_trust"`
	ConflictSimilarity  float64 `json:"conflict_similarity"`
}

// DefaultRecallWeights returns the weights recall uses unless told otherwise.
func DefaultRecallWeights() RecallWeights {
	return RecallWeights{
		Relevance:   0.40,
		ScopeMatch:  0.10,
		Trust:       0.15,
		Recency:     0.10,
		Importance:  0.20,
		Use:         0.05,
		Sensitivity: 0.30,
		Conflict:    0.50,

		BM25K1:          0.9,
		BM25B:           0.6,
		UseSaturation:   32,
		NeighbourShare:  0.3,
		SpeakerDiscount: 0.5,
		AnswerShare:     0.8,
		QuestionDemote:  0.4,
		LatestDepth:     50,
		SameThing:       0.3,
		MatchDepth:      5,
		StrongMatch:     0.4,
		ExpandDepth:     3,
		ExpandTerms:     25,
		ExpandShare:     0.3,
		ExpandKeep:      5,

		MinRuleScore:        0.35,
		MinContextRelevance: 0.05,
		MinEventRelevance:   0.01,
		FTSShare:            0.3,
		ProjectScopeMatch:   0.6,
		RRFK:                60,
		SemanticTopK:        20,
		MinCosine:           0.2,
		RecencyHalfLifeDays: 90,

		ImportanceExplicit:  1.0,
		ImportanceToolFail:  0.9,
		ImportanceRepeated:  0.8,
		ImportanceReviewer:  0.8,
		ImportanceEpisode:   0.4,
		ImportanceEvent:     0.3,
		HighRiskLessonBonus: 0.15,
		EpisodeTrust:        0.5,
		EventTrust:          0.5,
		ToolEventTrust:      0.7,
		ExternalEventTrust:  0.1,
		ConflictSimilarity:  0.35,
	}
}

// RecallKind is what a recalled item is.
type RecallKind string

const (
	RecallKindRule    RecallKind = "rule"
	RecallKindEpisode RecallKind = "episode"
	RecallKindEvent   RecallKind = "event"
)

// Trace reasons for excluding an in-scope candidate. A rule that is not
// usable is excluded with Rule.Usable's reason ("paused", "expired",
// "superseded", or its status: "stale", "forgotten", ...).
const (
	TraceIncluded     = "included"
	TraceOverBudget   = "over budget"
	TraceLowRelevance = "low relevance"
	TraceConflict     = "conflict"
	TraceEmpty        = "empty"
	// TraceWithheld: the write gate blocks the text, so no agent gets it.
	TraceWithheld = "withheld by the write gate"
)

// RecallEpisode is an in-scope episode offered to recall; Rank in [0, 1] is
// the store's full-text rank (1 = best match of the query, 0 = not found
// through the index).
type RecallEpisode struct {
	Episode *Episode
	Rank    float64
}

// RecallEvent is an in-scope raw event offered to recall, with its rank.
type RecallEvent struct {
	Event *Event
	Rank  float64
}

// RuleEvidence summarises a rule's evidence chain for the package's sources.
type RuleEvidence struct {
	Sessions []string
	Events   int
}

// ScopeCounts counts what the hard scope filter removed. Only these counts
// ever reach a caller; never the items.
type ScopeCounts struct {
	// RulesOtherProjects counts active rules of every other project.
	RulesOtherProjects int `json:"rules_other_projects"`
	// RulesOtherSubjects counts active rules of this project about other subjects.
	RulesOtherSubjects int `json:"rules_other_subjects"`
	// EpisodesOtherSubjects counts episodes of this project about other subjects.
	EpisodesOtherSubjects int `json:"episodes_other_subjects"`
}

// Total is the number of memories the scope filter removed.
func (c ScopeCounts) Total() int {
	return c.RulesOtherProjects + c.RulesOtherSubjects + c.EpisodesOtherSubjects
}

// RecallInput is what the store gathers for one request: every in-scope rule
// that recall considers (active, paused, expired, stale, superseded,
// forgotten), relevant episodes, optional event hits, and the counts of what
// its scope filter removed.
type RecallInput struct {
	Now      time.Time
	Rules    []*Rule
	Evidence map[int64]RuleEvidence
	Episodes []RecallEpisode
	Events   []RecallEvent
	Filtered ScopeCounts
	// Corpus sizes the scope's memories of each kind, for relevance.
	Corpus RecallCorpus
	// Semantic holds the semantic channel's hits; nil when it is off.
	Semantic *RecallSemantic
}

// RecallSemantic is the semantic channel's view of one request: for each
// kind, the in-scope memories closest to the task (best first, at most
// SemanticTopK, cosine at least MinCosine). The store offers each of them
// as a candidate too. Error says why the task could not be embedded; the
// words then rank alone.
type RecallSemantic struct {
	Model                   string
	Rules, Episodes, Events []SemanticHit
	Error                   string
}

// RecallFusion tells the trace how relevance was made when the semantic
// channel is on.
type RecallFusion struct {
	// Method is "rrf": reciprocal rank fusion of the words' ranking and the
	// vectors' (RecallWeights.RRFK).
	Method string  `json:"method"`
	K      float64 `json:"k"`
	Model  string  `json:"model"`
	// Error: the task could not be embedded, relevance is the words' alone.
	Error string `json:"error,omitempty"`
}

// RecallCorpus counts the in-scope documents of each kind, which the
// relevance model's term weights are relative to; 0 means the candidates
// offered are the whole corpus. A store offers every in-scope document that
// holds a term of the task, so the counts are all it needs besides them.
type RecallCorpus struct {
	Rules    int
	Episodes int
	Events   int
	// EventTerms, when the store keeps them, are the size of the scope's
	// event corpus and the document frequencies of the task's terms in it;
	// nil: they are counted over the events offered.
	EventTerms *TermStats
}

// TermStats are a corpus's size and, for terms, how many of its documents
// hold each (a term absent from DF: none).
type TermStats struct {
	Docs int
	DF   map[string]int
}

// RecallScore is the explainable score of one candidate.
type RecallScore struct {
	Relevance   float64 `json:"relevance"`
	ScopeMatch  float64 `json:"scope_match"`
	Trust       float64 `json:"trust"`
	Recency     float64 `json:"recency"`
	Importance  float64 `json:"importance"`
	Use         float64 `json:"use"`
	Sensitivity float64 `json:"sensitivity"`
	Conflict    float64 `json:"conflict"`
	Total       float64 `json:"total"`
	// With the semantic channel on, relevance is fused: Lexical is the
	// words' relevance and LexicalRank its place among the kind's
	// candidates the words found (0: not found); Cosine and SemanticRank
	// the same for the vectors (0: not among the closest).
	Lexical      float64 `json:"lexical,omitempty"`
	LexicalRank  int     `json:"lexical_rank,omitempty"`
	Cosine       float64 `json:"cosine,omitempty"`
	SemanticRank int     `json:"semantic_rank,omitempty"`
	// Expansion is what the second hop over the events added to the
	// relevance (RecallWeights.ExpandShare).
	Expansion float64 `json:"expansion,omitempty"`
}

// RecallSource says where an item came from.
type RecallSource struct {
	RuleID    int64  `json:"rule_id,omitempty"`
	Version   int    `json:"version,omitempty"`
	EpisodeID int64  `json:"episode_id,omitempty"`
	EventSeq  int64  `json:"event_seq,omitempty"`
	EventID   string `json:"event_id,omitempty"`
	// Origin is a raw event's source (conversation, tool or external);
	// external content is untrusted.
	Origin Source `json:"origin,omitempty"`
	// SubjectID is set for memories about one subject; "" is project-wide.
	SubjectID string `json:"subject_id,omitempty"`
	// SessionIDs are the sessions the item was learned from.
	SessionIDs []string `json:"session_ids,omitempty"`
	// EvidenceEvents counts the events behind a rule.
	EvidenceEvents int `json:"evidence_events,omitempty"`
	// OccurredAt is when a raw event happened.
	OccurredAt *time.Time `json:"occurred_at,omitempty"`
}

// RecallItem is one memory in a context package.
type RecallItem struct {
	ID   string     `json:"id"`
	Kind RecallKind `json:"kind"`
	// Type is the memory type of a rule.
	Type            MemoryType      `json:"type,omitempty"`
	Text            string          `json:"text"`
	Truncated       bool            `json:"truncated,omitempty"`
	Source          RecallSource    `json:"source"`
	PromotionReason PromotionReason `json:"promotion_reason,omitempty"`
	Trust           float64         `json:"trust"`
	Score           float64         `json:"score"`
	// ConflictsWith names in-scope rules excluded because they contradict this one.
	ConflictsWith []string `json:"conflicts_with,omitempty"`
	// Latest is set on the latest of several raw events in which one side
	// says much the same about what the task asks, at different times: how
	// many there are. Newer names that latest one on each older event.
	Latest int    `json:"latest,omitempty"`
	Newer  string `json:"newer,omitempty"`
}

// RecallTraceEntry records the decision on one in-scope candidate. It holds
// ids, scores and reasons only — never memory text — so a stored trace keeps
// no copy of what a forget removes.
type RecallTraceEntry struct {
	ID        string      `json:"id"`
	Kind      RecallKind  `json:"kind"`
	Included  bool        `json:"included"`
	Reason    string      `json:"reason"`
	Score     RecallScore `json:"score"`
	Runes     int         `json:"runes"`
	Truncated bool        `json:"truncated,omitempty"`
	// ConflictsWith is the other rule of a conflict.
	ConflictsWith string `json:"conflicts_with,omitempty"`
}

// RecallTrace explains a package: every in-scope candidate considered, and
// only counts for what the scope filter removed.
type RecallTrace struct {
	ID            int64              `json:"id,omitempty"`
	Considered    []RecallTraceEntry `json:"considered"`
	ScopeFiltered ScopeCounts        `json:"scope_filtered"`
	Weights       RecallWeights      `json:"weights"`
	// Fusion is set when the semantic channel is on.
	Fusion *RecallFusion `json:"fusion,omitempty"`
	// Match says how well the best events match the task; nil when
	// events were not asked for or none holds a term of the task.
	Match *RecallMatch `json:"match,omitempty"`
}

// RecallMatch is how much of what a task asks about the best events hold
// (RecallWeights.MatchDepth, StrongMatch): Coverage is the share of the
// task's terms, weighed by idf over the scope's events, that the best
// events of one session hold between them (the session holding most); Missing counts the terms no event in scope holds (each
// weighs the most a term can). Weak: Coverage is below StrongMatch, so
// what was recalled does not answer the task as asked (the memory may not
// hold the answer at all).
type RecallMatch struct {
	Events   int     `json:"events"`
	Coverage float64 `json:"coverage"`
	Missing  int     `json:"missing,omitempty"`
	Weak     bool    `json:"weak,omitempty"`
}

// RecallPackage is the working memory for one task.
type RecallPackage struct {
	ProjectID int64        `json:"project_id"`
	SubjectID string       `json:"subject_id,omitempty"`
	Budget    Budget       `json:"budget"`
	Used      int          `json:"used"`
	Items     []RecallItem `json:"items"`
	// Skills are the project's active skills that apply to the task
	// (governance/recall SkillIndex), in a section of their own.
	Skills []SkillMatch `json:"skills,omitempty"`
	// Text is the items as a block fenced as recalled memory, ready to put
	// into a prompt; "" when nothing was recalled.
	Text  string      `json:"text"`
	Trace RecallTrace `json:"trace"`
	// Receipt records what shaped the package (docs/outcomes.md); it is
	// stored with the trace.
	Receipt *RecallReceipt `json:"receipt,omitempty"`
}

// Memory fence of the text block.
const (
	RecallFenceOpen  = "<recalled_memory>"
	RecallFenceClose = "</recalled_memory>"
)

// RecallRuleID, RecallEpisodeID and RecallEventID are the ids of package
// items and trace entries.
func RecallRuleID(id int64) string    { return "rule:" + strconv.FormatInt(id, 10) }
func RecallEpisodeID(id int64) string { return "episode:" + strconv.FormatInt(id, 10) }
func RecallEventID(seq int64) string  { return "event:" + strconv.FormatInt(seq, 10) }

// ParseRecallID splits an item id into its kind and number.
func ParseRecallID(id string) (RecallKind, int64, bool) {
	kind, num, ok := strings.Cut(id, ":")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return "", 0, false
	}
	switch k := RecallKind(kind); k {
	case RecallKindRule, RecallKindEpisode, RecallKindEvent:
		return k, n, true
	}
	return "", 0, false
}

// String describes an entry for logs and the console: "rule:12 excluded (paused)".
func (e RecallTraceEntry) String() string {
	if e.Included {
		return fmt.Sprintf("%s included (score %.3f)", e.ID, e.Score.Total)
	}
	return fmt.Sprintf("%s excluded (%s)", e.ID, e.Reason)
}
