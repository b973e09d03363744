package lifecycle

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// What deciding an outcome review does (docs/outcomes.md): accepting
// demotes its rule or puts the replacement in its place, through the
// same steps as a reviewer's own actions.

// ReviewTx is one write transaction of a backend as deciding an outcome
// review uses it.
type ReviewTx interface {
	Tx
	// LockReview reads review id for a change; ENOTFOUND when it is gone.
	LockReview(ctx context.Context, id int64) (*governance.OutcomeReview, error)
	// SetReviewDecision closes the open review id; false when it was no
	// longer open.
	SetReviewDecision(ctx context.Context, id int64, status governance.OutcomeReviewStatus, reason, by string, caseAdded bool) (bool, error)
}

// DecideReview accepts or discards the open review rv inside tx. Accepting a
// demotion demotes the rule; accepting a replacement approves the newer
// rule (a proposal, which supersedes the old one as any approval of a
// replacement does) or, when it is active already, supersedes the old
// rule by it. The reason is required either way.
func DecideReview(ctx context.Context, tx ReviewTx, actor string, rv *governance.OutcomeReview, accept bool, reason string, caseAdded bool) error {
	if err := governance.NeedReason(reason, "Say why you decide so."); err != nil {
		return err
	}
	if rv.Status != governance.ReviewOpen {
		return governance.Errorf(governance.ECONFLICT, "Review %d was already decided.", rv.ID)
	}
	status := governance.ReviewDiscarded
	if accept {
		status = governance.ReviewAccepted
		if err := applyReview(ctx, tx, actor, rv, reason); err != nil {
			return err
		}
	} else {
		caseAdded = false
	}
	ok, err := tx.SetReviewDecision(ctx, rv.ID, status, strings.TrimSpace(reason), actor, caseAdded)
	if err != nil {
		return err
	}
	if !ok {
		return governance.Errorf(governance.ECONFLICT, "Review %d changed meanwhile; reload and try again.", rv.ID)
	}
	action := "outcome.review_discard"
	if accept {
		action = "outcome.review_accept"
	}
	return reviewAudit(ctx, tx, actor, action, rv, reason, map[string]any{"rule": rv.RuleID, "replacement": rv.ReplacementID,
		"case_added": caseAdded})
}

// DecideReviewIn decides review id in one of store s's write
// transactions, each seen as a ReviewTx through wrap.
func DecideReviewIn[T Tx](ctx context.Context, s Store[T], wrap func(T) ReviewTx, actor string, id int64, accept bool,
	reason string, caseAdded bool) error {
	return s.Update(ctx, "DecideOutcomeReview", func(tx T) error {
		otx := wrap(tx)
		rv, err := otx.LockReview(ctx, id)
		if err != nil {
			return err
		}
		return DecideReview(ctx, otx, actor, rv, accept, reason, caseAdded)
	})
}

// applyReview does to the rules what accepting rv decides.
func applyReview(ctx context.Context, tx ReviewTx, actor string, rv *governance.OutcomeReview, reason string) error {
	old, err := tx.LockRule(ctx, rv.RuleID)
	if err != nil {
		return err
	}
	if rv.ReplacementID == 0 {
		return Demote(ctx, tx, actor, old, reason)
	}
	newer, err := tx.LockRule(ctx, rv.ReplacementID)
	if err != nil {
		return err
	}
	switch newer.Status {
	case governance.RuleProposed:
		if newer.Supersedes != old.ID {
			if err := old.Allow(governance.RuleSupersede); err != nil {
				return err
			}
			if err := tx.SetSupersedes(ctx, newer.ID, old.ID); err != nil {
				return err
			}
			newer.Supersedes = old.ID
		}
		return Approve(ctx, tx, actor, newer)
	case governance.RuleActive:
		return Supersede(ctx, tx, actor, old, newer, reason)
	}
	return governance.Errorf(governance.ECONFLICT, "The replacement, rule %d, is %s; discard this review or decide on the rule itself.",
		newer.ID, newer.Status)
}

// reviewAudit appends the audit row of an action on review rv: ids and
// the reason, never a memory's text.
func reviewAudit(ctx context.Context, tx Tx, actor, action string, rv *governance.OutcomeReview, reason string, details any) error {
	b, err := json.Marshal(details)
	if err != nil {
		return err
	}
	return tx.AppendAudit(ctx, &governance.AuditEntry{Actor: actor, Action: action, ObjectType: "outcome_review",
		ObjectID: strconv.FormatInt(rv.ID, 10), ProjectID: rv.ProjectID, Reason: strings.TrimSpace(reason), Details: string(b)})
}
