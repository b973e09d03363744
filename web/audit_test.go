package web_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

func TestAuditLog(t *testing.T) {
	f := NewGovFixture(t)
	rita := f.Login(t, GovReviewer)
	nap := f.Rule(t, "午睡")
	res, _ := rita.PostForm(travelQueue, ruleURL(nap.ID, "reject"), url.Values{"reason": {"=cmd|' /C calc'!A0"}})
	wantStatus(t, res, http.StatusSeeOther)

	t.Run("VerifiedAndFiltered", func(t *testing.T) {
		res, doc := f.Login(t, GovAdmin).Get("/audit")
		wantStatus(t, res, http.StatusOK)
		if doc.Find(testid("audit-verified")).Length() != 1 {
			t.Fatal("no verification banner")
		}
		_, doc = rita.Get("/audit?actor=reviewer&action=rule.reject")
		// The action filter offers the actions by their labels, the one asked for chosen.
		if got := doc.Find(`select[name="action"] option[selected]`); got.AttrOr("value", "") != "rule.reject" || got.Text() != "proposal rejected" {
			t.Errorf("action filter = %q (%q)", got.Text(), got.AttrOr("value", ""))
		}
		rows := doc.Find(testid("audit-row"))
		if rows.Length() != 1 || strings.TrimSpace(rows.Find(testid("audit-object")).Text()) != "rule #"+strconv.FormatInt(nap.ID, 10) {
			t.Fatalf("filtered rows = %q", texts(rows))
		}
		_, doc = rita.Get("/audit?object_type=rule&object_id=" + strconv.FormatInt(nap.ID, 10))
		if doc.Find(testid("audit-row")).Length() != 2 { // proposed by the heartbeat, rejected
			t.Fatalf("rows of the rule = %d", doc.Find(testid("audit-row")).Length())
		}
		_, doc = rita.Get("/audit?since=2000-01-01&until=2000-01-02")
		if doc.Find(testid("audit-row")).Length() != 0 {
			t.Fatal("the time filter lets old rows through")
		}
		res, doc = rita.Get("/audit?since=yesterday")
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if doc.Find(testid("audit-since-error")).Length() != 1 {
			t.Fatal("bad date not shown")
		}
	})
	t.Run("ScopedToOwnProjects", func(t *testing.T) {
		_, doc := f.Login(t, ExpenseReviewer).Get("/audit?action=rule.reject")
		if doc.Find(testid("audit-row")).Length() != 0 || doc.Find(testid("audit-scoped")).Length() != 1 {
			t.Fatal("an expense reviewer sees travel audit rows")
		}
	})
	t.Run("CSV", func(t *testing.T) {
		res, body := rita.Do(http.MethodGet, "/audit.csv?action=rule.reject", nil, nil)
		wantStatus(t, res, http.StatusOK)
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("content type %q", res.Header.Get("Content-Type"))
		}
		// A UTF-8 byte order mark first, so spreadsheets read Chinese.
		body, ok := strings.CutPrefix(body, "\ufeff")
		if !ok {
			t.Fatal("the CSV does not start with a UTF-8 byte order mark")
		}
		records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 2 || records[0][0] != "id" || records[1][3] != "rule.reject" {
			t.Fatalf("csv = %q", records)
		}
		if reason := records[1][7]; !strings.HasPrefix(reason, "'=") {
			t.Fatalf("a formula-like reason is not neutralised: %q", reason)
		}
	})
	t.Run("TamperNamedOnThePage", func(t *testing.T) {
		ctx := context.Background()
		db := f.Store.DB()
		if _, err := db.ExecContext(ctx, `DROP TRIGGER audit_no_update`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `UPDATE audit SET reason = 'nothing to see' WHERE action = 'rule.reject'`); err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := db.QueryRowContext(ctx, `SELECT id FROM audit WHERE action = 'rule.reject'`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		_, doc := f.Login(t, GovAdmin).Get("/audit")
		if doc.Find(testid("audit-verified")).Length() != 0 {
			t.Fatal("the page says the altered chain verifies")
		}
		if got := strings.TrimSpace(doc.Find(testid("audit-bad-row")).Text()); got != "#"+strconv.FormatInt(id, 10) {
			t.Fatalf("named row = %q, want #%d", got, id)
		}
		if !strings.Contains(doc.Find(testid("audit-broken")).Text(), "does not match its hash") {
			t.Fatalf("banner = %q", doc.Find(testid("audit-broken")).Text())
		}
		// In Chinese the problem is said in Chinese, not as stored English.
		_, doc = f.Login(t, GovAdmin).Get("/audit", "Accept-Language", "zh-CN")
		want := locale.For("zh-CN").Phrase("its content does not match its hash")
		if banner := doc.Find(testid("audit-broken")).Text(); want == "its content does not match its hash" || !strings.Contains(banner, want) {
			t.Fatalf("Chinese banner = %q, want %q in it", banner, want)
		}
	})
}

// Eval scratch activity is left out of the audit log unless asked for, and
// a row naming a rule that no longer exists links nowhere.
func TestAuditEvalActivityHidden(t *testing.T) {
	f := NewGovFixture(t)
	ctx := context.Background()
	p := &governance.Project{Slug: "eval-run-1-fixture", Name: "scratch"}
	if err := f.Store.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Store.DB().ExecContext(ctx, `UPDATE projects SET scratch = 1 WHERE id = ?`, p.ID); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*governance.AuditEntry{
		{Actor: "heartbeat", Action: "rule.propose", ObjectType: "rule", ObjectID: "999999", ProjectID: p.ID},
		{Actor: "eval-runner", Action: "eval.run_finish", ObjectType: "eval_run", ObjectID: "1"},
	} {
		if err := f.Store.AppendAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	admin := f.Login(t, GovAdmin)
	_, doc := admin.Get("/audit")
	if n := doc.Find(`[data-testid="audit-actor"]:contains("eval-runner")`).Length(); n != 0 {
		t.Fatalf("eval runner rows shown by default: %d", n)
	}
	if doc.Find(`a[href="/rules/999999"]`).Length() != 0 {
		t.Fatal("a link to a rule that does not exist")
	}
	_, doc = admin.Get("/audit?eval=1")
	if n := doc.Find(`[data-testid="audit-actor"]:contains("eval-runner")`).Length(); n != 1 {
		t.Fatalf("eval runner rows with the filter: %d", n)
	}
	if doc.Find(`[data-testid="audit-object"]:contains("999999")`).Length() != 1 {
		t.Fatal("the scratch rule's row is missing with the filter")
	}
	if doc.Find(`a[href="/rules/999999"]`).Length() != 0 {
		t.Fatal("a link to a rule that does not exist")
	}
}
