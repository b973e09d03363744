package evals

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
	"gopkg.in/yaml.v3"
)

// Kind is the kind of an eval case.
type Kind string

const (
	KindRecall    Kind = "recall"
	KindIsolation Kind = "isolation"
	KindSequence  Kind = "sequence"
	KindAB        Kind = "ab"
	KindPoisoning Kind = "poisoning"
	// KindBenchmark is the kind of the cases of a benchmark suite (one per
	// conversation); it is never written in a suite file.
	KindBenchmark Kind = "benchmark"
)

// Suite is a parsed, validated eval suite. See README.md for the format.
type Suite struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description,omitempty"`
	// Project is the default project of the cases: a live project's slug
	// when fixtures.use_live_project is set, otherwise the alias of a
	// scratch project built from the fixtures.
	Project string `yaml:"project,omitempty"`
	// Subject is the default subject (end user) of the cases.
	Subject   string     `yaml:"subject,omitempty"`
	Fixtures  Fixtures   `yaml:"fixtures,omitempty"`
	Cases     []*Case    `yaml:"cases,omitempty"`
	Benchmark *Benchmark `yaml:"benchmark,omitempty"`

	// File names where the suite came from, for error messages.
	File string `yaml:"-"`
}

// Fixtures say what memory the recall, isolation and ab cases run against.
type Fixtures struct {
	// UseLiveProject runs the cases against the live projects named by
	// slug; nothing is ingested. Sequence and poisoning cases always use a
	// scratch project of their own.
	UseLiveProject bool `yaml:"use_live_project,omitempty"`
	// AutoActivate makes the fixtures' proposals active at once, so recall
	// sees them without a reviewer (default true): the run approves them
	// all, as a reviewer would, after the fixtures' heartbeat.
	AutoActivate *bool `yaml:"auto_activate,omitempty"`
	// CopyEvents copies the (unredacted) events of live projects into
	// scratch projects: scratch alias → live project slug.
	CopyEvents map[string]string `yaml:"copy_events,omitempty"`
	// Sessions are ingested into scratch projects, then one heartbeat runs.
	Sessions []*Session `yaml:"sessions,omitempty"`
}

// Session is a conversation of a fixture. Unless Open is set, a
// session_end event is appended so the heartbeat consolidates it at once.
type Session struct {
	ID string `yaml:"id,omitempty"`
	// Project is the scratch project alias (default: the suite's project).
	Project string `yaml:"project,omitempty"`
	Subject string `yaml:"subject,omitempty"`
	// Start is when the first event happened (RFC 3339); events follow a
	// minute apart. Default: 2026-06-01 plus one day per session.
	Start  string          `yaml:"start,omitempty"`
	Open   bool            `yaml:"open,omitempty"`
	Events []*FixtureEvent `yaml:"events"`

	start time.Time
}

// FixtureEvent is one event of a fixture session.
type FixtureEvent struct {
	ID string `yaml:"id,omitempty"`
	// Role is user (default), assistant or tool (default when Tool is set).
	Role   string `yaml:"role,omitempty"`
	Text   string `yaml:"text"`
	Tool   string `yaml:"tool,omitempty"`
	Status string `yaml:"status,omitempty"`
	// Source is conversation, tool or external (untrusted).
	Source string `yaml:"source,omitempty"`
}

// Case is one eval case; which fields apply depends on Kind.
type Case struct {
	ID          string `yaml:"id"`
	Kind        Kind   `yaml:"kind"`
	Description string `yaml:"description,omitempty"`
	Project     string `yaml:"project,omitempty"`
	Subject     string `yaml:"subject,omitempty"`
	Task        string `yaml:"task,omitempty"`
	// Timeout bounds the case, e.g. "30s" (default: the runner's).
	Timeout string `yaml:"timeout,omitempty"`

	// recall, isolation: what the context package must and must not hold.
	Include []*Matcher `yaml:"include,omitempty"`
	Exclude []*Matcher `yaml:"exclude,omitempty"`
	// isolation: the scope whose memories must not cross.
	Foreign *Scope `yaml:"foreign,omitempty"`

	// sequence and poisoning: also ingest the suite's fixture sessions of
	// the case's project into its scratch project first.
	WithFixtures bool `yaml:"with_fixtures,omitempty"`
	// sequence: steps applied in order, each checked.
	Steps []*Step `yaml:"steps,omitempty"`
	// poisoning: trusted sessions first, then untrusted ones (source
	// defaults to external), then checks; Forbid names text that must
	// never reach a rule or the package.
	Setup     []*Session `yaml:"setup,omitempty"`
	Untrusted []*Session `yaml:"untrusted,omitempty"`
	Forbid    []*Matcher `yaml:"forbid,omitempty"`

	// ab: the answer's JSON schema, the rules whose compliance is checked,
	// guards on the with-memory answer, and the pass bar.
	OutputSchema map[string]any `yaml:"output_schema,omitempty"`
	Rules        []*RuleSpec    `yaml:"rules,omitempty"`
	Guards       []*Check       `yaml:"guards,omitempty"`
	// MinWith is the least compliance score with memory (default 1).
	MinWith *float64 `yaml:"min_with,omitempty"`
	// MinUplift is the least uplift, with − without (default 0).
	MinUplift *float64 `yaml:"min_uplift,omitempty"`

	// skill_selection: the skills (name, description), the tasks with the
	// skills each should be offered, and the pass bars (default 0.8).
	Skills       []*SkillSpec `yaml:"skills,omitempty"`
	SkillTasks   []*SkillTask `yaml:"tasks,omitempty"`
	MinPrecision *float64     `yaml:"min_precision,omitempty"`
	MinRecall    *float64     `yaml:"min_recall,omitempty"`

	timeout time.Duration
}

// Scope names a project (slug or scratch alias) and/or a subject.
type Scope struct {
	Project string `yaml:"project,omitempty"`
	Subject string `yaml:"subject,omitempty"`
}

// Step is one step of a sequence case: turns to ingest (then a heartbeat),
// or a rule to forget; then what must hold.
type Step struct {
	Name    string          `yaml:"name,omitempty"`
	Session string          `yaml:"session,omitempty"`
	Turns   []*FixtureEvent `yaml:"turns,omitempty"`
	Forget  *Matcher        `yaml:"forget,omitempty"`
	Expect  Expect          `yaml:"expect"`
}

// Expect is what a sequence step must have done.
type Expect struct {
	// Writes: a new rule matching each appeared in this step.
	Writes []*Matcher `yaml:"writes,omitempty"`
	// NoWrites: no new rule appeared in this step.
	NoWrites bool `yaml:"no_writes,omitempty"`
	// Updates: an existing rule matching each gained evidence or a version,
	// and no duplicate rule was created.
	Updates []*Matcher `yaml:"updates,omitempty"`
	// Unchanged: a usable rule matching each is still there, same version,
	// not superseded — e.g. after a one-off instruction for one task.
	Unchanged []*Matcher `yaml:"unchanged,omitempty"`
	// Supersedes: a rule matching New replaces (or is proposed to replace)
	// the rule matching Old.
	Supersedes []*Supersede `yaml:"supersedes,omitempty"`
	// Forgets: the rule that matched is forgotten and recall no longer sees it.
	Forgets []*Matcher `yaml:"forgets,omitempty"`
	// Recall checks a context package after the step.
	Recall *RecallExpect `yaml:"recall,omitempty"`
}

// Supersede pairs the rule replaced and the rule replacing it.
type Supersede struct {
	Old *Matcher `yaml:"old"`
	New *Matcher `yaml:"new"`
}

// RecallExpect is a recall made inside a sequence step.
type RecallExpect struct {
	Task    string     `yaml:"task"`
	Subject string     `yaml:"subject,omitempty"`
	Include []*Matcher `yaml:"include,omitempty"`
	Exclude []*Matcher `yaml:"exclude,omitempty"`
}

// RuleSpec names a rule whose compliance an ab case checks, with its code
// checks. Without checks (here or stored on the rule) the model judges it.
type RuleSpec struct {
	// Match finds the stored rule(s) in the case's scope.
	Match *Matcher `yaml:"match,omitempty"`
	// Name labels the rule in reports (default: the rule's text).
	Name string `yaml:"name,omitempty"`
	// Text is the statement judged when no stored rule matches.
	Text   string   `yaml:"text,omitempty"`
	Checks []*Check `yaml:"checks,omitempty"`
}

// Matcher selects memories by rule id, by case-insensitive text, or by a
// regular expression over the text. A plain string is a text matcher.
type Matcher struct {
	Rule  int64  `yaml:"rule,omitempty" json:"rule,omitempty"`
	Text  string `yaml:"text,omitempty" json:"text,omitempty"`
	Regex string `yaml:"regex,omitempty" json:"regex,omitempty"`
	re    *regexp.Regexp
}

// UnmarshalYAML accepts a plain string or a mapping with known keys only.
func (m *Matcher) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&m.Text)
	}
	if err := knownKeys(n, "rule", "text", "regex"); err != nil {
		return err
	}
	type plain Matcher
	return n.Decode((*plain)(m))
}

// MarshalYAML writes a text-only matcher as a plain string.
func (m Matcher) MarshalYAML() (any, error) {
	if m.Rule == 0 && m.Regex == "" {
		return m.Text, nil
	}
	type plain Matcher
	return plain(m), nil
}

// String describes the matcher for reports.
func (m *Matcher) String() string {
	var parts []string
	if m.Rule != 0 {
		parts = append(parts, fmt.Sprintf("rule %d", m.Rule))
	}
	if m.Text != "" {
		parts = append(parts, fmt.Sprintf("text %q", m.Text))
	}
	if m.Regex != "" {
		parts = append(parts, fmt.Sprintf("regex /%s/", m.Regex))
	}
	return strings.Join(parts, " or ")
}

// MatchText reports whether a memory's text matches the text or regex.
func (m *Matcher) MatchText(text string) bool {
	if m.Text != "" && strings.Contains(strings.ToLower(text), strings.ToLower(m.Text)) {
		return true
	}
	if m.Regex != "" {
		if m.re == nil {
			m.re = regexp.MustCompile(m.Regex) // validated at load
		}
		return m.re.MatchString(text)
	}
	return false
}

// MatchRule reports whether a rule matches by id or text.
func (m *Matcher) MatchRule(r *governance.Rule) bool {
	return (m.Rule != 0 && r.ID == m.Rule) || m.MatchText(r.Text)
}

// Benchmark is a retrieval benchmark run instead of cases.
type Benchmark struct {
	// Format is the data format: "locomo" or "longmemeval".
	Format string `yaml:"format"`
	// K are the cut-offs of hit@k and all@k (default 1, 5, 10).
	K []int `yaml:"k,omitempty"`
	// Retrievers to measure: search (the product's search with the whole
	// question), keywords (the product's search per keyword, ranked by
	// keywords matched), recall (the recall engine with raw events) and
	// fts5 (a bare SQLite FTS5 table, the reference). Default: all four
	// for LoCoMo; search, recall and fts5 for LongMemEval.
	Retrievers []string `yaml:"retrievers,omitempty"`
	// Data is the benchmark file inline; File is a path relative to the
	// suite file (CLI only).
	Data string `yaml:"data,omitempty"`
	File string `yaml:"file,omitempty"`
	// Stored is the SHA-256 of a LongMemEval file kept in the database
	// with the suite (an upload); Questions are its question ids in file
	// order. Neither is written by hand.
	Stored    string   `yaml:"stored,omitempty"`
	Questions []string `yaml:"questions,omitempty"`

	conversations []*Conversation
	// open reads a LongMemEval file from its start (the file, the inline
	// data or the stored copy).
	open func() (io.ReadCloser, error)
}

// Retriever names.
const (
	RetrieverSearch   = "search"
	RetrieverKeywords = "keywords"
	RetrieverRecall   = "recall"
	// RetrieverFTS5 is the reference: a bare SQLite FTS5 table (porter
	// tokenizer) per conversation, queried with an OR of the question's
	// words and ranked by bm25.
	RetrieverFTS5 = "fts5"
)

// Problem is one thing wrong with a suite: where (case id and field) and what.
type Problem struct {
	Case    string
	Field   string
	Message string
	// Text is Message as its format and values.
	Text governance.Text
}

func (p Problem) String() string { return p.Sentence().String() }

// Sentence is the problem as a Text: where, then what.
func (p Problem) Sentence() governance.Text {
	t := p.Text
	if t.IsZero() {
		t = governance.Text{ID: p.Message}
	}
	if p.Field != "" {
		t = governance.Say("%s: %s", p.Field, t)
	}
	if p.Case != "" {
		t = governance.Say("case %q: %s", p.Case, t)
	}
	return t
}

// ValidationError lists every problem found in a suite file.
type ValidationError struct {
	File     string
	Problems []Problem
}

func (e *ValidationError) Error() string { return e.Sentence().String() }

// Sentence is the error as Texts, one a line: the file and how many
// problems, then each problem.
func (e *ValidationError) Sentence() governance.Text {
	lines := []governance.Text{governance.Say("%s: invalid suite (%d problem(s))", e.File, len(e.Problems))}
	for _, p := range e.Problems {
		lines = append(lines, governance.Say("%s: %s", e.File, p.Sentence()))
	}
	return governance.Text{Lines: lines}
}

// MaxSuiteBytes bounds a suite file (benchmark data included).
const MaxSuiteBytes = 16 << 20

// ParseSuite decodes and validates a suite. file names it in errors. Unknown
// fields are errors. A LoCoMo JSON file (file ending in .json, or a body
// that is a JSON array) becomes a benchmark suite named after the file.
func ParseSuite(file string, body []byte) (*Suite, error) {
	lower := strings.ToLower(file)
	if SniffBenchmark(body) == FormatLongMemEval {
		return parseBenchmarkFile(file, body) // read one question at a time, whatever its size
	}
	if len(body) > MaxSuiteBytes {
		return nil, &ValidationError{File: file, Problems: []Problem{{Message: fmt.Sprintf("file is larger than %d MB", MaxSuiteBytes>>20), Text: governance.Say("file is larger than %d MB", MaxSuiteBytes>>20)}}}
	}
	if trimmed := bytes.TrimSpace(body); strings.HasSuffix(lower, ".json") || strings.HasSuffix(lower, ".json.gz") || bytes.HasPrefix(trimmed, []byte("[")) ||
		bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		return parseBenchmarkFile(file, body)
	}
	if problems := cleanYAML(body); len(problems) > 0 {
		return nil, &ValidationError{File: file, Problems: problems}
	}
	var s Suite
	dec := yaml.NewDecoder(bytes.NewReader(body))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ValidationError{File: file, Problems: []Problem{{Message: "file is empty"}}}
		}
		return nil, &ValidationError{File: file, Problems: []Problem{{Message: yamlProblem(err)}}}
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &ValidationError{File: file, Problems: []Problem{{Message: "more than one YAML document; put one suite per file"}}}
	}
	s.File = file
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// ParseSuiteFrom is ParseSuite for a file open reads (from the start, as
// often as needed): a LongMemEval file is read one question at a time,
// whatever its size, and never held whole; anything else is read whole,
// at most MaxSuiteBytes.
func ParseSuiteFrom(file string, open func() (io.ReadCloser, error)) (*Suite, error) {
	head, err := readHead(open, sniffBytes)
	if err != nil {
		return nil, err
	}
	if SniffBenchmark(head) == FormatLongMemEval {
		s := LongMemEvalSuite(file, open)
		if err := s.Validate(); err != nil {
			return nil, err
		}
		return s, nil
	}
	body, err := readHead(open, MaxSuiteBytes+1)
	if err != nil {
		return nil, err
	}
	return ParseSuite(file, body)
}

// readHead reads at most n bytes of what open reads.
func readHead(open func() (io.ReadCloser, error), n int64) ([]byte, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, n))
}

// cleanYAML checks every decoded scalar (keys and values, after YAML
// escapes such as "\x1b" are applied) with governance.CheckText, naming the
// line; at most governance.MaxReportedErrors problems are listed.
func cleanYAML(body []byte) []Problem {
	if !utf8.Valid(body) {
		return []Problem{{Message: "file is not valid UTF-8", Text: governance.Say("file is not valid UTF-8")}}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(body, &root); err != nil {
		return nil // the strict decode that follows reports it
	}
	var out []Problem
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || len(out) >= governance.MaxReportedErrors {
			return
		}
		if n.Kind == yaml.ScalarNode {
			if p := governance.CheckText(n.Value); p != "" {
				out = append(out, Problem{Field: fmt.Sprintf("line %d", n.Line), Message: "value " + p, Text: governance.Say("value %s", p)})
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	return out
}

// LoadSuiteFile reads and parses a suite file from disk; a benchmark's
// relative file is read next to it.
func LoadSuiteFile(path string) (*Suite, error) {
	if lme, err := isLongMemEvalFile(path); err != nil {
		return nil, err
	} else if lme {
		s := LongMemEvalSuite(path, func() (io.ReadCloser, error) { return os.Open(path) })
		s.File = filepath.Base(path)
		if err := s.Validate(); err != nil {
			return nil, err
		}
		return s, nil
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSuite(filepath.Base(path), body)
	if err != nil {
		return nil, err
	}
	if b := s.Benchmark; b != nil && b.File != "" && b.Data == "" {
		file := filepath.Join(filepath.Dir(path), b.File)
		if b.Format == FormatLongMemEval {
			if _, err := os.Stat(file); err != nil {
				return nil, fmt.Errorf("%s: benchmark.file: %w", s.File, err)
			}
			b.open = func() (io.ReadCloser, error) { return os.Open(file) }
		} else {
			data, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("%s: benchmark.file: %w", s.File, err)
			}
			b.Data = string(data)
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// isLongMemEvalFile reports whether the file at path starts like a
// LongMemEval file (gzip-compressed or not).
func isLongMemEvalFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, sniffBytes))
	if err != nil {
		return false, err
	}
	return SniffBenchmark(head) == FormatLongMemEval, nil
}

// Marshal returns the suite as YAML (the form stored in the database).
func (s *Suite) Marshal() ([]byte, error) {
	return yaml.Marshal(s)
}

func yamlProblem(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
	msg = strings.ReplaceAll(msg, "\n  ", "; ")
	msg = regexp.MustCompile(`in type evals\.\w+`).ReplaceAllString(msg, "here")
	msg = strings.ReplaceAll(msg, "in type *evals.plain", "here")
	return msg
}

// knownKeys rejects mapping keys outside allowed (custom unmarshalers do
// not inherit the decoder's KnownFields).
func knownKeys(n *yaml.Node, allowed ...string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: expected a mapping or a string", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !slices.Contains(allowed, k) {
			return fmt.Errorf("line %d: field %s not found (known: %s)", n.Content[i].Line, k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$`)

// Validate checks the suite and fills defaults; it returns a
// *ValidationError naming every problem by case id and field.
func (s *Suite) Validate() error {
	v := &validator{}
	if strings.TrimSpace(s.Name) == "" {
		v.add("", "name", governance.Say("is required"))
	} else if !idPattern.MatchString(s.Name) {
		v.add("", "name", governance.Say("must be letters, digits, '.', '_', ':' or '-' (at most 100), starting with a letter or digit"))
	}
	if s.Benchmark != nil {
		s.validateBenchmark(v)
		if len(s.Cases) > 0 {
			v.add("", "cases", governance.Say("a benchmark suite has no cases"))
		}
		return v.err(s.File)
	}
	if len(s.Cases) == 0 {
		v.add("", "cases", governance.Say("at least one case is required"))
	}
	s.validateFixtures(v)
	seen := map[string]int{}
	for i, c := range s.Cases {
		field := fmt.Sprintf("cases[%d]", i)
		if c == nil {
			v.add("", field, governance.Say("is empty"))
			continue
		}
		if c.ID == "" {
			v.add("", field+".id", governance.Say("is required"))
		} else if !idPattern.MatchString(c.ID) {
			v.add(c.ID, "id", governance.Say("must be letters, digits, '.', '_', ':' or '-' (at most 100)"))
		} else if j, dup := seen[c.ID]; dup {
			v.add(c.ID, "id", governance.Say("duplicates cases[%d]", j))
		}
		seen[c.ID] = i
		s.validateCase(v, c)
	}
	return v.err(s.File)
}

type validator struct{ problems []Problem }

func (v *validator) add(caseID, field string, msg governance.Text) {
	v.problems = append(v.problems, Problem{Case: caseID, Field: field, Message: msg.String(), Text: msg})
}

func (v *validator) err(file string) error {
	if len(v.problems) == 0 {
		return nil
	}
	return &ValidationError{File: file, Problems: v.problems}
}

// projectAliases are the scratch projects the fixtures define.
func (s *Suite) projectAliases() []string {
	var out []string
	add := func(a string) {
		if a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	add(s.Project)
	for alias := range s.Fixtures.CopyEvents {
		add(alias)
	}
	for _, sess := range s.Fixtures.Sessions {
		if sess != nil {
			add(cmpOr(sess.Project, s.Project))
		}
	}
	slices.Sort(out)
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (s *Suite) validateFixtures(v *validator) {
	f := &s.Fixtures
	if f.UseLiveProject {
		if len(f.Sessions) > 0 || len(f.CopyEvents) > 0 {
			v.add("", "fixtures", governance.Say("use_live_project cannot be combined with sessions or copy_events"))
		}
		if f.AutoActivate != nil {
			v.add("", "fixtures.auto_activate", governance.Say("applies to scratch projects only, not with use_live_project"))
		}
	}
	for alias, slug := range f.CopyEvents {
		if !idPattern.MatchString(alias) || strings.TrimSpace(slug) == "" {
			v.add("", "fixtures.copy_events."+alias, governance.Say("needs an alias and a live project slug"))
		}
	}
	validateSessions(v, "", "fixtures.sessions", f.Sessions, s.Project, false)
}

func validateSessions(v *validator, caseID, field string, sessions []*Session, defaultProject string, untrusted bool) {
	ids := map[string]bool{}
	for i, sess := range sessions {
		f := fmt.Sprintf("%s[%d]", field, i)
		if sess == nil {
			v.add(caseID, f, governance.Say("is empty"))
			continue
		}
		if sess.ID == "" {
			sess.ID = fmt.Sprintf("s%d", i+1)
		} else if p := governance.CheckIdentifier(sess.ID); p != "" {
			v.add(caseID, f+".id", governance.Text{ID: p})
		}
		if ids[sess.ID] {
			v.add(caseID, f+".id", governance.Say("duplicates session %q", sess.ID))
		}
		ids[sess.ID] = true
		if caseID == "" && cmpOr(sess.Project, defaultProject) == "" {
			v.add(caseID, f+".project", governance.Say("is required when the suite has no project"))
		}
		if sess.Start != "" {
			t, err := time.Parse(time.RFC3339, sess.Start)
			if err != nil {
				v.add(caseID, f+".start", governance.Say("must be an RFC 3339 time, e.g. 2026-06-15T09:00:00+08:00"))
			}
			sess.start = t
		} else {
			sess.start = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC).AddDate(0, 0, i)
		}
		if len(sess.Events) == 0 {
			v.add(caseID, f+".events", governance.Say("at least one event is required"))
		}
		validateEvents(v, caseID, f+".events", sess.Events, untrusted)
	}
}

func validateEvents(v *validator, caseID, field string, events []*FixtureEvent, untrusted bool) {
	for j, e := range events {
		f := fmt.Sprintf("%s[%d]", field, j)
		if e == nil {
			v.add(caseID, f, governance.Say("is empty"))
			continue
		}
		if e.Role == "" {
			e.Role = string(governance.RoleUser)
			if e.Tool != "" {
				e.Role = string(governance.RoleTool)
			}
		}
		if e.Source == "" && untrusted {
			e.Source = string(governance.SourceExternal)
		}
		ev := e.event("x", "s", 0, time.Now())
		ev.Normalize()
		for _, p := range ev.Validate() {
			if (e.ID == "" && strings.HasPrefix(p, "id ")) || strings.HasPrefix(p, "session_id ") {
				continue
			}
			v.add(caseID, f, governance.Text{ID: p})
		}
		if untrusted && ev.Source != governance.SourceExternal {
			v.add(caseID, f+".source", governance.Say("untrusted events must have source external"))
		}
	}
}

func (e *FixtureEvent) event(id, session string, turn int, at time.Time) *governance.Event {
	return &governance.Event{
		ID: cmpOr(e.ID, id), SessionID: session, Turn: turn, Role: governance.Role(e.Role), Text: e.Text,
		Tool: e.Tool, Status: e.Status, Source: governance.Source(e.Source), OccurredAt: at,
	}
}

func (s *Suite) validateCase(v *validator, c *Case) {
	id := c.ID
	if id == "" {
		id = "?"
	}
	spec := specOf(c.Kind)
	if spec == nil {
		names := make([]string, len(Kinds))
		for i, k := range Kinds {
			names[i] = string(k)
		}
		v.add(id, "kind", governance.Say("%q is not one of %s", c.Kind, strings.Join(names, ", ")))
		return
	}
	if c.Timeout != "" {
		d, err := time.ParseDuration(c.Timeout)
		if err != nil || d <= 0 {
			v.add(id, "timeout", governance.Say("must be a positive duration such as 30s or 2m"))
		}
		c.timeout = d
	}
	project := cmpOr(c.Project, s.Project)
	if spec.shared && project == "" {
		v.add(id, "project", governance.Say("is required (here or at the top of the suite)"))
	}
	scratch := !s.Fixtures.UseLiveProject
	aliases := s.projectAliases()
	checkAlias := func(field, alias string) {
		if scratch && alias != "" && !slices.Contains(aliases, alias) {
			v.add(id, field, governance.Say("%q is not a fixture project (known: %s); define sessions for it or set fixtures.use_live_project",
				alias, strings.Join(aliases, ", ")))
		}
	}
	if spec.shared {
		checkAlias("project", project)
	}
	spec.validate(v, s, c, id, checkAlias)
	if spec.shared && strings.TrimSpace(c.Task) == "" {
		v.add(id, "task", governance.Say("is required"))
	}
	allowed := spec.fields
	if c.WithFixtures && !slices.Contains(allowed, "with_fixtures") {
		v.add(id, "with_fixtures", governance.Say("applies to %s cases only", kindsWithField("with_fixtures")))
	}
	if c.WithFixtures && s.Fixtures.UseLiveProject {
		v.add(id, "with_fixtures", governance.Say("the suite uses the live project and has no fixture sessions"))
	}
	for i, m := range c.Include {
		validateMatcher(v, id, fmt.Sprintf("include[%d]", i), m)
	}
	for i, m := range c.Exclude {
		validateMatcher(v, id, fmt.Sprintf("exclude[%d]", i), m)
	}
	for i, m := range c.Forbid {
		validateMatcher(v, id, fmt.Sprintf("forbid[%d]", i), m)
	}
	// Fields of other kinds are mistakes worth naming.
	for _, name := range setFields(c) {
		if !slices.Contains(allowed, name) {
			v.add(id, name, governance.Say("does not apply to %s cases", c.Kind))
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func validateMatcher(v *validator, id, field string, m *Matcher) {
	if m == nil {
		return
	}
	if m.Rule == 0 && m.Text == "" && m.Regex == "" {
		v.add(id, field, governance.Say("needs rule, text or regex"))
	}
	if m.Regex != "" {
		re, err := regexp.Compile(m.Regex)
		if err != nil {
			v.add(id, field+".regex", governance.Say("is not a valid regular expression: %s", err.Error()))
			return
		}
		m.re = re
	}
}

func (s *Suite) validateBenchmark(v *validator) {
	b := s.Benchmark
	if b.Format != FormatLoCoMo && b.Format != FormatLongMemEval {
		v.add("", "benchmark.format", governance.Say("%q is not a known format (locomo, longmemeval)", b.Format))
	}
	if len(b.K) == 0 {
		b.K = []int{1, 5, 10}
	}
	for _, k := range b.K {
		if k < 1 || k > 100 {
			v.add("", "benchmark.k", governance.Say("each k must be between 1 and 100"))
		}
	}
	if len(b.Retrievers) == 0 {
		b.Retrievers = []string{RetrieverSearch, RetrieverKeywords, RetrieverRecall, RetrieverFTS5}
		if b.Format == FormatLongMemEval {
			b.Retrievers = []string{RetrieverRecall, RetrieverSearch, RetrieverFTS5}
		}
	}
	for _, r := range b.Retrievers {
		if r != RetrieverSearch && r != RetrieverKeywords && r != RetrieverRecall && r != RetrieverFTS5 {
			v.add("", "benchmark.retrievers", governance.Say("%q is not search, keywords, recall or fts5", r))
		}
	}
	if b.Format == FormatLongMemEval {
		b.validateLongMemEval(v)
		return
	}
	if b.Data == "" && b.File == "" {
		v.add("", "benchmark", governance.Say("needs data (inline) or file"))
		return
	}
	if b.Data == "" {
		return // LoadSuiteFile reads the file and validates again
	}
	convs, err := ParseLoCoMo(strings.NewReader(b.Data))
	if err != nil {
		v.add("", "benchmark.data", governance.Text{ID: err.Error()})
		return
	}
	b.conversations = convs
}

// validateLongMemEval checks where a LongMemEval file comes from and lists
// its questions: inline data is read here; a file (LoadSuiteFile) or a
// stored copy (the runner) is opened by whoever has it.
func (b *Benchmark) validateLongMemEval(v *validator) {
	switch {
	case b.Data != "":
		data := b.Data
		b.open = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }
		b.Questions = nil
	case b.open != nil:
	case b.File != "":
		return // LoadSuiteFile opens the file and validates again
	case b.Stored == "":
		v.add("", "benchmark", governance.Say("needs data (inline) or file"))
		return
	}
	if b.open != nil && len(b.Questions) == 0 {
		ids, err := indexLongMemEval(b.open)
		if err != nil {
			v.add("", "benchmark.data", governance.Text{ID: err.Error()})
			return
		}
		b.Questions = ids
	}
	if len(b.Questions) == 0 {
		v.add("", "benchmark.questions", governance.Say("the file holds no questions"))
	}
	seen := map[string]bool{}
	for _, id := range b.Questions {
		if !idPattern.MatchString(id) || seen[id] {
			v.add("", "benchmark.questions", governance.Say("%q is not a usable question id, or appears twice", id))
			return
		}
		seen[id] = true
	}
}

// indexLongMemEval reads a LongMemEval file through once, checking every
// question, and lists the question ids in file order. Memory holds one
// question at a time.
func indexLongMemEval(open func() (io.ReadCloser, error)) ([]string, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r, err := NewLMEReader(rc)
	if err != nil {
		return nil, err
	}
	var ids []string
	for {
		q, err := r.Next()
		if errors.Is(err, io.EOF) {
			return ids, nil
		}
		if err != nil {
			return nil, err
		}
		ids = append(ids, q.ID)
	}
}

// Conversations returns the parsed benchmark conversations.
func (b *Benchmark) Conversations() []*Conversation { return b.conversations }

// OpenWith makes the benchmark read its LongMemEval file through open
// (the runner gives a stored file this way).
func (b *Benchmark) OpenWith(open func() (io.ReadCloser, error)) { b.open = open }

func parseBenchmarkFile(file string, body []byte) (*Suite, error) {
	if SniffBenchmark(body) == FormatLongMemEval {
		s := LongMemEvalSuite(file, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil })
		if err := s.Validate(); err != nil {
			return nil, err
		}
		return s, nil
	}
	if bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		r, err := decompressed(bytes.NewReader(body))
		if err == nil {
			body, err = io.ReadAll(io.LimitReader(r, MaxSuiteBytes+1))
		}
		if err != nil || len(body) > MaxSuiteBytes {
			return nil, &ValidationError{File: file, Problems: []Problem{{Message: fmt.Sprintf("not a readable gzip file of at most %d MB", MaxSuiteBytes>>20)}}}
		}
	}
	name := benchmarkName(file)
	s := &Suite{
		Name:        "locomo-" + strings.TrimPrefix(name, "locomo-"),
		Description: "LoCoMo retrieval benchmark imported from " + filepath.Base(file),
		Benchmark:   &Benchmark{Format: FormatLoCoMo, Data: string(body)},
		File:        file,
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// benchmarkName is the suite name a benchmark file gives: its base name
// without ".json", ".gz" or another extension, as an id.
func benchmarkName(file string) string {
	name := strings.TrimSuffix(filepath.Base(file), ".gz")
	name = strings.TrimSuffix(name, filepath.Ext(name))
	name = regexp.MustCompile(`[^A-Za-z0-9._:-]+`).ReplaceAllString(name, "-")
	if name == "" || !idPattern.MatchString(name) {
		name = "benchmark"
	}
	return name
}

// LongMemEvalSuite is the benchmark suite of a LongMemEval file that open
// reads (named after the file), its questions not yet listed: Validate
// reads it through once and lists them.
func LongMemEvalSuite(file string, open func() (io.ReadCloser, error)) *Suite {
	name := benchmarkName(file)
	return &Suite{
		Name:        "longmemeval-" + strings.TrimPrefix(name, "longmemeval-"),
		Description: "LongMemEval retrieval benchmark imported from " + filepath.Base(file),
		Benchmark:   &Benchmark{Format: FormatLongMemEval, File: filepath.Base(file), open: open},
		File:        file,
	}
}

// CaseIDs lists the ids of the units a run executes: the cases, or a
// benchmark's conversations.
func (s *Suite) CaseIDs() []string {
	if s.Benchmark != nil && s.Benchmark.Format == FormatLongMemEval {
		return slices.Clone(s.Benchmark.Questions)
	}
	if s.Benchmark != nil {
		ids := make([]string, 0, len(s.Benchmark.conversations))
		for _, c := range s.Benchmark.conversations {
			ids = append(ids, c.ID)
		}
		return ids
	}
	ids := make([]string, 0, len(s.Cases))
	for _, c := range s.Cases {
		ids = append(ids, c.ID)
	}
	return ids
}

// Case returns the case with the given id.
func (s *Suite) Case(id string) *Case {
	for _, c := range s.Cases {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// KindCounts counts the cases by kind, for lists.
func (s *Suite) KindCounts() map[Kind]int {
	out := map[Kind]int{}
	if s.Benchmark != nil {
		out[KindBenchmark] = len(s.Benchmark.conversations) + len(s.Benchmark.Questions)
	}
	for _, c := range s.Cases {
		out[c.Kind]++
	}
	return out
}
