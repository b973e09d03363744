package governance

import (
	"context"
	_ "embed"
	"errors"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// The risk review of a skill, before any version is active: every text
// file goes through the write gate (as a rule's text does), and the
// structural checks of skill_checks.toml look for what a skill, unlike a
// statement, can carry — scripts, network calls, credentials, changes to
// the agent's authority, hidden text, pre-approved tools — and for file
// names that climb out of the folder. Each is a finding with its file and
// span; a version with any finding is never activated without a reviewer.

// Skill review categories (SkillFinding.Category), besides the gate's.
const (
	SkillScript      = "skill_script"
	SkillNetwork     = "skill_network"
	SkillCredentials = "skill_credentials"
	SkillAuthority   = "skill_authority"
	SkillHidden      = "skill_hidden_text"
	SkillTools       = "skill_tools"
)

// SkillCategories lists the review's own categories (each labelled in
// both catalogs, as the gate's are).
var SkillCategories = []string{SkillScript, SkillNetwork, SkillCredentials, SkillAuthority, SkillHidden, SkillTools}

// Why sentences of the findings made in code (the data file's are read
// from it).
const (
	whyScript    = "It is a script the agent can run: read it before approving."
	whyBinary    = "It is a compiled program: its code cannot be reviewed here."
	whyTraversal = "Its name climbs out of the skill folder; the file was not kept."
	whyDropped   = "It is a link or an entry that is not a plain file; it was not kept."
)

//go:embed skill_checks.toml
var skillChecksTOML string

type skillCheck struct {
	Category string   `toml:"category"`
	Why      string   `toml:"why"`
	Files    string   `toml:"files"`
	Patterns []string `toml:"patterns"`
	res      []*regexp.Regexp
}

type skillChecksFile struct {
	IgnoreGate []string      `toml:"ignore_gate"`
	Check      []*skillCheck `toml:"check"`
	Procedure  struct {
		ShellTools   []string `toml:"shell_tools"`
		Explicit     []string `toml:"explicit"`
		ContextTools []string `toml:"context_tools"`
	} `toml:"procedure"`
}

var skillChecks = func() *skillChecksFile {
	var f skillChecksFile
	if _, err := toml.Decode(skillChecksTOML, &f); err != nil {
		panic("governance: skill_checks.toml: " + err.Error())
	}
	for _, c := range f.Check {
		for _, p := range c.Patterns {
			c.res = append(c.res, regexp.MustCompile(p))
		}
	}
	return &f
}()

// SkillReviewSentences lists every sentence a skill finding's Why can
// hold, for the catalog tests.
func SkillReviewSentences() []string {
	out := []string{whyScript, whyBinary, whyTraversal, whyDropped}
	for _, c := range skillChecks.Check {
		out = append(out, c.Why)
	}
	return out
}

// ReviewSkill returns the findings of a skill's content, in file order:
// the write gate's classifier over each text file and the structural
// checks; dropped are the folder's entries that were not kept. It fails
// closed: without a classifier, or when the classifier fails, it returns
// an error and no findings.
func ReviewSkill(ctx context.Context, c *SkillContent, dropped []SkillDropped, cl Classifier) ([]SkillFinding, error) {
	if cl == nil {
		return nil, errors.New("skill review: no classifier")
	}
	var out []SkillFinding
	for _, d := range dropped {
		why := whyDropped
		if d.Traversal {
			why = whyTraversal
		}
		out = append(out, SkillFinding{File: d.Path, Finding: Finding{Category: GatePathTraversal, Pattern: "file name", Excerpt: clipExcerpt(d.Path), Why: why}})
	}
	for _, f := range c.AllFiles() {
		fs, err := reviewFile(ctx, f, cl)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

func reviewFile(ctx context.Context, f SkillFile, cl Classifier) ([]SkillFinding, error) {
	var out []SkillFinding
	add := func(fd Finding) { out = append(out, SkillFinding{File: f.Path, Finding: fd}) }
	if !f.Text() {
		if isProgram(f.Content) {
			add(Finding{Category: SkillScript, Pattern: "binary", Excerpt: f.Path, Why: whyBinary})
		}
		return out, nil
	}
	text := string(f.Content)
	if IsScriptFile(f) && f.Path != SkillFileName {
		line, _, _ := strings.Cut(text, "\n")
		add(Finding{Category: SkillScript, Pattern: "script", Excerpt: clipExcerpt(line), Start: 0, End: len(line), Why: whyScript})
	}
	res, err := cl.Classify(ctx, text)
	if err != nil {
		return nil, err
	}
	for _, fd := range res.Findings {
		if !slices.Contains(skillChecks.IgnoreGate, fd.Category+"/"+fd.Pattern) {
			add(fd)
		}
	}
	markdown := f.Path == SkillFileName || strings.HasSuffix(strings.ToLower(f.Path), ".md")
	header := ""
	if f.Path == SkillFileName {
		header, _, _ = SplitFrontMatter(text)
	}
	for _, c := range skillChecks.Check {
		target, offset := text, 0
		switch c.Files {
		case "scripts":
			if !IsScriptFile(f) {
				continue
			}
		case "markdown":
			if !markdown {
				continue
			}
		case "frontmatter":
			if header == "" {
				continue
			}
			target, offset = header, strings.Index(text, "\n")+1
		}
		for _, re := range c.res {
			loc := re.FindStringIndex(target)
			if loc == nil {
				continue
			}
			add(Finding{Category: c.Category, Pattern: shortPattern(target[loc[0]:loc[1]]), Excerpt: clipExcerpt(target[loc[0]:loc[1]]),
				Start: loc[0] + offset, End: loc[1] + offset, Why: c.Why})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out, nil
}

// isProgram reports whether b starts like a compiled executable (ELF,
// Mach-O, PE, WebAssembly).
func isProgram(b []byte) bool {
	for _, magic := range []string{"\x7fELF", "\xfe\xed\xfa\xce", "\xfe\xed\xfa\xcf", "\xcf\xfa\xed\xfe", "\xce\xfa\xed\xfe", "MZ", "\x00asm"} {
		if strings.HasPrefix(string(b), magic) {
			return true
		}
	}
	return false
}

func clipExcerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return s
}

// shortPattern names a match by its first word: "curl", "https", "sudo".
func shortPattern(m string) string {
	m = strings.TrimLeft(m, "-<[#(~$/ \t\n")
	end := strings.IndexFunc(m, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r > 0x7f)
	})
	if end > 0 {
		m = m[:end]
	}
	if r := []rune(m); len(r) > 40 {
		m = string(r[:40])
	}
	return strings.ToLower(m)
}

// SkillFindingsIn returns the findings of one file.
func SkillFindingsIn(fs []SkillFinding, file string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.File == file {
			out = append(out, f.Finding)
		}
	}
	return out
}
