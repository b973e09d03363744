package governance

import (
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
	// GateAuthority: a URL, an e-mail address, a shell command, a secret,
	// a safety check turned off or outside text given precedence. It does
	// not block, but a statement with it is never activated without a
	// reviewer.
	GateAuthority = "authority"
)

// GateClasses lists the risk classes that block a statement, in report order.
var GateClasses = []string{
	GateInstructionHierarchy, GatePersona, GateExfiltration, GateCredentials, GatePersistence,
	GateFenceSpoof, GateInvisibleUnicode, GateEncodedPayload, GatePathTraversal,
}

// GateCategories lists every category a finding may carry: the blocking
// classes, then authority (which only sends a statement to a reviewer).
var GateCategories = append(slices.Clone(GateClasses), GateAuthority)

// Blocks reports whether the finding stops the statement from being
// written: every risk class does, except a credential that was redacted
// and an authority marker.
func (f Finding) Blocks() bool {
	return f.Category != GateAuthority && !f.Redacted
}

// TouchesAuthority reports whether findings mark a statement that a
// reviewer must see before it becomes active: any finding at all, a
// redacted credential, URL, e-mail address or shell command included.
func TouchesAuthority(findings []Finding) bool { return len(findings) > 0 }

// ScanFunc runs the write gate over one text (gate.Scan). The domain's
// checks that must gate a text (a reviewer's edit, an imported export) take
// it as a value, so the domain imports no engine.
type ScanFunc func(text string) GateResult

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
}

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
// reviewer sees: the blocking classes, or "authority" for a URL, e-mail
// address, command or credential alone.
func RiskLabel(findings []Finding) string {
	var classes []string
	for _, f := range findings {
		c := f.Category
		if f.Redacted {
			c = GateCredentials
		}
		if !slices.Contains(classes, c) {
			classes = append(classes, c)
		}
	}
	return "risk: " + strings.Join(classes, ", ")
}
