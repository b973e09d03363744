package lifecycle

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// UndoRule puts rule id back as it was before the action of audit row
// auditID, in one transaction with a rule.undo audit row naming it. The
// action must still be the rule's latest change (governance.CheckUndo:
// its last audit row, and nothing written to the rule since), taken by
// actor unless anyActor (an admin), within governance.RuleUndoWindow.
//
// What "as it was" means per action:
//   - approve: the rule is a proposal again and the candidates it
//     promoted are proposed; an approval with edits gets the text and kind
//     of the version before as a new version; a rule it superseded goes
//     back to the status it had, and the proposal still names it as the
//     rule it would replace.
//   - reject: a proposal again, its rejected candidates proposed.
//   - hold: a proposal again, its held candidates proposed.
//   - demote: the status before (active or stale).
//   - restore: the status before: stale or archived; rejected, with its
//     candidates; held, with its candidates. A restore of a superseded
//     rule is not undone (supersede it again).
//   - pause, resume: the other one.
//   - expiry set or cleared: the expiry before.
func (a RuleActions[T]) UndoRule(ctx context.Context, actor string, id, auditID int64, anyActor bool) (*governance.Rule, error) {
	return Change(ctx, a.store, "UndoRule", id, func(tx T, r *governance.Rule) error {
		last, err := tx.LastRuleAudit(ctx, r.ID)
		if err != nil {
			return err
		}
		if _, err := governance.CheckUndo(r.ID, last, auditID, actor, anyActor, tx.Now()); err != nil {
			return err
		}
		if r.UpdatedAt.After(last.At) {
			return undoChanged(r.ID)
		}
		d := governance.ParseUndoDetails(last)
		details := map[string]any{"undone": last.Action, "audit_id": last.ID, "from": r.Status}
		if last.Actor != actor {
			details["actor_undone"] = last.Actor
		}
		if err := a.undo(ctx, tx, actor, r, last, d, details); err != nil {
			return err
		}
		details["to"] = r.Status
		return Audit(ctx, tx, actor, governance.UndoAuditAction, r, "", details)
	})
}

func undoChanged(id int64) error {
	return governance.Errorf(governance.ECONFLICT, "Rule %d changed since that action; it can no longer be undone.", id)
}

// undo reverts the action of audit row last on r (d its details).
func (a RuleActions[T]) undo(ctx context.Context, tx Tx, actor string, r *governance.Rule, last *governance.AuditEntry, d governance.UndoDetails, details map[string]any) error {
	switch last.Action {
	case "rule.approve":
		return a.undoApprove(ctx, tx, actor, r, last, d, details)
	case "rule.reject":
		if err := SetStatus(ctx, tx, r, governance.RuleProposed); err != nil {
			return err
		}
		why := "Back in review: a reviewer undid the rejection."
		n, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidateRejected), governance.CandidateProposed, &why, false)
		details["candidates"] = n
		return err
	case "rule.hold":
		if held, err := Held(ctx, tx, r); err != nil || !held {
			if err != nil {
				return err
			}
			return undoChanged(r.ID)
		}
		why := "Back in review: a reviewer undid the hold."
		return Reopen(ctx, tx, r, why)
	case "rule.demote":
		if r.Status != d.To || (d.From != governance.RuleActive && d.From != governance.RuleStale) {
			return undoChanged(r.ID)
		}
		return SetStatus(ctx, tx, r, d.From)
	case "rule.restore":
		return undoRestore(ctx, tx, r, d, details)
	case "rule.pause", "rule.unpause":
		paused := last.Action == "rule.unpause"
		if r.Paused == paused {
			return undoChanged(r.ID)
		}
		if err := tx.SetPaused(ctx, r.ID, paused); err != nil {
			return err
		}
		r.Paused = paused
		details["paused"] = paused
		return nil
	case "rule.expiry_set", "rule.expiry_clear":
		var was *string
		if err := json.Unmarshal(d.Was, &was); err != nil {
			return undoChanged(r.ID)
		}
		var at *time.Time
		if was != nil {
			t, err := time.Parse(time.RFC3339, *was)
			if err != nil {
				return undoChanged(r.ID)
			}
			at = &t
		}
		if err := tx.SetExpiry(ctx, r.ID, at); err != nil {
			return err
		}
		r.ExpiresAt = at
		details["expires_at"] = was
		return nil
	}
	return governance.Errorf(governance.ECONFLICT, "The last action on rule %d cannot be undone.", r.ID)
}

// undoApprove makes the approved rule r a proposal again.
func (a RuleActions[T]) undoApprove(ctx context.Context, tx Tx, actor string, r *governance.Rule, last *governance.AuditEntry, d governance.UndoDetails, details map[string]any) error {
	if r.Version != d.Version {
		return undoChanged(r.ID)
	}
	// The rule the approval superseded: it must still be as the approval
	// left it (superseded by r, nothing written to it since).
	var old *governance.Rule
	if d.Supersedes != 0 {
		o, err := tx.LockRule(ctx, d.Supersedes)
		switch {
		case governance.ErrorCode(err) == governance.ENOTFOUND:
		case err != nil:
			return err
		case o.Status == governance.RuleSuperseded && o.SupersededBy == r.ID:
			oldLast, err := tx.LastRuleAudit(ctx, o.ID)
			if err != nil {
				return err
			}
			if oldLast == nil || oldLast.Action != "rule.supersede" || !oldLast.At.Equal(last.At) || oldLast.Actor != last.Actor ||
				o.UpdatedAt.After(last.At) {
				return governance.Errorf(governance.ECONFLICT,
					"Rule %d, which the approval of rule %d replaced, changed since; the approval can no longer be undone.", o.ID, r.ID)
			}
			old = o
		case r.Supersedes != d.Supersedes:
			return undoChanged(r.ID)
		}
	}
	if err := SetStatus(ctx, tx, r, governance.RuleProposed); err != nil {
		return err
	}
	why := "Back in review: a reviewer undid the approval."
	n, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidatePromoted), governance.CandidateProposed, &why, false)
	if err != nil {
		return err
	}
	details["candidates"] = n
	if d.Edited {
		versions, err := tx.RuleVersions(ctx, r.ID)
		if err != nil {
			return err
		}
		var before *governance.RuleVersion
		for _, v := range versions {
			if v.Version == d.Version-1 {
				before = v
			}
		}
		if before == nil {
			return undoChanged(r.ID)
		}
		if err := editRule(ctx, tx, a.gate, actor, r, governance.RuleEdit{Text: before.Text, Kind: before.Kind,
			Reason: "Undo of the approval: the text before its edit."}); err != nil {
			return err
		}
		details["version"] = r.Version
	}
	if old == nil {
		return nil
	}
	from, err := tx.SupersededFrom(ctx, old.ID)
	if err != nil {
		return err
	}
	if from == "" {
		from = governance.RuleActive
	}
	ok, err := tx.Unsupersede(ctx, old.ID, from)
	if err != nil {
		return err
	}
	if !ok {
		return ErrChanged(old.ID)
	}
	// Unsupersede ends the link; the proposal still replaces old.
	if err := tx.SetSupersedes(ctx, r.ID, old.ID); err != nil {
		return err
	}
	details["restored"] = old.ID
	old.Status, old.SupersededBy = from, 0
	return Audit(ctx, tx, actor, governance.UndoAuditAction, old, "",
		map[string]any{"undone": "rule.supersede", "by_undo_of": last.ID, "from": governance.RuleSuperseded, "to": from})
}

// undoRestore puts a restored rule back in the status it was restored from.
func undoRestore(ctx context.Context, tx Tx, r *governance.Rule, d governance.UndoDetails, details map[string]any) error {
	if r.Status != d.To || d.SupersededBy != 0 {
		return undoChanged(r.ID)
	}
	switch {
	case d.Held:
		if err := SetStatus(ctx, tx, r, governance.RuleArchived); err != nil {
			return err
		}
		why := "Held again: a reviewer undid the restore."
		n, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidateProposed), governance.CandidateHeld, &why, false)
		details["candidates"] = n
		return err
	case d.From == governance.RuleRejected:
		if err := SetStatus(ctx, tx, r, governance.RuleRejected); err != nil {
			return err
		}
		why := "Rejected again: a reviewer undid the restore."
		n, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidateProposed), governance.CandidateRejected, &why, false)
		details["candidates"] = n
		return err
	case d.From == governance.RuleStale || d.From == governance.RuleArchived:
		return SetStatus(ctx, tx, r, d.From)
	}
	return undoChanged(r.ID)
}
