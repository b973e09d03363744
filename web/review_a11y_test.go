package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// a11yProblems is a smoke check of one page: every form control has a
// label, there is one h1 and headings never skip a level.
func a11yProblems(doc *goquery.Document) []string {
	var problems []string
	doc.Find("input, select, textarea").Each(func(_ int, s *goquery.Selection) {
		typ := strings.ToLower(s.AttrOr("type", "text"))
		if typ == "hidden" || typ == "submit" || typ == "button" || typ == "reset" || typ == "image" {
			return
		}
		if s.AttrOr("aria-label", "") != "" || s.AttrOr("aria-labelledby", "") != "" || s.ParentsFiltered("label").Length() > 0 {
			return
		}
		if id := s.AttrOr("id", ""); id != "" && doc.Find(fmt.Sprintf(`label[for=%q]`, id)).Length() > 0 {
			return
		}
		html, _ := goquery.OuterHtml(s)
		problems = append(problems, "unlabelled control: "+html)
	})
	prev := 0
	h1 := 0
	doc.Find("h1, h2, h3, h4, h5, h6").Each(func(_ int, s *goquery.Selection) {
		level, _ := strconv.Atoi(strings.TrimPrefix(goquery.NodeName(s), "h"))
		if level == 1 {
			h1++
		}
		if level > prev+1 {
			problems = append(problems, fmt.Sprintf("heading skips from h%d to h%d: %q", prev, level, strings.TrimSpace(s.Text())))
		}
		prev = level
	})
	if h1 != 1 {
		problems = append(problems, fmt.Sprintf("%d h1 elements, want 1", h1))
	}
	return problems
}

// TestGovernanceAccessibility runs the smoke check over every governance
// page, in the states that add controls (errors, confirmations).
func TestGovernanceAccessibility(t *testing.T) {
	f := NewGovFixture(t)
	admin, rita, chen := f.Login(t, GovAdmin), f.Login(t, GovReviewer), f.Login(t, GovMember)
	nap, attach, lesson := f.Rule(t, "午睡"), f.Rule(t, "结论"), f.Rule(t, "单独安排一天")
	approved := lesson
	if _, err := f.Store.ApproveRule(t.Context(), "test", approved.ID, nil); err != nil {
		t.Fatal(err)
	}
	check := func(name string, res *http.Response, doc *goquery.Document) {
		t.Helper()
		if res.StatusCode >= 500 || res.StatusCode == http.StatusForbidden || res.StatusCode == http.StatusNotFound {
			t.Errorf("%s: status %d", name, res.StatusCode)
			return
		}
		for _, p := range a11yProblems(doc) {
			t.Errorf("%s: %s", name, p)
		}
	}
	get := func(c *Client, path string) {
		t.Helper()
		res, doc := c.Get(path)
		check(path, res, doc)
	}
	get(rita, "/review")
	get(rita, travelQueue)
	get(rita, travelQueue+"?tab=held")
	get(rita, travelQueue+"?tab=blocked")
	get(admin, travelQueue)
	get(rita, "/rules")
	get(rita, "/rules?kind=lesson&status=active")
	get(rita, ruleURL(nap.ID))
	get(rita, ruleURL(approved.ID))
	get(rita, ruleURL(nap.ID, "forget"))
	get(rita, ruleURL(nap.ID, "forget")+"?events=1")
	get(rita, "/audit")
	get(admin, "/admin/forget")
	get(admin, "/admin/forget?project=travel-agent&subject=family-chen")
	get(chen, "/me")
	get(chen, "/me/forget")
	get(chen, ruleURL(nap.ID, "forget")+"?back=%2Fme")

	post := func(c *Client, page, path string, v url.Values) {
		t.Helper()
		res, doc := c.PostForm(page, path, v)
		check("POST "+path, res, doc)
	}
	two := url.Values{"id": {strconv.FormatInt(nap.ID, 10), strconv.FormatInt(attach.ID, 10)}}
	post(rita, travelQueue, travelQueue+"/merge", two)
	post(rita, travelQueue, travelQueue+"/reject", two)
	post(rita, travelQueue, ruleURL(nap.ID, "reject"), url.Values{"back": {travelQueue}})
	post(rita, ruleURL(nap.ID), ruleURL(nap.ID, "reject"), url.Values{})
	post(rita, ruleURL(nap.ID), ruleURL(nap.ID, "edit"), url.Values{"text": {"x"}})
	post(rita, ruleURL(approved.ID), ruleURL(approved.ID, "demote"), url.Values{})
	post(rita, ruleURL(approved.ID), ruleURL(approved.ID, "supersede"), url.Values{})
	post(rita, "/rules", "/rules/forget", url.Values{"id": {strconv.FormatInt(attach.ID, 10)}})
	res, doc := rita.Get("/audit?since=nonsense")
	check("/audit with a bad date", res, doc)
}
