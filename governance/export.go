package governance

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Hermes-style memory files: MEMORY.md holds the project's standing rules,
// USER.md what is remembered about one user. Entries are separated by
// HermesSeparator and each file stays within its character limit.
const (
	HermesSeparator   = "\n§\n"
	HermesMemoryLimit = 2200
	HermesUserLimit   = 1375
	HermesMemoryName  = "MEMORY.md"
	HermesUserName    = "USER.md"
)

// HermesEntry is one rule offered to a memory file.
type HermesEntry struct {
	RuleID int64   `json:"rule_id"`
	Text   string  `json:"text"`
	Runes  int     `json:"runes"`
	Score  float64 `json:"score"`
}

// HermesFile is one built memory file: what went in, highest-ranked first,
// and what did not fit.
type HermesFile struct {
	Name     string        `json:"name"`
	Limit    int           `json:"limit"`
	Used     int           `json:"used"`
	Text     string        `json:"text"`
	Included []HermesEntry `json:"included"`
	Omitted  []HermesEntry `json:"omitted"`
}

// StandingScore ranks a rule without a task: the task-independent part of
// the recall score (scope match, trust, recency, importance, minus
// sensitivity), with the same weights.
func StandingScore(r *Rule, now time.Time, w RecallWeights) float64 {
	s := RecallScore{
		ScopeMatch: scopeMatch(r.SubjectID, w),
		Trust:      clamp01(r.Trust),
		Recency:    recency(now, r.UpdatedAt, w),
		Importance: ruleImportance(RecallRequest{}, r, w),
	}
	if len(r.Findings) > 0 {
		s.Sensitivity = 1
	}
	return total(s, w).Total
}

// RuleTextForAgent is a rule's text as anything an agent reads outside
// recall holds it (the agent files, Hermes's files, MCP export_memory): on
// one line, credentials masked and fence tags neutralised. ok is false
// when the write gate blocks any of it — even in an active rule a
// reviewer approved — or nothing is left: such a rule is left out whole.
func RuleTextForAgent(r *Rule) (string, bool) {
	gated, withheld := Withhold(oneLine(r.Text))
	if withheld {
		return "", false
	}
	text := NeutraliseFence(gated)
	return text, text != ""
}

// EventTextForAgent is a raw event's text as an agent may read it outside
// recall (search over the API and MCP): the write gate's blocked sentences
// withheld (withheld reports any), credentials masked, fence tags
// neutralised.
func EventTextForAgent(text string) (string, bool) {
	gated, withheld := Withhold(text)
	return NeutraliseFence(gated), withheld
}

// agentText is RuleTextForAgent for a Markdown file an agent reads
// (MEMORY.md, USER.md, AGENTS.md, CLAUDE.md, .claude/rules), with HTML
// comment delimiters escaped too: a comment hides its text from whoever
// reads the rendered file while the agent reads it, and a managed block's
// markers are comments.
func agentText(r *Rule) (string, bool) {
	text, ok := RuleTextForAgent(r)
	return commentDelims.Replace(text), ok
}

// commentDelims escapes the delimiters of an HTML comment.
var commentDelims = strings.NewReplacer("<!--", "&lt;!--", "-->", "--&gt;")

// BuildHermesFile ranks the usable rules by StandingScore (then use count,
// then id) and packs them into a file of at most limit runes. A rule that
// does not fit is listed as omitted, never cut.
func BuildHermesFile(name string, limit int, rules []*Rule, now time.Time, w RecallWeights) HermesFile {
	f := HermesFile{Name: name, Limit: limit, Included: []HermesEntry{}, Omitted: []HermesEntry{}}
	type ranked struct {
		e   HermesEntry
		use int
	}
	var all []ranked
	for _, r := range rules {
		if ok, _ := r.Usable(now); !ok {
			continue
		}
		text, ok := agentText(r)
		if !ok {
			continue
		}
		all = append(all, ranked{HermesEntry{RuleID: r.ID, Text: text, Runes: utf8.RuneCountInString(text),
			Score: StandingScore(r, now, w)}, r.UseCount})
	}
	slices.SortStableFunc(all, func(a, b ranked) int {
		if c := cmp.Compare(b.e.Score, a.e.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.use, a.use); c != 0 {
			return c
		}
		return cmp.Compare(a.e.RuleID, b.e.RuleID)
	})
	sep := utf8.RuneCountInString(HermesSeparator)
	var texts []string
	for _, r := range all {
		need := r.e.Runes
		if len(texts) > 0 {
			need += sep
		}
		if f.Used+need > limit {
			f.Omitted = append(f.Omitted, r.e)
			continue
		}
		f.Used += need
		texts = append(texts, r.e.Text)
		f.Included = append(f.Included, r.e)
	}
	f.Text = strings.Join(texts, HermesSeparator)
	return f
}

// ExportFormat names the JSON Lines export format; the first line of an
// export carries it.
const ExportFormat = "mnemo-export/1"

// ExportOptions narrow an export.
type ExportOptions struct {
	// SubjectID, when set, exports only what concerns that subject (a
	// member's own data): their events, episodes, candidates and rules.
	SubjectID *string
}

// ExportStats counts the records of an export or import.
type ExportStats struct {
	Events       int `json:"events"`
	Episodes     int `json:"episodes"`
	Rules        int `json:"rules"`
	Candidates   int `json:"candidates"`
	Suppressions int `json:"suppressions"`
}

// ImportOptions say where an export goes.
type ImportOptions struct {
	// Slug overrides the project slug of the export (and Name, if set).
	Slug, Name string
	// Actor is recorded in the audit row.
	Actor string
}

// HermesExport is the pair of Hermes-style memory files of a project (and
// optionally one subject).
type HermesExport struct {
	Memory HermesFile
	User   HermesFile
}
