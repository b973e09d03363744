package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

func TestRuleIndex(t *testing.T) {
	f := NewGovFixture(t)
	rita := f.Login(t, GovReviewer)
	nap := f.Rule(t, "午睡")

	t.Run("OwnProjectsOnly", func(t *testing.T) {
		_, doc := rita.Get("/rules")
		for _, p := range texts(doc.Find(testid("rule-row") + " code")) {
			if p != "travel-agent" {
				t.Fatalf("a travel reviewer sees a rule of %s", p)
			}
		}
		if got := strings.TrimSpace(doc.Find(testid("rule-total")).Text()); got != "3" {
			t.Fatalf("total = %s, want the 3 travel proposals", got)
		}
		_, doc = f.Login(t, GovAdmin).Get("/rules")
		if n, _ := strconv.Atoi(strings.TrimSpace(doc.Find(testid("rule-total")).Text())); n <= 3 {
			t.Fatalf("admin total = %d", n)
		}
	})
	t.Run("LongSearchRefused", func(t *testing.T) {
		// 1,000 words would be 1,000 term look-ups.
		res, _ := rita.Get("/rules?q=" + url.QueryEscape(strings.Repeat("word ", 1000)))
		wantStatus(t, res, http.StatusBadRequest)
	})
	t.Run("Filters", func(t *testing.T) {
		for q, want := range map[string]int{
			"q=" + url.QueryEscape("午睡"):      1,
			"subject=family-chen":             2,
			"subject=-":                       1,
			"kind=lesson":                     1,
			"reason=repeated_across_sessions": 3,
			"status=active":                   0,
			"paused=yes":                      0,
			"expiring=30":                     0,
			"project=travel-agent&kind=user_preference": 2,
		} {
			_, doc := rita.Get("/rules?" + q)
			if got := doc.Find(testid("rule-row")).Length(); got != want {
				t.Errorf("%s: %d rules, want %d", q, got, want)
			}
		}
		ctx := context.Background()
		in := time.Now().Add(10 * 24 * time.Hour)
		if _, err := f.Store.SetRuleExpiry(ctx, "test", nap.ID, &in, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Store.SetRulePaused(ctx, "test", nap.ID, true, ""); err != nil {
			t.Fatal(err)
		}
		for q, want := range map[string]int{"expiring=30": 1, "expiring=7": 0, "paused=yes": 1, "paused=no": 2} {
			_, doc := rita.Get("/rules?" + q)
			if got := doc.Find(testid("rule-row")).Length(); got != want {
				t.Errorf("%s: %d rules, want %d", q, got, want)
			}
		}
	})
	t.Run("SearchCountIsCapped", func(t *testing.T) {
		// A common word over many rules counts 200 matches past the page,
		// then says "at least".
		if _, err := f.Store.DB().ExecContext(context.Background(), `
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
			INSERT INTO rules (project_id, kind, text, promotion_reason, status, created_at, updated_at)
			SELECT ?, 'fact', '发票抬头规则 ' || i, 'explicit_user_instruction', 'active', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z' FROM n`,
			f.Travel.ID); err != nil {
			t.Fatal(err)
		}
		_, doc := rita.Get("/rules?q=" + url.QueryEscape("发票"))
		if got := strings.Join(strings.Fields(doc.Find(testid("rule-total")).Text()), ""); got != "250+" {
			t.Fatalf("total = %q, want 250+", got)
		}
		if got := doc.Find(testid("rule-row")).Length(); got != 50 {
			t.Fatalf("%d rows, want a page of 50", got)
		}
		next, ok := doc.Find(testid("pager-next")).Attr("href")
		if !ok || !strings.Contains(doc.Find(testid("pager-status")).Text(), "of many") {
			t.Fatal("a capped list has no open-ended pager")
		}
		// The last page has the rest and an exact total.
		_, doc = rita.Get(strings.Replace(next, "page=2", "page=6", 1))
		if got := doc.Find(testid("rule-row")).Length(); got != 50 {
			t.Fatalf("page 6: %d rows", got)
		}
		_, doc = rita.Get(strings.Replace(next, "page=2", "page=7", 1))
		if got := strings.TrimSpace(doc.Find(testid("rule-total")).Text()); got != "300" || doc.Find(testid("rule-row")).Length() != 0 {
			t.Fatalf("past the end: total %q, %d rows", got, doc.Find(testid("rule-row")).Length())
		}
		// Without a search the count is exact.
		_, doc = rita.Get("/rules?kind=fact")
		if got := strings.TrimSpace(doc.Find(testid("rule-total")).Text()); got != "300" {
			t.Fatalf("unsearched total = %q", got)
		}
	})
	t.Run("HTMXFragment", func(t *testing.T) {
		res, body := rita.Do(http.MethodGet, "/rules?kind=lesson", nil, http.Header{"Hx-Request": {"true"}, "Hx-Target": {"rule-table"}})
		wantStatus(t, res, http.StatusOK)
		if strings.Contains(body, "<html") || !strings.Contains(body, `id="rule-table"`) {
			t.Fatal("not a fragment")
		}
	})
}

func TestRuleShow(t *testing.T) {
	f := NewGovFixture(t)
	rita := f.Login(t, GovReviewer)
	lesson := f.Rule(t, "单独安排一天")
	res, doc := rita.Get(ruleURL(lesson.ID))
	wantStatus(t, res, http.StatusOK)
	if got := strings.TrimSpace(doc.Find(testid("rule-text")).Text()); got != lesson.Text {
		t.Fatalf("text = %q", got)
	}
	for id, want := range map[string]string{"rule-status": "proposed", "rule-kind": "lesson", "rule-trust": "0.85"} {
		if got := strings.TrimSpace(doc.Find(testid(id)).First().Text()); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if !strings.Contains(doc.Find(testid("rule-scope")).Text(), "whole project") {
		t.Error("scope not shown")
	}
	if doc.Find(testid("rule-evidence")+" "+testid("evidence-event-link")).Length() < 4 {
		t.Error("the evidence chain is missing")
	}
	if doc.Find(testid("rule-version")).Length() != 1 || doc.Find(testid("rule-audit")+" "+testid("audit-row")).Length() == 0 {
		t.Error("history or audit missing")
	}
	if !strings.Contains(doc.Find(testid("rule-usage")).Text(), "Not yet given to agents") {
		t.Error("recall usage missing")
	}
}

func TestRuleActions(t *testing.T) {
	f := NewGovFixture(t)
	rita := f.Login(t, GovReviewer)
	nap, attach := f.Rule(t, "午睡"), f.Rule(t, "结论")
	page := ruleURL(nap.ID)
	post := func(action string, v url.Values) (*http.Response, string) {
		t.Helper()
		res, doc := rita.PostForm(page, ruleURL(nap.ID, action), v)
		html, _ := doc.Html()
		return res, html
	}

	t.Run("EditNeedsReason", func(t *testing.T) {
		res, html := post("edit", url.Values{"text": {"每天14:00到16:00留给孩子午睡"}, "kind": {"user_preference"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		doc := parse(t, html)
		if doc.Find(testid("edit-reason-error")).Length() != 1 {
			t.Fatal("no reason error")
		}
		if _, open := doc.Find(testid("edit-rule")).Attr("open"); !open {
			t.Fatal("the edit form is not open with its error")
		}
		// The answer names the page the form was on, which the browser's
		// history then shows: a refresh reloads it, never posts again.
		if got := doc.Find("main").AttrOr("data-page-url", ""); got != page {
			t.Fatalf("the refused form's page says it is %q, want %q", got, page)
		}
	})
	t.Run("EditWithDiff", func(t *testing.T) {
		res, _ := post("edit", url.Values{"text": {"每天14:00到16:00留给孩子午睡"}, "kind": {"user_preference"}, "reason": {"shorter"}})
		wantRedirect(t, res, page)
		_, doc := rita.Get(page)
		if got := doc.Find(testid("rule-version")).Length(); got != 2 {
			t.Fatalf("versions = %d", got)
		}
		latest := doc.Find(testid("rule-version")).First()
		ins, del := texts(latest.Find(testid("diff-ins"))), texts(latest.Find(testid("diff-del")))
		if len(ins) == 0 || len(del) == 0 {
			t.Fatalf("diff ins %q del %q", ins, del)
		}
		for _, d := range del {
			if !strings.Contains(nap.Text, d) {
				t.Errorf("deleted %q is not from the old text", d)
			}
		}
	})
	t.Run("ApproveThenDemote", func(t *testing.T) {
		res, _ := post("approve", url.Values{})
		wantRedirect(t, res, page)
		res, html := post("demote", url.Values{"reason": {"old"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if parse(t, html).Find(testid("demote-confirm-error")).Length() != 1 {
			t.Fatal("demote without confirmation not refused")
		}
		res, _ = post("demote", url.Values{"reason": {"the child is older"}, "confirm": {"yes"}})
		wantRedirect(t, res, page)
		if got := f.Reload(t, nap.ID).Status; got != governance.RuleStale {
			t.Fatalf("status = %s", got)
		}
		res, _ = post("restore", url.Values{})
		wantRedirect(t, res, page)
		if got := f.Reload(t, nap.ID).Status; got != governance.RuleActive {
			t.Fatalf("status = %s", got)
		}
	})
	t.Run("PauseAndExpiry", func(t *testing.T) {
		res, _ := post("pause", url.Values{"reason": {"winter"}})
		wantRedirect(t, res, page)
		_, doc := rita.Get(page)
		if !strings.Contains(doc.Find(testid("rule-usable")).Text(), "paused") {
			t.Fatal("page does not say the rule is paused")
		}
		res, _ = post("unpause", url.Values{})
		wantRedirect(t, res, page)
		res, html := post("expiry", url.Values{"expires": {"not a date"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if parse(t, html).Find(testid("expiry-date-error")).Length() != 1 {
			t.Fatal("no date error")
		}
		res, _ = post("expiry", url.Values{"expires": {"2001-01-01"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		res, _ = post("expiry", url.Values{"expires": {"2099-12-31"}})
		wantRedirect(t, res, page)
		if r := f.Reload(t, nap.ID); r.ExpiresAt == nil || r.ExpiresAt.Format("2006-01-02") != "2099-12-31" || r.Paused {
			t.Fatalf("rule = %+v", r)
		}
		res, _ = post("expiry", url.Values{"clear": {"1"}})
		wantRedirect(t, res, page)
		if r := f.Reload(t, nap.ID); r.ExpiresAt != nil {
			t.Fatal("expiry not cleared")
		}
	})
	t.Run("Supersede", func(t *testing.T) {
		// The form offers the rules that could replace this one: same
		// project and scope, active or proposed, never itself.
		other := f.Rule(t, "单独安排一天") // another scope
		_, doc := rita.Get(page)
		offered := map[string]bool{}
		doc.Find(testid("supersede-rule") + " option").Each(func(_ int, o *goquery.Selection) { offered[o.AttrOr("value", "")] = true })
		if !offered[strconv.FormatInt(attach.ID, 10)] || offered[strconv.FormatInt(other.ID, 10)] || offered[strconv.FormatInt(nap.ID, 10)] {
			t.Fatalf("the supersede form offers %v; want rule %d, not %d nor the rule itself", offered, attach.ID, other.ID)
		}
		res, html := post("supersede", url.Values{"newer": {"abc"}, "reason": {"x"}, "confirm": {"yes"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if parse(t, html).Find(testid("supersede-rule-error")).Length() != 1 {
			t.Fatal("bad id not shown")
		}
		res, _ = post("supersede", url.Values{"newer": {strconv.FormatInt(other.ID, 10)}, "reason": {"x"}, "confirm": {"yes"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		res, _ = post("supersede", url.Values{"newer": {strconv.FormatInt(attach.ID, 10)}, "reason": {"replaced"}, "confirm": {"yes"}})
		wantRedirect(t, res, page)
		if got := f.Reload(t, attach.ID).Supersedes; got != nap.ID {
			t.Fatalf("proposal %d supersedes %d", attach.ID, got)
		}
		// The replacement is shown side by side in the queue; approving it
		// supersedes the old rule.
		_, doc = rita.Get(travelQueue)
		card := doc.Find("#proposal-" + strconv.FormatInt(attach.ID, 10))
		if strings.TrimSpace(card.Find(testid("replaced-text")).Text()) == "" {
			t.Fatal("the replaced rule is not shown beside the proposal")
		}
		res, _ = rita.PostForm(travelQueue, ruleURL(attach.ID, "approve"), url.Values{"back": {travelQueue}})
		wantRedirect(t, res, travelQueue)
		if r := f.Reload(t, nap.ID); r.Status != governance.RuleSuperseded || r.SupersededBy != attach.ID {
			t.Fatalf("old rule = %s by %d", r.Status, r.SupersededBy)
		}
		if card.Find(testid("replacement-fate")).Length() != 1 {
			t.Fatal("the card does not say what becomes of the replaced rule")
		}
		_, doc = rita.Get(page)
		if doc.Find(testid("rule-replaced-by")).Length() != 1 {
			t.Fatal("the old rule does not link its replacement")
		}
		// Undo: demoting the replacement offers to restore the old rule.
		newPage := ruleURL(attach.ID)
		_, doc = rita.Get(newPage)
		box := doc.Find(testid("demote-restore-replaced"))
		if box.AttrOr("value", "") != strconv.FormatInt(nap.ID, 10) {
			t.Fatalf("the demote form does not offer to restore rule %d", nap.ID)
		}
		res, _ = rita.PostForm(newPage, ruleURL(attach.ID, "demote"), url.Values{"reason": {"the old time again"}, "confirm": {"yes"},
			"restore_replaced": {box.AttrOr("value", "")}})
		wantRedirect(t, res, newPage)
		if r := f.Reload(t, nap.ID); r.Status != governance.RuleActive || r.SupersededBy != 0 {
			t.Fatalf("old rule after the undo = %s by %d, want active", r.Status, r.SupersededBy)
		}
	})
	t.Run("ToCandidates", func(t *testing.T) {
		lesson := f.Rule(t, "单独安排一天")
		if _, err := f.Store.ApproveRule(context.Background(), "test", lesson.ID, nil); err != nil {
			t.Fatal(err)
		}
		res, _ := rita.PostForm(ruleURL(lesson.ID), ruleURL(lesson.ID, "to-candidates"), url.Values{"reason": {"needs more"}, "confirm": {"yes"}})
		wantRedirect(t, res, ruleURL(lesson.ID))
		if got := f.Reload(t, lesson.ID).Status; got != governance.RuleArchived {
			t.Fatalf("status = %s", got)
		}
	})
}

// TestRuleDiffMemory: the diff of two versions of the longest rule text
// allocates memory linear in their tokens, not a table of their product
// (an LCS table of 2,001² ints was 32 MB a version pair, for every version
// on every view of the rule page).
func TestRuleDiffMemory(t *testing.T) {
	words := func(prefix string) string {
		var b strings.Builder
		for i := range governance.MaxRuleText / 2 {
			fmt.Fprintf(&b, "%s%d ", prefix, i%97)
		}
		return strings.TrimSpace(b.String())
	}
	old, new := words("a"), words("b") // 1,999 tokens each, none shared but the spaces
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	segs := web.DiffText(old, new)
	runtime.ReadMemStats(&after)
	if len(segs) == 0 {
		t.Fatal("no diff")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 8<<20 {
		t.Fatalf("the diff allocated %d MB", n>>20)
	} else {
		t.Logf("the diff allocated %d KB", n>>10)
	}
}

func TestRuleDiff(t *testing.T) {
	for _, tc := range []struct{ old, new, ins, del string }{
		{"孩子每天下午两点午睡", "孩子每天下午三点午睡", "三", "两"},
		{"always run the linter before committing", "always run the tests before committing", "tests", "linter"},
		{"a", "a", "", ""},
		{"", "new text", "new text", ""},
		{"keep the first, drop the middle and keep the end", "keep the first and keep the end", "", ", drop the middle"},
	} {
		segs := web.DiffText(tc.old, tc.new)
		var ins, del, oldBack, newBack strings.Builder
		for _, s := range segs {
			switch s.Op {
			case "+":
				ins.WriteString(s.Text)
				newBack.WriteString(s.Text)
			case "-":
				del.WriteString(s.Text)
				oldBack.WriteString(s.Text)
			default:
				oldBack.WriteString(s.Text)
				newBack.WriteString(s.Text)
			}
		}
		if ins.String() != tc.ins || del.String() != tc.del || oldBack.String() != tc.old || newBack.String() != tc.new {
			t.Errorf("%q → %q: ins %q del %q", tc.old, tc.new, ins.String(), del.String())
		}
	}
}
