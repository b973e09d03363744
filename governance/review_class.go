package governance

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// ClassReason is why a reviewer rejected a whole class of proposals.
type ClassReason string

// Reasons for rejecting a class.
const (
	ClassCommandDump ClassReason = "command_dump" // a command or tool call copied as a rule
	ClassOneOff      ClassReason = "one_off"      // true once, not a standing rule
	ClassOffProject  ClassReason = "off_project"  // not about this project
)

// ClassReasons lists the reasons, in the order the review page offers them.
var ClassReasons = []ClassReason{ClassCommandDump, ClassOneOff, ClassOffProject}

// Valid reports whether r is a known class reason.
func (r ClassReason) Valid() bool { return slices.Contains(ClassReasons, r) }

// ReviewClass is the structural class of a proposal: its kind, its head
// (the first two content words, stemmed: for a lesson, the check it names;
// for an instruction, its verb and object) and the write gate's risk
// classes. Two proposals of one class look alike to a reviewer whatever
// their exact words; a rejected class catches the next proposal like it
// and not one of another kind, subject or risk. The channel that proposed
// the rejected proposal is kept with it for the record but is no part of
// the class: a command dump is one whether it was repeated, said with
// "from now on" or drawn from a failed check.
type ReviewClass struct {
	Kind    MemoryType      `json:"kind"`
	Channel PromotionReason `json:"channel"`
	Head    string          `json:"head"`
	Risk    string          `json:"risk,omitempty"`
}

// Key is the class as one comparable string.
func (c ReviewClass) Key() string {
	return string(c.Kind) + "|" + c.Head + "|" + c.Risk
}

// classHeadWords is how many content words name a class's head.
const classHeadWords = 2

// classFrame are words of the statements' frames that say nothing about
// their subject ("When <check> fails because …", "Always …").
var classFrame = map[string]bool{"always": true, "never": true, "fail": true, "fails": true, "failed": true,
	"because": true, "without": true, "don": true, "dont": true, "make": true, "sure": true, "remember": true, "now": true, "on": true}

// ClassOf is the class of a rule proposed on channel with the given text
// and the gate's findings.
func ClassOf(kind MemoryType, channel PromotionReason, text string, findings []Finding) ReviewClass {
	return ReviewClass{Kind: kind, Channel: channel, Head: classHead(text), Risk: classRisk(findings)}
}

// RuleClass is ClassOf for rule r.
func RuleClass(r *Rule) ReviewClass { return ClassOf(r.Kind, r.PromotionReason, r.Text, r.Findings) }

// classHead is the first classHeadWords content words of text (stop and
// frame words left out, stemmed, digits never), or for a text in a CJK
// script (its first letter is CJK) its first four CJK characters.
func classHead(text string) string {
	if first := strings.IndexFunc(text, unicode.IsLetter); first >= 0 {
		if r, _ := utf8.DecodeRuneInString(text[first:]); tokenizer.IsCJK(r) {
			var han []rune
			for _, r := range text[first:] {
				if tokenizer.IsCJK(r) && unicode.IsLetter(r) {
					if han = append(han, r); len(han) == 4 {
						break
					}
				}
			}
			return string(han)
		}
	}
	var head []string
	for _, w := range tokenizer.Words(text) {
		if tokenizer.IsStopWord(w) || classFrame[w] || strings.IndexFunc(w, unicode.IsDigit) >= 0 || len(w) < 2 {
			continue
		}
		if head = append(head, tokenizer.Stem(w)); len(head) == classHeadWords {
			break
		}
	}
	return strings.Join(head, " ")
}

// classRisk names the gate's classes among findings, sorted ("" when clean).
func classRisk(findings []Finding) string {
	var cats []string
	for _, f := range WithoutMarkers(findings) {
		c := f.Category
		if f.Redacted {
			c = GateCredentials
		}
		cats = append(cats, c)
	}
	slices.Sort(cats)
	return strings.Join(slices.Compact(cats), "+")
}

// RejectedClass is a class of proposals a reviewer rejected in a project:
// the next beat holds a group of that class with a visible reason instead
// of proposing it, until a reviewer lifts the rejection. It keeps the
// class's parts, never a rule's text.
type RejectedClass struct {
	ID        int64       `json:"id"`
	ProjectID int64       `json:"project_id"`
	Class     ReviewClass `json:"class"`
	Reason    ClassReason `json:"reason"`
	// RuleID is the proposal the reviewer rejected the class from.
	RuleID    int64      `json:"rule_id"`
	Actor     string     `json:"actor"`
	CreatedAt time.Time  `json:"created_at"`
	LiftedAt  *time.Time `json:"lifted_at,omitempty"`
	LiftedBy  string     `json:"lifted_by,omitempty"`
}

// RejectedClasses are a project's standing class rejections by class key.
type RejectedClasses map[string]*RejectedClass

// Match returns the standing rejection of the class of a proposal, or nil.
func (rc RejectedClasses) Match(c ReviewClass) *RejectedClass {
	if len(rc) == 0 {
		return nil
	}
	return rc[c.Key()]
}

// SuppressedWhy is the held reason of a group whose class a reviewer
// rejected.
func SuppressedWhy(rc *RejectedClass) string {
	return "Suppressed: a reviewer rejected its class (" + string(rc.Reason) +
		"); lift the rejection on the review page to propose it again."
}

// ClassRejectReason is the rejection reason each proposal of a rejected
// class keeps.
func ClassRejectReason(r ClassReason) string {
	return "Rejected with its class: " + string(r) + "."
}

// StandingClasses keys the standing rejections of list by class.
func StandingClasses(list []*RejectedClass) RejectedClasses {
	out := RejectedClasses{}
	for _, rc := range list {
		if rc.LiftedAt == nil {
			out[rc.Class.Key()] = rc
		}
	}
	return out
}
