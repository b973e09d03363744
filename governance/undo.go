package governance

import (
	"encoding/json"
	"strconv"
	"time"
)

// RuleUndoWindow is how long after a lifecycle action on a rule the
// reviewer who took it (or an admin of the project) may undo it.
const RuleUndoWindow = 15 * time.Minute

// UndoAuditAction is the audit action of an undo; its details name the
// action undone ("undone") and its audit row ("audit_id").
const UndoAuditAction = "rule.undo"

// UndoableMark is the details key a reviewer's lifecycle action writes on
// its audit row when an undo can revert it. Actions taken by the
// heartbeat or through an outcome review, and rows written before the
// console offered undo, lack it and are never undone.
const UndoableMark = "undoable"

// undoableActions are the audit actions an undo reverts. Forget, merge,
// split, edit, supersede and return to candidates are not among them:
// their effects (text erased, candidates moved between rules or unlinked
// and regrouped by later beats) cannot be put back honestly.
var undoableActions = map[string]bool{
	"rule.approve": true, "rule.reject": true, "rule.hold": true, "rule.demote": true, "rule.restore": true,
	"rule.pause": true, "rule.unpause": true, "rule.expiry_set": true, "rule.expiry_clear": true,
}

// UndoDetails is what an undoable action's audit row records for its undo.
type UndoDetails struct {
	Undoable bool       `json:"undoable"`
	From     RuleStatus `json:"from"`
	To       RuleStatus `json:"to"`
	// Held: a restore brought a held proposal back into review.
	Held bool `json:"held"`
	// SupersededBy: a restore took a superseded rule back from its
	// replacement.
	SupersededBy int64 `json:"superseded_by"`
	// Version is the rule's version after an approval, Edited whether
	// the approval wrote it.
	Version int  `json:"version"`
	Edited  bool `json:"edited"`
	// Supersedes is the rule an approval replaced.
	Supersedes int64 `json:"supersedes"`
	// Was is the expiry before an expiry change: an RFC 3339 string, or
	// null for none; absent on rows that did not record it.
	Was json.RawMessage `json:"was"`
}

// ParseUndoDetails reads the details of audit row e.
func ParseUndoDetails(e *AuditEntry) UndoDetails {
	var d UndoDetails
	if e.Details != "" {
		_ = json.Unmarshal([]byte(e.Details), &d) // unreadable: not undoable
	}
	return d
}

// RuleUndo is the undo a rule's latest audit row offers.
type RuleUndo struct {
	AuditID int64
	RuleID  int64
	// Action is the audit action undone ("rule.approve").
	Action string
	Actor  string
	// Until is when the undo window closes.
	Until time.Time
}

// UndoOf returns the undo that e, the latest audit row of a rule, offers
// at now; nil when its action cannot be undone, or no longer.
func UndoOf(e *AuditEntry, now time.Time) *RuleUndo {
	if e == nil || e.ObjectType != "rule" || !undoableActions[e.Action] {
		return nil
	}
	d := ParseUndoDetails(e)
	if !d.Undoable || (e.Action == "rule.restore" && d.SupersededBy != 0) ||
		((e.Action == "rule.expiry_set" || e.Action == "rule.expiry_clear") && len(d.Was) == 0) {
		return nil
	}
	until := e.At.Add(RuleUndoWindow)
	if !now.Before(until) {
		return nil
	}
	id, err := strconv.ParseInt(e.ObjectID, 10, 64)
	if err != nil {
		return nil
	}
	return &RuleUndo{AuditID: e.ID, RuleID: id, Action: e.Action, Actor: e.Actor, Until: until}
}

// CheckUndo decides whether actor may undo the action of audit row want
// on rule ruleID, whose latest audit row is last: ECONFLICT when that
// action is no longer the rule's latest change, cannot be undone or its
// window has passed; EFORBIDDEN when another reviewer took it and
// anyActor (an admin) is false.
func CheckUndo(ruleID int64, last *AuditEntry, want int64, actor string, anyActor bool, now time.Time) (*RuleUndo, error) {
	if last == nil || last.ID != want {
		return nil, Errorf(ECONFLICT, "Rule %d changed since that action; it can no longer be undone.", ruleID)
	}
	if !undoableActions[last.Action] || !ParseUndoDetails(last).Undoable || UndoOf(last, last.At) == nil {
		return nil, Errorf(ECONFLICT, "The last action on rule %d cannot be undone.", ruleID)
	}
	u := UndoOf(last, now)
	if u == nil {
		return nil, Errorf(ECONFLICT, "The last action on rule %d is more than %d minutes old; it can no longer be undone.",
			ruleID, int(RuleUndoWindow/time.Minute))
	}
	if u.Actor != actor && !anyActor {
		return nil, Errorf(EFORBIDDEN, "Only the reviewer who took the last action on rule %d, or an admin, can undo it.", ruleID)
	}
	return u, nil
}
