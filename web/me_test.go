package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
)

func TestMyMemories(t *testing.T) {
	f := NewGovFixture(t)
	chen := f.Login(t, GovMember)
	nap, attach, lesson := f.Rule(t, "午睡"), f.Rule(t, "结论"), f.Rule(t, "单独安排一天")

	t.Run("Show", func(t *testing.T) {
		res, doc := chen.Get("/me")
		wantStatus(t, res, http.StatusOK)
		got := texts(doc.Find(testid("me-rule-text")))
		if len(got) != 2 || !strings.Contains(strings.Join(got, "|"), nap.Text) || !strings.Contains(strings.Join(got, "|"), attach.Text) {
			t.Fatalf("rules = %q, want the family's two", got)
		}
		if strings.Contains(doc.Find(testid("me-rule-text")).Text(), lesson.Text) {
			t.Fatal("a project-wide rule is listed as the member's own")
		}
		why := doc.Find(testid("why-rule-" + strconv.FormatInt(nap.ID, 10)))
		if !strings.Contains(why.Find(testid("why-reason")).Text(), "separate conversations") {
			t.Fatalf("why = %q", why.Find(testid("why-reason")).Text())
		}
		lines := why.Find(testid("why-line"))
		if lines.Length() == 0 || !strings.Contains(lines.Text(), "午睡") {
			t.Fatal("the lines it came from are missing")
		}
		if href, _ := why.Find(testid("why-line-link")).First().Attr("href"); !strings.HasPrefix(href, "/events/") {
			t.Fatalf("line link = %q", href)
		}
		if !strings.Contains(doc.Find(testid("me-candidate-text")).Text(), "王府井") {
			t.Fatal("the held candidate is not listed")
		}
	})
	t.Run("InTheirWords", func(t *testing.T) {
		// Under "what the assistant follows" only rules in use; the forget
		// page speaks of memories, not of rule ids, candidates or hashes.
		if _, err := f.Store.ApproveRule(context.Background(), "rita", nap.ID, nil); err != nil {
			t.Fatal(err)
		}
		_, doc := chen.Get("/me")
		if doc.Find(testid("me-waiting")+" "+testid("me-rule")).Length() == 0 {
			t.Error("the family's proposal is not listed as waiting")
		}
		inUse := doc.Find(testid("me-in_use") + " " + testid("me-rule"))
		if inUse.Length() == 0 {
			t.Fatal("nothing listed as followed by the assistant")
		}
		inUse.Each(func(_ int, s *goquery.Selection) {
			id, _ := strconv.ParseInt(s.AttrOr("data-rule", ""), 10, 64)
			if r := f.Reload(t, id); r.Status != governance.RuleActive || r.Paused {
				t.Errorf("rule %d (%s) is listed as followed", id, r.Status)
			}
		})
		doc.Find(testid("me-rule")).Each(func(_ int, s *goquery.Selection) {
			id := s.AttrOr("data-rule", "")
			_, page := chen.Get("/rules/" + id + "/forget?back=%2Fme")
			text := strings.ToLower(page.Find("main").Text())
			for _, jargon := range []string{"#" + id, "rule", "candidate", "fingerprint", "heartbeat", "trace"} {
				if strings.Contains(text, jargon) {
					t.Errorf("the forget page of memory %s says %q", id, jargon)
				}
			}
		})
	})
	t.Run("OtherSubjectSeesNothingOfThis", func(t *testing.T) {
		_, doc := f.Login(t, GovOtherMember).Get("/me")
		if doc.Find(testid("me-rule")).Length()+doc.Find(testid("me-candidate")).Length() != 0 {
			t.Fatal("another subject's memories are shown")
		}
		if doc.Find(testid("me-nothing")).Length() != 1 {
			t.Fatal("no empty state")
		}
		_, doc = f.Login(t, GovReviewer).Get("/me")
		if doc.Find(testid("me-no-subject")).Length() != 1 {
			t.Fatal("a reviewer without a subject sees no explanation")
		}
	})
	t.Run("Download", func(t *testing.T) {
		res, body := chen.Do(http.MethodGet, "/me/export.json", nil, nil)
		wantStatus(t, res, http.StatusOK)
		if !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
			t.Fatal("not a download")
		}
		var got struct {
			Account  string `json:"account"`
			Subjects []struct {
				Project    string                  `json:"project"`
				SubjectID  string                  `json:"subject_id"`
				Rules      []*governance.Rule      `json:"rules"`
				Candidates []*governance.Candidate `json:"candidates"`
				Events     []*governance.Event     `json:"events"`
			} `json:"subjects"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("not JSON: %v\n%.300s", err, body)
		}
		if got.Account != GovMember || len(got.Subjects) != 1 {
			t.Fatalf("export = %+v", got)
		}
		s := got.Subjects[0]
		if s.Project != "travel-agent" || len(s.Rules) != 2 || len(s.Candidates) == 0 || len(s.Events) < 30 {
			t.Fatalf("subject export: %s rules %d candidates %d events %d", s.Project, len(s.Rules), len(s.Candidates), len(s.Events))
		}
		for _, e := range s.Events {
			if e.SubjectID != GovMember {
				t.Fatalf("event %d of %s exported", e.Seq, e.SubjectID)
			}
		}
	})
	t.Run("ForgetOneRule", func(t *testing.T) {
		page := ruleURL(nap.ID, "forget") + "?back=" + url.QueryEscape("/me")
		res, doc := chen.Get(page)
		wantStatus(t, res, http.StatusOK)
		if href, _ := doc.Find(testid("forget-cancel")).Attr("href"); href != "/me" {
			t.Fatalf("cancel goes to %q", href)
		}
		res, _ = chen.PostForm(page, ruleURL(nap.ID, "forget"), url.Values{"back": {"/me"}})
		wantRedirect(t, res, "/me")
		_, doc = chen.Get("/me")
		if strings.Contains(doc.Text(), nap.Text) {
			t.Fatal("the forgotten rule is still on the page")
		}
		if !strings.Contains(doc.Find(testid("flash-success")).Text(), "forgotten") {
			t.Fatal("no confirmation")
		}
	})
	t.Run("ForgetCandidate", func(t *testing.T) {
		_, doc := chen.Get("/me")
		sel := doc.Find(testid("me-candidate")).FilterFunction(func(_ int, s *goquery.Selection) bool {
			return strings.Contains(s.Find(testid("me-candidate-text")).Text(), "王府井")
		})
		id := sel.AttrOr("data-candidate", "")
		if id == "" {
			t.Fatal("no Wangfujing candidate")
		}
		page := "/candidates/" + id + "/forget?back=%2Fme"
		res, _ := chen.Get(page)
		wantStatus(t, res, http.StatusOK)
		res, _ = chen.PostForm(page, "/candidates/"+id+"/forget", url.Values{"back": {"/me"}})
		wantRedirect(t, res, "/me")
		_, doc = chen.Get("/me")
		if i := strings.Index(doc.Text(), "王府井附近"); i >= 0 {
			t.Fatalf("the forgotten candidate is still listed: %q", doc.Text()[max(0, i-400):i+100])
		}
		// Another member may not forget it (it is gone now anyway: 404).
		res, _ = f.Login(t, GovOtherMember).PostForm("/me", "/candidates/"+id+"/forget", url.Values{})
		wantStatus(t, res, http.StatusNotFound)
	})
	t.Run("ForgetEverything", func(t *testing.T) {
		res, doc := chen.Get("/me/forget")
		wantStatus(t, res, http.StatusOK)
		if doc.Find(testid("forget-shared")).Length() != 1 {
			t.Fatal("the shared rule learned only from this family is not listed")
		}
		res, _ = chen.PostForm("/me/forget", "/me/forget", url.Values{})
		wantRedirect(t, res, "/me")
		_, doc = chen.Get("/me")
		if doc.Find(testid("me-rule")).Length()+doc.Find(testid("me-candidate")).Length() != 0 {
			t.Fatal("memories remain after forgetting everything")
		}
		subject := GovMember
		events, _, _ := f.Store.FindEvents(context.Background(), governance.EventFilter{ProjectID: &f.Travel.ID, SubjectID: &subject})
		for _, e := range events {
			if !e.Redacted {
				t.Fatalf("event %d kept its text", e.Seq)
			}
		}
		if got := f.Reload(t, lesson.ID).Status; got != governance.RuleForgotten {
			t.Fatalf("shared rule = %s", got)
		}
	})
}

// TestMeForgetSaysMembershipsEnd: "forget everything about me" also ends
// the member's memberships (the subject forget removes them; the account
// stays). The confirmation page says so before the member confirms — which
// projects they leave, that they lose their view of what those remember,
// that it cannot be undone — in English and Chinese; the confirmation
// still needs the CSRF token, and only the confirmed forget ends them.
func TestMeForgetSaysMembershipsEnd(t *testing.T) {
	f := NewGovFixture(t)
	chen := f.Login(t, GovMember)
	member := func() bool {
		t.Helper()
		a, err := f.Store.FindAccountByUsername(context.Background(), GovMember)
		if err != nil {
			t.Fatal(err)
		}
		_, ok := a.MembershipFor(f.Travel.ID)
		return ok
	}
	for _, tc := range []struct{ lang, leave, view, final string }{
		{"en", "stop being a member of " + f.Travel.Name, "lose your view", "cannot be undone"},
		{"zh-CN", f.Travel.Name + " 的成员身份也会随之结束", "无法再查看", "无法撤销"},
	} {
		res, doc := chen.Get("/me/forget", "Accept-Language", tc.lang)
		wantStatus(t, res, http.StatusOK)
		said := doc.Find(testid("forget-consequence"))
		for _, want := range []string{tc.leave, tc.view, tc.final} {
			if !strings.Contains(said.Text(), want) {
				t.Errorf("%s: the page does not say %q before the confirmation: %q", tc.lang, want, texts(said))
			}
		}
		if doc.Find(testid("forget-consequences")+" ~ "+testid("forget-form")).Length() != 1 {
			t.Errorf("%s: the consequences are not said before the confirmation form", tc.lang)
		}
	}
	res, _ := chen.PostRaw("/me/forget", url.Values{})
	wantStatus(t, res, http.StatusForbidden)
	if !member() {
		t.Fatal("a confirmation without the CSRF token ended the membership")
	}
	res, _ = chen.PostForm("/me/forget", "/me/forget", url.Values{})
	wantRedirect(t, res, "/me")
	if member() {
		t.Fatal("the member is still a member of the project after forgetting everything")
	}
}
