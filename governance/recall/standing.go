package recall

import (
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// StandingScore ranks a rule without a task: the task-independent part of
// the recall score (scope match, trust, recency, importance, minus
// sensitivity), with the same weights.
func StandingScore(r *governance.Rule, now time.Time, w governance.RecallWeights) float64 {
	s := governance.RecallScore{
		ScopeMatch: scopeMatch(r.SubjectID, w),
		Trust:      clamp01(r.Trust),
		Recency:    recency(now, r.UpdatedAt, w),
		Importance: ruleImportance(governance.RecallRequest{}, r, w),
	}
	if governance.GateFound(r.Findings) {
		s.Sensitivity = 1
	}
	return total(s, w).Total
}
