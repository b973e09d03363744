package templates

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// htmxConfig: no inline styles or eval (the CSP forbids both), and error
// responses are swapped too — the server retargets them to #htmx-error.
const htmxConfig = `{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,` +
	`"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"[45]..","swap":true,"error":true}]}`

func pageTitle(title string) string {
	if title == "" {
		return "Mnemo"
	}
	return title + " · Mnemo"
}

// csrfHeaders is the hx-headers value that sends the CSRF token with every
// htmx request.
func csrfHeaders(token string) string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}

func statusClass(status string) string {
	switch status {
	case governance.StatusFailed:
		return "badge-failed"
	case governance.StatusPassed:
		return "badge-passed"
	}
	return "badge-status"
}

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// messages returns the field errors' messages in field order.
func messages(errs FieldErrors) []governance.Text {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]governance.Text, 0, len(keys))
	for _, k := range keys {
		out = append(out, errs[k])
	}
	return out
}

// countdown formats a duration for people: "4m 05s", "12s", "350ms".
func countdown(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
}

func candidateClass(s governance.CandidateStatus) string {
	switch s {
	case governance.CandidateBlocked, governance.CandidateRejected:
		return "badge-failed"
	case governance.CandidateProposed, governance.CandidatePromoted:
		return "badge-passed"
	}
	return "badge-status"
}

// RuleURL is a rule's detail page.
func RuleURL(id int64) string { return "/rules/" + strconv.FormatInt(id, 10) }

// navClass: on a phone the bar keeps only the review queue and "my
// memories"; every page is in the menu (nav-phone).
func navClass(key string) string {
	switch key {
	case "review", "me":
		return ""
	}
	return "nav-wide"
}

// allLive marks every object of entries as existing (the rule page's own
// history).
func allLive(entries []*governance.AuditEntry) map[string]bool {
	live := map[string]bool{}
	for _, e := range entries {
		live[e.ObjectType+":"+e.ObjectID] = true
	}
	return live
}

// truncate cuts s to at most n characters, ending with an ellipsis when
// it cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
