package app

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// RuleStore reads and changes rules.
type RuleStore interface {
	FindRuleByID(ctx context.Context, id int64) (*governance.Rule, error)
	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
	SimilarRules(ctx context.Context, f governance.RuleFilter, q governance.SimilarQuery) ([]governance.RuleHit, error)
	FindRuleVersions(ctx context.Context, ruleID int64) ([]*governance.RuleVersion, error)
	FindRuleEvidence(ctx context.Context, ruleID int64) ([]*governance.EvidenceLink, error)
	FindAudit(ctx context.Context, f governance.AuditFilter) ([]*governance.AuditEntry, int, error)
	FindRecallTraces(ctx context.Context, f governance.RecallTraceFilter) ([]*governance.RecallTraceInfo, int, error)
	EditRule(ctx context.Context, actor string, id int64, e governance.RuleEdit) (*governance.Rule, error)
	ProposeMemory(ctx context.Context, actor string, n governance.NewMemory) (*governance.Rule, error)
	DemoteRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	DemoteRuleToCandidates(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	RestoreRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	SupersedeRule(ctx context.Context, actor string, oldID, newID int64, reason string) (*governance.Rule, error)
	SetRulePaused(ctx context.Context, actor string, id int64, paused bool, reason string) (*governance.Rule, error)
	SetRuleExpiry(ctx context.Context, actor string, id int64, at *time.Time, reason string) (*governance.Rule, error)
	UndoRule(ctx context.Context, actor string, id, auditID int64, anyActor bool) (*governance.Rule, error)
	FindRuleChecks(ctx context.Context, ruleIDs []int64) (map[int64]string, error)
	SetRuleChecks(ctx context.Context, ruleID int64, checks, actor string) error
	CurrentTime() time.Time
	FindRuleOutcomes(ctx context.Context, ruleIDs []int64) (map[int64]governance.OutcomeCounts, error)
	FindOutcomes(ctx context.Context, f governance.OutcomeFilter) ([]*governance.OutcomeReport, int, error)
	FindOutcomeReviews(ctx context.Context, f governance.OutcomeReviewFilter) ([]*governance.OutcomeReview, int, error)
}

// Rules are the use cases about one rule or a list of them. Every change
// is for the rule project's reviewers and admins (GetReviewed); the store
// checks the rule's lifecycle ((*governance.Rule).Allow).
type Rules struct {
	store    RuleStore
	projects Projects
	// embedder, when set, adds the rules close in meaning to a search to
	// the reviewers' rules list (RuleList.Similar).
	embedder governance.Embedder
}

// Get loads a rule and the actor's scope in its project: ENOTFOUND for an
// unknown rule, EFORBIDDEN without a role in the project.
func (rs Rules) Get(ctx context.Context, actor governance.Actor, id int64) (*governance.Rule, Scope, error) {
	r, err := rs.store.FindRuleByID(ctx, id)
	if err != nil {
		return nil, Scope{}, err
	}
	sc, err := rs.projects.ScopeByID(ctx, actor, r.ProjectID)
	if err != nil {
		return nil, Scope{}, err
	}
	return r, sc, nil
}

// GetReviewed is Get for the project's reviewers and admins only.
func (rs Rules) GetReviewed(ctx context.Context, actor governance.Actor, id int64) (*governance.Rule, Scope, error) {
	r, sc, err := rs.Get(ctx, actor, id)
	if err != nil {
		return nil, Scope{}, err
	}
	if err := governance.Can(actor, governance.ActReview, governance.InProject(sc.Project)); err != nil {
		return nil, Scope{}, err
	}
	return r, sc, nil
}

// RuleListStore lists rules (the part of RuleStore that recall and export
// need too).
type RuleListStore interface {
	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
}

// RuleListQuery is a rules list as a surface asks for it: a filter as text
// (parsed by governance.ParseRuleFilter, the one parser) with that
// surface's defaults, and where to look.
type RuleListQuery struct {
	// ProjectID, when set, lists that one project's rules for those who may
	// recall from it (its API tokens with the recall scope, its reviewers
	// and admins): the agent API and MCP.
	ProjectID int64
	// Project is a project's slug the actor reviews; with neither field
	// set the list covers every project the actor reviews (the rules page).
	Project string
	Filter  governance.RuleFilterInput
	// Defaults are what the surface means by an empty field of Filter
	// (ReviewRuleDefaults, AgentRuleDefaults); Now is filled in.
	Defaults governance.RuleFilterDefaults
	// SearchCountCap, for a full-text query, stops the count that many
	// rows past the page (governance.RuleFilter.CountCap).
	SearchCountCap int
	// Agent says the list goes to an agent (the API and MCP): each rule's
	// text is as governance.RuleTextForAgent gives it, and a rule the
	// write gate blocks is left out of the page (and of Total).
	Agent bool
}

// MaxProjectRules bounds one page of an agent's rules list.
const MaxProjectRules = 500

// AgentRuleDefaults are the agent surfaces' defaults (GET /api/v1/rules,
// the MCP tool list_rules): active rules only (an agent never reads a
// proposed or rejected rule's text), 100 a page, at most MaxProjectRules.
var AgentRuleDefaults = governance.RuleFilterDefaults{
	Statuses: []governance.RuleStatus{governance.RuleActive}, Only: []governance.RuleStatus{governance.RuleActive},
	Limit: 100, MaxLimit: MaxProjectRules}

// ReviewRuleDefaults are the rules page's defaults: every status but
// forgotten (tombstones on request), limit rules a page.
func ReviewRuleDefaults(limit int) governance.RuleFilterDefaults {
	return governance.RuleFilterDefaults{Statuses: governance.ListableRuleStatuses, Limit: limit, Forgotten: true}
}

// RuleList is a page of a rules list.
type RuleList struct {
	// Rules is never nil.
	Rules []*governance.Rule
	Total int
	// Filter is the filter as applied (its CountCap says whether Total is
	// a lower bound).
	Filter governance.RuleFilter
	// Projects are the projects the actor reviews, in the store's order
	// (without q.ProjectID only).
	Projects []*governance.Project
	// Outcomes are the page's rules' outcome figures (reviewers' lists
	// only; rules without reports are absent).
	Outcomes map[int64]governance.OutcomeCounts
	// Similar are, on the first page of a reviewers' search with an
	// embeddings model configured, the rules close in meaning to the
	// search that are not on the page (best first).
	Similar []governance.RuleHit
	// SimilarFailed says the search could not be embedded (the endpoint
	// failed or timed out), so only its words were matched.
	SimilarFailed bool
}

// searchEmbedTimeout bounds the embedding of a rules search: past it the
// list is the words' alone.
const searchEmbedTimeout = 5 * time.Second

// List is the one rules-list use case of the rules page, GET /api/v1/rules
// and the MCP tool list_rules. With q.ProjectID it lists that project's
// rules for those who may recall from it; otherwise the rules of the
// projects the actor reviews (reviewers of any project only; naming a
// project the actor does not review is EFORBIDDEN).
func (rs Rules) List(ctx context.Context, actor governance.Actor, q RuleListQuery) (*RuleList, error) {
	out := &RuleList{}
	var project *int64
	var ids []int64
	if q.ProjectID != 0 {
		if err := governance.Can(actor, governance.ActRecall, governance.Object{ProjectID: q.ProjectID}); err != nil {
			return nil, err
		}
		project = &q.ProjectID
	} else {
		if err := governance.Can(actor, governance.ActReviewAny, governance.Object{}); err != nil {
			return nil, err
		}
		scopes, err := rs.projects.Visible(ctx, actor)
		if err != nil {
			return nil, err
		}
		ids = []int64{}
		for _, sc := range scopes {
			if sc.Reviewer() {
				out.Projects = append(out.Projects, sc.Project)
				ids = append(ids, sc.Project.ID)
			}
		}
		if actor.Account != nil && actor.Account.IsAdmin {
			ids = nil // every project: no need to list them
		}
		if q.Project != "" {
			sc, err := rs.projects.ReviewScope(ctx, actor, q.Project)
			if err != nil {
				return nil, err
			}
			project = &sc.Project.ID
		}
	}
	def := q.Defaults
	if def.Now.IsZero() {
		def.Now = rs.store.CurrentTime()
	}
	f, err := governance.ParseRuleFilter(q.Filter, def)
	if err != nil {
		return nil, err
	}
	f.ProjectID, f.ProjectIDs = project, ids
	if f.Query != "" {
		f.CountCap = q.SearchCountCap
	}
	if out.Rules, out.Total, err = rs.store.FindRules(ctx, f); err != nil {
		return nil, err
	}
	if q.Agent {
		gated := make([]*governance.Rule, 0, len(out.Rules))
		for _, r := range out.Rules {
			text, ok := governance.RuleTextForAgent(r)
			if !ok {
				out.Total--
				continue
			}
			cp := *r
			cp.Text = text
			gated = append(gated, &cp)
		}
		out.Rules = gated
	}
	if out.Rules == nil {
		out.Rules = []*governance.Rule{}
	}
	if !q.Agent && q.ProjectID == 0 {
		ids := make([]int64, len(out.Rules))
		for i, r := range out.Rules {
			ids[i] = r.ID
		}
		if out.Outcomes, err = rs.store.FindRuleOutcomes(ctx, ids); err != nil {
			return nil, err
		}
		if f.Query != "" && f.Offset == 0 && rs.embedder != nil {
			if err := rs.similar(ctx, f, out); err != nil {
				return nil, err
			}
		}
	}
	out.Filter = f
	return out, nil
}

// similar fills out.Similar: the rules f selects, but for its words, that
// are closest in meaning to f.Query and not already on the page. A failed
// embedding is no error (out.SimilarFailed); only the end of ctx is.
func (rs Rules) similar(ctx context.Context, f governance.RuleFilter, out *RuleList) error {
	ectx, cancel := context.WithTimeout(ctx, searchEmbedTimeout)
	vecs, err := rs.embedder.Embed(ectx, []string{f.Query})
	cancel()
	var vec []float32
	if err == nil && len(vecs) == 1 {
		vec = governance.Normalized(vecs[0])
	}
	if vec == nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		out.SimilarFailed = true
		return nil
	}
	hits, err := rs.store.SimilarRules(ctx, f, governance.SimilarQuery{Model: rs.embedder.EmbedModel(), Vector: vec,
		K: governance.SimilarRulesK + len(out.Rules), MinCosine: governance.MinSearchCosine})
	if err != nil {
		return err
	}
	onPage := make(map[int64]bool, len(out.Rules))
	for _, r := range out.Rules {
		onPage[r.ID] = true
	}
	for _, h := range hits {
		if !onPage[h.Rule.ID] && len(out.Similar) < governance.SimilarRulesK {
			out.Similar = append(out.Similar, h)
		}
	}
	return nil
}

// RuleDetail is everything the rule page shows about one rule.
type RuleDetail struct {
	Rule  *governance.Rule
	Scope Scope
	// Versions, oldest first.
	Versions []*governance.RuleVersion
	Evidence []*governance.EvidenceLink
	// Replaces and ReplacedBy are the rules this one supersedes and is
	// superseded by, when there are.
	Replaces, ReplacedBy *governance.Rule
	// MergedInto is the proposal this one was merged into (it is then
	// rejected, its candidates moved there); Evidence is that rule's.
	MergedInto *governance.Rule
	// Replacements are the rules that may replace this one, when it can
	// be superseded: of its project and scope, active or proposed, and
	// replacing no other rule.
	Replacements []*governance.Rule
	// Audit is the rule's last audit rows, newest first.
	Audit []*governance.AuditEntry
	// Undo is the undo of the rule's last action the actor may take now
	// (nil: none).
	Undo *governance.RuleUndo
	// Traces are the last recalls that considered the rule.
	Traces []*governance.RecallTraceInfo
	// Outcomes are what agents reported the rule did, with the latest
	// reports (each naming its recall); Reviews the outcome reviews about
	// it (as the rule reviewed or as its replacement), newest first.
	Outcomes governance.OutcomeCounts
	Reports  []*governance.OutcomeReport
	Reviews  []*governance.OutcomeReview
}

// Detail loads a rule with its history, evidence, links, audit rows and
// recall traces: the project's reviewers and admins only.
func (rs Rules) Detail(ctx context.Context, actor governance.Actor, id int64) (*RuleDetail, error) {
	r, sc, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	d := &RuleDetail{Rule: r, Scope: sc}
	if d.Versions, err = rs.store.FindRuleVersions(ctx, r.ID); err != nil {
		return nil, err
	}
	if d.Evidence, err = rs.store.FindRuleEvidence(ctx, r.ID); err != nil {
		return nil, err
	}
	for _, link := range []struct {
		id  int64
		dst **governance.Rule
	}{{r.Supersedes, &d.Replaces}, {r.SupersededBy, &d.ReplacedBy}} {
		if link.id == 0 {
			continue
		}
		if *link.dst, err = rs.store.FindRuleByID(ctx, link.id); err != nil {
			return nil, err
		}
	}
	if d.Replacements, err = rs.replacements(ctx, r); err != nil {
		return nil, err
	}
	if d.Audit, _, err = rs.store.FindAudit(ctx, governance.AuditFilter{ObjectType: "rule", ObjectID: strconv.FormatInt(r.ID, 10), Limit: 50}); err != nil {
		return nil, err
	}
	if len(d.Audit) > 0 {
		if u := governance.UndoOf(d.Audit[0], rs.store.CurrentTime()); undoAllowed(actor, sc, u) {
			d.Undo = u
		}
	}
	if into := mergedInto(r, d.Audit); into != 0 {
		if d.MergedInto, err = rs.store.FindRuleByID(ctx, into); err != nil {
			return nil, err
		}
		if d.Evidence, err = rs.store.FindRuleEvidence(ctx, into); err != nil {
			return nil, err
		}
	}
	if d.Traces, _, err = rs.store.FindRecallTraces(ctx, governance.RecallTraceFilter{ProjectID: r.ProjectID, RuleID: r.ID, Limit: 10}); err != nil {
		return nil, err
	}
	counts, err := rs.store.FindRuleOutcomes(ctx, []int64{r.ID})
	if err != nil {
		return nil, err
	}
	d.Outcomes = counts[r.ID]
	if d.Reports, _, err = rs.store.FindOutcomes(ctx, governance.OutcomeFilter{RuleID: r.ID, Limit: 10}); err != nil {
		return nil, err
	}
	if d.Reviews, _, err = rs.store.FindOutcomeReviews(ctx, governance.OutcomeReviewFilter{RuleID: r.ID, Limit: 10}); err != nil {
		return nil, err
	}
	return d, nil
}

// mergedInto is the rule a rejected proposal was merged into (its
// "rule.merged_into" audit row, newest first in audit), or 0.
func mergedInto(r *governance.Rule, audit []*governance.AuditEntry) int64 {
	if r.Status != governance.RuleRejected {
		return 0
	}
	for _, a := range audit {
		switch a.Action {
		case "rule.merged_into":
			var d struct {
				Into int64 `json:"into"`
			}
			if json.Unmarshal([]byte(a.Details), &d) == nil {
				return d.Into
			}
			return 0
		case "rule.restore", "rule.reject":
			return 0 // restored or rejected again since
		}
	}
	return 0
}

// maxReplacements bounds the rules a supersede form offers.
const maxReplacements = 200

// replacements lists the rules that may replace r (RuleDetail.Replacements),
// newest first; none when r cannot be superseded.
func (rs Rules) replacements(ctx context.Context, r *governance.Rule) ([]*governance.Rule, error) {
	if !governance.RuleAllows(r.Status, governance.RuleSupersede) {
		return nil, nil
	}
	subject := r.SubjectID
	list, _, err := rs.store.FindRules(ctx, governance.RuleFilter{ProjectID: &r.ProjectID, SubjectID: &subject,
		Statuses: []governance.RuleStatus{governance.RuleActive, governance.RuleProposed}, Limit: maxReplacements + 1})
	if err != nil {
		return nil, err
	}
	var out []*governance.Rule
	for _, c := range list {
		if c.ID != r.ID && (c.Supersedes == 0 || c.Supersedes == r.ID) && len(out) < maxReplacements {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *governance.Rule) int { return cmp.Compare(b.ID, a.ID) })
	return out, nil
}

// Evidence loads a rule's evidence chain: the project's reviewers and
// admins only.
func (rs Rules) Evidence(ctx context.Context, actor governance.Actor, id int64) (*governance.Rule, []*governance.EvidenceLink, error) {
	r, _, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, nil, err
	}
	evidence, err := rs.store.FindRuleEvidence(ctx, r.ID)
	if err != nil {
		return nil, nil, err
	}
	return r, evidence, nil
}

// Edit writes a new version of a rule. The text and a reason are asked
// (FieldErrors "text", "reason"); a kind left empty stays.
func (rs Rules) Edit(ctx context.Context, actor governance.Actor, id int64, e governance.RuleEdit) (*governance.Rule, error) {
	r, _, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	e.Text, e.Reason = strings.TrimSpace(e.Text), strings.TrimSpace(e.Reason)
	fe := FieldErrors{}
	if e.Text == "" {
		fe["text"] = governance.Say("The rule text cannot be empty.")
	}
	if e.Reason == "" {
		fe["reason"] = governance.Say("Say why the rule changes.")
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	after, err := rs.store.EditRule(ctx, actor.Name(), r.ID, e)
	return after, onField(err, "text")
}

// Confirmation is what a destructive action on a rule asks: a reason, and
// that the reviewer confirmed it.
type Confirmation struct {
	Reason    string
	Confirmed bool
}

func (c Confirmation) check(fe FieldErrors) {
	if strings.TrimSpace(c.Reason) == "" {
		fe["reason"] = governance.Say("Give a reason.")
	}
	if !c.Confirmed {
		fe["confirm"] = governance.Say("Tick the box to confirm.")
	}
}

// Demote moves a rule one step down: active → stale → archived.
func (rs Rules) Demote(ctx context.Context, actor governance.Actor, id int64, c Confirmation) (*governance.Rule, error) {
	return rs.confirmed(ctx, actor, id, c, rs.store.DemoteRule)
}

// ToCandidates archives a rule and returns its candidates to the held
// queue.
func (rs Rules) ToCandidates(ctx context.Context, actor governance.Actor, id int64, c Confirmation) (*governance.Rule, error) {
	return rs.confirmed(ctx, actor, id, c, rs.store.DemoteRuleToCandidates)
}

// confirmed runs a step the reviewer must confirm with a reason on rule
// id: the project's reviewers and admins only.
func (rs Rules) confirmed(ctx context.Context, actor governance.Actor, id int64, c Confirmation,
	step func(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)) (*governance.Rule, error) {
	r, _, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	fe := FieldErrors{}
	if c.check(fe); len(fe) > 0 {
		return nil, fe
	}
	return step(ctx, actor.Name(), r.ID, strings.TrimSpace(c.Reason))
}

// Restore brings a stale, archived or rejected rule back.
func (rs Rules) Restore(ctx context.Context, actor governance.Actor, id int64, reason string) (*governance.Rule, error) {
	r, _, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	return rs.store.RestoreRule(ctx, actor.Name(), r.ID, strings.TrimSpace(reason))
}

// Supersede links the newer rule that replaces this one (FieldErrors
// "newer" for a missing or unacceptable one).
func (rs Rules) Supersede(ctx context.Context, actor governance.Actor, id, newer int64, c Confirmation) (*governance.Rule, error) {
	r, _, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	fe := FieldErrors{}
	c.check(fe)
	if newer <= 0 {
		fe["newer"] = governance.Say("Choose the newer rule.")
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	after, err := rs.store.SupersedeRule(ctx, actor.Name(), r.ID, newer, strings.TrimSpace(c.Reason))
	return after, onField(err, "newer")
}

// SetPaused takes a rule out of recall (paused) or puts it back.
func (rs Rules) SetPaused(ctx context.Context, actor governance.Actor, id int64, paused bool, reason string) (*governance.Rule, error) {
	r, _, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	return rs.store.SetRulePaused(ctx, actor.Name(), r.ID, paused, strings.TrimSpace(reason))
}

// SetExpiry sets when a rule expires, or clears it (nil). The store's
// refusal of a date is FieldErrors "expires".
func (rs Rules) SetExpiry(ctx context.Context, actor governance.Actor, id int64, at *time.Time, reason string) (*governance.Rule, error) {
	r, _, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	after, err := rs.store.SetRuleExpiry(ctx, actor.Name(), r.ID, at, strings.TrimSpace(reason))
	return after, onField(err, "expires")
}

// UndoOffer is the undo of rule id's last lifecycle action the actor may
// take now (nil: none): the action is undoable, inside
// governance.RuleUndoWindow, and the actor's own or the actor is an admin
// of the project. The project's reviewers and admins only.
func (rs Rules) UndoOffer(ctx context.Context, actor governance.Actor, id int64) (*governance.RuleUndo, error) {
	u, allowed, err := rs.lastUndo(ctx, actor, id)
	if err != nil || !allowed {
		return nil, err
	}
	return u, nil
}

// lastUndo is the undo rule id's latest audit row offers now (nil: none)
// and whether the actor may take it.
func (rs Rules) lastUndo(ctx context.Context, actor governance.Actor, id int64) (*governance.RuleUndo, bool, error) {
	r, sc, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, false, err
	}
	rows, _, err := rs.store.FindAudit(ctx, governance.AuditFilter{ObjectType: "rule", ObjectID: strconv.FormatInt(r.ID, 10), Limit: 1})
	if err != nil || len(rows) == 0 {
		return nil, false, err
	}
	u := governance.UndoOf(rows[0], rs.store.CurrentTime())
	return u, undoAllowed(actor, sc, u), nil
}

// undoAllowed: the actor may take undo u (not nil) of a rule in scope sc.
func undoAllowed(actor governance.Actor, sc Scope, u *governance.RuleUndo) bool {
	return u != nil && (u.Actor == actor.Name() || canUndoAny(actor, sc))
}

// canUndoAny: an admin of the project undoes any reviewer's action.
func canUndoAny(actor governance.Actor, sc Scope) bool {
	return governance.Can(actor, governance.ActAdminister, governance.InProject(sc.Project)) == nil
}

// Undo puts rule id back as it was before the action of audit row
// auditID (its last): for the reviewer who took it, or an admin of the
// project, within governance.RuleUndoWindow. A later change, an action
// that cannot be undone or a closed window is ECONFLICT; someone else's
// action EFORBIDDEN.
func (rs Rules) Undo(ctx context.Context, actor governance.Actor, id, auditID int64) (*governance.Rule, error) {
	r, sc, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	if auditID <= 0 {
		return nil, governance.Errorf(governance.EINVALID, "Name the action to undo.")
	}
	return rs.store.UndoRule(ctx, actor.Name(), r.ID, auditID, canUndoAny(actor, sc))
}

// MaxUndoMany bounds the rules one undo of a bulk action reverts (a bulk
// action on more rules offers none).
const MaxUndoMany = 50

// UndoOffers are the undos of the last actions on rules ids that the
// actor may take now, in the order of ids; a rule without one is left
// out.
func (rs Rules) UndoOffers(ctx context.Context, actor governance.Actor, ids []int64) ([]*governance.RuleUndo, error) {
	var out []*governance.RuleUndo
	for _, id := range ids {
		u, err := rs.UndoOffer(ctx, actor, id)
		if err != nil {
			return nil, err
		}
		if u != nil {
			out = append(out, u)
		}
	}
	return out, nil
}

// UndoMany undoes the actions of a bulk approve or reject: each ref names
// a rule and the audit row of its last action. Every one must still be
// offered to the actor (UndoOffer), or nothing is undone: a later change
// or a closed window is ECONFLICT, someone else's action EFORBIDDEN. Then
// each is undone in turn as Undo does. It
// returns how many were undone (fewer, with the error, when a rule
// changed in between).
func (rs Rules) UndoMany(ctx context.Context, actor governance.Actor, refs []governance.RuleUndo) (int, error) {
	if err := governance.Can(actor, governance.ActReviewAny, governance.Object{}); err != nil {
		return 0, err
	}
	switch {
	case len(refs) == 0:
		return 0, governance.Errorf(governance.EINVALID, "Name the actions to undo.")
	case len(refs) > MaxUndoMany:
		return 0, governance.Errorf(governance.EINVALID, "At most %d actions are undone at once.", MaxUndoMany)
	}
	for _, ref := range refs {
		u, allowed, err := rs.lastUndo(ctx, actor, ref.RuleID)
		switch {
		case err != nil:
			return 0, err
		case u == nil || u.AuditID != ref.AuditID:
			return 0, governance.Errorf(governance.ECONFLICT, "Rule #%d changed since, or its action can no longer be undone: nothing was undone.", ref.RuleID)
		case !allowed:
			return 0, governance.Errorf(governance.EFORBIDDEN, "Only the reviewer who took the last action on rule %d, or an admin, can undo it.", ref.RuleID)
		}
	}
	for i, ref := range refs {
		if _, err := rs.Undo(ctx, actor, ref.RuleID, ref.AuditID); err != nil {
			return i, err
		}
	}
	return len(refs), nil
}

// RuleChecks are a rule's code checks, which A/B evals run against model
// answers.
type RuleChecks struct {
	Rule   *governance.Rule
	Checks []*evals.Check
	// Invalid is why the stored checks no longer parse (they were edited
	// by hand); adding a check replaces them.
	Invalid error
}

var errChecksReviewersOnly = governance.Errorf(governance.EFORBIDDEN, "Only reviewers of the rule's project edit its checks.")

// checked loads a rule whose checks the actor may edit, and its checks.
func (rs Rules) checked(ctx context.Context, actor governance.Actor, id int64) (*RuleChecks, error) {
	r, _, err := rs.GetReviewed(ctx, actor, id)
	if err != nil {
		if governance.ErrorCode(err) == governance.EFORBIDDEN {
			return nil, errChecksReviewersOnly
		}
		return nil, err
	}
	stored, err := rs.store.FindRuleChecks(ctx, []int64{r.ID})
	if err != nil {
		return nil, err
	}
	rc := &RuleChecks{Rule: r}
	rc.Checks, rc.Invalid = evals.ParseChecks(stored[r.ID])
	return rc, nil
}

// Checks loads a rule's code checks: the project's reviewers and admins.
func (rs Rules) Checks(ctx context.Context, actor governance.Actor, id int64) (*RuleChecks, error) {
	return rs.checked(ctx, actor, id)
}

// AddCheck validates a code check and adds it to a rule's (an invalid
// check is EINVALID; invalid stored checks are replaced).
func (rs Rules) AddCheck(ctx context.Context, actor governance.Actor, id int64, ch *evals.Check) error {
	rc, err := rs.checked(ctx, actor, id)
	if err != nil {
		return err
	}
	b, err := json.Marshal([]*evals.Check{ch})
	if err != nil {
		return governance.Errorf(governance.EINVALID, "Unreadable check.")
	}
	if _, err := evals.ParseChecks(string(b)); err != nil {
		return governance.Errorf(governance.EINVALID, "%s", strings.TrimPrefix(err.Error(), "check 1: "))
	}
	return rs.saveChecks(ctx, actor, rc.Rule, append(rc.Checks, ch))
}

// RemoveCheck removes the check at index (0-based) from a rule's and
// returns it.
func (rs Rules) RemoveCheck(ctx context.Context, actor governance.Actor, id int64, index int) (*evals.Check, error) {
	rc, err := rs.checked(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	if rc.Invalid != nil {
		return nil, governance.Errorf(governance.ECONFLICT, "The stored checks are invalid; add a check to replace them.")
	}
	if index < 0 || index >= len(rc.Checks) {
		return nil, governance.Errorf(governance.EINVALID, "No such check; reload the page.")
	}
	removed := rc.Checks[index]
	checks := append(rc.Checks[:index:index], rc.Checks[index+1:]...)
	if err := rs.saveChecks(ctx, actor, rc.Rule, checks); err != nil {
		return nil, err
	}
	return removed, nil
}

func (rs Rules) saveChecks(ctx context.Context, actor governance.Actor, r *governance.Rule, checks []*evals.Check) error {
	if checks == nil {
		checks = []*evals.Check{}
	}
	b, err := json.Marshal(checks)
	if err != nil {
		return err
	}
	return rs.store.SetRuleChecks(ctx, r.ID, string(b), "account:"+actor.Name())
}
