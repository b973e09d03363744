package governance

import (
	"slices"
	"strconv"
	"time"
)

// OutcomeReviewStatus is where a review the heartbeat drafted from
// harmful outcome reports stands.
type OutcomeReviewStatus string

const (
	ReviewOpen      OutcomeReviewStatus = "open"
	ReviewAccepted  OutcomeReviewStatus = "accepted"
	ReviewDiscarded OutcomeReviewStatus = "discarded"
)

// OutcomeReviewStatuses lists every review status.
var OutcomeReviewStatuses = []OutcomeReviewStatus{ReviewOpen, ReviewAccepted, ReviewDiscarded}

// Valid reports whether s is a known review status.
func (s OutcomeReviewStatus) Valid() bool { return slices.Contains(OutcomeReviewStatuses, s) }

// OutcomeReview is the heartbeat's proposal to take a rule that misled
// agents out of use: a demotion, or — where a newer statement of it
// exists (a rule that would supersede it) — a replacement, with the
// reports as its evidence and a drafted regression case.
type OutcomeReview struct {
	ID          int64 `json:"id"`
	ProjectID   int64 `json:"project_id"`
	RuleID      int64 `json:"rule_id"`
	RuleVersion int   `json:"rule_version"`
	// ReplacementID is the newer rule approving the review activates
	// (0: the review demotes the rule).
	ReplacementID int64               `json:"replacement_id,omitempty"`
	Status        OutcomeReviewStatus `json:"status"`
	// Sessions counts the distinct sessions of its harmful reports.
	Sessions int `json:"sessions"`
	// Reason is the reviewer's (or the heartbeat's, when it closed the
	// review because the rule left use) reason for the decision.
	Reason string `json:"reason,omitempty"`
	// CaseAdded says the reviewer added the drafted regression case to
	// the project's regression suite with the decision.
	CaseAdded bool       `json:"case_added,omitempty"`
	DecidedBy string     `json:"decided_by,omitempty"`
	DecidedAt *time.Time `json:"decided_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// Replacement reports whether the review replaces the rule instead of
// demoting it.
func (r *OutcomeReview) Replacement() bool { return r.ReplacementID != 0 }

// OutcomeReviewFilter selects reviews; zero fields are ignored.
type OutcomeReviewFilter struct {
	ProjectID  int64
	ProjectIDs []int64
	RuleID     int64
	Statuses   []OutcomeReviewStatus
	Offset     int
	Limit      int
}

// OutcomeReviewInput is what the heartbeat's outcome step reads for one
// project: its policy, the rules in use with the newer statements that
// would replace them, the harmful reports no review holds yet, and the
// open reviews.
type OutcomeReviewInput struct {
	ProjectID int64
	Policy    OutcomePolicy
	// Rules are the project's rules that are active or stale, and the
	// proposed or active rules that would supersede one of them.
	Rules []*Rule
	// Reports are the harmful reports about a rule that no review holds.
	Reports []*OutcomeReport
	Open    []*OutcomeReview
}

// OutcomeReviewDraft is one review the beat opens, or more evidence for
// an open one (ReviewID set).
type OutcomeReviewDraft struct {
	ReviewID      int64
	RuleID        int64
	RuleVersion   int
	ReplacementID int64
	ReportIDs     []int64
	// Sessions is the distinct sessions of all the review's reports.
	Sessions int
}

// OutcomeReviewPlan is what the outcome step writes for one project, in
// one transaction: reviews opened or given more evidence, and open
// reviews closed because their rule left use.
type OutcomeReviewPlan struct {
	ProjectID int64
	Drafts    []OutcomeReviewDraft
	// Close lists open reviews whose rule is no longer active or stale.
	Close []int64
}

// Empty reports whether the plan changes nothing.
func (p *OutcomeReviewPlan) Empty() bool { return len(p.Drafts) == 0 && len(p.Close) == 0 }

// ReviewClosedReason is the reason the heartbeat gives a review it closes.
const ReviewClosedReason = "The rule left use before a reviewer decided."

// PlanOutcomeReviews decides the outcome step of one beat: a rule in use
// whose harmful reports come from at least the policy's threshold of
// different sessions gets a review — a replacement when a newer rule
// would supersede it (the newest such), else a demotion; an open review
// takes the new reports as more evidence; an open review of a rule that
// left use is closed. It is deterministic: rules and reports by id.
func PlanOutcomeReviews(in *OutcomeReviewInput) *OutcomeReviewPlan {
	plan := &OutcomeReviewPlan{ProjectID: in.ProjectID}
	threshold := in.Policy.Threshold
	if threshold < 1 {
		threshold = DefaultOutcomeThreshold
	}
	inUse := map[int64]*Rule{}
	newer := map[int64]int64{}
	for _, r := range in.Rules {
		switch r.Status {
		case RuleActive, RuleStale:
			inUse[r.ID] = r
		}
		if r.Supersedes != 0 && (r.Status == RuleProposed || r.Status == RuleActive) && r.ID > newer[r.Supersedes] {
			newer[r.Supersedes] = r.ID
		}
	}
	open := map[int64]*OutcomeReview{}
	for _, rv := range in.Open {
		if inUse[rv.RuleID] == nil {
			plan.Close = append(plan.Close, rv.ID)
			continue
		}
		open[rv.RuleID] = rv
	}
	byRule := map[int64][]*OutcomeReport{}
	var ruleIDs []int64
	for _, rep := range in.Reports {
		if !rep.Verdict.Harmful() || rep.RuleID == 0 || rep.ReviewID != 0 || inUse[rep.RuleID] == nil {
			continue
		}
		if byRule[rep.RuleID] == nil {
			ruleIDs = append(ruleIDs, rep.RuleID)
		}
		byRule[rep.RuleID] = append(byRule[rep.RuleID], rep)
	}
	slices.Sort(ruleIDs)
	for _, id := range ruleIDs {
		reps := byRule[id]
		slices.SortFunc(reps, func(a, b *OutcomeReport) int { return int(a.ID - b.ID) })
		sessions := map[string]bool{}
		ids := make([]int64, len(reps))
		for i, rep := range reps {
			sessions[rep.SessionKey()] = true
			ids[i] = rep.ID
		}
		r := inUse[id]
		if rv := open[id]; rv != nil {
			plan.Drafts = append(plan.Drafts, OutcomeReviewDraft{ReviewID: rv.ID, RuleID: id, RuleVersion: rv.RuleVersion,
				ReplacementID: cmpOrID(newer[id], rv.ReplacementID), ReportIDs: ids, Sessions: rv.Sessions + len(sessions)})
			continue
		}
		if len(sessions) < threshold {
			continue
		}
		plan.Drafts = append(plan.Drafts, OutcomeReviewDraft{RuleID: id, RuleVersion: r.Version, ReplacementID: newer[id],
			ReportIDs: ids, Sessions: len(sessions)})
	}
	return plan
}

func cmpOrID(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

// RegressionCase is the eval case a review drafts: recall, for the task
// an agent was misled on, must leave the rule out — and include the
// replacement, when there is one.
type RegressionCase struct {
	// ID names the case in the suite ("outcome-<review id>").
	ID        string
	ReviewID  int64
	SubjectID string
	Task      string
	Exclude   int64
	Include   int64
}

// RegressionCaseID is the case id of review id's regression case.
func RegressionCaseID(reviewID int64) string { return "outcome-" + strconv.FormatInt(reviewID, 10) }

// DraftRegressionCase drafts review rv's case for rule r from its
// reports: the task of the newest report that gave one, in the scope
// (subject) that recall was for; else the rule's own text in the rule's
// scope (recall for its own wording finds a rule in use).
func DraftRegressionCase(rv *OutcomeReview, r *Rule, reports []*OutcomeReport) RegressionCase {
	c := RegressionCase{ID: RegressionCaseID(rv.ID), ReviewID: rv.ID, SubjectID: r.SubjectID, Exclude: r.ID, Include: rv.ReplacementID}
	var newest int64
	for _, rep := range reports {
		if rep.Task != "" && rep.Task != RedactedText && rep.ID > newest {
			c.Task, c.SubjectID, newest = rep.Task, rep.SubjectID, rep.ID
		}
	}
	if c.Task == "" {
		c.Task = r.Text
	}
	return c
}
