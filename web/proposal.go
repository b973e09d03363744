package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// The reviewer's decisions on one proposal, from the review queue or the
// rule page: approve (as proposed or edited), reject, hold, split a
// candidate out, and its evidence chain.

// reshow renders the page a rule form came from again with status 422 and
// the form's values and the use case's field errors — the review queue
// when the proposal is on the queue's page, else the rule page — and
// returns any error that is not app.FieldErrors.
func (s *Server) reshow(c echo.Context, id int64, back string, form templates.RuleForm, err error) error {
	fe, ok := app.AsFieldErrors(err)
	if !ok {
		return err
	}
	form.Errors = templates.FieldErrors(fe)
	u, perr := url.Parse(back)
	if perr == nil && strings.HasPrefix(u.Path, "/projects/") && strings.HasSuffix(u.Path, "/review") {
		slug := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/projects/"), "/review")
		page, _ := strconv.Atoi(u.Query().Get("page"))
		v, _, err := s.reviewView(c, slug, reviewTab(u.Query().Get("tab")), max(page, 1), "")
		switch governance.ErrorCode(err) {
		case "":
			for i := range v.Proposals {
				if v.Proposals[i].Rule.ID == id {
					v.Proposals[i].Form = form
					return s.renderReview(c, http.StatusUnprocessableEntity, v)
				}
			}
		case governance.EFORBIDDEN, governance.ENOTFOUND, governance.EINVALID:
			// Not a queue of the rule's project: the rule page shows the form.
		default:
			return err
		}
	}
	return s.renderRule(c, http.StatusUnprocessableEntity, id, form)
}

// handleRuleApprove approves a proposal, with edits when the form says so.
func (s *Server) handleRuleApprove(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	back := backTo(c, templates.RuleURL(id))
	form := templates.RuleForm{Action: "approve_edit", Text: strings.TrimSpace(c.FormValue("text")),
		Kind: c.FormValue("kind"), Reason: strings.TrimSpace(c.FormValue("reason"))}
	after, edited, err := s.app.Reviews.Approve(ctx, actorOf(ctx), id, app.Approval{Edited: c.FormValue("edited") != "",
		Text: form.Text, Kind: governance.MemoryType(form.Kind), Reason: form.Reason})
	if err != nil {
		return s.reshow(c, id, back, form, err)
	}
	msg := tr(c, "review.flash.rule_approved", "ID", id)
	if edited {
		msg = tr(c, "review.flash.rule_approved_edited", "ID", id)
	}
	if after.Supersedes != 0 {
		// The rule it replaced: what became of it.
		if old, _, err := s.app.Rules.Get(ctx, actorOf(ctx), after.Supersedes); err == nil && old.SupersededBy == after.ID {
			msg += " " + tr(c, "review.flash.replaced", "ID", old.ID)
		}
	}
	return s.doneUndo(c, back, msg, id)
}

// handleRuleReject rejects a proposal; without a reason the page comes back with 422.
func (s *Server) handleRuleReject(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	back := backTo(c, templates.RuleURL(id))
	if _, err := s.app.Reviews.Reject(ctx, actorOf(ctx), id, c.FormValue("reason")); err != nil {
		return s.reshow(c, id, back, templates.RuleForm{Action: "reject"}, err)
	}
	return s.doneUndo(c, back, tr(c, "review.flash.proposal_rejected", "ID", id), id)
}

// handleRuleHold sends a proposal back to the held candidates.
func (s *Server) handleRuleHold(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	if _, err := s.app.Reviews.Hold(ctx, actorOf(ctx), id, c.FormValue("reason")); err != nil {
		return err
	}
	return s.doneUndo(c, backTo(c, templates.RuleURL(id)), tr(c, "review.flash.held", "ID", id), id)
}

// handleRuleEvidence is a rule's evidence chain as a fragment, for a
// proposal whose chain is too long to show open in the queue.
func (s *Server) handleRuleEvidence(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	r, evidence, err := s.app.Rules.Evidence(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	if !isHTMX(c) {
		return c.Redirect(http.StatusSeeOther, templates.RuleURL(r.ID))
	}
	opt := templates.RuleEvidenceOptions(r.ID, governance.RuleAllows(r.Status, governance.RuleSplit), csrfToken(c), backTo(c, templates.RuleURL(r.ID)))
	return render(c, http.StatusOK, templates.EvidenceChain(evidence, opt))
}

// handleRuleSplit takes one candidate out of a rule's evidence.
func (s *Server) handleRuleSplit(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	cand, err := strconv.ParseInt(c.FormValue("candidate"), 10, 64)
	if err != nil {
		cand = 0 // the use case asks for one
	}
	if _, err := s.app.Reviews.Split(ctx, actorOf(ctx), id, cand, c.FormValue("reason")); err != nil {
		return err
	}
	return s.done(c, backTo(c, templates.RuleURL(id)), tr(c, "review.flash.split", "Candidate", cand, "ID", id))
}
