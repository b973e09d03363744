package lifecycle

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// RuleActions are the reviewer actions that move a rule through its
// lifecycle, as the methods of a store (the SQLite store's names and
// signatures): a backend embeds them. Each runs in one transaction
// together with its audit row; audit rows name ids and reasons, never the
// text of a memory.
type RuleActions[T Tx] struct {
	store Store[T]
	// gate is the write gate a new or edited text passes (gate.Patterns).
	gate governance.Classifier
}

// NewRuleActions returns the actions over the backend's transactions,
// with the write gate cl.
func NewRuleActions[T Tx](s Store[T], cl governance.Classifier) RuleActions[T] {
	return RuleActions[T]{store: s, gate: cl}
}

// ApproveRule activates a proposal and promotes its candidates; with an edit
// the approved text is a new version. A proposal that replaces another
// rule supersedes it.
func (a RuleActions[T]) ApproveRule(ctx context.Context, actor string, id int64, edit *governance.RuleEdit) (*governance.Rule, error) {
	return Change(ctx, a.store, "ApproveRule", id, func(tx T, r *governance.Rule) error {
		if edit != nil {
			if err := r.Allow(governance.RuleApprove); err != nil {
				return err
			}
			if err := editRule(ctx, tx, a.gate, actor, r, *edit); err != nil {
				return err
			}
		}
		return approve(ctx, tx, actor, r, undoable(map[string]any{"edited": edit != nil}))
	})
}

// ApproveRules approves several proposals in one transaction: all or none.
// A proposal that another one of the batch replaces, approved first, is
// superseded by it rather than approved.
func (a RuleActions[T]) ApproveRules(ctx context.Context, actor string, ids []int64) error {
	return ChangeAll(ctx, a.store, "ApproveRules", ids, func(tx T, r *governance.Rule) error {
		if r.Status == governance.RuleSuperseded && slices.Contains(ids, r.SupersededBy) {
			return nil
		}
		return approve(ctx, tx, actor, r, undoable(map[string]any{"edited": false}))
	})
}

// Approve activates the proposal r inside tx (approve), as part of
// another decision (an outcome review): not undoable on its own.
func Approve(ctx context.Context, tx Tx, actor string, r *governance.Rule) error {
	return approve(ctx, tx, actor, r, nil)
}

// undoable marks the details of a reviewer's own action: UndoRule may
// revert it (governance.UndoableMark).
func undoable(details map[string]any) map[string]any {
	if details == nil {
		details = map[string]any{}
	}
	details[governance.UndoableMark] = true
	return details
}

// approve activates r; mark is added to its audit row's details.
func approve(ctx context.Context, tx Tx, actor string, r *governance.Rule, mark map[string]any) error {
	if err := r.Allow(governance.RuleApprove); err != nil {
		return err
	}
	if err := SetStatus(ctx, tx, r, governance.RuleActive); err != nil {
		return err
	}
	// Each status change says why anew: no candidate keeps the reason of a
	// decision since undone ("promoted · Rejected by a reviewer.").
	why := "Approved by a reviewer."
	n, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidateProposed), governance.CandidatePromoted, &why, false)
	if err != nil {
		return err
	}
	details := map[string]any{"candidates": n, "version": r.Version}
	for k, v := range mark {
		details[k] = v
	}
	if r.Supersedes != 0 {
		details["supersedes"] = r.Supersedes
	}
	if err := Audit(ctx, tx, actor, "rule.approve", r, "", details); err != nil {
		return err
	}
	if r.Supersedes != 0 {
		// The rule it replaces steps aside whatever its state: in use,
		// still a proposal, rejected or archived. One forgotten or
		// already superseded by another is left as it is.
		old, err := tx.LockRule(ctx, r.Supersedes)
		if err != nil {
			return err
		}
		if governance.RuleAllows(old.Status, governance.RuleReplace) {
			if err := Supersede(ctx, tx, actor, old, r, "Replaced by the approved rule."); err != nil {
				return err
			}
		}
	}
	return nil
}

// RejectRule rejects a proposal; the reason is required. Its candidates are
// rejected with it.
func (a RuleActions[T]) RejectRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	if err := governance.NeedReason(reason, "Say why the proposal is rejected."); err != nil {
		return nil, err
	}
	return Change(ctx, a.store, "RejectRule", id, func(tx T, r *governance.Rule) error {
		return reject(ctx, tx, actor, r, reason)
	})
}

// RejectRules rejects several proposals with one reason, all or none.
func (a RuleActions[T]) RejectRules(ctx context.Context, actor string, ids []int64, reason string) error {
	if err := governance.NeedReason(reason, "Say why the proposals are rejected."); err != nil {
		return err
	}
	return ChangeAll(ctx, a.store, "RejectRules", ids, func(tx T, r *governance.Rule) error {
		return reject(ctx, tx, actor, r, reason)
	})
}

func reject(ctx context.Context, tx Tx, actor string, r *governance.Rule, reason string) error {
	if err := r.Allow(governance.RuleReject); err != nil {
		return err
	}
	if err := SetStatus(ctx, tx, r, governance.RuleRejected); err != nil {
		return err
	}
	why := "Rejected by a reviewer."
	n, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidateProposed, governance.CandidatePending),
		governance.CandidateRejected, &why, false)
	if err != nil {
		return err
	}
	return Audit(ctx, tx, actor, "rule.reject", r, reason, undoable(map[string]any{"candidates": n}))
}

// HoldRule sets a proposal aside to wait for more evidence: the rule is
// archived and its candidates are held, still linked to it, so the rule
// keeps its evidence chain. Restoring the rule, releasing one of its
// candidates or a beat that finds more evidence for them brings the same
// rule back as a proposal (Held, Reopen), never a second copy of it.
func (a RuleActions[T]) HoldRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	return Change(ctx, a.store, "HoldRule", id, func(tx T, r *governance.Rule) error {
		if err := r.Allow(governance.RuleHold); err != nil {
			return err
		}
		if err := SetStatus(ctx, tx, r, governance.RuleArchived); err != nil {
			return err
		}
		why := "Held by a reviewer: waits for more evidence."
		n, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidateProposed, governance.CandidatePending),
			governance.CandidateHeld, &why, false)
		if err != nil {
			return err
		}
		return Audit(ctx, tx, actor, "rule.hold", r, reason,
			undoable(map[string]any{"from": governance.RuleProposed, "to": r.Status, "candidates": n}))
	})
}

// DemoteRuleToCandidates takes a rule out of use and returns its candidates to the
// held queue, unlinked; the rule is archived.
func (a RuleActions[T]) DemoteRuleToCandidates(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	if err := governance.NeedReason(reason, "Say why the rule goes back to candidates."); err != nil {
		return nil, err
	}
	return Change(ctx, a.store, "DemoteRuleToCandidates", id, func(tx T, r *governance.Rule) error {
		if err := r.Allow(governance.RuleToCandidates); err != nil {
			return err
		}
		from := r.Status
		if r.Status != governance.RuleArchived {
			if err := SetStatus(ctx, tx, r, governance.RuleArchived); err != nil {
				return err
			}
		}
		why := "Returned to candidates by a reviewer."
		n, err := tx.SetCandidates(ctx, r.ID,
			statuses(governance.CandidateProposed, governance.CandidatePromoted, governance.CandidatePending),
			governance.CandidateHeld, &why, true)
		if err != nil {
			return err
		}
		return Audit(ctx, tx, actor, "rule.to_candidates", r, reason, map[string]any{"from": from, "to": r.Status, "candidates": n})
	})
}

// DemoteRule moves a rule one step down: active → stale → archived.
func (a RuleActions[T]) DemoteRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	if err := governance.NeedReason(reason, "Say why the rule is demoted."); err != nil {
		return nil, err
	}
	return Change(ctx, a.store, "DemoteRule", id, func(tx T, r *governance.Rule) error {
		return demote(ctx, tx, actor, r, reason, undoable(nil))
	})
}

// Demote moves r one step down inside tx: active → stale → archived, as
// part of another decision (an outcome review): not undoable on its own.
func Demote(ctx context.Context, tx Tx, actor string, r *governance.Rule, reason string) error {
	return demote(ctx, tx, actor, r, reason, nil)
}

func demote(ctx context.Context, tx Tx, actor string, r *governance.Rule, reason string, mark map[string]any) error {
	if err := r.Allow(governance.RuleDemote); err != nil {
		return err
	}
	from, to := r.Status, governance.RuleArchived
	if r.Status == governance.RuleActive {
		to = governance.RuleStale
	}
	if err := SetStatus(ctx, tx, r, to); err != nil {
		return err
	}
	details := map[string]any{"from": from, "to": to}
	for k, v := range mark {
		details[k] = v
	}
	return Audit(ctx, tx, actor, "rule.demote", r, reason, details)
}

// RestoreRule brings a stale or archived rule back into use, and a rejected or
// held proposal back into the review queue (a held one with its
// candidates). A superseded rule goes back to where it was before it was
// replaced (in use, or in review when it was a proposal or rejected) and
// the replacement no longer names it.
func (a RuleActions[T]) RestoreRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	return Change(ctx, a.store, "RestoreRule", id, func(tx T, r *governance.Rule) error {
		if err := r.Allow(governance.RuleRestore); err != nil {
			return err
		}
		if r.Status == governance.RuleSuperseded {
			return unsupersede(ctx, tx, actor, r, reason)
		}
		from, to := r.Status, governance.RuleActive
		held, err := Held(ctx, tx, r)
		if err != nil {
			return err
		}
		if held {
			// A held proposal was never approved: it goes back to the
			// review queue with its evidence.
			if err := Reopen(ctx, tx, r, "Restored into review by a reviewer."); err != nil {
				return err
			}
			return Audit(ctx, tx, actor, "rule.restore", r, reason,
				undoable(map[string]any{"from": from, "to": governance.RuleProposed, "held": true}))
		}
		if r.Status == governance.RuleRejected {
			to = governance.RuleProposed
		}
		if err := SetStatus(ctx, tx, r, to); err != nil {
			return err
		}
		if to == governance.RuleProposed {
			why := "Restored into review by a reviewer."
			if _, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidateRejected), governance.CandidateProposed, &why, false); err != nil {
				return err
			}
		}
		return Audit(ctx, tx, actor, "rule.restore", r, reason, undoable(map[string]any{"from": from, "to": to}))
	})
}

// unsupersede undoes the replacement of superseded rule r.
func unsupersede(ctx context.Context, tx Tx, actor string, r *governance.Rule, reason string) error {
	before, err := tx.SupersededFrom(ctx, r.ID)
	if err != nil {
		return err
	}
	to := governance.RuleActive
	if before == governance.RuleProposed || before == governance.RuleRejected {
		to = governance.RuleProposed
	}
	ok, err := tx.Unsupersede(ctx, r.ID, to)
	if err != nil {
		return err
	}
	if !ok {
		return ErrChanged(r.ID)
	}
	if to == governance.RuleProposed {
		why := "Restored into review by a reviewer."
		if _, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidateRejected), governance.CandidateProposed, &why, false); err != nil {
			return err
		}
	}
	newer := r.SupersededBy
	r.Status, r.SupersededBy = to, 0
	return Audit(ctx, tx, actor, "rule.restore", r, reason,
		map[string]any{"from": governance.RuleSuperseded, "to": to, "superseded_by": newer})
}

// SupersedeRule links rule oldID to the newer rule newID. When the newer rule is
// active the old one is superseded at once; when it is still a proposal,
// approving it completes the replacement.
func (a RuleActions[T]) SupersedeRule(ctx context.Context, actor string, oldID, newID int64, reason string) (*governance.Rule, error) {
	if oldID == newID {
		return nil, governance.Errorf(governance.EINVALID, "A rule cannot supersede itself.")
	}
	return Change(ctx, a.store, "SupersedeRule", oldID, func(tx T, old *governance.Rule) error {
		newer, err := tx.LockRule(ctx, newID)
		if err != nil {
			return governance.Errorf(governance.EINVALID, "There is no rule %d.", newID)
		}
		if newer.ProjectID != old.ProjectID || newer.SubjectID != old.SubjectID {
			return governance.Errorf(governance.EINVALID, "Rule %d has another scope (project or subject) than rule %d.", newID, oldID)
		}
		if newer.Supersedes != 0 && newer.Supersedes != old.ID {
			return governance.Errorf(governance.EINVALID, "Rule %d already replaces rule %d.", newID, newer.Supersedes)
		}
		if err := old.Allow(governance.RuleSupersede); err != nil {
			return err
		}
		switch newer.Status {
		case governance.RuleActive:
			return Supersede(ctx, tx, actor, old, newer, reason)
		case governance.RuleProposed:
			if err := tx.SetSupersedes(ctx, newer.ID, old.ID); err != nil {
				return err
			}
			return Audit(ctx, tx, actor, "rule.replacement", newer, reason, map[string]any{"supersedes": old.ID})
		}
		return governance.Errorf(governance.EINVALID, "Rule %d is %s; the newer rule must be active or proposed.", newID, newer.Status)
	})
}

// Supersede completes a replacement: old steps aside for the active rule
// newer.
func Supersede(ctx context.Context, tx Tx, actor string, old, newer *governance.Rule, reason string) error {
	if err := old.Allow(governance.RuleReplace); err != nil {
		return err
	}
	ok, err := tx.Supersede(ctx, old.ID, newer.ID, old.Status)
	if err != nil {
		return err
	}
	if !ok {
		return ErrChanged(old.ID)
	}
	if err := tx.SetSupersedes(ctx, newer.ID, old.ID); err != nil {
		return err
	}
	from := old.Status
	old.Status, old.SupersededBy = governance.RuleSuperseded, newer.ID
	return Audit(ctx, tx, actor, "rule.supersede", old, reason, map[string]any{"from": from, "superseded_by": newer.ID})
}

// SetRulePaused pauses a rule (kept, but recall leaves it out) or resumes it.
func (a RuleActions[T]) SetRulePaused(ctx context.Context, actor string, id int64, paused bool, reason string) (*governance.Rule, error) {
	return Change(ctx, a.store, "SetRulePaused", id, func(tx T, r *governance.Rule) error {
		if err := r.Allow(governance.RulePause); err != nil {
			return err
		}
		if r.Paused == paused {
			return nil
		}
		if err := tx.SetPaused(ctx, r.ID, paused); err != nil {
			return err
		}
		action := "rule.unpause"
		if paused {
			action = "rule.pause"
		}
		r.Paused = paused
		return Audit(ctx, tx, actor, action, r, reason, undoable(nil))
	})
}

// SetRuleExpiry sets (at != nil) or clears a rule's expiry; recall leaves an
// expired rule out. An expiry must lie in the future.
func (a RuleActions[T]) SetRuleExpiry(ctx context.Context, actor string, id int64, at *time.Time, reason string) (*governance.Rule, error) {
	return Change(ctx, a.store, "SetRuleExpiry", id, func(tx T, r *governance.Rule) error {
		if err := r.Allow(governance.RuleExpiry); err != nil {
			return err
		}
		if at != nil && !at.After(tx.Now()) {
			return governance.Errorf(governance.EINVALID, "Pick a date in the future; to stop using the rule now, pause or demote it.")
		}
		var stored *time.Time
		if at != nil && !at.IsZero() {
			u := at.UTC().Truncate(time.Second)
			stored = &u
		}
		if err := tx.SetExpiry(ctx, r.ID, stored); err != nil {
			return err
		}
		// The expiry before, for an undo.
		var was any
		if r.ExpiresAt != nil {
			was = r.ExpiresAt.UTC().Format(time.RFC3339)
		}
		details := undoable(map[string]any{"expires_at": nil, "was": was})
		action := "rule.expiry_clear"
		if stored != nil {
			details["expires_at"] = stored.Format(time.RFC3339)
			action = "rule.expiry_set"
		}
		r.ExpiresAt = at
		return Audit(ctx, tx, actor, action, r, reason, details)
	})
}

// editRule writes a new version of r after governance.CheckRuleEdit through
// the write gate cl (a blocked text is refused, a secret is redacted),
// audited as rule.edit.
func editRule(ctx context.Context, tx Tx, cl governance.Classifier, actor string, r *governance.Rule, e governance.RuleEdit) error {
	ed, err := governance.CheckRuleEdit(ctx, r, e, cl)
	if err != nil {
		return err
	}
	version := r.Version + 1
	ok, err := tx.WriteVersion(ctx, actor, r, ed, version)
	if err != nil {
		return err
	}
	if !ok {
		return ErrChanged(r.ID)
	}
	details := map[string]any{"version": version, "kind": ed.Kind}
	if ed.Redacted {
		details["redacted"] = true
	}
	if err := Audit(ctx, tx, actor, "rule.edit", r, ed.Reason, details); err != nil {
		return err
	}
	r.Text, r.Kind, r.Version, r.Findings = ed.Text, ed.Kind, version, ed.Findings
	return nil
}

// EditRule writes a new version of a rule's text or kind (editRule).
func (a RuleActions[T]) EditRule(ctx context.Context, actor string, id int64, e governance.RuleEdit) (*governance.Rule, error) {
	return Change(ctx, a.store, "EditRule", id, func(tx T, r *governance.Rule) error {
		return editRule(ctx, tx, a.gate, actor, r, e)
	})
}

// MergeRules folds proposal otherID into proposal keepID: keepID gets the
// candidates of both, the higher trust, the rule otherID replaces when it
// replaces none itself and, with an edit, a new wording; otherID is
// rejected as merged. Both must have the same project and subject.
func (a RuleActions[T]) MergeRules(ctx context.Context, actor string, keepID, otherID int64, edit *governance.RuleEdit) (*governance.Rule, error) {
	if keepID == otherID {
		return nil, governance.Errorf(governance.EINVALID, "Pick two different proposals to merge.")
	}
	return Change(ctx, a.store, "MergeRules", keepID, func(tx T, keep *governance.Rule) error {
		other, err := tx.LockRule(ctx, otherID)
		if err != nil {
			return err
		}
		for _, r := range []*governance.Rule{keep, other} {
			if err := r.Allow(governance.RuleMerge); err != nil {
				return err
			}
		}
		if keep.ProjectID != other.ProjectID || keep.SubjectID != other.SubjectID {
			return governance.Errorf(governance.EINVALID, "Proposals %d and %d have different scopes (project or subject) and cannot be merged.", keepID, otherID)
		}
		moved, err := tx.MoveCandidates(ctx, other.ID, keep.ID, fmt.Sprintf("Merged into rule %d by a reviewer.", keep.ID))
		if err != nil {
			return err
		}
		var trust float64
		var supersedes int64
		if other.Trust > keep.Trust {
			trust = other.Trust
		}
		if keep.Supersedes == 0 {
			supersedes = other.Supersedes
		}
		if trust > 0 || supersedes != 0 {
			if err := tx.SetMerged(ctx, keep.ID, trust, supersedes); err != nil {
				return err
			}
		}
		if err := SetStatus(ctx, tx, other, governance.RuleRejected); err != nil {
			return err
		}
		if err := Audit(ctx, tx, actor, "rule.merged_into", other, "", map[string]any{"into": keep.ID}); err != nil {
			return err
		}
		if err := Audit(ctx, tx, actor, "rule.merge", keep, "", map[string]any{"merged": other.ID, "candidates": moved}); err != nil {
			return err
		}
		if edit != nil {
			return editRule(ctx, tx, a.gate, actor, keep, *edit)
		}
		return nil
	})
}

// SplitCandidate takes one candidate out of a rule's evidence; it becomes a
// held candidate of its own. A rule keeps at least one candidate.
func (a RuleActions[T]) SplitCandidate(ctx context.Context, actor string, ruleID, candidateID int64, reason string) (*governance.Rule, error) {
	return Change(ctx, a.store, "SplitCandidate", ruleID, func(tx T, r *governance.Rule) error {
		if err := r.Allow(governance.RuleSplit); err != nil {
			return err
		}
		owner, found, err := tx.CandidateRule(ctx, candidateID)
		if err != nil {
			return err
		}
		if !found || owner != r.ID {
			return governance.Errorf(governance.EINVALID, "Candidate %d does not support rule %d.", candidateID, r.ID)
		}
		n, _, err := tx.CountCandidates(ctx, r.ID)
		if err != nil {
			return err
		}
		if n <= 1 {
			return governance.Errorf(governance.EINVALID, "Rule %d rests on this candidate alone; hold or reject the rule instead.", r.ID)
		}
		if err := tx.SplitCandidate(ctx, candidateID, fmt.Sprintf("Split out of rule %d by a reviewer.", r.ID)); err != nil {
			return err
		}
		return Audit(ctx, tx, actor, "rule.split", r, reason, map[string]any{"candidate_id": candidateID})
	})
}

// ProposeMemory writes a memory written by hand (a reviewer's, or a
// member's about themself) as a proposed rule after
// governance.CheckNewMemory, audited as rule.propose.
func (a RuleActions[T]) ProposeMemory(ctx context.Context, actor string, n governance.NewMemory) (*governance.Rule, error) {
	r, err := governance.CheckNewMemory(ctx, n, a.gate)
	if err != nil {
		return nil, err
	}
	var out *governance.Rule
	if err := a.store.Update(ctx, "ProposeMemory", func(tx T) error {
		id, err := tx.InsertRule(ctx, r, actor, governance.NewMemoryNote(r))
		if err != nil {
			return err
		}
		out, err = tx.LockRule(ctx, id)
		return err
	}); err != nil {
		return nil, err
	}
	return out, nil
}
