package governance

import (
	"time"
)

// RuleFilter selects rules; nil pointer fields are ignored.
type RuleFilter struct {
	ID        *int64
	ProjectID *int64
	// ProjectIDs restricts to these projects when not nil.
	ProjectIDs []int64
	// SubjectID matches rules about this subject exactly ("" = project-wide rules).
	SubjectID *string
	// ForSubject matches what one subject may receive: project-wide rules and
	// that subject's own.
	ForSubject *string
	Kind       *MemoryType
	Statuses   []RuleStatus
	Reason     *PromotionReason
	Paused     *bool
	// ExpiringBefore selects rules with an expiry before this time.
	ExpiringBefore *time.Time
	Query          string
	// Sort orders the list (RuleSortID when empty).
	Sort RuleSort

	Offset int
	Limit  int
	// CountCap, with a Limit, stops the count CountCap rows past the page:
	// a total of Offset+Limit+CountCap then means "at least".
	CountCap int
}

// RuleSort is an order of a rules list.
type RuleSort string

const (
	// RuleSortID lists rules by id, oldest first.
	RuleSortID RuleSort = ""
	// RuleSortMisled lists first the rules agents most often reported as
	// misleading or conflicting with what is current.
	RuleSortMisled RuleSort = "misled"
	// RuleSortHelped lists first the rules agents most often said helped.
	RuleSortHelped RuleSort = "helped"
)

// RuleSorts lists every order.
var RuleSorts = []RuleSort{RuleSortID, RuleSortMisled, RuleSortHelped}

// EvidenceLink is one candidate supporting a rule with the events that support it.
type EvidenceLink struct {
	Candidate *Candidate
	Events    []*Event
}

// Usable reports whether an active rule may be recalled at time now, and if
// not, why (the trace reason).
func (r *Rule) Usable(now time.Time) (bool, string) {
	switch {
	case r.Status == RuleSuperseded:
		return false, "superseded"
	case r.Status != RuleActive:
		return false, string(r.Status)
	case r.Paused:
		return false, "paused"
	case r.ExpiresAt != nil && !r.ExpiresAt.After(now):
		return false, "expired"
	}
	return true, ""
}

// DistinctIDs keeps the first of each id, in order.
func DistinctIDs(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	var out []int64
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
