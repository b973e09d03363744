package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestForgetRulePages(t *testing.T) {
	f := NewGovFixture(t)
	rita := f.Login(t, GovReviewer)
	nap := f.Rule(t, "午睡")
	chain, _ := f.Store.FindRuleEvidence(context.Background(), nap.ID)

	t.Run("ConfirmationShowsExactlyWhatGoes", func(t *testing.T) {
		res, doc := rita.Get(ruleURL(nap.ID, "forget"))
		wantStatus(t, res, http.StatusOK)
		if got := texts(doc.Find(testid("forget-rule"))); len(got) != 1 || !strings.Contains(got[0], nap.Text) {
			t.Fatalf("rules = %q", got)
		}
		if got := doc.Find(testid("forget-candidate")).Length(); got != len(chain) {
			t.Fatalf("candidates = %d, want %d", got, len(chain))
		}
		if got := doc.Find(testid("forget-event-count")).AttrOr("data-count", ""); got != "0" {
			t.Fatalf("events without asking = %s", got)
		}
		href, _ := doc.Find(testid("forget-with-events")).Attr("href")
		_, doc = rita.Get(href)
		if doc.Find(testid("forget-event")).Length() == 0 {
			t.Fatal("asking for the lines does not list them")
		}
		if v, _ := doc.Find(testid("forget-form") + ` input[name="events"]`).Attr("value"); v != "1" {
			t.Fatal("the form does not carry the lines choice")
		}
	})
	t.Run("Forget", func(t *testing.T) {
		res, _ := rita.PostForm(ruleURL(nap.ID, "forget"), ruleURL(nap.ID, "forget"), url.Values{"events": {"1"}, "back": {ruleURL(nap.ID)}})
		wantRedirect(t, res, ruleURL(nap.ID))
		r := f.Reload(t, nap.ID)
		if r.Status != governance.RuleForgotten || r.Text != governance.RedactedText {
			t.Fatalf("rule = %s %q", r.Status, r.Text)
		}
		_, doc := rita.Get(ruleURL(nap.ID))
		if doc.Find(testid("rule-actions")).Length() != 0 || strings.TrimSpace(doc.Find(testid("rule-status")).First().Text()) != "forgotten" {
			t.Fatal("the forgotten rule still offers actions")
		}
		if strings.Contains(doc.Text(), nap.Text) {
			t.Fatal("the page still shows the text")
		}
		for _, l := range chain {
			for _, e := range l.Events {
				got, _ := f.Store.FindEventBySeq(context.Background(), e.Seq)
				if !got.Redacted {
					t.Errorf("event %d not redacted", e.Seq)
				}
			}
		}
		res, _ = rita.PostForm(ruleURL(nap.ID), ruleURL(nap.ID, "forget"), url.Values{})
		wantStatus(t, res, http.StatusConflict)
	})
	t.Run("Bulk", func(t *testing.T) {
		attach, lesson := f.Rule(t, "结论"), f.Rule(t, "单独安排一天")
		v := url.Values{"id": {strconv.FormatInt(attach.ID, 10), strconv.FormatInt(lesson.ID, 10)}}
		res, doc := rita.PostForm("/rules", "/rules/forget", v)
		wantStatus(t, res, http.StatusOK)
		if got := doc.Find(testid("forget-rule")).Length(); got != 2 {
			t.Fatalf("confirmation lists %d rules", got)
		}
		if f.Reload(t, attach.ID).Status == governance.RuleForgotten {
			t.Fatal("forgotten before the confirmation")
		}
		v.Set("confirm", "1")
		res, _ = rita.PostForm("/rules", "/rules/forget", v)
		wantRedirect(t, res, "/rules")
		for _, id := range []int64{attach.ID, lesson.ID} {
			if got := f.Reload(t, id).Status; got != governance.RuleForgotten {
				t.Errorf("rule %d = %s", id, got)
			}
		}
	})
}

func TestAdminForgetSubject(t *testing.T) {
	f := NewGovFixture(t)
	admin := f.Login(t, GovAdmin)
	lesson := f.Rule(t, "单独安排一天")
	res, doc := admin.Get("/admin/forget?project=travel-agent&subject=")
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if doc.Find(testid("forget-subject-error")).Length() != 1 {
		t.Fatal("missing subject not shown")
	}
	res, doc = admin.Get("/admin/forget?project=travel-agent&subject=family-chen")
	wantStatus(t, res, http.StatusOK)
	if doc.Find(testid("forget-shared")).Length() != 1 || !strings.Contains(doc.Find(testid("forget-rules")).Text(), lesson.Text) {
		t.Fatal("the project-wide rule learned only from this subject is not listed")
	}
	events, _ := strconv.Atoi(doc.Find(testid("forget-event-count")).AttrOr("data-count", ""))
	if events == 0 {
		t.Fatal("no events listed")
	}
	res, _ = admin.PostForm("/admin/forget", "/admin/forget", url.Values{"project": {"travel-agent"}, "subject": {"family-chen"}})
	wantRedirect(t, res, "/admin/forget")
	if got := f.Reload(t, lesson.ID).Status; got != governance.RuleForgotten {
		t.Fatalf("shared rule = %s", got)
	}
	subject := "family-chen"
	left, _, _ := f.Store.FindEvents(context.Background(), governance.EventFilter{ProjectID: &f.Travel.ID, SubjectID: &subject})
	for _, e := range left {
		if !e.Redacted {
			t.Fatalf("event %d kept its text", e.Seq)
		}
	}
	rows, _, _ := f.Store.FindAudit(context.Background(), governance.AuditFilter{Action: "subject.forget"})
	if len(rows) != 1 || rows[0].Actor != GovAdmin {
		t.Fatalf("audit = %+v", rows)
	}
}
