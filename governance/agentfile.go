package governance

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Agent files: the files coding agents read at start-up (AGENTS.md for
// Codex CLI, CLAUDE.md and .claude/rules/<topic>.md for Claude Code,
// MEMORY.md and USER.md for Hermes Agent). Mnemo writes its memory inside
// one managed block per file, between ManagedBegin and ManagedEnd, and
// never touches a byte outside it, so what people wrote by hand survives
// every sync.
const (
	ManagedBegin = "<!-- mnemo:begin — managed by Mnemo; edits inside this block are replaced on the next sync -->"
	ManagedEnd   = "<!-- mnemo:end -->"
)

// Budgets of the agent files, in characters of the block's content.
const (
	AgentsMDLimit = 6000
	ClaudeMDLimit = 4000
	RuleFileLimit = 2000
)

// AgentFile is one agent file's managed block: what went in, highest-ranked
// first, and what did not fit within the budget.
type AgentFile struct {
	Path     string        `json:"path"`
	Limit    int           `json:"limit"`
	Used     int           `json:"used"`
	Block    string        `json:"block"`
	Included []HermesEntry `json:"included"`
	Omitted  []HermesEntry `json:"omitted"`
}

// AgentFileDownloadName is the download name of the agent file at path:
// .claude/rules/lessons.md → claude-rules-lessons.md.
func AgentFileDownloadName(path string) string {
	return strings.ReplaceAll(strings.TrimPrefix(path, "."), "/", "-")
}

// ruleTopics names the .claude/rules file of each kind of memory.
var ruleTopics = []struct {
	kind  MemoryType
	topic string
	title string
}{
	{TypePreference, "preferences", "Preferences"},
	{TypeLesson, "lessons", "Lessons learned"},
	{TypeFact, "facts", "Facts"},
}

// BuildAgentFiles builds the managed blocks of AGENTS.md, CLAUDE.md and one
// .claude/rules/<topic>.md per kind of memory from the usable rules of a
// project, each ranked like a Hermes file and packed within its budget.
func BuildAgentFiles(project string, rules []*Rule, now time.Time, w RecallWeights) []AgentFile {
	heading := fmt.Sprintf("## Memory from Mnemo (project %s)", project)
	files := []AgentFile{
		packAgentFile("AGENTS.md", AgentsMDLimit, heading, rules, now, w),
		packAgentFile("CLAUDE.md", ClaudeMDLimit, heading, rules, now, w),
	}
	for _, t := range ruleTopics {
		var of []*Rule
		for _, r := range rules {
			if r.Kind == t.kind {
				of = append(of, r)
			}
		}
		files = append(files, packAgentFile(".claude/rules/"+t.topic+".md", RuleFileLimit,
			fmt.Sprintf("## %s (Mnemo, project %s)", t.title, project), of, now, w))
	}
	return files
}

// packAgentFile ranks the usable rules and packs them as a bullet list
// under heading within limit runes; a rule that does not fit is omitted,
// never cut.
func packAgentFile(path string, limit int, heading string, rules []*Rule, now time.Time, w RecallWeights) AgentFile {
	f := AgentFile{Path: path, Limit: limit, Included: []HermesEntry{}, Omitted: []HermesEntry{}}
	var all []HermesEntry
	for _, r := range rules {
		if ok, _ := r.Usable(now); !ok {
			continue
		}
		text, ok := agentText(r)
		if !ok {
			continue
		}
		all = append(all, HermesEntry{RuleID: r.ID, Text: text, Runes: utf8.RuneCountInString(text), Score: StandingScore(r, now, w)})
	}
	slices.SortStableFunc(all, func(a, b HermesEntry) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.RuleID, b.RuleID)
	})
	var b strings.Builder
	b.WriteString(heading)
	b.WriteString("\n")
	f.Used = utf8.RuneCountInString(heading) + 1
	for _, e := range all {
		need := e.Runes + 3 // "- " and the newline
		if f.Used+need > limit {
			f.Omitted = append(f.Omitted, e)
			continue
		}
		f.Used += need
		b.WriteString("\n- ")
		b.WriteString(e.Text)
		f.Included = append(f.Included, e)
	}
	if len(f.Included) == 0 {
		b.WriteString("\n(no approved memory yet)")
	}
	f.Block = b.String()
	return f
}

// MergeManagedBlock puts content inside the managed block of an existing
// file: the block is replaced when the file has one, appended (after a
// blank line) when it has none. Every byte outside the block is kept as it
// was. A file with a begin marker but no end marker after it, or with more
// than one block, is an EINVALID error: Mnemo does not guess which part is
// its own.
func MergeManagedBlock(existing []byte, content string) ([]byte, error) {
	block := ManagedBegin + "\n" + strings.TrimRight(content, "\n") + "\n" + ManagedEnd
	begin := bytes.Index(existing, []byte(ManagedBegin))
	if begin < 0 {
		if bytes.Contains(existing, []byte(ManagedEnd)) {
			return nil, Errorf(EINVALID, "The file has a Mnemo end marker without a begin marker.")
		}
		out := slices.Clone(existing)
		switch {
		case len(out) == 0:
		case bytes.HasSuffix(out, []byte("\n\n")):
		case bytes.HasSuffix(out, []byte("\n")):
			out = append(out, '\n')
		default:
			out = append(out, "\n\n"...)
		}
		return append(append(out, block...), '\n'), nil
	}
	rel := bytes.Index(existing[begin:], []byte(ManagedEnd))
	if rel < 0 {
		return nil, Errorf(EINVALID, "The file has a Mnemo begin marker without an end marker.")
	}
	end := begin + rel + len(ManagedEnd)
	if bytes.Contains(existing[end:], []byte(ManagedBegin)) {
		return nil, Errorf(EINVALID, "The file has more than one Mnemo block.")
	}
	out := make([]byte, 0, len(existing)+len(block))
	out = append(out, existing[:begin]...)
	out = append(out, block...)
	return append(out, existing[end:]...), nil
}
