package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Reviewer actions that move a rule through its lifecycle (the table in
// governance decides which status allows which action). Each runs in one
// transaction together with its audit row; audit rows name ids and
// reasons, never the text of a memory. A change locks the rule's row (FOR
// UPDATE), so two instances changing one rule take turns and the second
// sees the first's result.

// changeRule runs fn on rule id inside one transaction and returns the rule
// as committed.
func (s *Store) changeRule(ctx context.Context, id int64, fn func(tx *Tx, r *governance.Rule) error) (*governance.Rule, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	r, err := findRuleIn(ctx, tx, id, "FOR UPDATE")
	if err != nil {
		return nil, err
	}
	if err := fn(tx, r); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("postgres: commit rule %d: %w", id, err)
	}
	return s.FindRuleByID(ctx, id)
}

// changeRules runs fn on each rule (once per id) in one transaction: all
// or none.
func (s *Store) changeRules(ctx context.Context, ids []int64, fn func(tx *Tx, r *governance.Rule) error) error {
	if len(ids) == 0 {
		return governance.Errorf(governance.EINVALID, "Select at least one rule.")
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	seen := map[int64]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		r, err := findRuleIn(ctx, tx, id, "FOR UPDATE")
		if err != nil {
			return err
		}
		if err := fn(tx, r); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// errRuleChanged is the conflict of a rule another request changed between
// our read and our write.
func errRuleChanged(id int64) error {
	return governance.Errorf(governance.ECONFLICT, "Rule %d changed meanwhile; reload and try again.", id)
}

func auditRule(ctx context.Context, tx *Tx, actor, action string, r *governance.Rule, reason string, details any) error {
	d, err := mustJSON(details)
	if err != nil {
		return err
	}
	return appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: actor, Action: action, ObjectType: "rule", ObjectID: strconv.FormatInt(r.ID, 10),
		ProjectID: r.ProjectID, Reason: reason, Details: d,
	})
}

// setRuleStatus moves r from its current status to `to`; a concurrent
// change of the status is ECONFLICT.
func setRuleStatus(ctx context.Context, tx *Tx, r *governance.Rule, to governance.RuleStatus) error {
	tag, err := tx.Exec(ctx, `UPDATE rules SET status = $1, updated_at = $2 WHERE id = $3 AND status = $4`,
		string(to), tx.now, r.ID, string(r.Status))
	if err != nil {
		return fmt.Errorf("postgres: set rule status: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return errRuleChanged(r.ID)
	}
	r.Status, r.UpdatedAt = to, tx.now
	return nil
}

// ApproveRule activates a proposal and promotes its candidates; with an
// edit the approved text is a new version. A proposal that replaces
// another rule supersedes it.
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

func approveRule(ctx context.Context, tx *Tx, actor string, r *governance.Rule) error {
	if err := r.Allow(governance.RuleApprove); err != nil {
		return err
	}
	if err := setRuleStatus(ctx, tx, r, governance.RuleActive); err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, `UPDATE candidates SET status = 'promoted', updated_at = $1 WHERE rule_id = $2 AND status = 'proposed'`,
		tx.now, r.ID)
	if err != nil {
		return fmt.Errorf("postgres: promote candidates: %w", err)
	}
	details := map[string]any{"candidates": tag.RowsAffected(), "version": r.Version}
	if r.Supersedes != 0 {
		details["supersedes"] = r.Supersedes
	}
	if err := auditRule(ctx, tx, actor, "rule.approve", r, "", details); err != nil {
		return err
	}
	if r.Supersedes != 0 {
		old, err := findRuleIn(ctx, tx, r.Supersedes, "FOR UPDATE")
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
	if err := governance.NeedReason(reason, "Say why the proposal is rejected."); err != nil {
		return nil, err
	}
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		return rejectRule(ctx, tx, actor, r, reason)
	})
}

// RejectRules rejects several proposals with one reason, all or none.
func (s *Store) RejectRules(ctx context.Context, actor string, ids []int64, reason string) error {
	if err := governance.NeedReason(reason, "Say why the proposals are rejected."); err != nil {
		return err
	}
	return s.changeRules(ctx, ids, func(tx *Tx, r *governance.Rule) error {
		return rejectRule(ctx, tx, actor, r, reason)
	})
}

func rejectRule(ctx context.Context, tx *Tx, actor string, r *governance.Rule, reason string) error {
	if err := r.Allow(governance.RuleReject); err != nil {
		return err
	}
	if err := setRuleStatus(ctx, tx, r, governance.RuleRejected); err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, `
		UPDATE candidates SET status = 'rejected', status_reason = $1, updated_at = $2
		WHERE rule_id = $3 AND status IN ('proposed', 'pending')`,
		"Rejected by a reviewer.", tx.now, r.ID)
	if err != nil {
		return fmt.Errorf("postgres: reject candidates: %w", err)
	}
	return auditRule(ctx, tx, actor, "rule.reject", r, strings.TrimSpace(reason), map[string]any{"candidates": tag.RowsAffected()})
}

// HoldRule sends a proposal back to the held candidates to wait for more
// evidence; the proposal itself is archived.
func (s *Store) HoldRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleHold); err != nil {
			return err
		}
		// As on SQLite: the rule is archived and its candidates are held,
		// still linked to it, so it keeps its evidence chain.
		if err := setRuleStatus(ctx, tx, r, governance.RuleArchived); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `
			UPDATE candidates SET status = 'held', status_reason = $1, updated_at = $2
			WHERE rule_id = $3 AND status IN ('proposed', 'pending')`,
			"Held by a reviewer: waits for more evidence.", tx.now, r.ID)
		if err != nil {
			return fmt.Errorf("postgres: hold candidates: %w", err)
		}
		return auditRule(ctx, tx, actor, "rule.hold", r, strings.TrimSpace(reason),
			map[string]any{"from": governance.RuleProposed, "to": r.Status, "candidates": tag.RowsAffected()})
	})
}

// DemoteRuleToCandidates takes a rule out of use and returns its
// candidates to the held queue; the rule is archived.
func (s *Store) DemoteRuleToCandidates(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	if err := governance.NeedReason(reason, "Say why the rule goes back to candidates."); err != nil {
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
	tag, err := tx.Exec(ctx, `
		UPDATE candidates SET status = 'held', status_reason = $1, rule_id = NULL, updated_at = $2
		WHERE rule_id = $3 AND status IN ('proposed', 'promoted', 'pending')`,
		why, tx.now, r.ID)
	if err != nil {
		return fmt.Errorf("postgres: hold candidates: %w", err)
	}
	return auditRule(ctx, tx, actor, action, r, strings.TrimSpace(reason),
		map[string]any{"from": from, "to": r.Status, "candidates": tag.RowsAffected()})
}

// DemoteRule moves a rule one step down: active → stale → archived.
func (s *Store) DemoteRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	if err := governance.NeedReason(reason, "Say why the rule is demoted."); err != nil {
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

// RestoreRule brings a stale or archived rule back into use, and a
// rejected proposal back into the review queue.
func (s *Store) RestoreRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleRestore); err != nil {
			return err
		}
		from, to := r.Status, governance.RuleActive
		if r.Status == governance.RuleRejected {
			to = governance.RuleProposed
		}
		if err := setRuleStatus(ctx, tx, r, to); err != nil {
			return err
		}
		if to == governance.RuleProposed {
			if _, err := tx.Exec(ctx, `UPDATE candidates SET status = 'proposed', updated_at = $1 WHERE rule_id = $2 AND status = 'rejected'`,
				tx.now, r.ID); err != nil {
				return fmt.Errorf("postgres: restore candidates: %w", err)
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
		newer, err := findRuleIn(ctx, tx, newID, "FOR UPDATE")
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
			if _, err := tx.Exec(ctx, `UPDATE rules SET supersedes = $1, updated_at = $2 WHERE id = $3`,
				old.ID, tx.now, newer.ID); err != nil {
				return fmt.Errorf("postgres: link replacement: %w", err)
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
	tag, err := tx.Exec(ctx, `UPDATE rules SET status = 'superseded', superseded_by = $1, updated_at = $2 WHERE id = $3 AND status = $4`,
		newer.ID, tx.now, old.ID, string(old.Status))
	if err != nil {
		return fmt.Errorf("postgres: supersede rule: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return errRuleChanged(old.ID)
	}
	if _, err := tx.Exec(ctx, `UPDATE rules SET supersedes = $1, updated_at = $2 WHERE id = $3`, old.ID, tx.now, newer.ID); err != nil {
		return fmt.Errorf("postgres: link newer rule: %w", err)
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
		if _, err := tx.Exec(ctx, `UPDATE rules SET paused = $1, updated_at = $2 WHERE id = $3`, paused, tx.now, r.ID); err != nil {
			return fmt.Errorf("postgres: pause rule: %w", err)
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
		var stored *time.Time
		if at != nil && !at.IsZero() {
			u := utc(*at)
			stored = &u
		}
		if _, err := tx.Exec(ctx, `UPDATE rules SET expires_at = $1, updated_at = $2 WHERE id = $3`, stored, tx.now, r.ID); err != nil {
			return fmt.Errorf("postgres: set rule expiry: %w", err)
		}
		details := map[string]any{"expires_at": nil}
		action := "rule.expiry_clear"
		if stored != nil {
			details["expires_at"] = formatTime(*stored)
			action = "rule.expiry_set"
		}
		r.ExpiresAt = at
		return auditRule(ctx, tx, actor, action, r, strings.TrimSpace(reason), details)
	})
}
