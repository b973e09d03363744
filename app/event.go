package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// MaxIngestEvents bounds one ingested batch (REST, MCP).
const MaxIngestEvents = 5000

// EventStore stores and reads raw events and their sessions.
type EventStore interface {
	IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error)
	FindEventBySeq(ctx context.Context, seq int64) (*governance.Event, error)
	FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error)
	SearchEvents(ctx context.Context, f governance.EventFilter) ([]*governance.EventHit, int, error)
	FindSessions(ctx context.Context, f governance.SessionFilter) ([]*governance.SessionInfo, int, error)
	FindSession(ctx context.Context, projectID int64, sessionID string) (*governance.SessionInfo, error)
}

// Events are the use cases about raw events: ingest, search, sessions and
// their timelines.
type Events struct {
	store    EventStore
	projects Projects
}

var (
	errEventNotFound   = governance.Errorf(governance.ENOTFOUND, "Event not found.")
	errSessionNotFound = governance.Errorf(governance.ENOTFOUND, "Session not found.")
)

// Ingest stores a batch of events in project projectID, all or nothing:
// a token with the ingest scope (its own project only) or an admin. An
// event naming another project, like any invalid event, rejects the batch
// with every bad item named; events whose id the project already has are
// skipped and reported.
func (es Events) Ingest(ctx context.Context, actor governance.Actor, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	p, err := es.ingestProject(ctx, actor, projectID)
	if err != nil {
		return nil, err
	}
	if len(events) > MaxIngestEvents {
		return nil, governance.Errorf(governance.ETOOLARGE, "At most %d events per request; this one has %d.", MaxIngestEvents, len(events))
	}
	if len(events) == 0 {
		return nil, governance.Errorf(governance.EINVALID, "The batch holds no events.")
	}
	var bad governance.LineErrors
	for i, e := range events {
		if e == nil {
			continue // the store's validation names it
		}
		if e.Project != "" && e.Project != p.Slug {
			whose := "the batch's"
			if actor.Token != nil {
				whose = "this token's"
			}
			bad.Add(i+1, fmt.Sprintf("project %q is not %s project %q", e.Project, whose, p.Slug))
		}
		e.Project = ""
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	res, err := es.store.IngestEvents(ctx, p.ID, events)
	if err != nil {
		return nil, err
	}
	if res.SkippedIDs == nil {
		res.SkippedIDs = []string{}
	}
	return res, nil
}

// ingestProject loads the project a batch goes into, if actor may ingest
// into it.
func (es Events) ingestProject(ctx context.Context, actor governance.Actor, projectID int64) (*governance.Project, error) {
	if err := governance.Can(actor, governance.ActIngest, governance.Object{ProjectID: projectID}); err != nil {
		return nil, err
	}
	return es.projects.store.FindProjectByID(ctx, projectID)
}

// SearchInput is the search form as text: a query and its filters.
type SearchInput struct {
	// Project is a project's slug; "" searches every project the actor
	// sees whole (admins: all of them).
	Project string
	// ProjectID names the project by id instead (an API token's own
	// project); it wins over Project when set.
	ProjectID int64
	Query     string
	Session   string
	Role      string
	Status    string
	Source    string
	// Order is relevance or newest.
	Order string
	Page  Page
	// Agent says the hits go to an agent (the API and MCP): each event's
	// text is as governance.EventTextForAgent gives it — what the write
	// gate blocks is withheld, credentials masked — and its fragments are
	// rebuilt from that text when it changed.
	Agent bool
}

// MaxSearchQueryRunes bounds a search query.
const MaxSearchQueryRunes = governance.MaxQueryRunes

// MaxSearchPageSize bounds the hits of one search page.
const MaxSearchPageSize = 100

// MsgNoSearchTerms is the "q" field error of a query that holds nothing to
// search for (punctuation or common words alone); a surface may show its
// translation.
const MsgNoSearchTerms = "The query holds nothing to search for: punctuation and common words (the, a, of…) alone match nothing. Add a word, a number or Chinese characters, or put exact text in quotes."

// Search searches raw events within what actor may see: the project named
// by in.ProjectID or in.Project (limited to a member's own subject; an
// unknown or foreign project is refused before anything else), or every
// project the actor sees whole. Bad filters are FieldErrors on q, role,
// source, order, status, session and limit (the page size); an empty query
// searches nothing (no hits, no error).
func (es Events) Search(ctx context.Context, actor governance.Actor, in SearchInput) ([]*governance.EventHit, int, error) {
	var f governance.EventFilter
	switch {
	case in.ProjectID != 0:
		sc, err := es.projects.ScopeByID(ctx, actor, in.ProjectID)
		if err != nil {
			return nil, 0, err
		}
		f.ProjectID, f.SubjectID = &sc.Project.ID, sc.Subject
	case in.Project != "":
		sc, err := es.projects.Scope(ctx, actor, in.Project)
		if err != nil {
			return nil, 0, err
		}
		f.ProjectID, f.SubjectID = &sc.Project.ID, sc.Subject
	case actor.Account == nil:
		return nil, 0, errSignIn
	case actor.Account.IsAdmin:
	default:
		scopes, err := es.projects.Visible(ctx, actor)
		if err != nil {
			return nil, 0, err
		}
		f.ProjectIDs = []int64{}
		for _, sc := range scopes {
			if sc.Subject == nil { // a member's search names its project
				f.ProjectIDs = append(f.ProjectIDs, sc.Project.ID)
			}
		}
	}
	errs := FieldErrors{}
	if utf8.RuneCountInString(in.Query) > MaxSearchQueryRunes {
		errs["q"] = governance.Say("Use at most %d characters.", MaxSearchQueryRunes)
	}
	switch governance.Role(in.Role) {
	case "", governance.RoleUser, governance.RoleAssistant, governance.RoleTool:
	default:
		errs["role"] = governance.Say("Choose user, assistant or tool.")
	}
	switch governance.Source(in.Source) {
	case "", governance.SourceConversation, governance.SourceTool, governance.SourceExternal:
	default:
		errs["source"] = governance.Say("Choose conversation, tool or external.")
	}
	switch governance.SearchOrder(in.Order) {
	case governance.SearchRelevance, governance.SearchNewest:
	default:
		errs["order"] = governance.Say("Choose most relevant or newest first.")
	}
	if len(in.Status) > governance.MaxStatusBytes {
		errs["status"] = governance.Say("Unknown status.")
	}
	if len(in.Session) > governance.MaxIDBytes {
		errs["session"] = governance.Say("Session ids are shorter.")
	}
	if in.Page.Size < 0 || in.Page.Size > MaxSearchPageSize || in.Page.Offset < 0 {
		errs["limit"] = governance.Say("Ask for 1 to %d hits from an offset of 0 or more.", MaxSearchPageSize)
	}
	if err := errs.err(); err != nil {
		return nil, 0, err
	}
	if in.Query == "" {
		return nil, 0, nil
	}
	if !searchable(in.Query) {
		return nil, 0, FieldErrors{"q": governance.Say(MsgNoSearchTerms)}
	}
	f.Query, f.Order = in.Query, governance.SearchOrder(in.Order)
	f.Offset, f.Limit = in.Page.offset(), in.Page.Size
	if in.Session != "" {
		f.SessionID = &in.Session
	}
	if in.Role != "" {
		role := governance.Role(in.Role)
		f.Role = &role
	}
	if in.Status != "" {
		f.Status = &in.Status
	}
	if in.Source != "" {
		src := governance.Source(in.Source)
		f.Source = &src
	}
	hits, total, err := es.store.SearchEvents(ctx, f)
	if governance.ErrorCode(err) == governance.EINVALID {
		return nil, 0, FieldErrors{"q": governance.Say(MsgNoSearchTerms)}
	}
	if err == nil && in.Agent {
		hits = gateHits(hits)
	}
	return hits, total, err
}

// searchable reports whether a query holds something to search for: a
// term (a word that is not a stop word, a number, Chinese characters) or
// a quoted phrase, which is matched exactly.
func searchable(q string) bool {
	if tokenizer.HasTerms(q) {
		return true
	}
	parts := strings.Split(q, `"`)
	for i := 1; i < len(parts); i += 2 {
		if strings.TrimSpace(parts[i]) != "" {
			return true
		}
	}
	return false
}

// gateHits passes each hit's event text through the write gate for an
// agent; a hit whose text changed keeps one plain fragment of the new text
// (a highlight of the old one could show what was withheld).
func gateHits(hits []*governance.EventHit) []*governance.EventHit {
	out := make([]*governance.EventHit, len(hits))
	for i, h := range hits {
		text, withheld := governance.EventTextForAgent(h.Event.Text)
		if withheld {
			text = governance.WithheldMarker
		}
		if text == h.Event.Text {
			out[i] = h
			continue
		}
		ev := *h.Event
		ev.Text = text
		out[i] = &governance.EventHit{Event: &ev, Fragments: []governance.Fragment{{Text: text}}}
	}
	return out
}

// Page is one page of a list: its 1-based number and its size, or (an
// API's offset, when Number is 0) the number of items to skip.
type Page struct {
	Number, Size int
	Offset       int
}

func (p Page) offset() int {
	if p.Number == 0 {
		return p.Offset
	}
	if p.Number < 1 {
		return 0
	}
	return (p.Number - 1) * p.Size
}

// Sessions lists one page of a project's sessions; a member sees only
// their own subject's.
func (es Events) Sessions(ctx context.Context, actor governance.Actor, slug string, page Page) (Scope, []*governance.SessionInfo, int, error) {
	sc, err := es.projects.Scope(ctx, actor, slug)
	if err != nil {
		return Scope{}, nil, 0, err
	}
	sessions, total, err := es.store.FindSessions(ctx, governance.SessionFilter{ProjectID: sc.Project.ID, SubjectID: sc.Subject,
		Offset: page.offset(), Limit: page.Size})
	if err != nil {
		return Scope{}, nil, 0, err
	}
	return sc, sessions, total, nil
}

// Timeline is one page of a session's events.
type Timeline struct {
	Scope   Scope
	Session *governance.SessionInfo
	Events  []*governance.Event
	Total   int
	Page    int
	// Highlight is the event a deep link points at (0: none).
	Highlight int64
}

// SessionTimeline is one page of a session of the project named by slug:
// ENOTFOUND for a session that does not exist or is about a subject the
// actor may not see.
func (es Events) SessionTimeline(ctx context.Context, actor governance.Actor, slug, sessionID string, page Page) (*Timeline, error) {
	sc, err := es.projects.Scope(ctx, actor, slug)
	if err != nil {
		return nil, err
	}
	si, err := es.visibleSession(ctx, actor, sc, sessionID)
	if err != nil {
		return nil, err
	}
	return es.timeline(ctx, sc, si, page, 0)
}

// EventTimeline is the page of its session's timeline that holds the event
// seq, with the event highlighted: ENOTFOUND for an event the actor may not
// see.
func (es Events) EventTimeline(ctx context.Context, actor governance.Actor, seq int64, pageSize int) (*Timeline, error) {
	ev, err := es.store.FindEventBySeq(ctx, seq)
	if err != nil {
		return nil, err
	}
	sc, err := es.projects.ScopeByID(ctx, actor, ev.ProjectID)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActSee, governance.InProject(sc.Project).About(ev.SubjectID)); err != nil {
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			return nil, errEventNotFound
		}
		return nil, err
	}
	si, err := es.visibleSession(ctx, actor, sc, ev.SessionID)
	if err != nil {
		return nil, err
	}
	pos, err := es.eventPosition(ctx, sc, ev)
	if err != nil {
		return nil, err
	}
	return es.timeline(ctx, sc, si, Page{Number: pos/pageSize + 1, Size: pageSize}, ev.Seq)
}

// visibleSession returns a session of the scope's project, or ENOTFOUND
// when it does not exist or belongs to a subject the actor cannot see.
func (es Events) visibleSession(ctx context.Context, actor governance.Actor, sc Scope, sessionID string) (*governance.SessionInfo, error) {
	si, err := es.store.FindSession(ctx, sc.Project.ID, sessionID)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActSee, governance.InProject(sc.Project).About(si.SubjectID)); err != nil {
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			return nil, errSessionNotFound
		}
		return nil, err
	}
	return si, nil
}

// sessionFilter selects a session's events visible in the scope.
func sessionFilter(sc Scope, sessionID string) governance.EventFilter {
	id := sc.Project.ID
	return governance.EventFilter{ProjectID: &id, SessionID: &sessionID, SubjectID: sc.Subject}
}

// eventPosition is the 0-based index of ev in its session's timeline order.
// It pages through the session's events; sessions are short.
func (es Events) eventPosition(ctx context.Context, sc Scope, ev *governance.Event) (int, error) {
	const batch = 500
	f := sessionFilter(sc, ev.SessionID)
	f.Limit = batch
	for f.Offset = 0; ; f.Offset += batch {
		events, _, err := es.store.FindEvents(ctx, f)
		if err != nil {
			return 0, err
		}
		for i, e := range events {
			if e.Seq == ev.Seq {
				return f.Offset + i, nil
			}
		}
		if len(events) < batch {
			return 0, errEventNotFound
		}
	}
}

func (es Events) timeline(ctx context.Context, sc Scope, si *governance.SessionInfo, page Page, highlight int64) (*Timeline, error) {
	f := sessionFilter(sc, si.SessionID)
	f.Offset, f.Limit = page.offset(), page.Size
	events, total, err := es.store.FindEvents(ctx, f)
	if err != nil {
		return nil, err
	}
	return &Timeline{Scope: sc, Session: si, Events: events, Total: total, Page: page.Number, Highlight: highlight}, nil
}

// Subjects lists the subjects a project has sessions of, sorted, for its
// reviewers and admins (members get EFORBIDDEN).
func (es Events) Subjects(ctx context.Context, actor governance.Actor, projectID int64) ([]string, error) {
	p, err := es.projects.store.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActReview, governance.InProject(p)); err != nil {
		return nil, err
	}
	sessions, _, err := es.store.FindSessions(ctx, governance.SessionFilter{ProjectID: projectID, Limit: 1000})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, si := range sessions {
		if si.SubjectID != "" && !slices.Contains(out, si.SubjectID) {
			out = append(out, si.SubjectID)
		}
	}
	slices.Sort(out)
	return out, nil
}
