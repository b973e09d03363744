package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
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
	n, err := s.app.Reviews.Pending(ctx, governance.AccountActor(meta.User))
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

// handleReviewIndex lists the projects the viewer reviews with what waits.
func (s *Server) handleReviewIndex(c echo.Context) error {
	ctx := c.Request().Context()
	projects, err := s.app.Reviews.Index(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	var v templates.ReviewIndexView
	for _, rp := range projects {
		v.Projects = append(v.Projects, templates.ReviewProject{Project: rp.Project, Counts: templates.ReviewCounts(rp.Counts)})
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
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	since := ""
	if hxTargets(c, "review-queue") {
		since = c.QueryParam("v")
	}
	v, unchanged, err := s.reviewView(c, slug, reviewTab(c.QueryParam("tab")), pageParam(c), since)
	if err != nil {
		return err
	}
	if unchanged {
		return c.NoContent(http.StatusNoContent)
	}
	return s.renderReview(c, http.StatusOK, v)
}

func (s *Server) renderReview(c echo.Context, status int, v templates.ReviewView) error {
	if hxTargets(c, "review-queue") {
		return render(c, status, templates.ReviewQueue(v))
	}
	meta, err := s.meta(c, tr(c, "review.queue_of", "Name", v.Project.Name), "review")
	if err != nil {
		return err
	}
	return render(c, status, templates.ReviewPage(meta, v))
}

// reviewView loads one tab and page of a project's queue (Reviews.Queue)
// and builds its view; unchanged when the queue still has version since.
func (s *Server) reviewView(c echo.Context, slug, tab string, page int, since string) (templates.ReviewView, bool, error) {
	ctx := c.Request().Context()
	size := map[string]int{templates.TabProposed: proposalPageSize, templates.TabHeld: heldPageSize, templates.TabBlocked: blockedPageSize}[tab]
	q, err := s.app.Reviews.Queue(ctx, actorOf(ctx), app.QueueQuery{Project: slug, Tab: tabStatus(tab),
		Offset: (page - 1) * size, Limit: size, CountCap: candidateCountCap, InlineEvidence: templates.InlineEvidence, Since: since})
	if err != nil {
		return templates.ReviewView{}, false, err
	}
	if q.Unchanged {
		return templates.ReviewView{}, true, nil
	}
	p := q.Scope.Project
	v := templates.ReviewView{Project: p, Tab: tab, CSRF: csrfToken(c), Bulk: templates.BulkForm{Selected: map[int64]bool{}},
		CanSetPolicy: q.CanSetPolicy, Counts: templates.ReviewCounts(q.Counts), Version: q.Version, Blocked: q.Blocked, Classes: q.Classes}
	link := func(n int) string { return templates.ReviewURL(p.Slug, tab, n) }
	if tab == templates.TabProposed {
		v.Pager = newPager(page, size, q.Total, false, "review-queue", link)
	} else {
		v.Pager = cappedPager(page, size, q.Total, candidateCountCap, "review-queue", link)
	}
	for _, pr := range q.Proposals {
		v.Proposals = append(v.Proposals, templates.ProposalView{Rule: pr.Rule, Evidence: pr.Evidence,
			EvidenceCount: pr.EvidenceCount, Replaces: pr.Replaces, Rank: pr.Rank})
	}
	for _, g := range q.Groups {
		v.Groups = append(v.Groups, templates.CandidateGroup{GroupID: g.GroupID, Why: g.Why, NotPlaced: g.NotPlaced, Members: g.Members})
	}
	for _, r := range q.OutcomeReviews {
		v.OutcomeReviews = append(v.OutcomeReviews, outcomeReviewView(r, v.CSRF, link(page)))
	}
	v.OutcomePolicy = templates.OutcomePolicyView{Slug: p.Slug, Policy: q.OutcomePolicy, CanSet: q.CanSetPolicy, CSRF: v.CSRF,
		Threshold: strconv.Itoa(q.OutcomePolicy.Threshold)}
	return v, false, nil
}

// bulkForm reads a bulk form of the review queue: the project's slug from
// the path and the selected ids; an id that is not a number is 0, which
// the use case refuses once it has checked the reviewer.
func bulkForm(c echo.Context) (string, []int64, error) {
	slug, err := pathParam(c, "project")
	if err != nil {
		return "", nil, err
	}
	form, err := c.FormParams()
	if err != nil {
		return "", nil, governance.Errorf(governance.EINVALID, "Unreadable form.")
	}
	var ids []int64
	for _, v := range form["id"] {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			id = 0
		}
		ids = append(ids, id)
	}
	return slug, ids, nil
}

// bulkProblem re-renders the queue with 422 and the bulk form's values and
// errors when err is app.FieldErrors, and returns any other error.
func (s *Server) bulkProblem(c echo.Context, slug string, ids []int64, err error) error {
	fe, ok := app.AsFieldErrors(err)
	if !ok {
		return err
	}
	back := backTo(c, templates.ReviewURL(slug, "", 1))
	u, _ := url.Parse(back)
	page := 1
	if u != nil {
		page, _ = strconv.Atoi(u.Query().Get("page"))
	}
	v, _, err := s.reviewView(c, slug, templates.TabProposed, max(page, 1), "")
	if err != nil {
		return err
	}
	for _, id := range ids {
		v.Bulk.Selected[id] = true
	}
	v.Bulk.Reason = c.FormValue("reason")
	v.Bulk.Errors = templates.FieldErrors(fe)
	return s.renderReview(c, http.StatusUnprocessableEntity, v)
}

// handleReviewApprove approves the selected proposals, all or none.
func (s *Server) handleReviewApprove(c echo.Context) error {
	ctx := c.Request().Context()
	slug, ids, err := bulkForm(c)
	if err != nil {
		return err
	}
	n, err := s.app.Reviews.ApproveMany(ctx, actorOf(ctx), slug, ids)
	if err != nil {
		return s.bulkProblem(c, slug, ids, err)
	}
	return s.doneUndoMany(c, backTo(c, templates.ReviewURL(slug, "", 1)), trn(c, "review.flash.approved", n), ids)
}

// handleReviewReject rejects the selected proposals with one reason.
func (s *Server) handleReviewReject(c echo.Context) error {
	ctx := c.Request().Context()
	slug, ids, err := bulkForm(c)
	if err != nil {
		return err
	}
	n, err := s.app.Reviews.RejectMany(ctx, actorOf(ctx), slug, ids, c.FormValue("reason"))
	if err != nil {
		return s.bulkProblem(c, slug, ids, err)
	}
	return s.doneUndoMany(c, backTo(c, templates.ReviewURL(slug, "", 1)), trn(c, "review.flash.rejected", n), ids)
}

// handleReviewMerge merges two selected proposals. Without confirm it asks
// which wording to keep; with it, it merges.
func (s *Server) handleReviewMerge(c echo.Context) error {
	ctx := c.Request().Context()
	slug, ids, err := bulkForm(c)
	if err != nil {
		return err
	}
	choice, err := s.app.Reviews.MergeChoice(ctx, actorOf(ctx), slug, ids)
	if err != nil {
		return s.bulkProblem(c, slug, ids, err)
	}
	back := backTo(c, templates.ReviewURL(slug, "", 1))
	v := templates.MergeView{Project: choice.Project, Rules: choice.Rules, Back: back, Keep: c.FormValue("keep"),
		Form: templates.RuleForm{Text: strings.TrimSpace(c.FormValue("text")), Reason: strings.TrimSpace(c.FormValue("reason")), Errors: templates.FieldErrors{}}}
	status := http.StatusOK
	if c.FormValue("confirm") != "" {
		keep, _ := strconv.ParseInt(v.Keep, 10, 64)
		_, other, err := s.app.Reviews.Merge(ctx, actorOf(ctx), slug, app.Merge{IDs: ids, Keep: keep, Text: v.Form.Text, Reason: v.Form.Reason})
		if err == nil {
			return s.done(c, back, tr(c, "review.flash.merged", "ID", other, "Into", keep))
		}
		fe, ok := app.AsFieldErrors(err)
		if !ok {
			return err
		}
		v.Form.Errors = templates.FieldErrors(fe)
		status = http.StatusUnprocessableEntity
	}
	meta, err := s.meta(c, "Merge proposals", "review")
	if err != nil {
		return err
	}
	return render(c, status, templates.MergePage(meta, v))
}

// handleReviewRejectClass rejects the class of the chosen proposal with a
// reason: its proposals now, the heartbeat's next ones until lifted.
func (s *Server) handleReviewRejectClass(c echo.Context) error {
	ctx := c.Request().Context()
	slug, ids, err := bulkForm(c)
	if err != nil {
		return err
	}
	n, err := s.app.Reviews.RejectClass(ctx, actorOf(ctx), slug, ids, governance.ClassReason(c.FormValue("class_reason")))
	if err != nil {
		return s.bulkProblem(c, slug, ids, err)
	}
	return s.done(c, backTo(c, templates.ReviewURL(slug, "", 1)), trn(c, "review.flash.class_rejected", n))
}

// handleReviewLiftClass lifts a standing class rejection.
func (s *Server) handleReviewLiftClass(c echo.Context) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return governance.Errorf(governance.ECONFLICT, "No standing class rejection %s.", c.Param("id"))
	}
	if err := s.app.Reviews.LiftClass(ctx, actorOf(ctx), slug, id); err != nil {
		return err
	}
	return s.done(c, backTo(c, templates.ReviewURL(slug, "", 1)), tr(c, "review.flash.class_lifted"))
}
