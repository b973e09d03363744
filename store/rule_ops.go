package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// Reviewer actions on rules. Each runs in one transaction together with its
// audit row; audit rows name ids and reasons, never the text of a memory.

func findRuleIn(ctx context.Context, q querier, id int64) (*governance.Rule, error) {
	r, err := scanRule(q.QueryRowContext(ctx, `SELECT `+ruleColumns+` FROM rules r WHERE r.id = ?`, id))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	return r, err
}

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
		return governance.Errorf(governance.ECONFLICT, "Rule %d changed meanwhile; reload and try again.", r.ID)
	}
	r.Status, r.UpdatedAt = to, tx.now
	return nil
}

func hasStatus(r *governance.Rule, want ...governance.RuleStatus) bool {
	for _, w := range want {
		if r.Status == w {
			return true
		}
	}
	return false
}

// editRule writes a new version of r: the text passes the write gate first
// (a blocked text is refused, a secret is redacted).
func editRule(ctx context.Context, tx *Tx, actor string, r *governance.Rule, e governance.RuleEdit) error {
	text := strings.TrimSpace(e.Text)
	kind := e.Kind
	if kind == "" {
		kind = r.Kind
	}
	reason := strings.TrimSpace(e.Reason)
	switch {
	case text == "":
		return governance.Errorf(governance.EINVALID, "The rule text cannot be empty.")
	case !kind.Valid():
		return governance.Errorf(governance.EINVALID, "Unknown kind %q.", kind)
	case reason == "":
		return governance.Errorf(governance.EINVALID, "Say why the rule changes.")
	}
	if err := r.Allow(governance.RuleEditText); err != nil {
		return err
	}
	gated, findings, blocked := governance.GateText(text)
	if blocked {
		cats := map[string]bool{}
		var names []string
		for _, f := range findings {
			if !cats[f.Category] {
				cats[f.Category] = true
				names = append(names, f.Category)
			}
		}
		return governance.Errorf(governance.EINVALID, "The write gate blocks this text (%s).", strings.Join(names, ", "))
	}
	if gated == r.Text && kind == r.Kind {
		return governance.Errorf(governance.EINVALID, "Nothing changed.")
	}
	fj, _ := json.Marshal(nonNil(findings))
	now := formatTime(tx.now)
	version := r.Version + 1
	res, err := tx.ExecContext(ctx, `
		UPDATE rules SET text = ?, kind = ?, version = ?, fingerprint = ?, findings = ?, updated_at = ?
		WHERE id = ? AND version = ?`,
		gated, kind, version, governance.Fingerprint(gated), string(fj), now, r.ID, r.Version)
	if err != nil {
		return fmt.Errorf("store: edit rule: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return governance.Errorf(governance.ECONFLICT, "Rule %d changed meanwhile; reload and try again.", r.ID)
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.ID, version, gated, kind, actor, reason, now); err != nil {
		return fmt.Errorf("store: write rule version: %w", err)
	}
	details := map[string]any{"version": version, "kind": kind}
	if gated != text {
		details["redacted"] = true
	}
	if err := auditRule(ctx, tx, actor, "rule.edit", r, reason, details); err != nil {
		return err
	}
	r.Text, r.Kind, r.Version, r.Findings = gated, kind, version, findings
	return nil
}

// EditRule writes a new version of a rule's text or kind.
func (s *Store) EditRule(ctx context.Context, actor string, id int64, e governance.RuleEdit) (*governance.Rule, error) {
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		return editRule(ctx, tx, actor, r, e)
	})
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

func needReason(reason, msg string) error {
	if strings.TrimSpace(reason) == "" {
		return governance.Errorf(governance.EINVALID, "%s", msg)
	}
	return nil
}

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

// HoldRule sends a proposal back to the held candidates to wait for more
// evidence; the proposal itself is archived.
func (s *Store) HoldRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	return s.changeRule(ctx, id, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleHold); err != nil {
			return err
		}
		return toCandidates(ctx, tx, actor, "rule.hold", r, reason, "Held by a reviewer: waits for more evidence.")
	})
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
// proposal back into the review queue.
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
		return governance.Errorf(governance.ECONFLICT, "Rule %d changed meanwhile; reload and try again.", old.ID)
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

// MergeRules folds proposal otherID into proposal keepID: keepID gets the
// candidates of both (and, with an edit, a new wording); otherID is
// rejected as merged. Both must have the same project and subject.
func (s *Store) MergeRules(ctx context.Context, actor string, keepID, otherID int64, edit *governance.RuleEdit) (*governance.Rule, error) {
	if keepID == otherID {
		return nil, governance.Errorf(governance.EINVALID, "Pick two different proposals to merge.")
	}
	return s.changeRule(ctx, keepID, func(tx *Tx, keep *governance.Rule) error {
		other, err := findRuleIn(ctx, tx, otherID)
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
		var group int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MIN(group_id), 0) FROM candidates WHERE rule_id = ?`, keep.ID).Scan(&group); err != nil {
			return fmt.Errorf("store: merge group: %w", err)
		}
		now := formatTime(tx.now)
		res, err := tx.ExecContext(ctx, `
			UPDATE candidates SET rule_id = ?, group_id = CASE WHEN ? > 0 THEN ? ELSE group_id END, status_reason = ?, updated_at = ?
			WHERE rule_id = ?`,
			keep.ID, group, group, fmt.Sprintf("Merged into rule %d by a reviewer.", keep.ID), now, other.ID)
		if err != nil {
			return fmt.Errorf("store: move candidates: %w", err)
		}
		moved, _ := res.RowsAffected()
		if other.Trust > keep.Trust {
			if _, err := tx.ExecContext(ctx, `UPDATE rules SET trust = ? WHERE id = ?`, other.Trust, keep.ID); err != nil {
				return fmt.Errorf("store: merge trust: %w", err)
			}
		}
		if keep.Supersedes == 0 && other.Supersedes != 0 {
			if _, err := tx.ExecContext(ctx, `UPDATE rules SET supersedes = ? WHERE id = ?`, other.Supersedes, keep.ID); err != nil {
				return fmt.Errorf("store: merge replacement: %w", err)
			}
		}
		if err := setRuleStatus(ctx, tx, other, governance.RuleRejected); err != nil {
			return err
		}
		if err := auditRule(ctx, tx, actor, "rule.merged_into", other, "", map[string]any{"into": keep.ID}); err != nil {
			return err
		}
		if err := auditRule(ctx, tx, actor, "rule.merge", keep, "", map[string]any{"merged": other.ID, "candidates": moved}); err != nil {
			return err
		}
		if edit != nil {
			return editRule(ctx, tx, actor, keep, *edit)
		}
		return nil
	})
}

// SplitCandidate takes one candidate out of a rule's evidence; it becomes a
// held candidate of its own. A rule keeps at least one candidate.
func (s *Store) SplitCandidate(ctx context.Context, actor string, ruleID, candidateID int64, reason string) (*governance.Rule, error) {
	return s.changeRule(ctx, ruleID, func(tx *Tx, r *governance.Rule) error {
		if err := r.Allow(governance.RuleSplit); err != nil {
			return err
		}
		var owner sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT rule_id FROM candidates WHERE id = ?`, candidateID).Scan(&owner)
		if isNoRows(err) || (err == nil && owner.Int64 != r.ID) {
			return governance.Errorf(governance.EINVALID, "Candidate %d does not support rule %d.", candidateID, r.ID)
		}
		if err != nil {
			return fmt.Errorf("store: split candidate: %w", err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM candidates WHERE rule_id = ?`, r.ID).Scan(&n); err != nil {
			return fmt.Errorf("store: count candidates: %w", err)
		}
		if n <= 1 {
			return governance.Errorf(governance.EINVALID, "Rule %d rests on this candidate alone; hold or reject the rule instead.", r.ID)
		}
		if _, err := tx.ExecContext(ctx, `
			UPDATE candidates SET rule_id = NULL, status = 'held', group_id = id, status_reason = ?, updated_at = ? WHERE id = ?`,
			fmt.Sprintf("Split out of rule %d by a reviewer.", r.ID), formatTime(tx.now), candidateID); err != nil {
			return fmt.Errorf("store: split candidate: %w", err)
		}
		return auditRule(ctx, tx, actor, "rule.split", r, strings.TrimSpace(reason), map[string]any{"candidate_id": candidateID})
	})
}

// SetProjectAutoActivate changes whether a project's proposals become
// active at once (true) or wait for a reviewer (false), with an audit row.
func (s *Store) SetProjectAutoActivate(ctx context.Context, actor string, projectID int64, on bool) error {
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE projects SET auto_activate = ? WHERE id = ?`, on, projectID)
	if err != nil {
		return fmt.Errorf("store: set project policy: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	policy := "approval"
	if on {
		policy = "auto_activate"
	}
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: actor, Action: "project.policy", ObjectType: "project", ObjectID: strconv.FormatInt(projectID, 10),
		ProjectID: projectID, Details: fmt.Sprintf(`{"policy":%q}`, policy),
	}); err != nil {
		return err
	}
	return tx.Commit()
}

// FindReviewCounts counts proposals, held and blocked candidates per
// project (projectIDs nil: every project), from indexes only.
func (s *Store) FindReviewCounts(ctx context.Context, projectIDs []int64) (map[int64]*governance.ReviewCounts, error) {
	if projectIDs == nil {
		projects, err := s.FindProjects(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range projects {
			projectIDs = append(projectIDs, p.ID)
		}
	}
	out := map[int64]*governance.ReviewCounts{}
	for _, id := range projectIDs {
		var c governance.ReviewCounts
		if err := s.read.QueryRowContext(ctx, `
			SELECT (SELECT COUNT(*) FROM rules WHERE project_id = ?1 AND status = 'proposed'),
				(SELECT COUNT(*) FROM (SELECT 1 FROM candidates WHERE project_id = ?1 AND status = 'held' LIMIT ?2)),
				(SELECT COUNT(*) FROM (SELECT 1 FROM candidates WHERE project_id = ?1 AND status = 'blocked' LIMIT ?2))`,
			id, governance.ReviewCountCap+1).Scan(&c.Proposed, &c.Held, &c.Blocked); err != nil {
			return nil, fmt.Errorf("store: review counts: %w", err)
		}
		out[id] = &c
	}
	return out, nil
}

// CountProposals counts the proposals waiting in the given projects (nil:
// every project); the navigation badge shows it.
func (s *Store) CountProposals(ctx context.Context, projectIDs []int64) (int, error) {
	q, args := `SELECT COUNT(*) FROM rules WHERE status = 'proposed'`, []any{}
	if projectIDs != nil {
		q += " AND project_id IN (SELECT value FROM json_each(?))"
		args = []any{listArg(projectIDs)}
	}
	var n int
	if err := s.read.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count proposals: %w", err)
	}
	return n, nil
}

// ReviewQueueVersion changes whenever a tab of a project's review queue
// gains or loses items (status "proposed", "held" or "blocked"), so a
// polling page swaps its table only when a beat or a reviewer changed it.
// It reads a few index entries: for proposals, their count and newest id
// and the newest proposed candidate (new evidence); for a candidate tab,
// its (capped) count and newest id.
func (s *Store) ReviewQueueVersion(ctx context.Context, projectID int64, status governance.CandidateStatus) (string, error) {
	var n, maxID, maxCand int64
	q := `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM candidates WHERE project_id = ?1 AND status = ?2 LIMIT ?3)), 0,
		COALESCE((SELECT id FROM candidates WHERE project_id = ?1 AND status = ?2 ORDER BY id DESC LIMIT 1), 0)`
	if status == governance.CandidateProposed {
		q = `SELECT (SELECT COUNT(*) FROM rules WHERE project_id = ?1 AND status = 'proposed'),
			COALESCE((SELECT id FROM rules WHERE project_id = ?1 AND status = 'proposed' ORDER BY id DESC LIMIT 1), 0),
			COALESCE((SELECT id FROM candidates WHERE project_id = ?1 AND status = ?2 ORDER BY id DESC LIMIT 1), 0)`
	}
	if err := s.read.QueryRowContext(ctx, q, projectID, status, governance.ReviewCountCap+1).Scan(&n, &maxID, &maxCand); err != nil {
		return "", fmt.Errorf("store: review version: %w", err)
	}
	return fmt.Sprintf("%s.%d.%d.%d", status, n, maxID, maxCand), nil
}

// FindRulesByIDs returns the rules with these ids (missing ones are left out), by id.
func (s *Store) FindRulesByIDs(ctx context.Context, ids []int64) ([]*governance.Rule, error) {
	var out []*governance.Rule
	if len(ids) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.read, `SELECT `+ruleColumns+` FROM rules r WHERE r.id IN (SELECT value FROM json_each(?)) ORDER BY r.id`,
		[]any{listArg(ids)}, func(r scanner) error {
			rule, err := scanRule(r)
			if err == nil {
				out = append(out, rule)
			}
			return err
		})
	return out, err
}

// candidateColumnsBare are the candidate columns with an empty evidence
// list: the lists come from one join instead of a subquery per candidate.
var candidateColumnsBare = strings.Replace(candidateColumns,
	"(SELECT COALESCE(group_concat(event_seq), '') FROM evidence v WHERE v.candidate_id = c.id)", "''", 1)

// candidatesByIDs loads candidates by id, or by the rules they support,
// with their evidence seqs.
func (s *Store) candidatesByIDs(ctx context.Context, column string, ids []int64) ([]*governance.Candidate, error) {
	var out []*governance.Candidate
	if len(ids) == 0 {
		return out, nil
	}
	byID := map[int64]*governance.Candidate{}
	if err := queryAll(ctx, s.read, `SELECT `+candidateColumnsBare+` FROM candidates c WHERE c.`+column+` IN (SELECT value FROM json_each(?)) ORDER BY c.id`,
		[]any{listArg(ids)}, func(r scanner) error {
			c, err := scanCandidate(r)
			if err == nil {
				out = append(out, c)
				byID[c.ID] = c
			}
			return err
		}); err != nil {
		return nil, err
	}
	cids := make([]int64, len(out))
	for i, c := range out {
		cids[i] = c.ID
	}
	err := queryAll(ctx, s.read, `SELECT candidate_id, event_seq FROM evidence WHERE candidate_id IN (SELECT value FROM json_each(?)) ORDER BY candidate_id, event_seq`,
		[]any{listArg(cids)}, func(r scanner) error {
			var cid, seq int64
			if err := r.Scan(&cid, &seq); err != nil {
				return err
			}
			if c := byID[cid]; c != nil {
				c.EvidenceSeqs = append(c.EvidenceSeqs, seq)
			}
			return nil
		})
	return out, err
}

// CountRuleCandidates counts the candidates supporting each of the rules.
func (s *Store) CountRuleCandidates(ctx context.Context, ruleIDs []int64) (map[int64]int, error) {
	out := make(map[int64]int, len(ruleIDs))
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.read, `SELECT rule_id, COUNT(*) FROM candidates WHERE rule_id IN (SELECT value FROM json_each(?)) GROUP BY rule_id`,
		[]any{listArg(ruleIDs)}, func(r scanner) error {
			var id int64
			var n int
			err := r.Scan(&id, &n)
			out[id] = n
			return err
		})
	return out, err
}

// FindEvidenceByRules returns the evidence chain of several rules at once,
// keyed by rule id (the review queue shows a page of proposals).
func (s *Store) FindEvidenceByRules(ctx context.Context, ruleIDs []int64) (map[int64][]*governance.EvidenceLink, error) {
	out := map[int64][]*governance.EvidenceLink{}
	cands, err := s.candidatesByIDs(ctx, "rule_id", ruleIDs)
	if err != nil {
		return nil, err
	}
	links, err := s.FindCandidateEvidence(ctx, cands)
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		out[l.Candidate.RuleID] = append(out[l.Candidate.RuleID], l)
	}
	return out, nil
}

// FindCandidateEvidence returns candidates with their supporting events.
func (s *Store) FindCandidateEvidence(ctx context.Context, cands []*governance.Candidate) ([]*governance.EvidenceLink, error) {
	var seqs []int64
	for _, c := range cands {
		seqs = append(seqs, c.EvidenceSeqs...)
	}
	events := make(map[int64]*governance.Event, len(seqs))
	if err := s.eventsBySeq(ctx, seqs, events); err != nil {
		return nil, err
	}
	out := make([]*governance.EvidenceLink, 0, len(cands))
	for _, c := range cands {
		link := &governance.EvidenceLink{Candidate: c}
		for _, seq := range c.EvidenceSeqs {
			if e := events[seq]; e != nil {
				link.Events = append(link.Events, e)
			}
		}
		out = append(out, link)
	}
	return out, nil
}

// ruleWhere builds the conditions of a rule filter (as FindRules reads it).
func ruleWhere(f governance.RuleFilter) ([]string, []any) {
	where, args := []string{"1 = 1"}, []any{}
	add := func(cond string, v ...any) { where = append(where, cond); args = append(args, v...) }
	if f.ID != nil {
		add("r.id = ?", *f.ID)
	}
	// One project is an equality, so the index gives ids in order.
	switch {
	case f.ProjectID != nil && f.ProjectIDs != nil && !slices.Contains(f.ProjectIDs, *f.ProjectID):
		add("0 = 1")
	case f.ProjectID != nil:
		add("r.project_id = ?", *f.ProjectID)
	case len(f.ProjectIDs) == 1:
		add("r.project_id = ?", f.ProjectIDs[0])
	case f.ProjectIDs != nil:
		add("r.project_id IN (SELECT value FROM json_each(?))", listArg(f.ProjectIDs))
	}
	if f.SubjectID != nil {
		add("r.subject_id = ?", *f.SubjectID)
	}
	if f.ForSubject != nil {
		add("(r.subject_id = '' OR r.subject_id = ?)", *f.ForSubject)
	}
	if f.Kind != nil {
		add("r.kind = ?", *f.Kind)
	}
	if len(f.Statuses) > 0 {
		add("r.status IN (SELECT value FROM json_each(?))", listArg(f.Statuses))
	}
	if f.Reason != nil {
		add("r.promotion_reason = ?", *f.Reason)
	}
	if f.Paused != nil {
		add("r.paused = ?", *f.Paused)
	}
	if f.ExpiringBefore != nil {
		add("r.expires_at IS NOT NULL AND r.expires_at < ?", formatTime(*f.ExpiringBefore))
	}
	// Every word of the query must occur: through the trigram index when it
	// has three or more characters, the CJK pair index for two-character
	// Chinese words, else by LIKE on the rows left.
	for _, t := range searchTerms(f.Query) {
		switch {
		case utf8.RuneCountInString(t) >= 3:
			add("r.id IN (SELECT rowid FROM rules_fts WHERE rules_fts MATCH ?)", ftsPhrase(t))
		case isCJKPair(t):
			add("r.id IN (SELECT rowid FROM rules_cjk WHERE rules_cjk MATCH ?)", ftsPhrase(t))
		default:
			add(`r.text LIKE ? ESCAPE '\'`, "%"+likeEscape(t)+"%")
		}
	}
	return where, args
}
