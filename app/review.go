package app

import (
	"context"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// ReviewStore reads the review queue and decides proposals.
type ReviewStore interface {
	CountProposals(ctx context.Context, projectIDs []int64) (int, error)
	FindReviewCounts(ctx context.Context, projectIDs []int64) (map[int64]*governance.ReviewCounts, error)
	ReviewQueueVersion(ctx context.Context, projectID int64, status governance.CandidateStatus) (string, error)
	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
	FindRulesByIDs(ctx context.Context, ids []int64) ([]*governance.Rule, error)
	FindCandidates(ctx context.Context, f governance.CandidateFilter) ([]*governance.Candidate, int, error)
	FindCandidateEvidence(ctx context.Context, cands []*governance.Candidate) ([]*governance.EvidenceLink, error)
	CountRuleCandidates(ctx context.Context, ruleIDs []int64) (map[int64]int, error)
	FindEvidenceByRules(ctx context.Context, ruleIDs []int64) (map[int64][]*governance.EvidenceLink, error)
	FindRuleEvidence(ctx context.Context, ruleID int64) ([]*governance.EvidenceLink, error)
	ApproveRule(ctx context.Context, actor string, id int64, edit *governance.RuleEdit) (*governance.Rule, error)
	ApproveRules(ctx context.Context, actor string, ids []int64) error
	RejectRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	RejectRules(ctx context.Context, actor string, ids []int64, reason string) error
	HoldRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	SplitCandidate(ctx context.Context, actor string, ruleID, candidateID int64, reason string) (*governance.Rule, error)
	MergeRules(ctx context.Context, actor string, keepID, otherID int64, edit *governance.RuleEdit) (*governance.Rule, error)
	SetProjectAutoActivate(ctx context.Context, actor string, projectID int64, on bool) error
	SetProjectSingleUser(ctx context.Context, actor string, projectID int64, on bool) error
	FindEvidenceSpread(ctx context.Context, ruleIDs []int64) (map[int64]governance.EvidenceSpread, error)
	FindStaleRanks(ctx context.Context, projectID int64, version int) ([]*governance.Rule, map[int64]int64, error)
	SetRanks(ctx context.Context, ranks []governance.StoredRank) error
	FindRankedProposals(ctx context.Context, projectID int64, offset, limit int) ([]*governance.Rule, []governance.Rank, int, error)
	RejectClass(ctx context.Context, actor string, rc *governance.RejectedClass, ruleIDs []int64) (*governance.RejectedClass, error)
	LiftClass(ctx context.Context, actor string, projectID, id int64) error
	FindRejectedClasses(ctx context.Context, projectID int64, withLifted bool) ([]*governance.RejectedClass, error)
}

// Reviews are the use cases of the review queue: what waits, and the
// reviewers' decisions on proposals, alone or in bulk. Every one is for the
// project's reviewers and admins (governance.ActReview).
type Reviews struct {
	store    ReviewStore
	projects Projects
	rules    Rules
	effects  Effects
}

// Pending counts the proposals waiting in the projects the actor reviews
// (0 for anyone who reviews none), for the navigation's badge.
func (rv Reviews) Pending(ctx context.Context, actor governance.Actor) (int, error) {
	if actor.Account == nil || governance.Can(actor, governance.ActReviewAny, governance.Object{}) != nil {
		return 0, nil
	}
	ids, all := actor.Account.ReviewableProjects()
	if all {
		ids = nil
	}
	return rv.store.CountProposals(ctx, ids)
}

// ReviewProject is one project of the review index with what waits in it.
type ReviewProject struct {
	Project *governance.Project
	Counts  governance.ReviewCounts
}

// Index lists the projects the actor reviews, in the store's order, with
// what waits in each: reviewers of any project only.
func (rv Reviews) Index(ctx context.Context, actor governance.Actor) ([]ReviewProject, error) {
	if err := governance.Can(actor, governance.ActReviewAny, governance.Object{}); err != nil {
		return nil, err
	}
	scopes, err := rv.projects.Visible(ctx, actor)
	if err != nil {
		return nil, err
	}
	var ids []int64
	if actor.Account != nil {
		var all bool
		if ids, all = actor.Account.ReviewableProjects(); all {
			ids = nil
		}
	}
	counts, err := rv.store.FindReviewCounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []ReviewProject
	for _, sc := range scopes {
		if !sc.Reviewer() {
			continue
		}
		rp := ReviewProject{Project: sc.Project}
		if n := counts[sc.Project.ID]; n != nil {
			rp.Counts = *n
		}
		out = append(out, rp)
	}
	return out, nil
}

// QueueQuery selects one tab and page of a project's review queue.
type QueueQuery struct {
	// Project is the project's slug.
	Project string
	// Tab is the queue's tab: proposed rules, held or blocked candidates.
	Tab governance.CandidateStatus
	// Offset and Limit select the page; CountCap bounds the held and
	// blocked counts past it (governance.CandidateFilter.CountCap).
	Offset, Limit, CountCap int
	// InlineEvidence is the longest evidence chain loaded with a
	// proposal; a longer one is loaded on demand (Rules.Evidence).
	InlineEvidence int
	// Since is the version the client shows; when the queue still has it
	// the answer is Unchanged and nothing else is loaded.
	Since string
}

// Proposal is a proposed rule with its evidence and, for a replacement,
// the rule it would replace.
type Proposal struct {
	Rule *governance.Rule
	// Evidence is loaded when the chain has at most
	// QueueQuery.InlineEvidence links.
	Evidence      []*governance.EvidenceLink
	EvidenceCount int
	Replaces      *governance.Rule
	// Rank is how likely a reviewer approves it, with the reasons; the
	// proposed tab is in rank order.
	Rank governance.Rank
}

// CandidateGroup is a merge group of held candidates and why it waits.
type CandidateGroup struct {
	GroupID int64
	Why     string
	// NotPlaced is the clause Why names as outside the low-risk set.
	NotPlaced *governance.NotPlaced
	Members   []*governance.EvidenceLink
}

// Queue is one tab and page of a project's review queue.
type Queue struct {
	Scope  Scope
	Counts governance.ReviewCounts
	// Version identifies the tab's content (polling sends it back).
	Version string
	// Unchanged: the tab still has QueueQuery.Since; nothing else is set
	// but Scope and Version.
	Unchanged bool
	// CanSetPolicy: the actor may switch the project's auto-activation.
	CanSetPolicy bool
	// Total counts the tab's items (capped for held and blocked).
	Total     int
	Proposals []Proposal
	// Classes are the project's standing class rejections (proposed tab).
	Classes []*governance.RejectedClass
	Groups  []CandidateGroup
	Blocked []*governance.EvidenceLink
	// OutcomeReviews are the project's open outcome reviews (the proposed
	// tab), OutcomePolicy its outcome policy.
	OutcomeReviews []*OutcomeReviewView
	OutcomePolicy  governance.OutcomePolicy
}

// Queue loads one tab and page of a project's review queue.
func (rv Reviews) Queue(ctx context.Context, actor governance.Actor, q QueueQuery) (*Queue, error) {
	sc, err := rv.projects.ReviewScope(ctx, actor, q.Project)
	if err != nil {
		return nil, err
	}
	switch q.Tab {
	case governance.CandidateProposed, governance.CandidateHeld, governance.CandidateBlocked:
	default:
		return nil, governance.Errorf(governance.EINVALID, "Unknown review tab %q.", q.Tab)
	}
	p := sc.Project
	out := &Queue{Scope: sc}
	if out.Version, err = rv.store.ReviewQueueVersion(ctx, p.ID, q.Tab); err != nil {
		return nil, err
	}
	if q.Since != "" && q.Since == out.Version {
		out.Unchanged = true
		return out, nil
	}
	out.CanSetPolicy = governance.Can(actor, governance.ActAdminister, governance.InProject(p)) == nil
	counts, err := rv.store.FindReviewCounts(ctx, []int64{p.ID})
	if err != nil {
		return nil, err
	}
	if n := counts[p.ID]; n != nil {
		out.Counts = *n
	}
	switch q.Tab {
	case governance.CandidateProposed:
		page, ranks, total, err := rv.rankedPage(ctx, p.ID, q.Offset, q.Limit)
		if err != nil {
			return nil, err
		}
		out.Total = total
		if out.Proposals, err = rv.proposals(ctx, page, q.InlineEvidence); err != nil {
			return nil, err
		}
		for i := range out.Proposals {
			out.Proposals[i].Rank = ranks[i]
		}
		if out.Classes, err = rv.store.FindRejectedClasses(ctx, p.ID, false); err != nil {
			return nil, err
		}
		if out.OutcomeReviews, err = rv.OutcomeReviews(ctx, actor, q.Project); err != nil {
			return nil, err
		}
		if out.OutcomePolicy, err = rv.effects.store.FindOutcomePolicy(ctx, p.ID); err != nil {
			return nil, err
		}
	case governance.CandidateHeld, governance.CandidateBlocked:
		cands, total, err := rv.store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID,
			Statuses: []governance.CandidateStatus{q.Tab}, Offset: q.Offset, Limit: q.Limit, CountCap: q.CountCap})
		if err != nil {
			return nil, err
		}
		out.Total = total
		links, err := rv.store.FindCandidateEvidence(ctx, cands)
		if err != nil {
			return nil, err
		}
		if q.Tab == governance.CandidateBlocked {
			out.Blocked = links
			break
		}
		byGroup := map[int64]int{}
		for _, l := range links {
			i, ok := byGroup[l.Candidate.GroupID]
			if !ok {
				i = len(out.Groups)
				byGroup[l.Candidate.GroupID] = i
				out.Groups = append(out.Groups, CandidateGroup{GroupID: l.Candidate.GroupID, Why: l.Candidate.StatusReason, NotPlaced: l.Candidate.WhyNotPlaced})
			}
			out.Groups[i].Members = append(out.Groups[i].Members, l)
		}
	}
	return out, nil
}

// rankedPage is one page of a project's proposals in rank order, with
// their ranks and how many proposals there are. Ranks are kept with the
// proposals (governance.StoredRank): the store forgets a proposal's rank
// whenever its inputs change (its text, channel or findings, its
// candidates, their evidence and its events), and the proposals whose rank
// is not known are ranked here (RankProposal over the rule and the spread
// of its evidence) and kept before the page is read. So a view of an
// unchanged queue reads one page, and a view after a beat ranks what the
// beat changed. When ranks keep going stale while they are computed (the
// evidence changing under the read twice), the page is ranked whole from
// the read, as the stored order would be.
func (rv Reviews) rankedPage(ctx context.Context, projectID int64, offset, limit int) ([]*governance.Rule, []governance.Rank, int, error) {
	for range 2 {
		stale, epochs, err := rv.store.FindStaleRanks(ctx, projectID, governance.RankVersion)
		if err != nil {
			return nil, nil, 0, err
		}
		if len(stale) == 0 {
			return rv.store.FindRankedProposals(ctx, projectID, offset, limit)
		}
		ranks, err := rv.rank(ctx, stale)
		if err != nil {
			return nil, nil, 0, err
		}
		kept := make([]governance.StoredRank, len(stale))
		for i, r := range stale {
			kept[i] = governance.StoredRank{RuleID: r.ID, Epoch: epochs[r.ID], Version: governance.RankVersion, Rank: ranks[r.ID]}
		}
		if err := rv.store.SetRanks(ctx, kept); err != nil {
			return nil, nil, 0, err
		}
	}
	rules, ranks, err := rv.ranked(ctx, projectID)
	if err != nil {
		return nil, nil, 0, err
	}
	page := rules[min(max(offset, 0), len(rules)):]
	page = page[:min(max(limit, 0), len(page))]
	out := make([]governance.Rank, len(page))
	for i, r := range page {
		out[i] = ranks[r.ID]
	}
	return page, out, len(rules), nil
}

// rank ranks proposals: RankProposal over each rule and the spread of its
// evidence.
func (rv Reviews) rank(ctx context.Context, rules []*governance.Rule) (map[int64]governance.Rank, error) {
	ids := make([]int64, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	spread, err := rv.store.FindEvidenceSpread(ctx, ids)
	if err != nil {
		return nil, err
	}
	ranks := make(map[int64]governance.Rank, len(rules))
	for _, r := range rules {
		sp := spread[r.ID]
		ranks[r.ID] = governance.RankProposal(governance.RankInput{Rule: r, Sessions: sp.Sessions, Subjects: sp.Subjects})
	}
	return ranks, nil
}

// ranked is every proposal of a project in rank order, ranked from the
// read, with the ranks.
func (rv Reviews) ranked(ctx context.Context, projectID int64) ([]*governance.Rule, map[int64]governance.Rank, error) {
	rules, _, err := rv.store.FindRules(ctx, governance.RuleFilter{ProjectID: &projectID,
		Statuses: []governance.RuleStatus{governance.RuleProposed}})
	if err != nil {
		return nil, nil, err
	}
	ranks, err := rv.rank(ctx, rules)
	if err != nil {
		return nil, nil, err
	}
	governance.RankedOrder(rules, ranks)
	return rules, ranks, nil
}

// RejectClass rejects the class of the one proposal of ids (governance.RuleClass) in
// its project for reason: every proposal of that class now in the queue is
// rejected with it, and the heartbeat holds the next ones until a reviewer
// lifts the rejection. It returns how many proposals it rejected.
func (rv Reviews) RejectClass(ctx context.Context, actor governance.Actor, slug string, ids []int64, reason governance.ClassReason) (int, error) {
	sc, err := rv.projects.ReviewScope(ctx, actor, slug)
	if err != nil {
		return 0, err
	}
	if len(ids) != 1 {
		return 0, FieldErrors{"ids": governance.Say("Choose one proposal.")}
	}
	id := ids[0]
	if !reason.Valid() {
		return 0, FieldErrors{"ids": governance.Say("Choose why the class is rejected.")}
	}
	rules, _, err := rv.store.FindRules(ctx, governance.RuleFilter{ProjectID: &sc.Project.ID,
		Statuses: []governance.RuleStatus{governance.RuleProposed}})
	if err != nil {
		return 0, err
	}
	i := slices.IndexFunc(rules, func(r *governance.Rule) bool { return r.ID == id })
	if i < 0 {
		return 0, governance.Errorf(governance.ENOTFOUND, "No proposal %d in this project.", id)
	}
	class := governance.RuleClass(rules[i])
	var same []int64
	for _, r := range rules {
		if governance.RuleClass(r).Key() == class.Key() {
			same = append(same, r.ID)
		}
	}
	if _, err := rv.store.RejectClass(ctx, actor.Name(), &governance.RejectedClass{ProjectID: sc.Project.ID, Class: class,
		Reason: reason, RuleID: id}, same); err != nil {
		return 0, err
	}
	return len(same), nil
}

// LiftClass ends a standing class rejection of the project: the next beat
// may propose that class again.
func (rv Reviews) LiftClass(ctx context.Context, actor governance.Actor, slug string, id int64) error {
	sc, err := rv.projects.ReviewScope(ctx, actor, slug)
	if err != nil {
		return err
	}
	return rv.store.LiftClass(ctx, actor.Name(), sc.Project.ID, id)
}

// proposals loads the evidence of a page of proposals and the rules that
// replacements would replace.
func (rv Reviews) proposals(ctx context.Context, rules []*governance.Rule, inlineMax int) ([]Proposal, error) {
	ids := make([]int64, len(rules))
	var replaced []int64
	for i, r := range rules {
		ids[i] = r.ID
		if r.Supersedes != 0 {
			replaced = append(replaced, r.Supersedes)
		}
	}
	counts, err := rv.store.CountRuleCandidates(ctx, ids)
	if err != nil {
		return nil, err
	}
	inline := slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return counts[id] > inlineMax })
	evidence, err := rv.store.FindEvidenceByRules(ctx, inline)
	if err != nil {
		return nil, err
	}
	olds, err := rv.store.FindRulesByIDs(ctx, replaced)
	if err != nil {
		return nil, err
	}
	byID := map[int64]*governance.Rule{}
	for _, r := range olds {
		byID[r.ID] = r
	}
	out := make([]Proposal, len(rules))
	for i, r := range rules {
		out[i] = Proposal{Rule: r, Evidence: evidence[r.ID], EvidenceCount: counts[r.ID], Replaces: byID[r.Supersedes]}
	}
	return out, nil
}

// Approval is a reviewer's approval of a proposal. Edited says the
// reviewer submitted the wording form; the rule changes (a new version)
// only when Text or Kind differ from the proposal, and then Reason is
// asked.
type Approval struct {
	Edited bool
	Text   string
	Kind   governance.MemoryType
	Reason string
}

// Approve activates a proposal, as proposed or as edited; it reports
// whether the wording changed. Bad input is FieldErrors (text, kind,
// reason).
func (rv Reviews) Approve(ctx context.Context, actor governance.Actor, id int64, in Approval) (*governance.Rule, bool, error) {
	r, sc, err := rv.rules.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, false, err
	}
	if r.Status == governance.RuleProposed {
		if err := rv.noRegression(ctx, sc.Project, EffectTarget{RuleID: r.ID}); err != nil {
			return nil, false, err
		}
	}
	defer rv.effects.Forget(sc.Project.ID)
	if !in.Edited {
		after, err := rv.store.ApproveRule(ctx, actor.Name(), r.ID, nil)
		return after, false, err
	}
	in.Text, in.Reason = strings.TrimSpace(in.Text), strings.TrimSpace(in.Reason)
	changed := in.Text != r.Text || in.Kind != r.Kind
	fe := FieldErrors{}
	if in.Text == "" {
		fe["text"] = governance.Say("The rule text cannot be empty.")
	}
	if !in.Kind.Valid() {
		fe["kind"] = governance.Say("Pick a kind.")
	}
	if in.Reason == "" && changed {
		fe["reason"] = governance.Say("Say why you changed it.")
	}
	if err := fe.err(); err != nil {
		return nil, false, err
	}
	var edit *governance.RuleEdit
	if changed {
		edit = &governance.RuleEdit{Text: in.Text, Kind: in.Kind, Reason: in.Reason}
	}
	after, err := rv.store.ApproveRule(ctx, actor.Name(), r.ID, edit)
	if err != nil {
		return nil, false, onField(err, "text")
	}
	return after, changed, nil
}

// Reject turns a proposal down; a reason is asked (FieldErrors "reason").
func (rv Reviews) Reject(ctx context.Context, actor governance.Actor, id int64, reason string) (*governance.Rule, error) {
	r, _, err := rv.rules.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	if reason = strings.TrimSpace(reason); reason == "" {
		return nil, FieldErrors{"reason": governance.Say("Say why the proposal is rejected.")}
	}
	return rv.store.RejectRule(ctx, actor.Name(), r.ID, reason)
}

// Hold sends a proposal back to the held candidates.
func (rv Reviews) Hold(ctx context.Context, actor governance.Actor, id int64, reason string) (*governance.Rule, error) {
	r, _, err := rv.rules.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	return rv.store.HoldRule(ctx, actor.Name(), r.ID, reason)
}

// Split takes one candidate out of a rule's evidence; it is held again.
// A candidate id that is not positive is EINVALID.
func (rv Reviews) Split(ctx context.Context, actor governance.Actor, id, candidateID int64, reason string) (*governance.Rule, error) {
	r, _, err := rv.rules.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	if candidateID <= 0 {
		return nil, governance.Errorf(governance.EINVALID, "Pick a candidate to split out.")
	}
	return rv.store.SplitCandidate(ctx, actor.Name(), r.ID, candidateID, reason)
}

// selected checks that every id names a rule of the project the actor
// reviews (an id that is not positive is EINVALID), and returns them once
// each, in the order given.
func (rv Reviews) selected(ctx context.Context, actor governance.Actor, slug string, ids []int64) (Scope, []int64, error) {
	sc, err := rv.projects.ReviewScope(ctx, actor, slug)
	if err != nil {
		return Scope{}, nil, err
	}
	for _, id := range ids {
		if id <= 0 {
			return Scope{}, nil, governance.Errorf(governance.EINVALID, "Invalid rule id: select proposals of the queue.")
		}
	}
	ids = governance.DistinctIDs(ids)
	rules, err := rv.store.FindRulesByIDs(ctx, ids)
	if err != nil {
		return Scope{}, nil, err
	}
	if len(rules) != len(ids) {
		return Scope{}, nil, governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	for _, r := range rules {
		if r.ProjectID != sc.Project.ID {
			return Scope{}, nil, governance.Errorf(governance.EFORBIDDEN, "Rule %d is not in project %s.", r.ID, sc.Project.Slug)
		}
	}
	return sc, ids, nil
}

var errSelectOne = FieldErrors{"ids": governance.Say("Select at least one proposal.")}

// ApproveMany approves the selected proposals of a project, all or none.
// It returns how many were approved.
func (rv Reviews) ApproveMany(ctx context.Context, actor governance.Actor, slug string, ids []int64) (int, error) {
	sc, ids, err := rv.selected(ctx, actor, slug, ids)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, errSelectOne
	}
	if err := rv.noRegressionMany(ctx, sc.Project, ids); err != nil {
		return 0, err
	}
	defer rv.effects.Forget(sc.Project.ID)
	if err := rv.store.ApproveRules(ctx, actor.Name(), ids); err != nil {
		return 0, err
	}
	return len(ids), nil
}

// RejectMany rejects the selected proposals of a project with one reason,
// all or none. It returns how many were rejected.
func (rv Reviews) RejectMany(ctx context.Context, actor governance.Actor, slug string, ids []int64, reason string) (int, error) {
	_, ids, err := rv.selected(ctx, actor, slug, ids)
	if err != nil {
		return 0, err
	}
	reason = strings.TrimSpace(reason)
	switch {
	case len(ids) == 0:
		return 0, errSelectOne
	case reason == "":
		return 0, FieldErrors{"reason": governance.Say("Say why the selected proposals are rejected.")}
	}
	if err := rv.store.RejectRules(ctx, actor.Name(), ids, reason); err != nil {
		return 0, err
	}
	return len(ids), nil
}

// MergeChoice is the two proposals a reviewer selected to merge.
type MergeChoice struct {
	Project *governance.Project
	Rules   []*governance.Rule
}

// MergeChoice loads the two selected proposals of a project, for the
// reviewer to pick the wording to keep. Anything but two is FieldErrors
// ("ids").
func (rv Reviews) MergeChoice(ctx context.Context, actor governance.Actor, slug string, ids []int64) (*MergeChoice, error) {
	sc, ids, err := rv.selected(ctx, actor, slug, ids)
	if err != nil {
		return nil, err
	}
	if len(ids) != 2 {
		return nil, FieldErrors{"ids": governance.Say("Select exactly two proposals to merge.")}
	}
	rules, err := rv.store.FindRulesByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	return &MergeChoice{Project: sc.Project, Rules: rules}, nil
}

// Merge is a merge of two proposals: the one kept, the new wording (none:
// the kept one's) and why it changed.
type Merge struct {
	IDs    []int64
	Keep   int64
	Text   string
	Reason string
}

// Merge merges the other selected proposal into the one kept. It returns
// the kept rule and the id of the other. Bad input is FieldErrors ("ids",
// "reason").
func (rv Reviews) Merge(ctx context.Context, actor governance.Actor, slug string, in Merge) (*governance.Rule, int64, error) {
	_, ids, err := rv.selected(ctx, actor, slug, in.IDs)
	if err != nil {
		return nil, 0, err
	}
	if len(ids) != 2 {
		return nil, 0, FieldErrors{"ids": governance.Say("Select exactly two proposals to merge.")}
	}
	in.Text, in.Reason = strings.TrimSpace(in.Text), strings.TrimSpace(in.Reason)
	other := ids[0]
	if other == in.Keep {
		other = ids[1]
	}
	fe := FieldErrors{}
	var edit *governance.RuleEdit
	if in.Text != "" {
		edit = &governance.RuleEdit{Text: in.Text, Reason: in.Reason}
		if in.Reason == "" {
			fe["reason"] = governance.Say("Say why you changed the wording.")
		}
	}
	if in.Keep != ids[0] && in.Keep != ids[1] {
		fe["ids"] = governance.Say("Pick the wording to keep.")
	}
	if err := fe.err(); err != nil {
		return nil, 0, err
	}
	kept, err := rv.store.MergeRules(ctx, actor.Name(), in.Keep, other, edit)
	if err != nil {
		return nil, 0, onField(err, "ids")
	}
	return kept, other, nil
}

// SetAutoActivate switches a project between activating proposals in the
// low-risk set at once and waiting for a reviewer: the project's admins
// only.
func (rv Reviews) SetAutoActivate(ctx context.Context, actor governance.Actor, slug string, on bool) (*governance.Project, error) {
	p, err := rv.setPolicy(ctx, actor, slug, on, rv.store.SetProjectAutoActivate)
	if err == nil {
		p.AutoActivate = on
	}
	return p, err
}

// SetSingleUser records whether a project has a single trusted user, so a
// rule for the whole project that one person supports may become active
// without a reviewer (inside the low-risk set). Administrators only.
func (rv Reviews) SetSingleUser(ctx context.Context, actor governance.Actor, slug string, on bool) (*governance.Project, error) {
	p, err := rv.setPolicy(ctx, actor, slug, on, rv.store.SetProjectSingleUser)
	if err == nil {
		p.SingleUser = on
	}
	return p, err
}

// setPolicy sets one policy switch of a project with set, if actor may
// administer it.
func (rv Reviews) setPolicy(ctx context.Context, actor governance.Actor, slug string, on bool,
	set func(ctx context.Context, actor string, projectID int64, on bool) error) (*governance.Project, error) {
	sc, err := rv.projects.ReviewScope(ctx, actor, slug)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActAdminister, governance.InProject(sc.Project)); err != nil {
		return nil, err
	}
	if err := set(ctx, actor.Name(), sc.Project.ID, on); err != nil {
		return nil, err
	}
	return sc.Project, nil
}
