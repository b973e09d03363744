package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// mySubjects are the (project, subject) pairs the account is an end user of.
func (s *Server) mySubjects(ctx context.Context) ([]subjectRef, error) {
	scopes, err := s.visibleScopes(ctx)
	if err != nil {
		return nil, err
	}
	a := auth.UserFrom(ctx)
	var out []subjectRef
	for _, sc := range scopes {
		// Admins and reviewers see whole projects; "my memories" is about the
		// subject an account is linked to as a member.
		m, ok := a.MembershipFor(sc.Project.ID)
		if ok && m.Role == governance.ProjectMember && m.SubjectID != "" {
			out = append(out, subjectRef{Project: sc.Project, SubjectID: m.SubjectID})
		}
	}
	return out, nil
}

// liveRuleStatuses are every status but forgotten.
var liveRuleStatuses = governance.ListableRuleStatuses

// handleMeShow is "My memories": rules and candidates about the viewer,
// by project, each with why it is remembered.
func (s *Server) handleMeShow(c echo.Context) error {
	ctx := c.Request().Context()
	refs, err := s.mySubjects(ctx)
	if err != nil {
		return err
	}
	var v templates.MeView
	for _, ref := range refs {
		g, err := s.meProject(ctx, ref)
		if err != nil {
			return err
		}
		v.Groups = append(v.Groups, g)
	}
	meta, err := s.meta(c, "My memories", "me")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.MePage(meta, v))
}

func (s *Server) meProject(ctx context.Context, ref subjectRef) (templates.MeProject, error) {
	g := templates.MeProject{Project: ref.Project, SubjectID: ref.SubjectID}
	subject := ref.SubjectID
	rules, _, err := s.store.FindRules(ctx, governance.RuleFilter{ProjectID: &ref.Project.ID, SubjectID: &subject, Statuses: liveRuleStatuses})
	if err != nil {
		return g, err
	}
	ids := make([]int64, len(rules))
	mine := map[int64]bool{}
	for i, r := range rules {
		ids[i] = r.ID
		mine[r.ID] = true
	}
	evidence, err := s.store.FindEvidenceByRules(ctx, ids)
	if err != nil {
		return g, err
	}
	for _, r := range rules {
		g.Rules = append(g.Rules, templates.MeRule{Rule: r, Evidence: ownLines(evidence[r.ID], subject)})
	}
	cands, _, err := s.store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: ref.Project.ID, SubjectID: &subject})
	if err != nil {
		return g, err
	}
	var loose []*governance.Candidate
	for _, c := range cands {
		if c.RuleID == 0 || !mine[c.RuleID] {
			loose = append(loose, c)
		}
	}
	links, err := s.store.FindCandidateEvidence(ctx, loose)
	if err != nil {
		return g, err
	}
	g.Candidates = ownLines(links, subject)
	return g, nil
}

// ownLines keeps only the subject's own events in an evidence chain, so a
// member never sees another person's lines.
func ownLines(links []*governance.EvidenceLink, subject string) []*governance.EvidenceLink {
	out := make([]*governance.EvidenceLink, 0, len(links))
	for _, l := range links {
		if l.Candidate.SubjectID != subject {
			continue
		}
		own := &governance.EvidenceLink{Candidate: l.Candidate}
		for _, e := range l.Events {
			if e.SubjectID == subject {
				own.Events = append(own.Events, e)
			}
		}
		out = append(out, own)
	}
	return out
}

// myDataSubject is what "download my data" holds for one project; its
// events follow, streamed page by page.
type myDataSubject struct {
	Project    string                  `json:"project"`
	SubjectID  string                  `json:"subject_id"`
	Rules      []*governance.Rule      `json:"rules"`
	Candidates []*governance.Candidate `json:"candidates"`
}

const exportEventPage = 1000

// handleMeExport downloads everything stored about the viewer as JSON: their
// events, candidates and rules, by project. Events are streamed.
func (s *Server) handleMeExport(c echo.Context) error {
	ctx := c.Request().Context()
	refs, err := s.mySubjects(ctx)
	if err != nil {
		return err
	}
	subjects := make([]myDataSubject, 0, len(refs))
	for _, ref := range refs {
		subject := ref.SubjectID
		rules, _, err := s.store.FindRules(ctx, governance.RuleFilter{ProjectID: &ref.Project.ID, SubjectID: &subject, Statuses: liveRuleStatuses})
		if err != nil {
			return err
		}
		cands, _, err := s.store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: ref.Project.ID, SubjectID: &subject})
		if err != nil {
			return err
		}
		subjects = append(subjects, myDataSubject{Project: ref.Project.Slug, SubjectID: subject,
			Rules: nonNilSlice(rules), Candidates: nonNilSlice(cands)})
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, echo.MIMEApplicationJSONCharsetUTF8)
	h.Set(echo.HeaderContentDisposition, `attachment; filename="my-data.json"`)
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	w := c.Response()
	head, _ := json.Marshal(struct {
		Format     string    `json:"format"`
		Account    string    `json:"account"`
		ExportedAt time.Time `json:"exported_at"`
	}{"mnemo-my-data/1", actor(c), s.app.Now().UTC().Truncate(time.Second)})
	fmt.Fprintf(w, "%s,\"subjects\":[", head[:len(head)-1])
	for i, sub := range subjects {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		body, _ := json.Marshal(sub)
		fmt.Fprintf(w, "%s,\"events\":[", body[:len(body)-1])
		if err := s.streamEvents(ctx, w, refs[i]); err != nil {
			// The status is sent; end the document so it stays valid JSON
			// and say what went wrong in it.
			msg, _ := json.Marshal("export interrupted: " + governance.ErrorMessage(err))
			fmt.Fprintf(w, `],"error":%s}]}`, msg)
			return nil
		}
		fmt.Fprint(w, "]}")
	}
	fmt.Fprint(w, "]}\n")
	return nil
}

// streamEvents writes a subject's events as JSON array elements, a page at a time.
func (s *Server) streamEvents(ctx context.Context, w http.ResponseWriter, ref subjectRef) error {
	subject := ref.SubjectID
	var after int64
	first := true
	for {
		events, _, err := s.store.FindEvents(ctx, governance.EventFilter{ProjectID: &ref.Project.ID, SubjectID: &subject,
			AfterSeq: &after, Limit: exportEventPage})
		if err != nil {
			return err
		}
		for _, e := range events {
			b, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if !first {
				w.Write([]byte(","))
			}
			first = false
			w.Write(b)
			after = e.Seq
		}
		if len(events) < exportEventPage {
			return nil
		}
	}
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// handleMeForgetShow confirms "forget everything about me".
func (s *Server) handleMeForgetShow(c echo.Context) error {
	ctx := c.Request().Context()
	refs, err := s.mySubjects(ctx)
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		return governance.Errorf(governance.ENOTFOUND, "Nothing is remembered about you.")
	}
	plans, err := s.subjectPlans(ctx, refs)
	if err != nil {
		return err
	}
	v := templates.ForgetView{
		Heading: "Forget everything about me",
		Intro:   "You are about to forget every memory about you and every line you wrote to the assistants, in every project listed below.",
		Action:  "/me/forget",
		Back:    "/me",
		Plans:   plans,
		Submit:  "Forget everything about me",
	}
	return s.renderForget(c, "Forget everything about me", v)
}

// handleMeForgetCreate forgets everything about the viewer, project by project.
func (s *Server) handleMeForgetCreate(c echo.Context) error {
	ctx := c.Request().Context()
	refs, err := s.mySubjects(ctx)
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		return governance.Errorf(governance.ENOTFOUND, "Nothing is remembered about you.")
	}
	total := &governance.ForgetReport{}
	for _, ref := range refs {
		rep, err := s.store.ForgetSubject(ctx, actor(c), ref.Project.ID, ref.SubjectID)
		if err != nil {
			return err
		}
		total.RuleIDs = append(total.RuleIDs, rep.RuleIDs...)
		total.CandidateIDs = append(total.CandidateIDs, rep.CandidateIDs...)
		total.Events += rep.Events
	}
	return s.done(c, "/me", forgetMessage(c, tr(c, "forget.done_you"), total))
}
