package governance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Draft skills from evidence. A procedure is what a session did that
// ended in a passed check: the sequence of its tool calls (the commands of
// shell calls, the names of other tools; calls that failed, were turned
// down or interrupted, and the tools that only read or edit files are left
// out, consecutive repeats collapsed),
// whose last step passed. The same sequence in several sessions — or a
// user saying "this is how we do X" with its steps — becomes a draft
// skill, linked to those sessions. See docs/skills.md.

// ProcedureStep is one step of a procedure.
type ProcedureStep struct {
	Tool string `json:"tool"`
	// Command is what a shell call ran ("" for other tools).
	Command string `json:"command,omitempty"`
	// Key is what the step is compared by: the tool and the command's
	// leading words ("bash:go test").
	Key string `json:"key"`
	// Seq is the event that holds the step's result.
	Seq int64 `json:"seq,omitempty"`
}

// Procedure is one session's procedure.
type Procedure struct {
	SessionID string
	SubjectID string
	// Steps end with the check, which passed.
	Steps []ProcedureStep
	// Signature is the hash of the steps' keys (or, for an explicit one,
	// of its topic): equal procedures share it.
	Signature string
	// Explicit: a user said how this is done; Topic names the task.
	Explicit bool
	Topic    string
	At       time.Time
}

// Check is the step that proved the procedure worked.
func (p *Procedure) Check() ProcedureStep { return p.Steps[len(p.Steps)-1] }

// Seqs are the events of the steps.
func (p *Procedure) Seqs() []int64 {
	var out []int64
	for _, s := range p.Steps {
		if s.Seq != 0 {
			out = append(out, s.Seq)
		}
	}
	return out
}

// MinProcedureSessions is how many sessions must repeat a procedure before
// it is drafted as a skill.
const MinProcedureSessions = 3

// minProcedureSteps: a single call is not a procedure.
const minProcedureSteps = 2

var callLine = regexp.MustCompile(`^\[([A-Za-z0-9_.:\-]+)\]\s*(.*)$`)

type pendingCall struct{ tool, command string }

// ProceduresOf returns the procedures of one session's events (in order):
// at most one of tool calls (up to its last passed check), and one for
// each time a user said how something is done.
func ProceduresOf(events []*Event) []Procedure {
	var out []Procedure
	var steps []ProcedureStep
	var calls []pendingCall
	var session, subject string
	var at time.Time
	lastCheck := -1
	for _, e := range events {
		if e == nil || e.Kind == KindSessionEnd {
			continue
		}
		session, subject, at = e.SessionID, e.SubjectID, e.OccurredAt
		switch e.Role {
		case RoleAssistant:
			for _, line := range strings.Split(e.Text, "\n") {
				if m := callLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
					calls = append(calls, pendingCall{tool: m[1], command: strings.TrimSpace(m[2])})
				}
			}
		case RoleUser:
			if p, ok := explicitProcedure(e); ok {
				out = append(out, p)
			}
		case RoleTool:
			tool := strings.TrimSpace(e.Tool)
			command := ""
			for i, c := range calls {
				if strings.EqualFold(c.tool, tool) {
					command = c.command
					calls = append(calls[:i:i], calls[i+1:]...)
					break
				}
			}
			lower := strings.ToLower(tool)
			if tool == "" || slices.Contains(skillChecks.Procedure.ContextTools, lower) {
				continue
			}
			if e.Status != StatusPassed && e.Status != "" {
				continue // failed, turned down or interrupted: not a step taken
			}
			shell := slices.Contains(skillChecks.Procedure.ShellTools, lower)
			if !shell {
				command = ""
			}
			key := lower
			if shell {
				if verb := commandVerb(command); verb != "" {
					key += ":" + verb
				}
			}
			if n := len(steps); n > 0 && steps[n-1].Key == key {
				steps[n-1] = ProcedureStep{Tool: tool, Command: command, Key: key, Seq: e.Seq}
			} else {
				steps = append(steps, ProcedureStep{Tool: tool, Command: command, Key: key, Seq: e.Seq})
			}
			if e.Status == StatusPassed {
				lastCheck = len(steps) - 1
			}
		}
	}
	if lastCheck+1 >= minProcedureSteps {
		steps = steps[:lastCheck+1]
		keys := make([]string, len(steps))
		for i, s := range steps {
			keys[i] = s.Key
		}
		if distinct(keys) >= minProcedureSteps {
			out = append(out, Procedure{SessionID: session, SubjectID: subject, Steps: steps,
				Signature: signature("steps", keys), At: at})
		}
	}
	return out
}

func distinct(keys []string) int {
	seen := map[string]bool{}
	for _, k := range keys {
		seen[k] = true
	}
	return len(seen)
}

func signature(kind string, parts []string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + strings.Join(parts, "\x00")))
	return kind + ":" + hex.EncodeToString(sum[:12])
}

// commandVerb is what a shell command is compared by: its leading words,
// after a "cd DIR &&" and environment assignments, up to the first
// argument that is a path, an option, a number or a quoted value (at most
// three words): "go test ./..." → "go test", "npm run build" → "npm run build".
func commandVerb(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	for _, sep := range []string{"&&", ";", "||"} {
		parts := strings.Split(cmd, sep)
		if len(parts) > 1 && strings.HasPrefix(strings.TrimSpace(parts[0]), "cd ") {
			cmd = strings.TrimSpace(strings.Join(parts[1:], sep))
		}
	}
	if i := strings.IndexAny(cmd, "|;&><"); i >= 0 {
		cmd = cmd[:i]
	}
	var words []string
	for _, w := range strings.Fields(cmd) {
		if len(words) == 0 && strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
			continue // FOO=bar make
		}
		if !plainWord(w) || len(words) == 3 {
			break
		}
		words = append(words, strings.ToLower(w))
	}
	return strings.Join(words, " ")
}

func plainWord(w string) bool {
	if w == "" || !unicode.IsLetter(rune(w[0])) {
		return false
	}
	for _, r := range w {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == ':' || r == '.') {
			return false
		}
	}
	return !strings.Contains(w, "..")
}

var listItem = regexp.MustCompile(`^\s*(?:\d+[.)、]|[-*•])\s+(.+?)\s*$`)

// explicitProcedure reads a user's "this is how we do X" (the opening
// words are data: skill_checks.toml) and the steps after it: the items of
// a list, else the sentences that follow.
func explicitProcedure(e *Event) (Procedure, bool) {
	text := e.Text
	lower := strings.ToLower(text)
	at := -1
	lead := ""
	for _, p := range skillChecks.Procedure.Explicit {
		if i := strings.Index(lower, p); i >= 0 && (at < 0 || i < at) {
			at, lead = i, p
		}
	}
	if at < 0 {
		return Procedure{}, false
	}
	rest := text[at+len(lead):]
	end := strings.IndexAny(rest, ":：\n.。")
	topic := rest
	if end >= 0 {
		topic, rest = rest[:end], rest[end:]
	} else {
		rest = ""
	}
	topic = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(topic), "do "))
	topic = strings.TrimRight(topic, " ,，:：")
	var steps []ProcedureStep
	for _, line := range strings.Split(rest, "\n") {
		if m := listItem.FindStringSubmatch(line); m != nil {
			steps = append(steps, ProcedureStep{Tool: "step", Command: m[1], Key: strings.ToLower(m[1]), Seq: e.Seq})
		}
	}
	if len(steps) < minProcedureSteps {
		steps = steps[:0]
		for _, s := range splitSteps(rest) {
			steps = append(steps, ProcedureStep{Tool: "step", Command: s, Key: strings.ToLower(s), Seq: e.Seq})
		}
	}
	if len(steps) < minProcedureSteps || topic == "" {
		return Procedure{}, false
	}
	return Procedure{SessionID: e.SessionID, SubjectID: e.SubjectID, Steps: steps, Explicit: true, Topic: topic,
		Signature: signature("explicit", []string{strings.ToLower(topic)}), At: e.OccurredAt}, true
}

// splitSteps cuts text into its sentences and the parts joined by
// "then" / "after that" / "然后".
func splitSteps(text string) []string {
	text = strings.NewReplacer(", then ", ". ", " then ", ". ", ", and then ", ". ", "然后", "。", "之后", "。", "；", "。", ";", ".").Replace(text)
	var out []string
	for _, s := range strings.FieldsFunc(text, func(r rune) bool { return r == '.' || r == '。' || r == '\n' || r == ':' || r == '：' }) {
		if s = strings.TrimSpace(s); len([]rune(s)) >= 3 {
			out = append(out, s)
		}
	}
	return out
}

// SkillSlug turns a topic or a command into a skill name: its ASCII words
// joined by hyphens, at most 48 characters; "" when none is left.
func SkillSlug(text string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if slugStopWord(w) && len(words) > 0 {
			continue
		}
		words = append(words, w)
	}
	s := strings.Join(words, "-")
	for len(s) > 48 {
		i := strings.LastIndex(s, "-")
		if i <= 0 {
			s = s[:48]
			break
		}
		s = s[:i]
	}
	return strings.Trim(s, "-")
}

// slugStopWord is one of the few words a skill name leaves out.
func slugStopWord(w string) bool {
	switch w {
	case "the", "a", "an", "of", "to", "and", "or", "in", "on", "for", "with", "our", "we", "it":
		return true
	}
	return false
}

// DraftName is the name of a draft skill for p: its topic's words, or its
// check's command; "procedure-<hash>" when neither has ASCII words.
func DraftName(p *Procedure) string {
	base := ""
	if p.Explicit {
		base = SkillSlug(p.Topic)
	} else {
		c := p.Check()
		base = SkillSlug(strings.ReplaceAll(strings.TrimPrefix(c.Key, strings.ToLower(c.Tool)+":"), "_", " "))
		if c.Command == "" {
			base = SkillSlug(strings.ReplaceAll(c.Tool, "_", " "))
		}
		if base != "" {
			base += "-procedure"
		}
	}
	if base == "" || !SkillNameOK(base) {
		base = "procedure-" + strings.TrimPrefix(p.Signature, strings.SplitN(p.Signature, ":", 2)[0]+":")[:8]
	}
	return base
}

// SkillDrafter words a draft skill: a model given the procedure and what
// the users asked in its sessions. The steps and the verification stay
// the code's (what was done and what proved it worked); a drafter writes
// only the words around them.
type SkillDrafter interface {
	DraftSkillText(ctx context.Context, in SkillDraftInput) (SkillDraftText, error)
	// DrafterName names the drafter in the draft's metadata
	// ("model/<model>@skill<prompt version>").
	DrafterName() string
}

// SkillDraftInput is what a drafter reads: the draft's name, its steps and
// check as the SKILL.md lists them, and what users asked in a session the
// procedure was learned from (credentials masked, at most a few lines).
type SkillDraftInput struct {
	Name  string
	Topic string
	Steps []string
	Check string
	Asks  []string
}

// SkillDraftText is a drafter's wording of a draft: its title, the
// description agents choose it by, and when to use it (and when not).
type SkillDraftText struct {
	Title, Description, WhenToUse string
	// Drafter is the DrafterName of who wrote it.
	Drafter string
}

// MaxSkillTitleRunes bounds a drafted title.
const MaxSkillTitleRunes = 80

// DraftInput is what a drafter is given for procedure p drafted as name.
func DraftInput(name string, p *Procedure, asks []string) SkillDraftInput {
	in := SkillDraftInput{Name: name, Topic: p.Topic, Check: stepText(p.Check()), Asks: asks}
	for _, s := range p.Steps[:len(p.Steps)-1] {
		in.Steps = append(in.Steps, stepText(s))
	}
	return in
}

// Valid checks a drafter's wording: a one-line title and description within
// their bounds, and at most a short paragraph on when to use it.
func (t SkillDraftText) Valid() error {
	switch {
	case strings.TrimSpace(t.Title) == "" || strings.TrimSpace(t.Description) == "":
		return errors.New("title or description is empty")
	case strings.ContainsAny(t.Title+t.Description, "\r\n"):
		return errors.New("title or description is more than one line")
	case utf8.RuneCountInString(t.Title) > MaxSkillTitleRunes:
		return fmt.Errorf("title is longer than %d characters", MaxSkillTitleRunes)
	case utf8.RuneCountInString(t.Description) > MaxSkillDescriptionLen:
		return fmt.Errorf("description is longer than %d characters", MaxSkillDescriptionLen)
	case utf8.RuneCountInString(t.WhenToUse) > MaxSkillDescriptionLen:
		return fmt.Errorf("when_to_use is longer than %d characters", MaxSkillDescriptionLen)
	}
	return nil
}

// DraftSkill writes the SKILL.md of a draft skill for p, learned from
// sessions (their ids, in order): the steps, then the verification, the
// check that proved it worked. With text (a drafter's wording), its title,
// description and when-to-use paragraph replace the code's wording; the
// steps and the verification are the same either way.
func DraftSkill(name string, p *Procedure, sessions []string, text *SkillDraftText) SkillContent {
	var steps []string
	for _, s := range p.Steps[:len(p.Steps)-1] {
		steps = append(steps, stepText(s))
	}
	check := stepText(p.Check())
	var desc string
	if p.Explicit {
		desc = fmt.Sprintf("How we %s here: %s. Use when asked to %s.", p.Topic, strings.Join(append(steps, check), "; "), p.Topic)
	} else {
		desc = fmt.Sprintf("Steps that ended with a passed %s in %d sessions: %s, then %s. Use for the same kind of task.",
			check, len(sessions), strings.Join(steps, ", "), check)
	}
	title := p.Topic
	if title == "" {
		title = name
	}
	meta := map[string]string{"mnemo-origin": "evidence", "mnemo-sessions": strings.Join(sessions, " ")}
	if text != nil {
		desc, title = text.Description, text.Title
		meta["mnemo-drafter"] = text.Drafter
	}
	desc = clipRunes(strings.NewReplacer("\n", " ", "\r", " ").Replace(desc), MaxSkillDescriptionLen)
	var b strings.Builder
	b.WriteString("---\n")
	b.WriteString("name: " + name + "\n")
	b.WriteString("description: " + yamlQuote(desc) + "\n")
	b.WriteString("metadata:\n  mnemo-origin: evidence\n  mnemo-sessions: " + yamlQuote(meta["mnemo-sessions"]) + "\n")
	if text != nil {
		b.WriteString("  mnemo-drafter: " + yamlQuote(text.Drafter) + "\n")
	}
	b.WriteString("---\n\n")
	b.WriteString("# " + oneLineText(title) + "\n\n")
	if text != nil && strings.TrimSpace(text.WhenToUse) != "" {
		b.WriteString(draftWhenHeading + "\n\n" + strings.TrimSpace(text.WhenToUse) + "\n\n")
	}
	b.WriteString(draftStepsHeading + "\n\n")
	for i, s := range steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	fmt.Fprintf(&b, "%d. %s\n\n"+draftVerificationHeading+"\n\n", len(steps)+1, check)
	if p.Explicit {
		fmt.Fprintf(&b, "The last step, %s, is the check a person named for this task.\n", check)
	} else {
		fmt.Fprintf(&b, "Run %s; it passed at the end of each session this was learned from (%s).\n", check, strings.Join(sessions, ", "))
	}
	md := b.String()
	_, body, _ := SplitFrontMatter(md)
	return SkillContent{Name: name, Description: desc, SkillMD: md, Body: body, Metadata: meta}
}

func stepText(s ProcedureStep) string {
	switch {
	case s.Tool == "step":
		return oneLineText(s.Command)
	case s.Command != "":
		return "`" + strings.ReplaceAll(oneLineText(s.Command), "`", "'") + "`"
	}
	return "`" + s.Tool + "`"
}

func oneLineText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return clipRunes(s, 200)
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// yamlQuote writes s as a double-quoted YAML scalar.
func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\x%02x`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
