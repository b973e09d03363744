package governance

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// NewMemory is a memory written by hand, not found in conversations: a
// reviewer's, for a project and a scope (the whole project or one
// subject), or a member's about themself ("remember this about me"). Both
// become a proposed rule that waits in the review queue, never an active
// one: a reviewer's with the promotion reason ReasonReviewer, a member's
// with ReasonExplicit (the member said it, as in a conversation).
type NewMemory struct {
	ProjectID int64
	// SubjectID is the subject the memory is about; "" for the whole
	// project (reviewers only).
	SubjectID string
	Kind      MemoryType
	Text      string
	// ByMember: the member the memory is about wrote it.
	ByMember bool
}

// MaxMemoryText bounds the text of a memory written by hand, in characters.
const MaxMemoryText = 1000

// CheckNewMemory validates a memory written by hand for both store
// backends — a text present and not too long, a known kind, a member's
// memory about a subject, the classifier not blocking the text (a
// credential is masked, its finding kept) — and returns the rule to write.
// It fails closed: a classifier's error is returned.
func CheckNewMemory(ctx context.Context, n NewMemory, cl Classifier) (*Rule, error) {
	text := strings.TrimSpace(n.Text)
	switch {
	case text == "":
		return nil, Errorf(EINVALID, "Write what the assistant should remember.")
	case utf8.RuneCountInString(text) > MaxMemoryText:
		return nil, Errorf(EINVALID, "The text is too long (at most %d characters).", MaxMemoryText)
	case !n.Kind.Valid():
		return nil, Errorf(EINVALID, "Unknown kind %q.", n.Kind)
	case n.ByMember && n.SubjectID == "":
		return nil, Errorf(EINVALID, "A member's memory is about the member.")
	}
	res, err := cl.Classify(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("governance: classify a new memory: %w", err)
	}
	if res.Blocked() {
		return nil, gateBlocks(res.Findings)
	}
	if err := CheckRuleText(res.Text); err != nil {
		return nil, err
	}
	reason := ReasonReviewer
	if n.ByMember {
		reason = ReasonExplicit
	}
	return &Rule{ProjectID: n.ProjectID, SubjectID: n.SubjectID, Kind: n.Kind, Text: res.Text, PromotionReason: reason,
		Status: RuleProposed, Trust: Trust(reason, 1), Findings: res.Findings}, nil
}

// NewMemoryNote is the first version's reason of a memory written by hand.
func NewMemoryNote(r *Rule) string {
	if r.PromotionReason == ReasonExplicit {
		return "Written by the member it is about."
	}
	return "Written by a reviewer."
}
