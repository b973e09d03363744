package governance

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// RuleFilterInput is a rule filter as text, the way the rules page, the
// agent API (GET /api/v1/rules) and the MCP tool list_rules receive it.
// ParseRuleFilter is the one parser and validator of all three, so they
// accept and refuse the same values.
type RuleFilterInput struct {
	// Status is a comma-separated list of rule statuses ("" = the caller's
	// default). Forgotten rules are listed only where the defaults allow.
	Status string
	// Kind is a memory type ("" = any).
	Kind string
	// Reason is a promotion channel ("" = any).
	Reason string
	// Paused is yes/no or a boolean ("" = either).
	Paused string
	// Subject, when set, selects the rules about one subject; "" and "-"
	// both select the project-wide rules.
	Subject *string
	// ForSubject selects what one subject may receive: project-wide rules
	// and that subject's own.
	ForSubject string
	// ExpiringDays selects rules that expire within that many days ("" = any).
	ExpiringDays string
	Query        string
	// Limit and Offset are non-negative integers ("" = the defaults).
	Limit, Offset string
	// Sort is a RuleSort ("" or "id" = by id).
	Sort string
}

// RuleFilterDefaults are what an empty field of a RuleFilterInput means for
// one surface.
type RuleFilterDefaults struct {
	Statuses []RuleStatus
	Limit    int
	MaxLimit int
	Now      time.Time
	// Forgotten allows listing forgotten rules (their tombstones), which
	// only the reviewers' rules page offers.
	Forgotten bool
	// Only, when set, are the only statuses a filter may ask for (the
	// agent surfaces list active rules, never proposed or rejected text).
	Only []RuleStatus
}

// ListableRuleStatuses are every status but forgotten: the rules a list
// may show.
var ListableRuleStatuses = []RuleStatus{RuleProposed, RuleActive, RuleStale, RuleArchived, RuleSuperseded, RuleRejected}

// MaxQueryRunes bounds a search typed into a filter (the rules' q, the
// events' search): each word is a term the store looks up.
const MaxQueryRunes = 200

// ParseRuleFilter validates in and builds the filter. An invalid value is
// EINVALID naming the field.
func ParseRuleFilter(in RuleFilterInput, def RuleFilterDefaults) (RuleFilter, error) {
	f := RuleFilter{Query: strings.TrimSpace(in.Query), Limit: def.Limit}
	bad := func(name string) error { return Errorf(EINVALID, "Invalid %s.", name) }
	if utf8.RuneCountInString(f.Query) > MaxQueryRunes {
		return f, Errorf(EINVALID, "The search is longer than %d characters.", MaxQueryRunes)
	}
	if in.Status != "" {
		for _, st := range strings.Split(in.Status, ",") {
			rs := RuleStatus(strings.TrimSpace(st))
			if rs == RuleForgotten && !def.Forgotten {
				return f, Errorf(EINVALID, "Invalid status: forgotten rules are not listed.")
			}
			if !rs.Valid() || def.Only != nil && !slices.Contains(def.Only, rs) {
				return f, bad("status")
			}
			f.Statuses = append(f.Statuses, rs)
		}
	} else {
		f.Statuses = append([]RuleStatus(nil), def.Statuses...)
	}
	switch sort := RuleSort(strings.ToLower(strings.TrimSpace(in.Sort))); sort {
	case "id", RuleSortID:
	case RuleSortMisled, RuleSortHelped:
		f.Sort = sort
	default:
		return f, bad("sort")
	}
	if in.Kind != "" {
		k := MemoryType(in.Kind)
		if !k.Valid() {
			return f, bad("kind")
		}
		f.Kind = &k
	}
	if in.Reason != "" {
		r := PromotionReason(in.Reason)
		if !r.Valid() {
			return f, bad("reason")
		}
		f.Reason = &r
	}
	switch strings.ToLower(in.Paused) {
	case "":
	case "yes":
		f.Paused = ptr(true)
	case "no":
		f.Paused = ptr(false)
	default:
		b, err := strconv.ParseBool(in.Paused)
		if err != nil {
			return f, bad("paused")
		}
		f.Paused = &b
	}
	if in.Subject != nil {
		subject := strings.TrimSpace(*in.Subject)
		if subject == "-" {
			subject = ""
		}
		f.SubjectID = &subject
	}
	if in.ForSubject != "" {
		f.ForSubject = ptr(in.ForSubject)
	}
	if in.ExpiringDays != "" {
		days, err := strconv.Atoi(in.ExpiringDays)
		if err != nil || days < 0 {
			return f, bad("expiring")
		}
		if days > 0 {
			before := def.Now.UTC().Add(time.Duration(days) * 24 * time.Hour)
			f.ExpiringBefore = &before
		}
	}
	for name, p := range map[string]struct {
		in  string
		dst *int
	}{"limit": {in.Limit, &f.Limit}, "offset": {in.Offset, &f.Offset}} {
		if p.in == "" {
			continue
		}
		n, err := strconv.Atoi(p.in)
		if err != nil || n < 0 {
			return f, bad(name)
		}
		*p.dst = n
	}
	if def.MaxLimit > 0 && (f.Limit == 0 || f.Limit > def.MaxLimit) {
		f.Limit = min(max(f.Limit, 1), def.MaxLimit)
	}
	return f, nil
}

func ptr[T any](v T) *T { return &v }
