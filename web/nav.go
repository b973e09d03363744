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
}

// navigation lists the console's pages in menu order. To add a page, add
// its entry here, its route in routes.go and its template in web/templates.
var navigation = []navEntry{
	{key: "dashboard", label: "Dashboard", url: "/", show: signedIn},
	{key: "events", label: "Events", url: "/events", show: signedIn},
	{key: "search", label: "Search", url: "/search", show: signedIn},
	{key: "episodes", label: "Episodes", url: "/episodes", show: signedIn},
	{key: "candidates", label: "Candidates", url: "/candidates", show: signedIn},
	{key: "heartbeat", label: "Heartbeat", url: "/heartbeat", show: canSeeHeartbeat},
	{key: "import", label: "Import", url: "/admin/import", show: isAdmin},
	// Recall, exports and API tokens.
	{key: "recall", label: "Recall", url: "/recall", show: signedIn},
	{key: "export", label: "Export", url: "/export", show: signedIn},
	{key: "tokens", label: "API tokens", url: "/admin/tokens", show: isAdmin},
	// Governance: review queue, rules, my memories, audit.
	{key: "review", label: "Review", url: "/review", show: isReviewer},
	{key: "rules", label: "Rules", url: "/rules", show: isReviewer},
	{key: "me", label: "My memories", url: "/me", show: hasSubject},
	{key: "audit", label: "Audit", url: "/audit", show: isReviewer},
	// Evals.
	{key: "evals", label: "Evals", url: "/evals", show: isReviewer},
}

func signedIn(a *governance.Account) bool { return a != nil }

func isAdmin(a *governance.Account) bool { return a != nil && a.IsAdmin }

// navFor returns the entries the account may see.
func navFor(a *governance.Account) []templates.NavItem {
	var out []templates.NavItem
	for _, e := range navigation {
		if e.show(a) {
			out = append(out, templates.NavItem{Key: e.key, Label: e.label, URL: e.url})
		}
	}
	return out
}
