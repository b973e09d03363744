package consolidate

import (
	"context"
	"log/slog"

	"github.com/mnemo-console/mnemo/governance"
)

// OutcomeReviewStore is what the heartbeat's outcome step needs: the
// harmful reports, rules and open reviews of a project, and writing the
// step's plan in one transaction.
type OutcomeReviewStore interface {
	LoadOutcomeReviewInput(ctx context.Context, projectID int64) (*governance.OutcomeReviewInput, error)
	ApplyOutcomeReviewPlan(ctx context.Context, plan *governance.OutcomeReviewPlan) error
}

// reviewOutcomes is the outcome step of one project's beat
// (docs/outcomes.md): a rule whose misled and conflicted reports come from
// the project's threshold of different sessions gets a review — a
// demotion, or a replacement where a newer statement exists — with the
// reports as evidence; the reviewer decides it. A second beat over the
// same reports changes nothing (each report joins one review only).
func (h *Heartbeat) reviewOutcomes(ctx context.Context, p *governance.Project) error {
	if h.Outcomes == nil {
		return nil
	}
	in, err := h.Outcomes.LoadOutcomeReviewInput(ctx, p.ID)
	if err != nil {
		return err
	}
	plan := governance.PlanOutcomeReviews(in)
	if plan.Empty() {
		return nil
	}
	if err := h.Outcomes.ApplyOutcomeReviewPlan(ctx, plan); err != nil {
		return err
	}
	h.log().Info("outcome reviews drafted", slog.String("project", p.Slug), slog.Int("reviews", len(plan.Drafts)),
		slog.Int("closed", len(plan.Close)))
	return nil
}
