package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
)

// follow fetches the page a 303 sends the browser to.
func follow(t *testing.T, c *Client, res *http.Response) *goquery.Document {
	t.Helper()
	wantStatus(t, res, http.StatusSeeOther)
	_, doc := c.Get(res.Header.Get("Location"))
	return doc
}

// undoAudit is the audit row an undo form on doc names (testID: the form).
func undoAudit(t *testing.T, doc *goquery.Document, testID string) string {
	t.Helper()
	form := doc.Find(testid(testID))
	if form.Length() != 1 {
		t.Fatalf("%d %s forms, want 1", form.Length(), testID)
	}
	audit, _ := form.Find(`input[name="audit"]`).Attr("value")
	if _, ok := form.Find(`input[name="csrf"]`).Attr("value"); !ok || audit == "" {
		t.Fatalf("the %s form has no CSRF token or audit id", testID)
	}
	return audit
}

// TestUndoLastAction: after an action the flash offers an Undo button;
// the reviewer who took it undoes it (an audit row rule.undo names it),
// another reviewer may not, an admin may; after a later change the undo
// is a conflict, and after the window it is refused and no longer shown.
func TestUndoLastAction(t *testing.T) {
	ctx := context.Background()
	f := NewGovFixture(t)
	MustCreateAccount(t, f.Store, &governance.Account{Username: "rosa", Memberships: []governance.Membership{
		{ProjectID: f.Travel.ID, Role: governance.ProjectReviewer}}})
	rita, rosa, admin := f.Login(t, GovReviewer), f.Login(t, "rosa"), f.Login(t, GovAdmin)
	nap := f.Rule(t, "午睡")
	page := "/rules/" + strconv.FormatInt(nap.ID, 10)

	res, _ := rita.PostForm(page, page+"/approve", url.Values{})
	doc := follow(t, rita, res)
	if !strings.Contains(doc.Find(testid("flash-success")).Text(), "#"+strconv.FormatInt(nap.ID, 10)) {
		t.Fatalf("flash = %q; want what happened", doc.Find(testid("flash-success")).Text())
	}
	audit := undoAudit(t, doc, "flash-undo")
	if got := f.Reload(t, nap.ID).Status; got != governance.RuleActive {
		t.Fatalf("status = %s after approve", got)
	}

	t.Run("OtherReviewerForbidden", func(t *testing.T) {
		if _, doc := rosa.Get(page); doc.Find(testid("rule-undo")).Length() != 0 {
			t.Fatal("another reviewer is offered the undo")
		}
		res, _ := rosa.PostForm(page, page+"/undo", url.Values{"audit": {audit}})
		wantStatus(t, res, http.StatusForbidden)
		if got := f.Reload(t, nap.ID).Status; got != governance.RuleActive {
			t.Fatalf("status = %s after a forbidden undo", got)
		}
	})
	t.Run("WithoutToken", func(t *testing.T) {
		res, _ := rita.PostRaw(page+"/undo", url.Values{"audit": {audit}})
		if res.StatusCode < 400 {
			t.Fatalf("undo without a CSRF token: status %d", res.StatusCode)
		}
	})
	t.Run("SameReviewer", func(t *testing.T) {
		_, doc := rita.Get(page)
		if got := undoAudit(t, doc, "rule-undo"); got != audit {
			t.Fatalf("the rule page undoes audit row %s, want %s", got, audit)
		}
		res, _ := rita.PostForm(page, page+"/undo", url.Values{"audit": {audit}})
		doc = follow(t, rita, res)
		if doc.Find(testid("flash-success")).Length() != 1 || doc.Find(testid("rule-undo")).Length() != 0 {
			t.Fatal("no flash after the undo, or an undo of the undo is offered")
		}
		r := f.Reload(t, nap.ID)
		if r.Status != governance.RuleProposed {
			t.Fatalf("status = %s after undo, want proposed", r.Status)
		}
		rows, _, err := f.Store.FindAudit(ctx, governance.AuditFilter{ObjectType: "rule", ObjectID: strconv.FormatInt(nap.ID, 10), Limit: 1})
		if err != nil || len(rows) != 1 || rows[0].Action != governance.UndoAuditAction || rows[0].Actor != GovReviewer ||
			!strings.Contains(rows[0].Details, `"undone":"rule.approve"`) || !strings.Contains(rows[0].Details, `"audit_id":`+audit) {
			t.Fatalf("audit = %+v, %v; want rule.undo by %s naming rule.approve", rows, err, GovReviewer)
		}
		// Again: the action is no longer the rule's last.
		res, _ = rita.PostForm(page, page+"/undo", url.Values{"audit": {audit}})
		wantStatus(t, res, http.StatusConflict)
	})
	t.Run("LaterChangeConflicts", func(t *testing.T) {
		res, _ := rita.PostForm(page, page+"/approve", url.Values{})
		audit := undoAudit(t, follow(t, rita, res), "flash-undo")
		res, _ = rosa.PostForm(page, page+"/pause", url.Values{})
		wantStatus(t, res, http.StatusSeeOther)
		res, _ = rita.PostForm(page, page+"/undo", url.Values{"audit": {audit}})
		wantStatus(t, res, http.StatusConflict)
		if r := f.Reload(t, nap.ID); r.Status != governance.RuleActive || !r.Paused {
			t.Fatalf("rule = %s paused=%v after a refused undo", r.Status, r.Paused)
		}
	})
	t.Run("AdminUndoesAnyone", func(t *testing.T) {
		other := f.Rule(t, "结论")
		p := "/rules/" + strconv.FormatInt(other.ID, 10)
		res, _ := rita.PostForm(p, p+"/reject", url.Values{"reason": {"not now"}})
		wantStatus(t, res, http.StatusSeeOther)
		_, doc := admin.Get(p)
		audit := undoAudit(t, doc, "rule-undo")
		if got := doc.Find(testid("rule-undo-submit")).Text(); got != "Undo (proposal rejected)" {
			t.Fatalf("button = %q", got)
		}
		if _, zh := admin.Get(p, "Accept-Language", "zh-CN"); zh.Find(testid("rule-undo-submit")).Text() != "撤销（拒绝提议）" {
			t.Fatalf("zh-CN button = %q", zh.Find(testid("rule-undo-submit")).Text())
		}
		res, _ = admin.PostForm(p, p+"/undo", url.Values{"audit": {audit}})
		wantStatus(t, res, http.StatusSeeOther)
		if got := f.Reload(t, other.ID).Status; got != governance.RuleProposed {
			t.Fatalf("status = %s after the admin's undo, want proposed", got)
		}
	})
	t.Run("WindowClosed", func(t *testing.T) {
		lesson := f.Rule(t, "单独安排一天")
		p := "/rules/" + strconv.FormatInt(lesson.ID, 10)
		res, _ := rita.PostForm(p, p+"/hold", url.Values{})
		audit := undoAudit(t, follow(t, rita, res), "flash-undo")
		f.Store.Now = func() time.Time { return time.Now().Add(governance.RuleUndoWindow + time.Minute) }
		defer func() { f.Store.Now = time.Now }()
		if _, doc := rita.Get(p); doc.Find(testid("rule-undo")).Length() != 0 {
			t.Fatal("the rule page offers an undo after the window")
		}
		res, _ = rita.PostForm(p, p+"/undo", url.Values{"audit": {audit}})
		wantStatus(t, res, http.StatusConflict)
		if got := f.Reload(t, lesson.ID).Status; got != governance.RuleArchived {
			t.Fatalf("status = %s after a refused undo, want archived (held)", got)
		}
	})
}

// TestUndoBulkAction: a bulk approve or reject is undone in one step from
// its flash: every rule goes back, each with its rule.undo audit row;
// another reviewer may not; and when one of the rules changed since,
// nothing is undone.
func TestUndoBulkAction(t *testing.T) {
	f := NewGovFixture(t)
	MustCreateAccount(t, f.Store, &governance.Account{Username: "rosa", Memberships: []governance.Membership{
		{ProjectID: f.Travel.ID, Role: governance.ProjectReviewer}}})
	rita, rosa := f.Login(t, GovReviewer), f.Login(t, "rosa")
	nap, route := f.Rule(t, "午睡"), f.Rule(t, "路线检查")
	queue := "/projects/travel-agent/review"
	bulk := url.Values{"id": {strconv.FormatInt(nap.ID, 10), strconv.FormatInt(route.ID, 10)}}
	undoForm := func(doc *goquery.Document) url.Values {
		t.Helper()
		form := doc.Find(testid("flash-undo"))
		if form.Length() != 1 || form.AttrOr("action", "") != "/rules/undo" {
			t.Fatalf("%d bulk undo forms (action %q), want 1", form.Length(), form.AttrOr("action", ""))
		}
		v := url.Values{}
		form.Find(`input[name="undo"]`).Each(func(_ int, s *goquery.Selection) { v.Add("undo", s.AttrOr("value", "")) })
		if len(v["undo"]) != 2 {
			t.Fatalf("the undo names %v, want the two rules' actions", v["undo"])
		}
		return v
	}
	status := func() [2]governance.RuleStatus {
		return [2]governance.RuleStatus{f.Reload(t, nap.ID).Status, f.Reload(t, route.ID).Status}
	}

	res, _ := rita.PostForm(queue, queue+"/approve", bulk)
	doc := follow(t, rita, res)
	undo := undoForm(doc)
	if got := doc.Find(testid("flash-undo-submit")).Text(); got != "Undo (rule approved) for 2 rules" {
		t.Errorf("button = %q", got)
	}
	if got := status(); got != [2]governance.RuleStatus{governance.RuleActive, governance.RuleActive} {
		t.Fatalf("after the bulk approve: %v", got)
	}
	res, _ = rosa.PostForm(queue, "/rules/undo", undo)
	wantStatus(t, res, http.StatusForbidden)
	res, _ = rita.PostForm(queue, "/rules/undo", undo)
	doc = follow(t, rita, res)
	if !strings.Contains(doc.Find(testid("flash-success")).Text(), "2 rules are back") {
		t.Errorf("flash = %q", doc.Find(testid("flash-success")).Text())
	}
	if got := status(); got != [2]governance.RuleStatus{governance.RuleProposed, governance.RuleProposed} {
		t.Fatalf("after the undo: %v, want both proposed", got)
	}
	for _, id := range []int64{nap.ID, route.ID} {
		rows, _, err := f.Store.FindAudit(context.Background(), governance.AuditFilter{ObjectType: "rule", ObjectID: strconv.FormatInt(id, 10), Limit: 1})
		if err != nil || len(rows) != 1 || rows[0].Action != governance.UndoAuditAction || rows[0].Actor != GovReviewer {
			t.Fatalf("rule %d: last audit = %+v, %v; want rule.undo by %s", id, rows, err, GovReviewer)
		}
	}
	res, _ = rita.PostForm(queue, "/rules/undo", undo)
	wantStatus(t, res, http.StatusConflict)

	res, _ = rita.PostForm(queue, queue+"/reject", url.Values{"id": bulk["id"], "reason": {"not now"}})
	undo = undoForm(follow(t, rita, res))
	restore := "/rules/" + strconv.FormatInt(nap.ID, 10)
	res, _ = rosa.PostForm(restore, restore+"/restore", url.Values{"reason": {"worth another look"}})
	wantStatus(t, res, http.StatusSeeOther)
	res, _ = rita.PostForm(queue, "/rules/undo", undo)
	wantStatus(t, res, http.StatusConflict)
	if got := status(); got != [2]governance.RuleStatus{governance.RuleProposed, governance.RuleRejected} {
		t.Fatalf("after a refused undo: %v, want the restored proposal and the rule still rejected", got)
	}
}
