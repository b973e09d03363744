package templates

import (
	"context"
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/mnemo-console/mnemo/governance"
)

// PageMeta is what every full page needs besides its own view.
type PageMeta struct {
	Title   string
	User    *governance.Account
	CSRF    string
	Flashes []Flash
	Nav     []NavItem
	// Active is the Key of the current navigation entry.
	Active string
	// Path is the address of the page, where the language switch returns.
	Path string
	// Resubmitted is set on a page rendered in answer to a form (a POST
	// whose input was refused): the browser's history then shows Path,
	// the page the form was on, so a refresh reloads it instead of
	// sending the form again.
	Resubmitted bool
}

// Flash is a one-time message; Kind is success, info or error.
type Flash struct {
	Kind    string
	Message string
	// Undo, when set, is the action the message reports, which its
	// reviewer may still undo (an "Undo" button).
	Undo *UndoOffer
}

// UndoOffer is an undo of a rule's last action: the form posts AuditID
// to the rule's undo route. With Many it is the undo of a bulk action
// instead: the form posts every rule's ref to /rules/undo.
type UndoOffer struct {
	RuleID, AuditID int64
	// Action is the audit action undone ("rule.approve").
	Action string
	CSRF   string
	Back   string
	// Many are the rules and audit rows of a bulk action.
	Many []UndoRef
}

// UndoRef names a rule and the audit row of the action to undo.
type UndoRef struct{ RuleID, AuditID int64 }

// Value is the ref as the bulk undo form posts it ("<rule>:<audit>").
func (r UndoRef) Value() string { return i64toa(r.RuleID) + ":" + i64toa(r.AuditID) }

// NavItem is one entry of the navigation bar.
type NavItem struct {
	Key   string
	Label string
	URL   string
	// Group names the drop-down menu the item is in ("" = on the bar).
	Group string
	// Badge, when positive, is a count shown beside the label (pending reviews).
	Badge int
}

// navBar is the navigation as the layout draws it: items on the bar, and
// groups (drop-down menus) where their first item stands.
type navBar struct {
	Item  *NavItem
	Group string
	Items []NavItem
	// Active: the current page is in the group.
	Active bool
}

func navBarOf(items []NavItem, active string) []navBar {
	var out []navBar
	at := map[string]int{}
	for i := range items {
		it := &items[i]
		if it.Group == "" {
			out = append(out, navBar{Item: it})
			continue
		}
		j, ok := at[it.Group]
		if !ok {
			j = len(out)
			at[it.Group] = j
			out = append(out, navBar{Group: it.Group})
		}
		out[j].Items = append(out[j].Items, *it)
		out[j].Active = out[j].Active || it.Key == active
	}
	return out
}

// FieldErrors maps a form field name to its problem.
type FieldErrors map[string]governance.Text

// Pager describes one page of a longer list. Prev and Next are empty at the
// ends. Target is the id of the element an htmx page switch replaces.
type Pager struct {
	Page   int
	Pages  int
	Total  int
	Capped bool // Total is a lower bound
	Prev   string
	Next   string
	Target string
}

type partialKey struct{}

// WithPartial marks ctx so that Layout renders only its children: the
// response to an htmx request that will be swapped into an existing page.
func WithPartial(ctx context.Context) context.Context {
	return context.WithValue(ctx, partialKey{}, true)
}

func isPartial(ctx context.Context) bool {
	v, _ := ctx.Value(partialKey{}).(bool)
	return v
}

// URLs of the console's pages, built in one place.

// ProjectSessionsURL lists the sessions of a project.
func ProjectSessionsURL(slug string) string {
	return "/projects/" + url.PathEscape(slug) + "/sessions"
}

// SessionURL is a session's timeline.
func SessionURL(slug, sessionID string) string {
	return ProjectSessionsURL(slug) + "/" + url.PathEscape(sessionID)
}

// EventURL is the deep link to one event (its seq).
func EventURL(seq int64) string {
	return "/events/" + strconv.FormatInt(seq, 10)
}

// EventAnchor is the id of an event's element in a timeline.
func EventAnchor(seq int64) string {
	return "event-" + strconv.FormatInt(seq, 10)
}

func safe(u string) templ.SafeURL { return templ.URL(u) }

func itoa(n int) string { return strconv.Itoa(n) }

func i64toa(n int64) string { return strconv.FormatInt(n, 10) }

// EventLink is the deep link to one event with its anchor, so the browser
// scrolls to it.
func EventLink(seq int64) string {
	return EventURL(seq) + "#" + EventAnchor(seq)
}

// LoginView is the sign-in form.
type LoginView struct {
	Username string
	Next     string
	// Error is shown above the form (e.g. too many attempts).
	Error  string
	Errors FieldErrors
}

// ErrorView is an error page or partial.
type ErrorView struct {
	Status  int
	Title   string
	Message string
}

// ProjectCard is one project as the viewer may see it. For a member,
// SubjectID is set and Stats counts only that subject's data.
type ProjectCard struct {
	Project   *governance.Project
	Access    string // admin, reviewer or member
	SubjectID string
	Stats     *governance.ProjectStats
}

// DashboardView lists the viewer's projects with counts per layer.
type DashboardView struct {
	Cards []ProjectCard
}

// ProjectsView is the entry of the events browser.
type ProjectsView struct {
	Cards []ProjectCard
}

// SessionsView lists one page of a project's sessions.
type SessionsView struct {
	Project *governance.Project
	// SubjectID is set when only one subject's sessions are shown (members).
	SubjectID string
	Sessions  []*governance.SessionInfo
	Pager     Pager
}

// TimelineView is one page of a session's events in order.
type TimelineView struct {
	Project *governance.Project
	Session *governance.SessionInfo
	Events  []*governance.Event
	// Highlight is the seq of the event a deep link points to (0: none).
	Highlight int64
	Pager     Pager
}

// SearchForm holds the search query and filters as typed.
type SearchForm struct {
	Query   string
	Project string
	Session string
	Role    string
	Status  string
	Source  string
	// Order is "" (most relevant first) or "newest".
	Order string
}

// SearchView is the search page: the form, its options and one page of hits.
type SearchView struct {
	Form     SearchForm
	Errors   FieldErrors
	Projects []*governance.Project
	// AllProjects offers "all projects" in the project filter.
	AllProjects bool
	// Searched is false until a query was given.
	Searched bool
	Hits     []*governance.EventHit
	// Slugs names the project of each hit.
	Slugs map[int64]string
	Pager Pager
}

// ImportView is the admin upload form and, after a rejected file, every bad line.
type ImportView struct {
	Projects   []*governance.Project
	Project    string
	FileName   string
	Errors     FieldErrors
	LineErrors []governance.LineError
	// InvalidLines counts every invalid line; LineErrors lists the first ones.
	InvalidLines int
	// Format is the chosen source format ("" or "auto" detects it); Formats
	// lists the choices. Skip asks to skip malformed lines.
	Format  string
	Formats []string
	Skip    bool
}
