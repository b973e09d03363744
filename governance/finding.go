package governance

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"
)

// Write gate risk classes (Finding.Category).
const (
	// GateInstructionHierarchy: ignore, override or bypass the rules, or
	// take instructions from documents, web pages, tools or memory.
	GateInstructionHierarchy = "instruction_hierarchy"
	// GatePersona: persona changes and jailbreaks.
	GatePersona = "persona_jailbreak"
	// GateExfiltration: sending data, credentials or conversations out.
	GateExfiltration = "exfiltration"
	// GateCredentials: a credential in the text (redacted) or an
	// instruction to hand one over.
	GateCredentials = "credentials"
	// GatePersistence: shell start-up files, cron, services, git hooks,
	// SSH keys and agent instruction files.
	GatePersistence = "persistence"
	// GateFenceSpoof: fake chat-template tokens, memory fences and role lines.
	GateFenceSpoof = "fence_spoofing"
	// GateInvisibleUnicode: invisible characters, one finding per kind.
	GateInvisibleUnicode = "invisible_unicode"
	// GateEncodedPayload: hidden or encoded text that says something the
	// gate blocks, or text spelled in invisible characters.
	GateEncodedPayload = "encoded_payload"
	// GatePathTraversal: climbing out of a directory towards system files.
	GatePathTraversal = "path_traversal"
	// GateAuthority: a risk feature — a destination (URL, domain, e-mail,
	// IP, telephone or account number, path, channel), data movement,
	// credentials or personal data, identity or authority, a check
	// relaxed, concealment, instructions taken from content, code, money,
	// a rule for other people, text that had to be decoded. It does not
	// block, but a statement with it is outside the low-risk set: it is
	// never activated without a reviewer, and repetition by one person
	// counts once.
	GateAuthority = "authority"
)

// GateClasses lists the risk classes that block a statement, in report order.
var GateClasses = []string{
	GateInstructionHierarchy, GatePersona, GateExfiltration, GateCredentials, GatePersistence,
	GateFenceSpoof, GateInvisibleUnicode, GateEncodedPayload, GatePathTraversal,
}

// GateCategories lists every category a finding may carry: the blocking
// classes, then authority (the risk features, which only send a statement
// to a reviewer).
var GateCategories = append(slices.Clone(GateClasses), GateAuthority)

// Blocks reports whether the finding stops the statement from being
// written: every risk class does, except a credential that was redacted
// and an authority marker.
func (f Finding) Blocks() bool {
	return f.Category != GateAuthority && !f.Redacted
}

// Classifier reads one text for the write gate: what it finds (spans and a
// sentence for the reviewer), the text to keep (credentials masked) and
// whether the text is placed in the low-risk set. It is the one seam every
// reader of the gate goes through — consolidation, recall, agent-facing
// text, imports, reviewer edits — so the domain imports no engine. It fails
// closed: on an error the caller treats the text as blocked (a beat fails
// and leaves its checkpoint, an edit or an import is refused, a recalled
// item is withheld).
type Classifier interface {
	Classify(ctx context.Context, text string) (GateResult, error)
}

// ClassifierFunc adapts a function to Classifier.
type ClassifierFunc func(ctx context.Context, text string) (GateResult, error)

// Classify calls f.
func (f ClassifierFunc) Classify(ctx context.Context, text string) (GateResult, error) {
	return f(ctx, text)
}

// Beside returns a classifier that runs first, then each of more on the
// text first keeps (so none of them sees a credential first masked) as
// long as nothing was found: a finding from any of them counts, the text
// is placed in the low-risk set only when every one of them places it
// there, and an error from any is the error of the whole. A text already
// outside the low-risk set by a finding is not read again (a model beside
// the gate is asked only about texts the gate found nothing in, the only
// ones its answer can change).
func Beside(first Classifier, more ...Classifier) Classifier {
	if len(more) == 0 {
		return first
	}
	return ClassifierFunc(func(ctx context.Context, text string) (GateResult, error) {
		res, err := first.Classify(ctx, text)
		if err != nil {
			return GateResult{}, err
		}
		for _, c := range more {
			if len(res.Findings) > 0 {
				break
			}
			r, err := c.Classify(ctx, res.Text)
			if err != nil {
				return GateResult{}, err
			}
			res.Findings = append(res.Findings, r.Findings...)
			if r.LowRisk == "" || len(r.Findings) > 0 {
				res.LowRisk = ""
				if res.NotPlaced == nil {
					res.NotPlaced = r.NotPlaced
				}
			}
		}
		return res, nil
	})
}

// GateResult is what the write gate found in one text.
type GateResult struct {
	// Findings lists one hit per pattern, in a fixed order; empty when clean.
	Findings []Finding
	// Text is the text to write: the input unchanged, or with each
	// credential replaced by "[REDACTED:<pattern>]".
	Text string
	// LowRisk names the class of the low-risk set the text was placed in
	// (the form or content of the agent's own answers and plans: language,
	// length, format…, or a protective rule), "" when it is outside it. A
	// text with any finding is outside it. Only a statement placed in the
	// set may become active without a reviewer (auto-activation is
	// default-deny).
	LowRisk string
	// NotPlaced, when set, says why a text without findings is outside the
	// low-risk set: the clause no low-risk shape places, and why.
	NotPlaced *NotPlaced
}

// NotPlaced is the clause of a text that kept it outside the low-risk set
// and the reason: a deny shape's name (persona, authority,
// content_instructions, bare_reference, own_records, check_relaxed,
// sensitive), "long" (more than two sentences or too many characters),
// "no_shape" (a clause that is neither a directive about the agent's own
// output nor the user's own preference) or "no_class" (a directive with no
// cue of a low-risk class).
type NotPlaced struct {
	Clause string `json:"clause"`
	Reason string `json:"reason"`
	// Asks is what the clause asks, read from its structure for the
	// reviewer's marker (OutsideMarker): AsksAct, AsksIdentity, AsksClaim,
	// AsksCondition, or "" when nothing more than the clause is read.
	Asks string `json:"asks,omitempty"`
	// Words are the words Asks reads (an action with its object, the
	// deny shape's words, the condition), [Start, End) their span in the
	// text (bytes); with Asks "", the clause.
	Words string `json:"words,omitempty"`
	Start int    `json:"start,omitempty"`
	End   int    `json:"end,omitempty"`
}

// What a clause outside the low-risk set asks (NotPlaced.Asks).
const (
	// AsksAct: the agent acts beyond shaping its own answers (a verb on
	// files, systems, bookings, messages, people or money).
	AsksAct = "act"
	// AsksIdentity: who the agent is, whom it obeys or whose words count.
	AsksIdentity = "identity"
	// AsksClaim: a clause that opens with its subject and claims who
	// decides, what was checked, what a source holds or where the answers go.
	AsksClaim = "claim"
	// AsksCondition: a condition or a standing policy ("whenever …",
	// "unless …", 只要…).
	AsksCondition = "condition"
)

// Blocked reports whether the text must not be written.
func (r GateResult) Blocked() bool {
	for _, f := range r.Findings {
		if f.Blocks() {
			return true
		}
	}
	return false
}

// Redacted reports whether Text had credentials replaced.
func (r GateResult) Redacted() bool {
	for _, f := range r.Findings {
		if f.Redacted {
			return true
		}
	}
	return false
}

// RiskFragments splits text into fragments where the spans of findings are
// marked, so a reviewer sees what the gate matched. Spans that do not fit
// text (it was edited or redacted since) are ignored.
func RiskFragments(text string, findings []Finding) []Fragment {
	marks := make([]bool, len(text))
	any := false
	for _, f := range findings {
		if f.Start < 0 || f.End > len(text) || f.Start >= f.End || !utf8.RuneStart(text[f.Start]) ||
			f.End < len(text) && !utf8.RuneStart(text[f.End]) {
			continue
		}
		for i := f.Start; i < f.End; i++ {
			marks[i] = true
		}
		any = true
	}
	if !any {
		return []Fragment{{Text: text}}
	}
	var out []Fragment
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && marks[j] == marks[i] {
			j++
		}
		out = append(out, Fragment{Text: text[i:j], Match: marks[i]})
		i = j
	}
	return out
}

// RiskLabel names what a statement's findings are about, for the badge a
// reviewer sees: the blocking classes and the risk features (an authority
// finding is named by its pattern: destination, data_movement…).
func RiskLabel(findings []Finding) string {
	var classes []string
	for _, f := range findings {
		c := RiskName(f)
		if !slices.Contains(classes, c) {
			classes = append(classes, c)
		}
	}
	return "risk: " + strings.Join(classes, ", ")
}

// RiskName is the name a finding is shown by: its risk class, credentials
// for a redacted secret, or its pattern for a risk feature.
func RiskName(f Finding) string {
	switch {
	case f.Redacted:
		return GateCredentials
	case f.Category == GateAuthority && f.Pattern != "":
		return f.Pattern
	}
	return f.Category
}
