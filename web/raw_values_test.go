package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/web/templates"
)

// rawValues are the identifiers of the code's enumerated values that a
// page must never show as they are: gate classes and patterns, audit
// actions, statuses, reasons, kinds, check types, object types and the
// extractor's name.
func rawValues() []string {
	var lists [][]string
	lists = append(lists, governance.GateCategories, governance.SkillCategories, gate.RiskFeatures(), gate.LowRiskClasses(),
		governance.AuditActions, strs(governance.CandidateStatuses), strs(governance.RuleStatuses),
		strs(governance.PromotionReasons), strs(governance.ClassReasons), strs(governance.SkillStatuses),
		strs(governance.OutcomeVerdicts), strs(governance.OutcomeReviewStatuses), strs(governance.ReceiptStates),
		evals.CheckTypes, strs(evals.Kinds), templates.AuditObjectTypes,
		[]string{string(governance.TypePreference), string(governance.TypeFact), string(governance.TypeLesson), heuristic.Name})
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, v := range l {
			// An identifier: words joined by _ . / (a single English word
			// such as "active" may be a user's own word on a page).
			if strings.ContainsAny(v, "_./") && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}

func strs[S ~string](list []S) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

// jsonObject matches a JSON object shown as text.
var jsonObject = regexp.MustCompile(`\{"[a-z_]+":`)

// TestPagesShowNoRawValues crawls the console as an administrator — every
// page of the navigation and every page they link to, in English and in
// Chinese — after the demo's first beat, a review decision, a blocked
// candidate and a followed directory, and fails on any enumerated
// identifier (instruction_hierarchy, rule.expiry_set, heuristic/4) or JSON
// object in a page's text.
func TestPagesShowNoRawValues(t *testing.T) {
	for _, language := range []string{"en", "zh-CN"} {
		t.Run(language, func(t *testing.T) {
			f := NewGovFixture(t)
			rita := f.Login(t, GovReviewer)
			nap := f.Rule(t, "午睡")
			res, _ := rita.PostForm(travelQueue, ruleURL(nap.ID, "reject"), url.Values{"reason": {"重复"}})
			wantStatus(t, res, http.StatusSeeOther)
			admin := f.Login(t, GovAdmin)
			res, _ = admin.PostForm("/admin/sources", "/admin/sources", url.Values{"project": {"travel-agent"}, "dir": {t.TempDir()}, "format": {"auto"}})
			wantStatus(t, res, http.StatusSeeOther)
			if language == "zh-CN" {
				speakChinese(t, admin)
			}

			raw := rawValues()
			if len(raw) < 40 {
				t.Fatalf("only %d identifiers to look for; is the list broken?", len(raw))
			}
			skip := regexp.MustCompile(`^/(logout|static/)|\.(csv|jsonl|json|md|zip)(\?|$)|/export/|/download`)
			seen := map[string]bool{}
			shapes := map[string]int{} // pages of one shape (/events/N) crawled: three suffice
			digits := regexp.MustCompile(`[0-9]+`)
			queue := []string{"/"}
			pages := 0
			for len(queue) > 0 && pages < 300 {
				page := queue[0]
				queue = queue[1:]
				res, doc := admin.Get(page)
				if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
					continue
				}
				pages++
				main := doc.Find("main")
				main.Find(".event-text").Remove() // what was said and what tools printed, as written
				text := main.Text()
				for _, v := range raw {
					if loc := regexp.MustCompile(`(^|[^\w./-])` + regexp.QuoteMeta(v) + `($|[^\w/-])`).FindStringIndex(text); loc != nil {
						t.Errorf("%s shows the identifier %q: …%s…", page, v, strings.Join(strings.Fields(text[max(loc[0]-80, 0):min(loc[1]+40, len(text))]), " "))
					}
				}
				if m := jsonObject.FindString(text); m != "" {
					t.Errorf("%s shows JSON (%s…)", page, m)
				}
				doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
					href := a.AttrOr("href", "")
					u, err := url.Parse(href)
					if err != nil || u.Host != "" || !strings.HasPrefix(u.Path, "/") || skip.MatchString(href) {
						return
					}
					u.Fragment = ""
					p := u.String()
					if shape := digits.ReplaceAllString(u.Path, "N"); !seen[p] && shapes[shape] < 3 {
						seen[p] = true
						shapes[shape]++
						queue = append(queue, p)
					}
				})
			}
			if pages < 30 {
				t.Fatalf("crawled only %d pages", pages)
			}
			t.Logf("%d pages crawled", pages)
		})
	}
}
