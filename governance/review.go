package governance

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// RuleEdit is a reviewer's change to a rule's wording or kind. Reason is
// asked for every edit and kept in the version history.
type RuleEdit struct {
	Text   string
	Kind   MemoryType
	Reason string
}

// MaxRuleText is the most characters a rule's text may hold: a rule is one
// statement, and its page diffs every version against the one before.
// Every write of a rule's text is checked (CheckRuleText), and the stores
// refuse a longer one in SQL too.
const MaxRuleText = 2000

// CheckRuleText returns an EINVALID error when text is longer than
// MaxRuleText characters.
func CheckRuleText(text string) error {
	if utf8.RuneCountInString(text) > MaxRuleText {
		return Errorf(EINVALID, "The rule text is too long (at most 2,000 characters).")
	}
	return nil
}

// ReviewCountCap bounds the held and blocked counts of the review queue: a
// project with more shows "1000+" instead of counting every one on every
// page view.
const ReviewCountCap = 1000

// ReviewCounts is what waits for review in one project. Held and Blocked
// stop at ReviewCountCap+1.
type ReviewCounts struct {
	Proposed int
	Held     int
	Blocked  int
}

// CandidateFilter selects candidates; zero fields are ignored.
type CandidateFilter struct {
	ProjectID  int64
	ProjectIDs []int64
	SubjectID  *string
	SessionID  *string
	Statuses   []CandidateStatus
	RuleID     int64
	EventSeq   int64
	Offset     int
	Limit      int
	// CountCap, with a Limit, stops the count CountCap rows past the page:
	// a total of Offset+Limit+CountCap then means "at least".
	CountCap int
}

// EpisodeFilter selects episodes.
type EpisodeFilter struct {
	ProjectID  int64
	ProjectIDs []int64
	SubjectID  *string
	SessionID  *string
	Offset     int
	Limit      int
}

// EditedRule is a reviewer's edit of a rule checked and passed through the
// write gate: the text to store (a secret redacted), the kind, the reason,
// the gate's findings, and whether the gate changed the text.
type EditedRule struct {
	Text     string
	Kind     MemoryType
	Reason   string
	Findings []Finding
	Redacted bool
}

// CheckRuleEdit validates edit e of rule r for both store backends: text,
// kind and reason present, the lifecycle allowing an edit, the write gate
// not blocking the text (through the classifier; its error refuses the
// edit), and something changing.
func CheckRuleEdit(ctx context.Context, r *Rule, e RuleEdit, cl Classifier) (*EditedRule, error) {
	text := strings.TrimSpace(e.Text)
	kind := e.Kind
	if kind == "" {
		kind = r.Kind
	}
	reason := strings.TrimSpace(e.Reason)
	switch {
	case text == "":
		return nil, Errorf(EINVALID, "The rule text cannot be empty.")
	case CheckRuleText(text) != nil:
		return nil, CheckRuleText(text)
	case !kind.Valid():
		return nil, Errorf(EINVALID, "Unknown kind %q.", kind)
	case reason == "":
		return nil, Errorf(EINVALID, "Say why the rule changes.")
	}
	if err := r.Allow(RuleEditText); err != nil {
		return nil, err
	}
	res, err := cl.Classify(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("governance: classify the edited rule: %w", err)
	}
	gated, findings, blocked := res.Text, res.Findings, res.Blocked()
	if err := CheckRuleText(gated); err != nil {
		return nil, err // a redaction made it longer
	}
	if blocked {
		return nil, gateBlocks(findings)
	}
	if gated == r.Text && kind == r.Kind {
		return nil, Errorf(EINVALID, "Nothing changed.")
	}
	return &EditedRule{Text: gated, Kind: kind, Reason: reason, Findings: findings, Redacted: gated != text}, nil
}

// gateBlocks is the EINVALID error for a text the write gate blocks,
// naming the categories of its findings.
func gateBlocks(findings []Finding) error {
	cats := map[string]bool{}
	var names []string
	for _, f := range findings {
		if !cats[f.Category] {
			cats[f.Category] = true
			names = append(names, f.Category)
		}
	}
	return Errorf(EINVALID, "The write gate blocks this text (%s).", strings.Join(names, ", "))
}

// NeedReason is EINVALID with msg when reason is blank: the store actions
// that must say why (reject, demote, return to candidates).
func NeedReason(reason, msg string) error {
	if strings.TrimSpace(reason) == "" {
		return Errorf(EINVALID, "%s", msg)
	}
	return nil
}
