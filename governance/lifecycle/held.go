package lifecycle

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// A held proposal (Hold) keeps its candidates, held and still linked to
// it. Three things bring it back into review as the same rule, with its
// evidence, never a second copy: a reviewer restoring it (RestoreRule),
// releasing one of its candidates (Release), or a beat that gathers its
// held candidates into a new proposal (BeatRules).

// Held reports whether r is a held proposal: archived, with every
// candidate linked to it held, and at least one.
func Held(ctx context.Context, tx Tx, r *governance.Rule) (bool, error) {
	if r.Status != governance.RuleArchived {
		return false, nil
	}
	all, held, err := tx.CountCandidates(ctx, r.ID)
	if err != nil {
		return false, err
	}
	return all > 0 && all == held, nil
}

// Reopen brings the held proposal r back into the review queue with its
// candidates (and so its evidence); why is the candidates' new reason.
func Reopen(ctx context.Context, tx Tx, r *governance.Rule, why string) error {
	if err := SetStatus(ctx, tx, r, governance.RuleProposed); err != nil {
		return err
	}
	_, err := tx.SetCandidates(ctx, r.ID, statuses(governance.CandidateHeld), governance.CandidateProposed, &why, false)
	return err
}

// ReleasedRule is the proposal a reviewer's release of candidate c writes
// when c is no held proposal's candidate (Release): its wording, kind,
// subject and the write gate's findings, with a reviewer's trust, and the
// reason its first version records.
func ReleasedRule(c *governance.Candidate) (r *governance.Rule, versionReason string) {
	return &governance.Rule{ProjectID: c.ProjectID, SubjectID: c.SubjectID, Kind: c.Type, Text: c.Statement,
		PromotionReason: governance.ReasonReviewer, Status: governance.RuleProposed,
		Trust: governance.Trust(governance.ReasonReviewer, 1), Findings: c.Findings}, "Released from the " + string(c.Status) + " candidates by a reviewer."
}

// Release reopens the held proposal candidate c belongs to, when it
// belongs to one, instead of releasing c as a second rule saying the
// same; the release is audited (candidate.release, "reopened"). ok is
// false when c is not a held proposal's candidate: the caller releases it
// as a new proposal.
func Release(ctx context.Context, tx Tx, actor string, c *governance.Candidate, reason string) (r *governance.Rule, ok bool, err error) {
	if c.Status != governance.CandidateHeld || c.RuleID == 0 {
		return nil, false, nil
	}
	r, err = tx.LockRule(ctx, c.RuleID)
	if err != nil {
		return nil, false, err
	}
	if held, err := Held(ctx, tx, r); err != nil || !held {
		return nil, false, err
	}
	if err := Reopen(ctx, tx, r, releaseNote); err != nil {
		return nil, false, err
	}
	if err := candidateAudit(ctx, tx, actor, "candidate.release", c, reason, map[string]any{"rule_id": r.ID, "was": c.Status, "reopened": true}); err != nil {
		return nil, false, err
	}
	r, err = tx.LockRule(ctx, r.ID)
	return r, err == nil, err
}

// releaseNote is the status reason of a released candidate.
const releaseNote = "Released into review by a reviewer."

// ReleaseCandidate turns a held or blocked candidate into a proposed rule
// that waits in the review queue (ReleasedRule); a held candidate takes
// the held members of its merge group along as evidence, and one of a
// held proposal brings the proposal itself back, with all its
// candidates, instead of a second rule saying the same (Release). The
// release is audited (candidate.release, with the status it had and, for
// a blocked one, the categories of its findings) next to the rule's
// rule.propose.
func (a RuleActions[T]) ReleaseCandidate(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error) {
	var out *governance.Rule
	err := a.store.Update(ctx, "ReleaseCandidate", func(tx T) error {
		c, err := undecided(ctx, tx, id)
		if err != nil {
			return err
		}
		if r, ok, err := Release(ctx, tx, actor, c, reason); err != nil || ok {
			out = r
			return err
		}
		r, versionReason := ReleasedRule(c)
		ruleID, err := tx.InsertRule(ctx, r, actor, versionReason)
		if err != nil {
			return err
		}
		group := c.Status == governance.CandidateHeld && c.GroupID != 0
		if err := tx.ReleaseCandidates(ctx, c, ruleID, group, releaseNote); err != nil {
			return err
		}
		details := map[string]any{"rule_id": ruleID, "was": c.Status}
		if len(c.Findings) > 0 {
			var cats []string
			for _, f := range c.Findings {
				cats = append(cats, f.Category)
			}
			details["findings"] = cats
		}
		if err := candidateAudit(ctx, tx, actor, "candidate.release", c, reason, details); err != nil {
			return err
		}
		out, err = tx.LockRule(ctx, ruleID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RejectCandidate turns a held or blocked candidate down for good, with the
// reviewer's reason, audited as candidate.reject.
func (a RuleActions[T]) RejectCandidate(ctx context.Context, actor string, id int64, reason string) (*governance.Candidate, error) {
	var out *governance.Candidate
	reason = strings.TrimSpace(reason)
	err := a.store.Update(ctx, "RejectCandidate", func(tx T) error {
		c, err := undecided(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := tx.RejectCandidate(ctx, c.ID, reason); err != nil {
			return err
		}
		if err := candidateAudit(ctx, tx, actor, "candidate.reject", c, reason, map[string]any{"was": c.Status}); err != nil {
			return err
		}
		c.Status, c.StatusReason = governance.CandidateRejected, reason
		out = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// undecided locks candidate id and refuses it when it no longer waits
// for a reviewer.
func undecided(ctx context.Context, tx Tx, id int64) (*governance.Candidate, error) {
	c, err := tx.LockCandidate(ctx, id)
	if err != nil {
		return nil, err
	}
	switch c.Status {
	case governance.CandidateHeld, governance.CandidateBlocked:
		return c, nil
	}
	return nil, governance.Errorf(governance.ECONFLICT, "This candidate no longer waits for a reviewer: only held or blocked candidates can be released or rejected.")
}

// candidateAudit appends the audit row of action on candidate c, with
// details (names, numbers and strings) as its JSON.
func candidateAudit(ctx context.Context, tx Tx, actor, action string, c *governance.Candidate, reason string, details map[string]any) error {
	b, err := json.Marshal(details)
	if err != nil {
		return err
	}
	return tx.AppendAudit(ctx, &governance.AuditEntry{
		Actor: actor, Action: action, ObjectType: "candidate", ObjectID: strconv.FormatInt(c.ID, 10),
		ProjectID: c.ProjectID, Reason: strings.TrimSpace(reason), Details: string(b),
	})
}

// BeatRules writes the rules of a beat's plan: each new proposal, or the
// held proposal it gathers again (reopened, with the old and the new
// evidence), and, for an auto-activated replacement, the rule it replaces
// stepping aside. It returns the real id of each of the plan's rules
// (keyed by their temporary, negative ids).
func BeatRules(ctx context.Context, tx Tx, plan *governance.BeatPlan) (map[int64]int64, error) {
	ids := map[int64]int64{}
	for _, r := range plan.Rules {
		held, err := heldOfPlan(ctx, tx, plan, r)
		if err != nil {
			return nil, err
		}
		if held != nil {
			// The held candidates of a held proposal gained evidence: the
			// same rule comes back, with its chain, not a second copy.
			if err := Reopen(ctx, tx, held, "Held proposal with new evidence."); err != nil {
				return nil, err
			}
			if r.Status == governance.RuleActive {
				if err := SetStatus(ctx, tx, held, governance.RuleActive); err != nil {
					return nil, err
				}
			}
			if err := Audit(ctx, tx, "heartbeat", "rule.reopen", held, string(r.PromotionReason),
				map[string]any{"from": governance.RuleArchived, "to": held.Status}); err != nil {
				return nil, err
			}
			ids[r.ID] = held.ID
			continue
		}
		id, err := tx.InsertRule(ctx, r, "heartbeat", "Proposed by the heartbeat: "+string(r.PromotionReason)+".")
		if err != nil {
			return nil, err
		}
		ids[r.ID] = id
	}
	for _, r := range plan.Rules {
		if r.Status != governance.RuleActive || r.Supersedes == 0 {
			continue
		}
		// Auto-activated replacement: the rule it replaces steps aside now.
		old, err := tx.LockRule(ctx, r.Supersedes)
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !governance.RuleAllows(old.Status, governance.RuleReplace) {
			continue // only proposed: nothing to step aside
		}
		newer := *r
		newer.ID = ids[r.ID]
		if err := Supersede(ctx, tx, "heartbeat", old, &newer, "Replaced by a newer instruction (the project activates proposals at once)."); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// heldOfPlan returns the held proposal whose candidates the plan gathers
// into its new rule r, when every existing candidate of r belongs to that
// one held rule; else nil.
func heldOfPlan(ctx context.Context, tx Tx, plan *governance.BeatPlan, r *governance.Rule) (*governance.Rule, error) {
	var members []int64
	for _, c := range plan.Updates {
		if c.RuleID == r.ID {
			members = append(members, c.ID)
		}
	}
	if len(members) == 0 {
		return nil, nil
	}
	owner, err := tx.RuleOfCandidates(ctx, members)
	if err != nil || owner == 0 {
		return nil, err
	}
	held, err := tx.LockRule(ctx, owner)
	if err != nil {
		return nil, err
	}
	if ok, err := Held(ctx, tx, held); err != nil || !ok {
		return nil, err
	}
	return held, nil
}
