package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Page sizes of the review queue.
const (
	proposalPageSize = 10
	heldPageSize     = 25
	blockedPageSize  = 20
	// candidateCountCap: the held and blocked tabs count at most this many
	// candidates past the page.
	candidateCountCap = 10 * heldPageSize
)

// withReviewBadge puts the number of proposals the viewer may review on
// the navigation's Review entry.
func (s *Server) withReviewBadge(ctx context.Context, meta *templates.PageMeta) {
	n, err := s.pendingReviews(ctx, meta.User)
	if err != nil || n == 0 {
		return
	}
	for i := range meta.Nav {
		if meta.Nav[i].Key == "review" {
			meta.Nav[i].Badge = n
		}
	}
}

// handleReviewBadge is the review entry's label, polled by the navigation
// so the pending count stays current without a reload.
func (s *Server) handleReviewBadge(c echo.Context) error {
	meta, err := s.meta(c, "", "")
	if err != nil {
		return err
	}
	for _, item := range meta.Nav {
		if item.Key == "review" {
			return render(c, http.StatusOK, templates.NavLabel(item))
		}
	}
	return errReviewersOnly
}

// pendingReviews counts the proposals waiting in the projects a account reviews.
func (s *Server) pendingReviews(ctx context.Context, a *governance.Account) (int, error) {
	if !isReviewer(a) {
		return 0, nil
	}
	ids, all := a.ReviewableProjects()
	if all {
		ids = nil
	}
	return s.store.CountProposals(ctx, ids)
}

// handleReviewIndex lists the projects the viewer reviews with what waits.
func (s *Server) handleReviewIndex(c echo.Context) error {
	ctx := c.Request().Context()
	a := auth.UserFrom(ctx)
	if err := can(ctx, governance.ActReviewAny, governance.Object{}); err != nil {
		return err
	}
	scopes, err := s.visibleScopes(ctx)
	if err != nil {
		return err
	}
	ids, all := a.ReviewableProjects()
	if all {
		ids = nil
	}
	counts, err := s.store.FindReviewCounts(ctx, ids)
	if err != nil {
		return err
	}
	var v templates.ReviewIndexView
	for _, sc := range scopes {
		if sc.Subject != nil {
			continue
		}
		rp := templates.ReviewProject{Project: sc.Project}
		if n := counts[sc.Project.ID]; n != nil {
			rp.Counts = templates.ReviewCounts(*n)
		}
		v.Projects = append(v.Projects, rp)
	}
	meta, err := s.meta(c, "Review", "review")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ReviewIndexPage(meta, v))
}

func reviewTab(tab string) string {
	switch tab {
	case templates.TabHeld, templates.TabBlocked:
		return tab
	}
	return templates.TabProposed
}

func tabStatus(tab string) governance.CandidateStatus {
	switch tab {
	case templates.TabHeld:
		return governance.CandidateHeld
	case templates.TabBlocked:
		return governance.CandidateBlocked
	}
	return governance.CandidateProposed
}

// handleReviewShow is a project's review queue. The queue polls it with
// ?v=<version>; when nothing changed the answer is 204 and htmx swaps nothing.
func (s *Server) handleReviewShow(c echo.Context) error {
	ctx := c.Request().Context()
	sc, err := s.reviewScope(c)
	if err != nil {
		return err
	}
	tab, page := reviewTab(c.QueryParam("tab")), pageParam(c)
	if hxTargets(c, "review-queue") {
		version, err := s.store.ReviewQueueVersion(ctx, sc.Project.ID, tabStatus(tab))
		if err != nil {
			return err
		}
		if v := c.QueryParam("v"); v != "" && v == version {
			return c.NoContent(http.StatusNoContent)
		}
	}
	v, err := s.reviewView(c, sc, tab, page)
	if err != nil {
		return err
	}
	return s.renderReview(c, http.StatusOK, v)
}

func (s *Server) renderReview(c echo.Context, status int, v templates.ReviewView) error {
	if hxTargets(c, "review-queue") {
		return render(c, status, templates.ReviewQueue(v))
	}
	meta, err := s.meta(c, "Review "+v.Project.Name, "review")
	if err != nil {
		return err
	}
	return render(c, status, templates.ReviewPage(meta, v))
}

// reviewView builds one tab and page of a project's queue.
func (s *Server) reviewView(c echo.Context, sc scope, tab string, page int) (templates.ReviewView, error) {
	ctx := c.Request().Context()
	p := sc.Project
	v := templates.ReviewView{Project: p, Tab: tab, CSRF: csrfToken(c), Bulk: templates.BulkForm{Selected: map[int64]bool{}}}
	v.CanSetPolicy = can(ctx, governance.ActAdminister, governance.InProject(p)) == nil
	counts, err := s.store.FindReviewCounts(ctx, []int64{p.ID})
	if err != nil {
		return v, err
	}
	if n := counts[p.ID]; n != nil {
		v.Counts = templates.ReviewCounts(*n)
	}
	if v.Version, err = s.store.ReviewQueueVersion(ctx, p.ID, tabStatus(tab)); err != nil {
		return v, err
	}
	link := func(n int) string { return templates.ReviewURL(p.Slug, tab, n) }
	switch tab {
	case templates.TabProposed:
		rules, total, err := s.store.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID,
			Statuses: []governance.RuleStatus{governance.RuleProposed}, Offset: (page - 1) * proposalPageSize, Limit: proposalPageSize})
		if err != nil {
			return v, err
		}
		v.Pager = newPager(page, proposalPageSize, total, false, "review-queue", link)
		if v.Proposals, err = s.proposalViews(ctx, rules); err != nil {
			return v, err
		}
	case templates.TabHeld:
		cands, total, err := s.store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID,
			Statuses: []governance.CandidateStatus{governance.CandidateHeld}, Offset: (page - 1) * heldPageSize, Limit: heldPageSize, CountCap: candidateCountCap})
		if err != nil {
			return v, err
		}
		v.Pager = cappedPager(page, heldPageSize, total, candidateCountCap, "review-queue", link)
		links, err := s.store.FindCandidateEvidence(ctx, cands)
		if err != nil {
			return v, err
		}
		byGroup := map[int64]int{}
		for _, l := range links {
			i, ok := byGroup[l.Candidate.GroupID]
			if !ok {
				i = len(v.Groups)
				byGroup[l.Candidate.GroupID] = i
				v.Groups = append(v.Groups, templates.CandidateGroup{GroupID: l.Candidate.GroupID, Why: l.Candidate.StatusReason})
			}
			v.Groups[i].Members = append(v.Groups[i].Members, l)
		}
	case templates.TabBlocked:
		cands, total, err := s.store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID,
			Statuses: []governance.CandidateStatus{governance.CandidateBlocked}, Offset: (page - 1) * blockedPageSize, Limit: blockedPageSize, CountCap: candidateCountCap})
		if err != nil {
			return v, err
		}
		v.Pager = cappedPager(page, blockedPageSize, total, candidateCountCap, "review-queue", link)
		if v.Blocked, err = s.store.FindCandidateEvidence(ctx, cands); err != nil {
			return v, err
		}
	}
	return v, nil
}

// proposalViews loads the evidence of a page of proposals and the rules
// that replacements would replace.
func (s *Server) proposalViews(ctx context.Context, rules []*governance.Rule) ([]templates.ProposalView, error) {
	ids := make([]int64, len(rules))
	var replaced []int64
	for i, r := range rules {
		ids[i] = r.ID
		if r.Supersedes != 0 {
			replaced = append(replaced, r.Supersedes)
		}
	}
	counts, err := s.store.CountRuleCandidates(ctx, ids)
	if err != nil {
		return nil, err
	}
	inline := slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return counts[id] > templates.InlineEvidence })
	evidence, err := s.store.FindEvidenceByRules(ctx, inline)
	if err != nil {
		return nil, err
	}
	olds, err := s.store.FindRulesByIDs(ctx, replaced)
	if err != nil {
		return nil, err
	}
	byID := map[int64]*governance.Rule{}
	for _, r := range olds {
		byID[r.ID] = r
	}
	out := make([]templates.ProposalView, len(rules))
	for i, r := range rules {
		out[i] = templates.ProposalView{Rule: r, Evidence: evidence[r.ID], EvidenceCount: counts[r.ID], Replaces: byID[r.Supersedes]}
	}
	return out, nil
}

// reshow renders the page a rule form came from again with status 422 and
// the form's values and errors: the review queue or the rule page.
func (s *Server) reshow(c echo.Context, r *governance.Rule, sc scope, back string, form templates.RuleForm) error {
	u, err := url.Parse(back)
	if err == nil && strings.HasPrefix(u.Path, "/projects/") && strings.HasSuffix(u.Path, "/review") {
		page, _ := strconv.Atoi(u.Query().Get("page"))
		v, err := s.reviewView(c, sc, reviewTab(u.Query().Get("tab")), max(page, 1))
		if err != nil {
			return err
		}
		found := false
		for i := range v.Proposals {
			if v.Proposals[i].Rule.ID == r.ID {
				v.Proposals[i].Form, found = form, true
			}
		}
		if found {
			return s.renderReview(c, http.StatusUnprocessableEntity, v)
		}
	}
	return s.renderRule(c, http.StatusUnprocessableEntity, r, sc, form)
}

// handleRuleApprove approves a proposal, with edits when the form says so.
func (s *Server) handleRuleApprove(c echo.Context) error {
	r, sc, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	back := backTo(c, templates.RuleURL(r.ID))
	var edit *governance.RuleEdit
	if c.FormValue("edited") != "" {
		form := templates.RuleForm{Action: "approve_edit", Text: strings.TrimSpace(c.FormValue("text")),
			Kind: c.FormValue("kind"), Reason: strings.TrimSpace(c.FormValue("reason")), Errors: templates.FieldErrors{}}
		if form.Text == "" {
			form.Errors["text"] = "The rule text cannot be empty."
		}
		if !governance.MemoryType(form.Kind).Valid() {
			form.Errors["kind"] = "Pick a kind."
		}
		if form.Reason == "" && (form.Text != r.Text || form.Kind != string(r.Kind)) {
			form.Errors["reason"] = "Say why you changed it."
		}
		if len(form.Errors) > 0 {
			return s.reshow(c, r, sc, back, form)
		}
		if form.Text != r.Text || form.Kind != string(r.Kind) {
			edit = &governance.RuleEdit{Text: form.Text, Kind: governance.MemoryType(form.Kind), Reason: form.Reason}
		}
		if _, err := s.store.ApproveRule(c.Request().Context(), actor(c), r.ID, edit); err != nil {
			if governance.ErrorCode(err) == governance.EINVALID {
				form.Errors["text"] = governance.ErrorMessage(err)
				return s.reshow(c, r, sc, back, form)
			}
			return err
		}
	} else if _, err := s.store.ApproveRule(c.Request().Context(), actor(c), r.ID, nil); err != nil {
		return err
	}
	msg := fmt.Sprintf("Rule #%d approved: recall uses it now.", r.ID)
	if edit != nil {
		msg = fmt.Sprintf("Rule #%d approved as edited (new version).", r.ID)
	}
	return s.done(c, back, msg)
}

// handleRuleReject rejects a proposal; without a reason the page comes back with 422.
func (s *Server) handleRuleReject(c echo.Context) error {
	r, sc, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	back := backTo(c, templates.RuleURL(r.ID))
	reason := strings.TrimSpace(c.FormValue("reason"))
	if reason == "" {
		return s.reshow(c, r, sc, back, templates.RuleForm{Action: "reject",
			Errors: templates.FieldErrors{"reason": "Say why the proposal is rejected."}})
	}
	if _, err := s.store.RejectRule(c.Request().Context(), actor(c), r.ID, reason); err != nil {
		return err
	}
	return s.done(c, back, fmt.Sprintf("Proposal #%d rejected.", r.ID))
}

// handleRuleHold sends a proposal back to the held candidates.
func (s *Server) handleRuleHold(c echo.Context) error {
	r, _, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	if _, err := s.store.HoldRule(c.Request().Context(), actor(c), r.ID, c.FormValue("reason")); err != nil {
		return err
	}
	return s.done(c, backTo(c, templates.RuleURL(r.ID)), fmt.Sprintf("Proposal #%d held: its candidates wait for more evidence.", r.ID))
}

// handleRuleSplit takes one candidate out of a rule's evidence.
// handleRuleEvidence is a rule's evidence chain as a fragment, for a
// proposal whose chain is too long to show open in the queue.
func (s *Server) handleRuleEvidence(c echo.Context) error {
	r, _, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	if !isHTMX(c) {
		return c.Redirect(http.StatusSeeOther, templates.RuleURL(r.ID))
	}
	evidence, err := s.store.FindRuleEvidence(c.Request().Context(), r.ID)
	if err != nil {
		return err
	}
	opt := templates.RuleEvidenceOptions(r.ID, governance.RuleAllows(r.Status, governance.RuleSplit), csrfToken(c), backTo(c, templates.RuleURL(r.ID)))
	return render(c, http.StatusOK, templates.EvidenceChain(evidence, opt))
}

func (s *Server) handleRuleSplit(c echo.Context) error {
	r, _, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	cand, err := strconv.ParseInt(c.FormValue("candidate"), 10, 64)
	if err != nil {
		return governance.Errorf(governance.EINVALID, "Pick a candidate to split out.")
	}
	if _, err := s.store.SplitCandidate(c.Request().Context(), actor(c), r.ID, cand, c.FormValue("reason")); err != nil {
		return err
	}
	return s.done(c, backTo(c, templates.RuleURL(r.ID)), fmt.Sprintf("Candidate #%d split out of rule #%d; it is held now.", cand, r.ID))
}

// selectedRules reads the ids of a bulk form and checks that every one is a
// rule of the scope's project.
func (s *Server) selectedRules(c echo.Context, sc scope) ([]int64, error) {
	form, err := c.FormParams()
	if err != nil {
		return nil, governance.Errorf(governance.EINVALID, "Unreadable form.")
	}
	var ids []int64
	for _, v := range form["id"] {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return nil, governance.Errorf(governance.EINVALID, "Invalid rule id %q.", v)
		}
		ids = append(ids, id)
	}
	rules, err := s.store.FindRulesByIDs(c.Request().Context(), ids)
	if err != nil {
		return nil, err
	}
	if len(rules) != len(dedupe(ids)) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	for _, r := range rules {
		if r.ProjectID != sc.Project.ID {
			return nil, governance.Errorf(governance.EFORBIDDEN, "Rule %d is not in project %s.", r.ID, sc.Project.Slug)
		}
	}
	return dedupe(ids), nil
}

// bulkProblem re-renders the queue with 422 and the bulk form's values.
func (s *Server) bulkProblem(c echo.Context, sc scope, ids []int64, field, msg string) error {
	back := backTo(c, templates.ReviewURL(sc.Project.Slug, "", 1))
	u, _ := url.Parse(back)
	page := 1
	if u != nil {
		page, _ = strconv.Atoi(u.Query().Get("page"))
	}
	v, err := s.reviewView(c, sc, templates.TabProposed, max(page, 1))
	if err != nil {
		return err
	}
	for _, id := range ids {
		v.Bulk.Selected[id] = true
	}
	v.Bulk.Reason = c.FormValue("reason")
	v.Bulk.Errors = templates.FieldErrors{field: msg}
	return s.renderReview(c, http.StatusUnprocessableEntity, v)
}

// handleReviewApprove approves the selected proposals, all or none.
func (s *Server) handleReviewApprove(c echo.Context) error {
	sc, err := s.reviewScope(c)
	if err != nil {
		return err
	}
	ids, err := s.selectedRules(c, sc)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return s.bulkProblem(c, sc, ids, "ids", "Select at least one proposal.")
	}
	if err := s.store.ApproveRules(c.Request().Context(), actor(c), ids); err != nil {
		return err
	}
	return s.done(c, backTo(c, templates.ReviewURL(sc.Project.Slug, "", 1)), fmt.Sprintf("%d proposal(s) approved.", len(ids)))
}

// handleReviewReject rejects the selected proposals with one reason.
func (s *Server) handleReviewReject(c echo.Context) error {
	sc, err := s.reviewScope(c)
	if err != nil {
		return err
	}
	ids, err := s.selectedRules(c, sc)
	if err != nil {
		return err
	}
	reason := strings.TrimSpace(c.FormValue("reason"))
	switch {
	case len(ids) == 0:
		return s.bulkProblem(c, sc, ids, "ids", "Select at least one proposal.")
	case reason == "":
		return s.bulkProblem(c, sc, ids, "reason", "Say why the selected proposals are rejected.")
	}
	if err := s.store.RejectRules(c.Request().Context(), actor(c), ids, reason); err != nil {
		return err
	}
	return s.done(c, backTo(c, templates.ReviewURL(sc.Project.Slug, "", 1)), fmt.Sprintf("%d proposal(s) rejected.", len(ids)))
}

// handleReviewMerge merges two selected proposals. Without confirm it asks
// which wording to keep; with it, it merges.
func (s *Server) handleReviewMerge(c echo.Context) error {
	ctx := c.Request().Context()
	sc, err := s.reviewScope(c)
	if err != nil {
		return err
	}
	ids, err := s.selectedRules(c, sc)
	if err != nil {
		return err
	}
	if len(ids) != 2 {
		return s.bulkProblem(c, sc, ids, "ids", "Select exactly two proposals to merge.")
	}
	back := backTo(c, templates.ReviewURL(sc.Project.Slug, "", 1))
	rules, err := s.store.FindRulesByIDs(ctx, ids)
	if err != nil {
		return err
	}
	v := templates.MergeView{Project: sc.Project, Rules: rules, Back: back, Keep: c.FormValue("keep"),
		Form: templates.RuleForm{Text: strings.TrimSpace(c.FormValue("text")), Reason: strings.TrimSpace(c.FormValue("reason")), Errors: templates.FieldErrors{}}}
	status := http.StatusOK
	if c.FormValue("confirm") != "" {
		keep, _ := strconv.ParseInt(v.Keep, 10, 64)
		other := ids[0]
		if other == keep {
			other = ids[1]
		}
		var edit *governance.RuleEdit
		if v.Form.Text != "" {
			edit = &governance.RuleEdit{Text: v.Form.Text, Reason: v.Form.Reason}
			if v.Form.Reason == "" {
				v.Form.Errors["reason"] = "Say why you changed the wording."
			}
		}
		if keep != ids[0] && keep != ids[1] {
			v.Form.Errors["ids"] = "Pick the wording to keep."
		}
		if len(v.Form.Errors) == 0 {
			_, err := s.store.MergeRules(ctx, actor(c), keep, other, edit)
			if err == nil {
				return s.done(c, back, fmt.Sprintf("Proposal #%d merged into #%d.", other, keep))
			}
			if governance.ErrorCode(err) != governance.EINVALID {
				return err
			}
			v.Form.Errors["ids"] = governance.ErrorMessage(err)
		}
		status = http.StatusUnprocessableEntity
	}
	meta, err := s.meta(c, "Merge proposals", "review")
	if err != nil {
		return err
	}
	return render(c, status, templates.MergePage(meta, v))
}

// handleProjectPolicy switches a project between auto-activation and
// approval (admins).
func (s *Server) handleProjectPolicy(c echo.Context) error {
	sc, err := s.reviewScope(c)
	if err != nil {
		return err
	}
	if err := can(c.Request().Context(), governance.ActAdminister, governance.InProject(sc.Project)); err != nil {
		return err
	}
	on := c.FormValue("auto_activate") == "on"
	if err := s.store.SetProjectAutoActivate(c.Request().Context(), actor(c), sc.Project.ID, on); err != nil {
		return err
	}
	msg := "Proposals of " + sc.Project.Name + " now wait for a reviewer."
	if on {
		msg = "Proposals of " + sc.Project.Name + " now become active at once."
	}
	return s.done(c, templates.ReviewURL(sc.Project.Slug, "", 1), msg)
}
