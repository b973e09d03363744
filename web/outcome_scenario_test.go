package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/web"
)

// TestOutcomeScenario is the outcomes scenario of the demo
// (docs/outcomes.md), end to end through the console: the family's nap
// rule is approved; on a later trip the family changes the window, so the
// heartbeat proposes a replacement; agents, still given the old rule,
// report twice from two sessions that it misled them; the heartbeat drafts
// a replacement review with the two reports and a regression case; the
// reviewer accepts both; the project's regression suite then passes with
// the new rule and fails when the old one returns — which the approval
// panel shows, and a no-regression policy refuses.
func TestOutcomeScenario(t *testing.T) {
	ctx := context.Background()
	st := MustOpenStore(t)
	if _, err := seed.Load(ctx, st, seed.Options{Demo: true, Generate: func() string { return password },
		Hash: func(pw string) (string, error) { return auth.HashPasswordWith(pw, cheap) }}); err != nil {
		t.Fatal(err)
	}
	hb := &consolidate.Heartbeat{Store: st, Idle: 30 * time.Minute, Consolidator: heuristic.NewConsolidator(nil), Outcomes: st}
	beat := func() {
		t.Helper()
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
	}
	beat()
	srv, err := web.NewServer(web.Config{}, app.New(st), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	f := &Fixture{Store: st, Server: ts}
	travel, err := st.FindProjectBySlug(ctx, seed.TravelProject)
	if err != nil {
		t.Fatal(err)
	}
	reviewer := f.Login(t, "reviewer")
	queue := "/projects/" + travel.Slug + "/review"

	// The reviewer approves the first heartbeat's proposals.
	proposed, _, _ := st.FindRules(ctx, governance.RuleFilter{ProjectID: &travel.ID, Statuses: []governance.RuleStatus{governance.RuleProposed}})
	form := url.Values{}
	for _, r := range proposed {
		form.Add("id", strconv.FormatInt(r.ID, 10))
	}
	res, _ := reviewer.PostForm(queue, queue+"/approve", form)
	wantStatus(t, res, http.StatusSeeOther)
	old := ruleWith(t, st, travel.ID, "14:00–16:00")

	// A fourth trip: the family moves the nap, sent through the agent API.
	ingest := mustAPIToken(t, st, travel.ID, governance.ScopeIngest)
	events, err := seed.NapChange()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(events)
	wantStatus(t, apiCall(t, ts.URL, http.MethodPost, "/api/v1/events", ingest, "application/json", body, nil), http.StatusOK)
	beat()
	newer := ruleWith(t, st, travel.ID, "13:00–15:00")
	if newer.Status != governance.RuleProposed || newer.Supersedes != old.ID {
		t.Fatalf("the nap change gave rule %d %s superseding %d, want a proposal replacing %d", newer.ID, newer.Status, newer.Supersedes, old.ID)
	}

	// Agents still get the old rule, and say twice, from two sessions,
	// that it misled them.
	recall := mustAPIToken(t, st, travel.ID, governance.ScopeRecall)
	var traces []int64
	for i, session := range []string{"agent-shanghai", "agent-nanjing"} {
		task := []string{seed.ShanghaiTask, "带女儿去南京玩两天，下午要给她留午睡时间。"}[i]
		b, _ := json.Marshal(map[string]any{"task": task, "subject_id": "family-chen"})
		var pkg governance.RecallPackage
		wantStatus(t, apiCall(t, ts.URL, http.MethodPost, "/api/v1/recall", recall, "application/json", b, &pkg), http.StatusOK)
		if !strings.Contains(itemIDs(&pkg), governance.RecallRuleID(old.ID)) {
			t.Fatalf("recall for %q gave %s, not the old nap rule %d", task, itemIDs(&pkg), old.ID)
		}
		wantStatus(t, postOutcome(t, f, recall, pkg.Trace.ID, map[string]any{"item_id": governance.RecallRuleID(old.ID),
			"verdict": "misled", "task": task, "session_id": session, "note": "The family moved the nap to 13:00–15:00."}, nil), http.StatusCreated)
		traces = append(traces, pkg.Trace.ID)
	}

	// The heartbeat drafts a replacement review with both reports.
	beat()
	reviews, _, _ := st.FindOutcomeReviews(ctx, governance.OutcomeReviewFilter{ProjectID: travel.ID,
		Statuses: []governance.OutcomeReviewStatus{governance.ReviewOpen}})
	if len(reviews) != 1 || reviews[0].RuleID != old.ID || reviews[0].ReplacementID != newer.ID || reviews[0].Sessions != 2 {
		t.Fatalf("open reviews %+v, want a replacement of %d by %d from 2 sessions", reviews, old.ID, newer.ID)
	}
	rv := reviews[0]
	page := templatesURL(rv.ID)
	_, doc := reviewer.Get(queue)
	if doc.Find(`[data-testid="outcome-review"][data-review="`+strconv.FormatInt(rv.ID, 10)+`"]`).Length() != 1 {
		t.Fatal("the review queue does not show the outcome review")
	}
	_, doc = reviewer.Get(page)
	var shown []string
	doc.Find(`[data-testid="outcome-review-evidence"] [data-testid="outcome-report"]`).Each(func(_ int, s *goquery.Selection) {
		shown = append(shown, s.AttrOr("data-trace", ""))
	})
	for _, tr := range traces {
		if !strings.Contains(strings.Join(shown, ","), strconv.FormatInt(tr, 10)) {
			t.Errorf("review evidence names traces %v, not %d", shown, tr)
		}
	}
	if y := doc.Find(`[data-testid="outcome-case-yaml"]`).Text(); !strings.Contains(y, `"exclude":[{"rule":`+strconv.FormatInt(old.ID, 10)+`}]`) ||
		!strings.Contains(y, `"include":[{"rule":`+strconv.FormatInt(newer.ID, 10)+`}]`) {
		t.Errorf("drafted case %s", y)
	}

	// Accepting without a reason is refused; with one, both are accepted.
	res, _ = reviewer.PostForm(page, page+"/decide", url.Values{"decision": {"accept"}, "add_case": {"on"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	res, _ = reviewer.PostForm(page, page+"/decide", url.Values{"decision": {"accept"}, "add_case": {"on"},
		"reason": {"The family moved the nap to 13:00–15:00."}})
	wantStatus(t, res, http.StatusSeeOther)
	if r, _ := st.FindRuleByID(ctx, old.ID); r.Status != governance.RuleSuperseded {
		t.Errorf("old nap rule is %s, want superseded", r.Status)
	}
	if r, _ := st.FindRuleByID(ctx, newer.ID); r.Status != governance.RuleActive {
		t.Errorf("new nap rule is %s, want active", r.Status)
	}

	// The regression suite passes with the new rule ...
	suite := regressionSuite(t, st, travel.Slug)
	mem := &evals.Services{Store: st}
	if rep := runSuite(t, mem, suite); rep.Cases[0].Status != evals.StatusPassed {
		t.Fatalf("regression case with the new rule: %s (%s)", rep.Cases[0].Status, rep.Cases[0].Reason)
	}
	// ... and fails if the old one returns.
	setStatus(t, st, old.ID, "active")
	setStatus(t, st, newer.ID, "stale")
	if rep := runSuite(t, mem, suite); rep.Cases[0].Status != evals.StatusFailed {
		t.Fatalf("regression case with the old rule back: %s, want failed", rep.Cases[0].Status)
	}
	setStatus(t, st, old.ID, "superseded")
	setStatus(t, st, newer.ID, "active")

	// A proposal that brings the old window back shows the regression in
	// "What approving changes", and a no-regression policy refuses it.
	back := mustProposal(t, st, travel.ID, "family-chen", "孩子每天14:00–16:00要午睡，这个时间段都给她空出来", newer.ID)
	res, doc = reviewer.Get(templatesRuleEffect(back), "HX-Request", "true")
	wantStatus(t, res, http.StatusOK)
	if n := doc.Find(`[data-testid="effect"]`).AttrOr("data-regressed", ""); n != "1" {
		t.Fatalf("panel for bringing the old window back: %q regressed (%s)", n, doc.Find(`[data-testid="effect"]`).Text())
	}
	if doc.Find(`[data-testid="effect-case"][data-change="regression"]`).Length() != 1 {
		t.Errorf("panel: %s", doc.Find(`[data-testid="effect"]`).Text())
	}
	// In Chinese the regressed case says why with its values, from the
	// sentence the case was decided with.
	_, doc = reviewer.Get(templatesRuleEffect(back), "HX-Request", "true", "Accept-Language", "zh-CN")
	why := strings.TrimSpace(doc.Find(`[data-testid="effect-case"][data-change="regression"] [data-testid="effect-reason"]`).Text())
	if !strings.HasPrefix(why, "预期记忆包中有匹配") || !strings.Contains(why, "规则 "+strconv.FormatInt(newer.ID, 10)+" 被召回排除：已被取代") {
		t.Errorf("regressed case's reason in Chinese = %q, want the sentence with the superseded rule %d", why, newer.ID)
	}
	if err := st.SetOutcomePolicy(ctx, "admin", governance.OutcomePolicy{ProjectID: travel.ID, Threshold: 2, RequireNoRegression: true}); err != nil {
		t.Fatal(err)
	}
	res, _ = reviewer.PostForm(queue, queue+"/approve", url.Values{"id": {strconv.FormatInt(back, 10)}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if r, _ := st.FindRuleByID(ctx, back); r.Status != governance.RuleProposed {
		t.Errorf("a refused approval left the proposal %s", r.Status)
	}
}

func templatesURL(id int64) string        { return "/outcome-reviews/" + strconv.FormatInt(id, 10) }
func templatesRuleEffect(id int64) string { return "/rules/" + strconv.FormatInt(id, 10) + "/effect" }

// ruleWith is the project's one rule whose text contains needle.
func ruleWith(t *testing.T, st interface {
	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
}, projectID int64, needle string) *governance.Rule {
	t.Helper()
	rules, _, err := st.FindRules(context.Background(), governance.RuleFilter{ProjectID: &projectID})
	if err != nil {
		t.Fatal(err)
	}
	var found []*governance.Rule
	for _, r := range rules {
		if strings.Contains(r.Text, needle) {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("rules with %q: %d", needle, len(found))
	}
	return found[0]
}

// regressionSuite is project slug's regression suite, parsed.
func regressionSuite(t *testing.T, st *store.Store, slug string) *evals.Suite {
	t.Helper()
	row, err := st.FindEvalSuiteByName(context.Background(), evals.RegressionSuiteName(slug))
	if err != nil {
		t.Fatal(err)
	}
	s, err := evals.ParseSuite(row.Name+".yaml", []byte(row.Body))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func runSuite(t *testing.T, mem evals.Memory, s *evals.Suite) *evals.Report {
	t.Helper()
	rep, err := evals.RunSuite(context.Background(), evals.Deps{Memory: mem}, s)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// setStatus moves a rule to status directly, as no reviewer action
// would: the test's stand-in for a regression.
func setStatus(t *testing.T, st *store.Store, id int64, status string) {
	t.Helper()
	if _, err := st.DB().ExecContext(context.Background(), `UPDATE rules SET status = ? WHERE id = ?`, status, id); err != nil {
		t.Fatal(err)
	}
}

// mustProposal inserts a proposal that would supersede rule supersedes.
func mustProposal(t *testing.T, st *store.Store, projectID int64, subject, text string, supersedes int64) int64 {
	t.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	res, err := st.DB().ExecContext(context.Background(), `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, trust, supersedes, created_at, updated_at)
		VALUES (?, ?, 'user_preference', ?, 'explicit_user_instruction', 'proposed', 0.8, ?, ?, ?)`, projectID, subject, text, supersedes, now, now)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}
