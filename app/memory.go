package app

import (
	"context"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// MemoryStore reads what consolidation made of the events: episode
// summaries and candidates.
type MemoryStore interface {
	FindEpisodes(ctx context.Context, f governance.EpisodeFilter) ([]*governance.Episode, int, error)
	FindCandidates(ctx context.Context, f governance.CandidateFilter) ([]*governance.Candidate, int, error)
	FindCandidateByID(ctx context.Context, id int64) (*governance.Candidate, error)
	ReleaseCandidate(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	RejectCandidate(ctx context.Context, actor string, id int64, reason string) (*governance.Candidate, error)
}

// Memories are the use cases of the episodes and candidates pages: every
// account with a role in a project sees them, members only their own
// subject's.
type Memories struct {
	store    MemoryStore
	projects Projects
}

// MemoryQuery selects a project's page of episodes or candidates.
type MemoryQuery struct {
	// Project is a project's slug; "" picks the first project the actor
	// may see.
	Project string
	// Statuses and Session narrow the candidates (ignored for episodes).
	Statuses []governance.CandidateStatus
	Session  string
	Offset   int
	Limit    int
}

// MemoryTabs are the projects the actor may see and the one shown (nil
// when the actor sees none), with the actor's scope in it.
type MemoryTabs struct {
	Projects []*governance.Project
	Scope    Scope
}

// tabs picks the project named by slug among those the actor may see.
// An account that sees no project gets none, whatever slug says.
func (ms Memories) tabs(ctx context.Context, actor governance.Actor, slug string) (MemoryTabs, error) {
	if actor.Anonymous() {
		return MemoryTabs{}, errSignIn
	}
	scopes, err := ms.projects.Visible(ctx, actor)
	if err != nil {
		return MemoryTabs{}, err
	}
	var t MemoryTabs
	for _, sc := range scopes {
		t.Projects = append(t.Projects, sc.Project)
	}
	if len(scopes) == 0 {
		return t, nil
	}
	t.Scope = scopes[0]
	if slug != "" {
		if t.Scope, err = ms.projects.Scope(ctx, actor, slug); err != nil {
			return MemoryTabs{}, err
		}
	}
	return t, nil
}

// EpisodeList is a page of a project's episode summaries.
type EpisodeList struct {
	MemoryTabs
	Episodes []*governance.Episode
	Total    int
}

// Episodes lists a project's episode summaries; members see only their
// own sessions' episodes.
func (ms Memories) Episodes(ctx context.Context, actor governance.Actor, q MemoryQuery) (*EpisodeList, error) {
	t, err := ms.tabs(ctx, actor, q.Project)
	if err != nil {
		return nil, err
	}
	out := &EpisodeList{MemoryTabs: t}
	if t.Scope.Project == nil {
		return out, nil
	}
	out.Episodes, out.Total, err = ms.store.FindEpisodes(ctx, governance.EpisodeFilter{
		ProjectID: t.Scope.Project.ID, SubjectID: t.Scope.Subject, Offset: q.Offset, Limit: q.Limit})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CandidateList is a page of a project's candidates.
type CandidateList struct {
	MemoryTabs
	Candidates []*governance.Candidate
	Total      int
}

// Candidates lists a project's candidates, by status and session; members
// see only their own.
func (ms Memories) Candidates(ctx context.Context, actor governance.Actor, q MemoryQuery) (*CandidateList, error) {
	t, err := ms.tabs(ctx, actor, q.Project)
	if err != nil {
		return nil, err
	}
	out := &CandidateList{MemoryTabs: t}
	if t.Scope.Project == nil {
		return out, nil
	}
	for _, st := range q.Statuses {
		if !st.Valid() {
			return nil, governance.Errorf(governance.EINVALID, "Unknown candidate status %q.", st)
		}
	}
	f := governance.CandidateFilter{ProjectID: t.Scope.Project.ID, SubjectID: t.Scope.Subject, Statuses: q.Statuses,
		Offset: q.Offset, Limit: q.Limit}
	if q.Session != "" {
		f.SessionID = &q.Session
	}
	if out.Candidates, out.Total, err = ms.store.FindCandidates(ctx, f); err != nil {
		return nil, err
	}
	return out, nil
}

// Candidate returns a candidate for a reviewer of its project, with the
// scope it is seen in (the page that asks to confirm a decision shows it):
// ENOTFOUND for a candidate of a project the actor cannot see, EFORBIDDEN
// for a member.
func (ms Memories) Candidate(ctx context.Context, actor governance.Actor, id int64) (*governance.Candidate, Scope, error) {
	if id <= 0 {
		return nil, Scope{}, governance.Errorf(governance.EINVALID, "Invalid candidate id.")
	}
	c, err := ms.store.FindCandidateByID(ctx, id)
	if err != nil {
		return nil, Scope{}, err
	}
	sc, err := ms.projects.ScopeByID(ctx, actor, c.ProjectID)
	if err != nil {
		if governance.ErrorCode(err) == governance.EFORBIDDEN {
			return nil, Scope{}, governance.Errorf(governance.ENOTFOUND, "Candidate not found.")
		}
		return nil, Scope{}, err
	}
	if err := governance.Can(actor, governance.ActReview, governance.InProject(sc.Project)); err != nil {
		return nil, Scope{}, err
	}
	return c, sc, nil
}

// CandidateRelease is a reviewer's release of a held or blocked candidate
// into review. A blocked one was stopped by the write gate: the reviewer
// confirms having read its findings (Acknowledged) and says why it may be
// remembered after all (Reason).
type CandidateRelease struct {
	Reason       string
	Acknowledged bool
}

// Release turns a held or blocked candidate into a proposed rule in the
// review queue (audited as candidate.release). Bad input is FieldErrors
// (acknowledged, reason); a candidate that no longer waits is ECONFLICT.
func (ms Memories) Release(ctx context.Context, actor governance.Actor, id int64, in CandidateRelease) (*governance.Rule, error) {
	c, _, err := ms.Candidate(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	in.Reason = strings.TrimSpace(in.Reason)
	if c.Status == governance.CandidateBlocked {
		fe := FieldErrors{}
		if !in.Acknowledged {
			fe["acknowledged"] = governance.Say("Confirm that you read why the write gate blocked it.")
		}
		if in.Reason == "" {
			fe["reason"] = governance.Say("Say why it may be remembered after all.")
		}
		if err := fe.err(); err != nil {
			return nil, err
		}
	}
	return ms.store.ReleaseCandidate(ctx, actor.Name(), c.ID, in.Reason)
}

// Reject turns a held or blocked candidate down (audited as
// candidate.reject); a reason is asked (FieldErrors "reason").
func (ms Memories) Reject(ctx context.Context, actor governance.Actor, id int64, reason string) (*governance.Candidate, error) {
	c, _, err := ms.Candidate(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	if reason = strings.TrimSpace(reason); reason == "" {
		return nil, FieldErrors{"reason": governance.Say("Say why the candidate is rejected.")}
	}
	return ms.store.RejectCandidate(ctx, actor.Name(), c.ID, reason)
}
