package governance

import (
	"slices"
)

// RuleAction is something a reviewer (or the heartbeat) does to a rule.
// Which status allows which action is decided by one table, ruleLifecycle:
// the store checks it before every change and the rule page offers exactly
// the actions it allows, so the two cannot drift.
type RuleAction string

const (
	RuleApprove      RuleAction = "approve"
	RuleReject       RuleAction = "reject"
	RuleHold         RuleAction = "hold"
	RuleMerge        RuleAction = "merge"
	RuleEditText     RuleAction = "edit"
	RuleDemote       RuleAction = "demote"
	RuleToCandidates RuleAction = "to_candidates"
	RuleRestore      RuleAction = "restore"
	// RuleSupersede is a reviewer linking a newer rule that replaces this
	// one (it stops being used once the newer one is active).
	RuleSupersede RuleAction = "supersede"
	// RuleReplace completes a replacement: the newer rule became active
	// (approved, or promoted by the heartbeat) and this one is superseded,
	// whatever its state then (still a proposal, rejected or archived
	// meanwhile); only a forgotten or already superseded one is left as it
	// is. Restoring a superseded rule undoes it.
	RuleReplace RuleAction = "replace"
	RuleSplit   RuleAction = "split"
	RulePause   RuleAction = "pause"
	RuleExpiry  RuleAction = "expiry"
	RuleForget  RuleAction = "forget"
)

// ruleTransition is one row of the lifecycle table: the statuses an action
// is allowed from, and the past participle its refusal names.
type ruleTransition struct {
	from []RuleStatus
	verb string
}

var inUse = []RuleStatus{RuleProposed, RuleActive, RuleStale, RuleArchived, RuleSuperseded, RuleRejected}

// ruleLifecycle is the rule lifecycle: which status allows which action.
var ruleLifecycle = map[RuleAction]ruleTransition{
	RuleApprove:      {[]RuleStatus{RuleProposed}, "approved"},
	RuleReject:       {[]RuleStatus{RuleProposed}, "rejected"},
	RuleHold:         {[]RuleStatus{RuleProposed}, "held"},
	RuleMerge:        {[]RuleStatus{RuleProposed}, "merged"},
	RuleEditText:     {[]RuleStatus{RuleProposed, RuleActive, RuleStale, RuleArchived}, "edited"},
	RuleDemote:       {[]RuleStatus{RuleActive, RuleStale}, "demoted"},
	RuleToCandidates: {[]RuleStatus{RuleActive, RuleStale, RuleArchived}, "returned to candidates"},
	RuleRestore:      {[]RuleStatus{RuleStale, RuleArchived, RuleRejected, RuleSuperseded}, "restored"},
	RuleSupersede:    {[]RuleStatus{RuleActive, RuleStale, RuleArchived}, "superseded"},
	RuleReplace:      {[]RuleStatus{RuleProposed, RuleActive, RuleStale, RuleArchived, RuleRejected}, "superseded"},
	RuleSplit:        {[]RuleStatus{RuleProposed, RuleActive, RuleStale}, "split"},
	RulePause:        {inUse, "paused"},
	RuleExpiry:       {inUse, "given an expiry"},
	RuleForget:       {inUse, "forgotten"},
}

// RuleActions lists every rule action.
var RuleActions = []RuleAction{RuleApprove, RuleReject, RuleHold, RuleMerge, RuleEditText, RuleDemote, RuleToCandidates,
	RuleRestore, RuleSupersede, RuleReplace, RuleSplit, RulePause, RuleExpiry, RuleForget}

// Valid reports whether a is a known rule action.
func (a RuleAction) Valid() bool { _, ok := ruleLifecycle[a]; return ok }

// RuleAllows reports whether a rule in status may undergo action.
func RuleAllows(status RuleStatus, action RuleAction) bool {
	return slices.Contains(ruleLifecycle[action].from, status)
}

// Allow returns nil when r's status allows action, else ECONFLICT naming the
// statuses that would.
func (r *Rule) Allow(action RuleAction) error {
	t, ok := ruleLifecycle[action]
	if !ok {
		return Errorf(EINTERNAL, "Unknown rule action %q.", action)
	}
	if slices.Contains(t.from, r.Status) {
		return nil
	}
	if r.Status == RuleForgotten {
		return Errorf(ECONFLICT, "Rule %d is forgotten.", r.ID)
	}
	// The statuses allowed, as one value: "active or stale".
	var names any = string(t.from[0])
	for _, s := range t.from[1:] {
		names = Say("%s or %s", names, string(s))
	}
	return Errorf(ECONFLICT, "Rule %d is %s; only rules that are %s can be %s.", r.ID, r.Status, names, t.verb)
}

// RuleActionSet is, for one rule, whether each action is allowed: what
// the rule page offers.
type RuleActionSet map[RuleAction]bool

// AllowedActions is the set of actions r's status allows.
func (r *Rule) AllowedActions() RuleActionSet {
	set := RuleActionSet{}
	for _, a := range RuleActions {
		set[a] = RuleAllows(r.Status, a)
	}
	return set
}
