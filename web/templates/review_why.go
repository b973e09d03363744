package templates

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

// Why a candidate waits, as the heartbeat wrote it (governance.Decide and
// the consolidator), in the viewer's language. The stored text is English;
// fixed sentences are catalog entries (phrase), the ones that name a number
// or a rule are recognised here and said with a message of their own.
var (
	whyGate          = regexp.MustCompile(`^Blocked by the write gate: (.+)\.$`)
	whyContradicts   = regexp.MustCompile(`^Contradicts rule (\d+)\. (.*)$`)
	whyAdds          = regexp.MustCompile(`^Adds evidence to rule (\d+)\.$`)
	whySaidBy        = regexp.MustCompile(`^Said by (\d+) different people\.$`)
	whyRepeated      = regexp.MustCompile(`^Repeated across (\d+) sessions\.$`)
	versionByBeat    = regexp.MustCompile(`^Proposed by the heartbeat: (\w+)\.$`)
	whySuppressed    = regexp.MustCompile(`^Suppressed: a reviewer rejected its class \((\w+)\); lift the rejection on the review page to propose it again\.$`)
	whyAuthorityHeld = regexp.MustCompile(`^Touches authority \(a URL, e-mail address, command or credential\) and only one person said it, in (\d+) sessions: repetition by one actor counts once\.$`)
	whyLowRiskHeld   = regexp.MustCompile(`^Outside the low-risk set and only one person said it, in (\d+) sessions: repetition by one person counts once\.$`)
)

const (
	whyAuthoritySuffix = " It touches authority (a URL, e-mail address, command or credential), so a reviewer must approve it."
)

// candidateReason translates a candidate's status reason, the clause it
// names as outside the low-risk set read from the candidate.
func candidateReason(ctx context.Context, c *governance.Candidate) string {
	return candidateWhy(ctx, c.StatusReason, c.WhyNotPlaced)
}

// candidateWhy translates a candidate's status reason; English stays as
// stored, but for the gate's classes, named by their labels in every
// language. np is the clause the reason ends with when it says the
// statement is outside the low-risk set (governance.WhyNotPlaced); a
// reason stored before the clause was kept shows that sentence as stored.
func candidateWhy(ctx context.Context, why string, np *governance.NotPlaced) string {
	if m := whyGate.FindStringSubmatch(why); m != nil {
		var labels []string
		for _, c := range strings.Split(m[1], ", ") {
			labels = append(labels, label(ctx, "gate", c))
		}
		return t(ctx, "review.why.gate", "Classes", strings.Join(labels, t(ctx, "list.sep")))
	}
	if why == "" || lang(ctx) == "en" {
		return why
	}
	if np != nil {
		if rest, ok := strings.CutSuffix(why, governance.WhyNotPlaced(*np)); ok {
			return candidateWhy(ctx, rest, nil) + t(ctx, "review.why.not_placed", "Clause", np.Shown(), "Reason", label(ctx, "not_placed", np.Code()))
		}
	}
	if rest, ok := strings.CutSuffix(why, whyAuthoritySuffix); ok {
		return candidateWhy(ctx, rest, np) + t(ctx, "review.why.authority_review")
	}
	if rest, ok := strings.CutSuffix(why, governance.WhyOutsideLowRisk); ok {
		return candidateWhy(ctx, rest, np) + t(ctx, "review.why.lowrisk_review")
	}
	if rest, ok := strings.CutSuffix(why, governance.WhyProjectWide); ok {
		return candidateWhy(ctx, rest, np) + t(ctx, "review.why.project_review")
	}
	if m := whyContradicts.FindStringSubmatch(why); m != nil {
		return t(ctx, "review.why.contradicts", "ID", m[1]) + candidateWhy(ctx, m[2], np)
	}
	if m := whyAdds.FindStringSubmatch(why); m != nil {
		return t(ctx, "review.why.adds", "ID", m[1])
	}
	if m := whySaidBy.FindStringSubmatch(why); m != nil {
		return tn(ctx, "review.why.said_by", atoi(m[1]))
	}
	if m := whyRepeated.FindStringSubmatch(why); m != nil {
		return tn(ctx, "review.why.repeated", atoi(m[1]))
	}
	if m := whySuppressed.FindStringSubmatch(why); m != nil {
		return t(ctx, "review.why.suppressed", "Reason", label(ctx, "class_reason", m[1]))
	}
	if m := whyAuthorityHeld.FindStringSubmatch(why); m != nil {
		return tn(ctx, "review.why.authority_held", atoi(m[1]))
	}
	if m := whyLowRiskHeld.FindStringSubmatch(why); m != nil {
		return tn(ctx, "review.why.lowrisk_held", atoi(m[1]))
	}
	// A constant sentence of the heartbeat; a reviewer's reason as typed.
	return locale.From(ctx).Phrase(why)
}

// findingLabel names a finding for the reviewer: its risk class, or the
// risk feature it is (governance.RiskName), in the reviewer's language.
func findingLabel(ctx context.Context, f governance.Finding) string {
	name := governance.RiskName(f)
	if f.Category == governance.GateAuthority && !f.Redacted {
		if locale.From(ctx).Has("risk_feature." + name) {
			return label(ctx, "risk_feature", name)
		}
		return label(ctx, "gate", governance.GateAuthority)
	}
	return label(ctx, "gate", name)
}

// versionReason translates the reason of a rule version the heartbeat
// wrote, with the promotion reason's label (never its identifier); a
// person's reason is shown as they typed it.
func versionReason(ctx context.Context, why string) string {
	if m := versionByBeat.FindStringSubmatch(why); m != nil {
		return t(ctx, "rule.proposed_by_heartbeat", "Reason", label(ctx, "promotion_reason", m[1]))
	}
	return why
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// auditReason is an audit row's reason: the heartbeat records a promotion
// reason's identifier, shown by its label; a person's reason as typed.
func auditReason(ctx context.Context, reason string) string {
	if locale.From(ctx).Has("promotion_reason." + reason) {
		return label(ctx, "promotion_reason", reason)
	}
	return reason
}
