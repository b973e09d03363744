package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Reviewer actions that move a rule through its lifecycle (the table in
// governance decides which status allows which action). Each runs in one
// transaction together with its audit row; audit rows name ids and reasons,
// never the text of a memory.

// changeRule runs fn on rule id inside one transaction and returns the rule
// as committed.
func (s *Store) changeRule(ctx context.Context, id int64, fn func(tx *Tx, r *governance.Rule) error) (*governance.Rule, error) {
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	r, err := findRuleIn(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if err := fn(tx, r); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: commit rule %d: %w", id, err)
	}
	return s.FindRuleByID(ctx, id)
}

// errRuleChanged is the conflict of a rule another request changed between
// our read and our write.
func errRuleChanged(id int64) error {
	return governance.Errorf(governance.ECONFLICT, "Rule %d changed meanwhile; reload and try again.", id)
}

func auditRule(ctx context.Context, tx *Tx, actor, action string, r *governance.Rule, reason string, details any) error {
	d := ""
	if details != nil {
		b, err := json.Marshal(details)
		if err != nil {
			return err
		}
		d = string(b)
	}
	return appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: actor, Action: action, ObjectType: "rule", ObjectID: strconv.FormatInt(r.ID, 10),
		ProjectID: r.ProjectID, Reason: reason, Details: d,
	})
}

// setRuleStatus moves r from its current status to `to`; a concurrent change
// of the status is ECONFLICT.
func setRuleStatus(ctx context.Context, tx *Tx, r *governance.Rule, to governance.RuleStatus) error {
	res, err := tx.ExecContext(ctx, `UPDATE rules SET status = ?, updated_at = ? WHERE id = ? AND status = ?`,
		to, formatTime(tx.now), r.ID, r.Status)
	if err != nil {
		return fmt.Errorf("store: set rule status: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errRuleChanged(r.ID)
	}
	r.Status, r.UpdatedAt = to, tx.now
	return nil
}

// ApproveRule activates a proposal and promotes its candidates; with an edit
// the approved text is a new version. A proposal that replaces another rule
// supersedes it.
func (s *Store) ApproveRule(ctx context.Context, actor string, id int64, edit *governance.RuleEdit) (*governance.Rule, error) {
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if edit != nil {
			if err := r.Allow(governance.RuleApprove); err != nil {
				return err
			}
			if err := editRule(ctx, tx, actor, r, *edit); err != nil {
				return err
			}
		}
		return approveRule(ctx, tx, actor, r)
	})
}

// ApproveRules approves several proposals in one transaction: all or none.
func (s *Store) ApproveRules(ctx context.Context, actor string, ids []int64) error {
	return s.changeRules(ctx, ids, func(tx *Tx, r *governance.Rule) error {
		return approveRule(ctx, tx, actor, r)
	})
}

func (s *Store) changeRules(ctx context.Context, ids []int64, fn func(tx *Tx, r *governance.Rule) error) error {
	if len(ids) == 0 {
		return governance.Errorf(governance.EINVALID, "Select at least one rule.")
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	seen := map[int64]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		r, err := findRuleIn(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := fn(tx, r); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func approveRule(ctx context.Context, tx *Tx, actor string, r *governance.Rule) error {
	if err := r.Allow(governance.RuleApprove); err != nil {
		return err
	}
	if err := setRuleStatus(ctx, tx, r, governance.RuleActive); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE candidates SET status = 'promoted', updated_at = ? WHERE rule_id = ? AND status = 'proposed'`,
		formatTime(tx.now), r.ID)
	if err != nil {
		return fmt.Errorf("store: promote candidates: %w", err)
	}
	n, _ := res.RowsAffected()
	details := map[string]any{"candidates": n, "version": r.Version}
	if r.Supersedes != 0 {
		details["supersedes"] = r.Supersedes
	}
	if err := auditRule(ctx, tx, actor, "rule.approve", r, "", details); err != nil {
		return err
	}
	if r.Supersedes != 0 {
		old, err := findRuleIn(ctx, tx, r.Supersedes)
		if err != nil {
			return err
		}
		if err := supersede(ctx, tx, actor, old, r, "Replaced by the approved rule."); err != nil {
			return err
		}
	}
	return nil
}

// RejectRule rejects a proposal; the reason is required. Its candidates are
// rejected with it.
func (s *Store) RejectRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	if err := needReason(reason, "Say why the proposal is rejected."); err != nil {
		return nil, err
	}
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		return rejectRule(ctx, tx, actor, r, reason)
	})
}

// RejectRules rejects several proposals with one reason, all or none.
func (s *Store) RejectRules(ctx context.Context, actor string, ids []int64, reason string) error {
	if err := needReason(reason, "Say why the proposals are rejected."); err != nil {
		return err
	}
	return s.changeRules(ctx, ids, func(tx *Tx, r *governance.Rule) error {
		return rejectRule(ctx, tx, actor, r, reason)
	})
}

var needReason = governance.NeedReason

func rejectRule(ctx context.Context, tx *Tx, actor string, r *governance.Rule, reason string) error {
	if err := r.Allow(governance.RuleReject); err != nil {
		return err
	}
	if err := setRuleStatus(ctx, tx, r, governance.RuleRejected); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `
		UPDATE candidates SET status = 'rejected', status_reason = ?, updated_at = ?
		WHERE rule_id = ? AND status IN ('proposed', 'pending')`,
		"Rejected by a reviewer.", formatTime(tx.now), r.ID)
	if err != nil {
		return fmt.Errorf("store: reject candidates: %w", err)
	}
	n, _ := res.RowsAffected()
	return auditRule(ctx, tx, actor, "rule.reject", r, strings.TrimSpace(reason), map[string]any{"candidates": n})
}

// HoldRule sets a proposal aside to wait for more evidence: the rule is
// archived and its candidates are held, still linked to it, so the rule
// keeps its evidence chain. Restoring the rule, releasing one of its
// candidates or a beat that finds more evidence for them brings the same
// rule back as a proposal (heldRule), never a second copy of it.
func (s *Store) HoldRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleHold); err != nil {
			return err
		}
		if err := setRuleStatus(ctx, tx, r, governance.RuleArchived); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `
			UPDATE candidates SET status = 'held', status_reason = ?, updated_at = ?
			WHERE rule_id = ? AND status IN ('proposed', 'pending')`,
			"Held by a reviewer: waits for more evidence.", formatTime(tx.now), r.ID)
		if err != nil {
			return fmt.Errorf("store: hold candidates: %w", err)
		}
		n, _ := res.RowsAffected()
		return auditRule(ctx, tx, actor, "rule.hold", r, strings.TrimSpace(reason),
			map[string]any{"from": governance.RuleProposed, "to": r.Status, "candidates": n})
	})
}

// heldRule reports whether r is a held proposal: archived, with every
// candidate linked to it held (HoldRule), and at least one.
func heldRule(ctx context.Context, tx *Tx, r *governance.Rule) (bool, error) {
	if r.Status != governance.RuleArchived {
		return false, nil
	}
	var all, held int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(status = 'held'), 0) FROM candidates WHERE rule_id = ?`,
		r.ID).Scan(&all, &held); err != nil {
		return false, fmt.Errorf("store: held rule: %w", err)
	}
	return all > 0 && all == held, nil
}

// reopenHeld brings a held proposal back into the review queue with its
// candidates (and so its evidence).
func reopenHeld(ctx context.Context, tx *Tx, r *governance.Rule, why string) error {
	if err := setRuleStatus(ctx, tx, r, governance.RuleProposed); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE candidates SET status = 'proposed', status_reason = ?, updated_at = ? WHERE rule_id = ? AND status = 'held'`,
		why, formatTime(tx.now), r.ID); err != nil {
		return fmt.Errorf("store: reopen held rule: %w", err)
	}
	return nil
}

// DemoteRuleToCandidates takes a rule out of use and returns its candidates
// to the held queue; the rule is archived.
func (s *Store) DemoteRuleToCandidates(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	if err := needReason(reason, "Say why the rule goes back to candidates."); err != nil {
		return nil, err
	}
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleToCandidates); err != nil {
			return err
		}
		return toCandidates(ctx, tx, actor, "rule.to_candidates", r, reason, "Returned to candidates by a reviewer.")
	})
}

func toCandidates(ctx context.Context, tx *Tx, actor, action string, r *governance.Rule, reason, why string) error {
	from := r.Status
	if r.Status != governance.RuleArchived {
		if err := setRuleStatus(ctx, tx, r, governance.RuleArchived); err != nil {
			return err
		}
	}
	res, err := tx.ExecContext(ctx, `
		UPDATE candidates SET status = 'held', status_reason = ?, rule_id = NULL, updated_at = ?
		WHERE rule_id = ? AND status IN ('proposed', 'promoted', 'pending')`,
		why, formatTime(tx.now), r.ID)
	if err != nil {
		return fmt.Errorf("store: hold candidates: %w", err)
	}
	n, _ := res.RowsAffected()
	return auditRule(ctx, tx, actor, action, r, strings.TrimSpace(reason), map[string]any{"from": from, "to": r.Status, "candidates": n})
}

// DemoteRule moves a rule one step down: active → stale → archived.
func (s *Store) DemoteRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	if err := needReason(reason, "Say why the rule is demoted."); err != nil {
		return nil, err
	}
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleDemote); err != nil {
			return err
		}
		from, to := r.Status, governance.RuleArchived
		if r.Status == governance.RuleActive {
			to = governance.RuleStale
		}
		if err := setRuleStatus(ctx, tx, r, to); err != nil {
			return err
		}
		return auditRule(ctx, tx, actor, "rule.demote", r, strings.TrimSpace(reason), map[string]any{"from": from, "to": to})
	})
}

// RestoreRule brings a stale or archived rule back into use, and a rejected
// or held proposal back into the review queue (a held one with its
// candidates).
func (s *Store) RestoreRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleRestore); err != nil {
			return err
		}
		from, to := r.Status, governance.RuleActive
		held, err := heldRule(ctx, tx, r)
		if err != nil {
			return err
		}
		if held {
			// A held proposal was never approved: it goes back to the
			// review queue with its evidence.
			if err := reopenHeld(ctx, tx, r, "Restored into review by a reviewer."); err != nil {
				return err
			}
			return auditRule(ctx, tx, actor, "rule.restore", r, strings.TrimSpace(reason),
				map[string]any{"from": from, "to": governance.RuleProposed, "held": true})
		}
		if r.Status == governance.RuleRejected {
			to = governance.RuleProposed
		}
		if err := setRuleStatus(ctx, tx, r, to); err != nil {
			return err
		}
		if to == governance.RuleProposed {
			if _, err := tx.ExecContext(ctx, `UPDATE candidates SET status = 'proposed', updated_at = ? WHERE rule_id = ? AND status = 'rejected'`,
				formatTime(tx.now), r.ID); err != nil {
				return fmt.Errorf("store: restore candidates: %w", err)
			}
		}
		return auditRule(ctx, tx, actor, "rule.restore", r, strings.TrimSpace(reason), map[string]any{"from": from, "to": to})
	})
}

// SupersedeRule links rule oldID to the newer rule newID. When the newer
// rule is active the old one is superseded at once; when it is still a
// proposal, approving it completes the replacement.
func (s *Store) SupersedeRule(ctx context.Context, actor string, oldID, newID int64, reason string) (*governance.Rule, error) {
	if oldID == newID {
		return nil, governance.Errorf(governance.EINVALID, "A rule cannot supersede itself.")
	}
	return s.changeRule(ctx, oldID, func(tx *Tx, old *governance.Rule) error {
		newer, err := findRuleIn(ctx, tx, newID)
		if err != nil {
			return governance.Errorf(governance.EINVALID, "There is no rule %d.", newID)
		}
		if newer.ProjectID != old.ProjectID || newer.SubjectID != old.SubjectID {
			return governance.Errorf(governance.EINVALID, "Rule %d has another scope (project or subject) than rule %d.", newID, oldID)
		}
		if err := old.Allow(governance.RuleSupersede); err != nil {
			return err
		}
		switch newer.Status {
		case governance.RuleActive:
			return supersede(ctx, tx, actor, old, newer, reason)
		case governance.RuleProposed:
			if _, err := tx.ExecContext(ctx, `UPDATE rules SET supersedes = ?, updated_at = ? WHERE id = ?`,
				old.ID, formatTime(tx.now), newer.ID); err != nil {
				return fmt.Errorf("store: link replacement: %w", err)
			}
			return auditRule(ctx, tx, actor, "rule.replacement", newer, strings.TrimSpace(reason), map[string]any{"supersedes": old.ID})
		}
		return governance.Errorf(governance.EINVALID, "Rule %d is %s; the newer rule must be active or proposed.", newID, newer.Status)
	})
}

func supersede(ctx context.Context, tx *Tx, actor string, old, newer *governance.Rule, reason string) error {
	if err := old.Allow(governance.RuleReplace); err != nil {
		return err
	}
	now := formatTime(tx.now)
	res, err := tx.ExecContext(ctx, `UPDATE rules SET status = 'superseded', superseded_by = ?, updated_at = ? WHERE id = ? AND status = ?`,
		newer.ID, now, old.ID, old.Status)
	if err != nil {
		return fmt.Errorf("store: supersede rule: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errRuleChanged(old.ID)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE rules SET supersedes = ?, updated_at = ? WHERE id = ?`, old.ID, now, newer.ID); err != nil {
		return fmt.Errorf("store: link newer rule: %w", err)
	}
	from := old.Status
	old.Status, old.SupersededBy = governance.RuleSuperseded, newer.ID
	return auditRule(ctx, tx, actor, "rule.supersede", old, strings.TrimSpace(reason),
		map[string]any{"from": from, "superseded_by": newer.ID})
}

// SetRulePaused pauses a rule (kept, but recall leaves it out) or resumes it.
func (s *Store) SetRulePaused(ctx context.Context, actor string, id int64, paused bool, reason string) (*governance.Rule, error) {
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RulePause); err != nil {
			return err
		}
		if r.Paused == paused {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rules SET paused = ?, updated_at = ? WHERE id = ?`, paused, formatTime(tx.now), r.ID); err != nil {
			return fmt.Errorf("store: pause rule: %w", err)
		}
		action := "rule.unpause"
		if paused {
			action = "rule.pause"
		}
		r.Paused = paused
		return auditRule(ctx, tx, actor, action, r, strings.TrimSpace(reason), nil)
	})
}

// SetRuleExpiry sets (at != nil) or clears a rule's expiry; recall leaves
// an expired rule out. An expiry must lie in the future.
func (s *Store) SetRuleExpiry(ctx context.Context, actor string, id int64, at *time.Time, reason string) (*governance.Rule, error) {
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleExpiry); err != nil {
			return err
		}
		if at != nil && !at.After(tx.now) {
			return governance.Errorf(governance.EINVALID, "Pick a date in the future; to stop using the rule now, pause or demote it.")
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rules SET expires_at = ?, updated_at = ? WHERE id = ?`,
			formatTimePtr(at), formatTime(tx.now), r.ID); err != nil {
			return fmt.Errorf("store: set rule expiry: %w", err)
		}
		details := map[string]any{"expires_at": nil}
		action := "rule.expiry_clear"
		if at != nil {
			details["expires_at"] = formatTime(*at)
			action = "rule.expiry_set"
		}
		r.ExpiresAt = at
		return auditRule(ctx, tx, actor, action, r, strings.TrimSpace(reason), details)
	})
}
