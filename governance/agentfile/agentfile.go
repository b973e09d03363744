package agentfile

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
)

// agentText is RuleTextForAgent for a Markdown file an agent reads
// (MEMORY.md, USER.md, AGENTS.md, CLAUDE.md, .claude/rules), with raw
// HTML escaped too (escapeHTML): a Markdown viewer renders a tag or hides
// a comment's text from whoever reads the file while the agent reads it,
// and a managed block's markers are comments.
func agentText(r *governance.Rule) (string, bool) {
	text, ok := governance.RuleTextForAgent(r)
	return escapeHTML(text), ok
}

// escapeHTML escapes every "<" that opens markup in Markdown (a tag, a
// closing tag, a comment, a declaration or processing instruction: "<"
// before a letter, "/", "!" or "?") and the end of a comment, so rule
// text reads as the text it is in a rendered file. Other "<" ("a < b",
// "<-") stay as they are.
func escapeHTML(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '<' && i+1 < len(s) && opensMarkup(s[i+1]):
			b.WriteString("&lt;")
		case c == '>' && strings.HasSuffix(s[:i], "--"):
			b.WriteString("&gt;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func opensMarkup(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// BuildHermesFile ranks the usable rules by StandingScore (then use count,
// then id) and packs them into a file of at most limit runes. A rule that
// does not fit is listed as omitted, never cut.
func BuildHermesFile(name string, limit int, rules []*governance.Rule, now time.Time, w governance.RecallWeights) governance.HermesFile {
	f := governance.HermesFile{Name: name, Limit: limit, Included: []governance.HermesEntry{}, Omitted: []governance.HermesEntry{}}
	type ranked struct {
		e   governance.HermesEntry
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
		all = append(all, ranked{governance.HermesEntry{RuleID: r.ID, Text: text, Runes: utf8.RuneCountInString(text),
			Score: recall.StandingScore(r, now, w)}, r.UseCount})
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
	sep := utf8.RuneCountInString(governance.HermesSeparator)
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
	f.Text = strings.Join(texts, governance.HermesSeparator)
	return f
}

// ruleTopics names the .claude/rules file of each kind of memory.
var ruleTopics = []struct {
	kind  governance.MemoryType
	topic string
	title string
}{
	{governance.TypePreference, "preferences", "Preferences"},
	{governance.TypeLesson, "lessons", "Lessons learned"},
	{governance.TypeFact, "facts", "Facts"},
}

// BuildAgentFiles builds the managed blocks of AGENTS.md, CLAUDE.md and one
// .claude/rules/<topic>.md per kind of memory from the usable rules of a
// project, each ranked like a Hermes file and packed within its budget.
func BuildAgentFiles(project string, rules []*governance.Rule, now time.Time, w governance.RecallWeights) []governance.AgentFile {
	heading := fmt.Sprintf("## Memory from Mnemo (project %s)", project)
	files := []governance.AgentFile{
		packAgentFile("AGENTS.md", governance.AgentsMDLimit, heading, rules, now, w),
		packAgentFile("CLAUDE.md", governance.ClaudeMDLimit, heading, rules, now, w),
	}
	for _, t := range ruleTopics {
		var of []*governance.Rule
		for _, r := range rules {
			if r.Kind == t.kind {
				of = append(of, r)
			}
		}
		files = append(files, packAgentFile(".claude/rules/"+t.topic+".md", governance.RuleFileLimit,
			fmt.Sprintf("## %s (Mnemo, project %s)", t.title, project), of, now, w))
	}
	return files
}

// packAgentFile ranks the usable rules and packs them as a bullet list
// under heading within limit runes; a rule that does not fit is omitted,
// never cut.
func packAgentFile(path string, limit int, heading string, rules []*governance.Rule, now time.Time, w governance.RecallWeights) governance.AgentFile {
	f := governance.AgentFile{Path: path, Limit: limit, Included: []governance.HermesEntry{}, Omitted: []governance.HermesEntry{}}
	var all []governance.HermesEntry
	for _, r := range rules {
		if ok, _ := r.Usable(now); !ok {
			continue
		}
		text, ok := agentText(r)
		if !ok {
			continue
		}
		all = append(all, governance.HermesEntry{RuleID: r.ID, Text: text, Runes: utf8.RuneCountInString(text), Score: recall.StandingScore(r, now, w)})
	}
	slices.SortStableFunc(all, func(a, b governance.HermesEntry) int {
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
	block := governance.ManagedBegin + "\n" + strings.TrimRight(content, "\n") + "\n" + governance.ManagedEnd
	begin := bytes.Index(existing, []byte(governance.ManagedBegin))
	if begin < 0 {
		if bytes.Contains(existing, []byte(governance.ManagedEnd)) {
			return nil, governance.Errorf(governance.EINVALID, "The file has a Mnemo end marker without a begin marker.")
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
	rel := bytes.Index(existing[begin:], []byte(governance.ManagedEnd))
	if rel < 0 {
		return nil, governance.Errorf(governance.EINVALID, "The file has a Mnemo begin marker without an end marker.")
	}
	end := begin + rel + len(governance.ManagedEnd)
	if bytes.Contains(existing[end:], []byte(governance.ManagedBegin)) {
		return nil, governance.Errorf(governance.EINVALID, "The file has more than one Mnemo block.")
	}
	out := make([]byte, 0, len(existing)+len(block))
	out = append(out, existing[:begin]...)
	out = append(out, block...)
	return append(out, existing[end:]...), nil
}
