package web

import (
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// navEntry is one item of the navigation bar and who sees it.
type navEntry struct {
	key   string // also the `active` argument of s.meta for its pages
	label string
	url   string
	show  func(a *governance.Account) bool
	// group puts the entry in a drop-down menu of that name ("" = the bar).
	group string
}

// Navigation groups: pages used less often than the ones on the bar.
const (
	groupMemory = "Memory"
	groupAgents = "Agents"
	groupAdmin  = "Admin"
)

// navigation lists the console's pages in menu order. To add a page, add
// its entry here, its route in routes.go and its template in web/templates.
var navigation = []navEntry{
	{key: "dashboard", label: "Dashboard", url: "/", show: signedIn},
	{key: "events", label: "Events", url: "/events", show: signedIn},
	{key: "search", label: "Search", url: "/search", show: signedIn},
	{key: "review", label: "Review", url: "/review", show: isReviewer},
	{key: "rules", label: "Rules", url: "/rules", show: isReviewer},
	{key: "me", label: "My memories", url: "/me", show: hasSubject},
	{key: "recall", label: "Recall", url: "/recall", show: signedIn},
	{key: "evals", label: "Evals", url: "/evals", show: isReviewer},
	{key: "episodes", label: "Episodes", url: "/episodes", show: signedIn, group: groupMemory},
	{key: "candidates", label: "Candidates", url: "/candidates", show: signedIn, group: groupMemory},
	{key: "heartbeat", label: "Heartbeat", url: "/heartbeat", show: isReviewer, group: groupMemory},
	{key: "skills", label: "Skills", url: "/skills", show: isReviewer, group: groupMemory},
	{key: "export", label: "Export", url: "/export", show: signedIn, group: groupAgents},
	{key: "tokens", label: "API tokens", url: "/admin/tokens", show: isAdmin, group: groupAgents},
	{key: "accounts", label: "Accounts", url: "/admin/accounts", show: isAdmin, group: groupAdmin},
	{key: "projects", label: "Projects", url: "/admin/projects", show: isAdmin, group: groupAdmin},
	{key: "audit", label: "Audit", url: "/audit", show: isReviewer, group: groupAdmin},
	{key: "import", label: "Import", url: "/admin/import", show: isAdmin, group: groupAdmin},
	{key: "sources", label: "Sources", url: "/admin/sources", show: isAdmin, group: groupAdmin},
	{key: "forget-subject", label: "Forget a subject", url: "/admin/forget", show: isAdmin, group: groupAdmin},
}

func signedIn(a *governance.Account) bool { return a != nil }

// navFor returns the entries the account may see.
func navFor(a *governance.Account) []templates.NavItem {
	var out []templates.NavItem
	for _, e := range navigation {
		if e.show(a) {
			out = append(out, templates.NavItem{Key: e.key, Label: e.label, URL: e.url, Group: e.group})
		}
	}
	return out
}
