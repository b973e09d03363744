package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
	"github.com/mnemo-console/mnemo/web"
)

// shanghaiTask is SCENARIO.md's new task.
const shanghaiTask = "我想带五岁的女儿去上海玩两天，她一直想去迪士尼。最终路线必须可执行。"

// demoConsole loads the demo data, runs the first heartbeat with the
// offline extractor, approves every proposal (as a reviewer would) and
// serves the console.
func demoConsole(t *testing.T) (*store.Store, *httptest.Server) {
	t.Helper()
	st := sqlitetest.OpenWith(t, "demo with every proposal approved", func(ctx context.Context, st *store.Store) error {
		if _, err := seed.Load(ctx, st, seed.Options{
			Hash: func(pw string) (string, error) { return "hash:" + pw, nil }, Generate: func() string { return "pw" }, Demo: true,
		}); err != nil {
			return err
		}
		if _, err := demoHeartbeat(st).Beat(ctx, "test"); err != nil {
			return err
		}
		_, err := st.DB().ExecContext(ctx, `UPDATE rules SET status = 'active' WHERE status = 'proposed'`)
		return err
	})
	srv, err := web.NewServer(web.Config{}, app.New(st), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return st, ts
}

func demoBeat(t *testing.T, st *store.Store) *governance.BeatRecord {
	t.Helper()
	b, err := demoHeartbeat(st).Beat(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustAPIToken creates a project token with scopes and returns its secret.
func mustAPIToken(tb testing.TB, s *store.Store, projectID int64, scopes ...governance.TokenScope) string {
	tb.Helper()
	secret := "mnemo_test_" + strings.ReplaceAll(time.Now().Format("150405.000000000"), ".", "") + string(scopes[0])
	if err := s.CreateToken(context.Background(), &governance.APIToken{ProjectID: projectID, Name: "test", CreatedBy: "test",
		Scopes: scopes}, auth.HashToken(secret)); err != nil {
		tb.Fatal(err)
	}
	return secret
}

// apiCall sends a request with a bearer token and decodes a JSON answer into out.
func apiCall(tb testing.TB, base, method, path, token, contentType string, body []byte, out any) *http.Response {
	tb.Helper()
	req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			tb.Fatalf("%s %s: status %d, body %q: %v", method, path, res.StatusCode, b, err)
		}
	}
	return res
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// demoTravelRules returns the ids of the three rules SCENARIO.md expects.
func demoTravelRules(t *testing.T, st *store.Store, projectID int64) map[string]int64 {
	t.Helper()
	rules, _, err := st.FindRules(context.Background(), governance.RuleFilter{ProjectID: &projectID,
		Statuses: []governance.RuleStatus{governance.RuleActive}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"nap": {"14:00", "16:00"}, "check": {"路线检查", "结论"}, "day": {"单独"}}
	out := map[string]int64{}
	for name, needles := range want {
		for _, r := range rules {
			ok := true
			for _, n := range needles {
				ok = ok && strings.Contains(r.Text, n)
			}
			if ok {
				out[name] = r.ID
			}
		}
		if out[name] == 0 {
			var texts []string
			for _, r := range rules {
				texts = append(texts, r.Text)
			}
			t.Fatalf("no active rule for %s (%q); rules: %q", name, needles, texts)
		}
	}
	return out
}

// TestDemoRecall is the acceptance on the demo data: the Shanghai
// task returns the three travel rules with their sources; the expense rule
// is neither in the package nor named in the trace, only counted.
func TestDemoRecall(t *testing.T) {
	ctx := context.Background()
	st, ts := demoConsole(t)
	travel, err := st.FindProjectBySlug(ctx, "travel-agent")
	if err != nil {
		t.Fatal(err)
	}
	expense, err := st.FindProjectBySlug(ctx, "expense-agent")
	if err != nil {
		t.Fatal(err)
	}
	want := demoTravelRules(t, st, travel.ID)
	expenseRules, _, err := st.FindRules(ctx, governance.RuleFilter{ProjectID: &expense.ID, Statuses: []governance.RuleStatus{governance.RuleActive}})
	if err != nil || len(expenseRules) == 0 {
		t.Fatalf("expense rules = %d, %v", len(expenseRules), err)
	}
	demo, err := seed.DemoProjects()
	if err != nil {
		t.Fatal(err)
	}
	subject := demo[0].SubjectIDs[0]
	token := mustAPIToken(t, st, travel.ID, governance.ScopeRecall)

	var pkg governance.RecallPackage
	res := apiCall(t, ts.URL, http.MethodPost, "/api/v1/recall", token, "application/json",
		mustJSON(t, map[string]any{"task": shanghaiTask, "subject_id": subject}), &pkg)
	wantStatus(t, res, http.StatusOK)

	included := map[string]governance.RecallItem{}
	for _, it := range pkg.Items {
		included[it.ID] = it
	}
	for name, id := range want {
		it, ok := included[governance.RecallRuleID(id)]
		if !ok {
			t.Errorf("%s rule %d not recalled; trace %+v", name, id, pkg.Trace.Considered)
			continue
		}
		if it.Source.RuleID != id || len(it.Source.SessionIDs) == 0 || it.PromotionReason == "" {
			t.Errorf("%s rule %d has no source: %+v", name, id, it)
		}
	}
	if pkg.Used > 1600 || !strings.HasPrefix(pkg.Text, governance.RecallFenceOpen) {
		t.Errorf("used %d; text:\n%s", pkg.Used, pkg.Text)
	}
	raw := apiRaw(t, ts.URL, "/api/v1/recall", token, map[string]any{"task": shanghaiTask, "subject_id": subject})
	for _, r := range expenseRules {
		if strings.Contains(raw, governance.RecallRuleID(r.ID)+`"`) || strings.Contains(raw, r.Text) {
			t.Errorf("expense rule %d named in the API answer", r.ID)
		}
	}
	if pkg.Trace.ScopeFiltered.RulesOtherProjects < len(expenseRules) {
		t.Errorf("scope filtered = %+v, want at least %d rules of other projects", pkg.Trace.ScopeFiltered, len(expenseRules))
	}
	t.Logf("package:\n%s", pkg.Text)
}

func apiRaw(t *testing.T, base, path, token string, body any) string {
	t.Helper()
	var raw json.RawMessage
	apiCall(t, base, http.MethodPost, path, token, "application/json", mustJSON(t, body), &raw)
	return string(raw)
}

// TestDemoExportImport: export the demo's travel project through the API,
// import it into a fresh database, and get the same rules and the same
// recall; a heartbeat on the imported project finds nothing to do.
func TestDemoExportImport(t *testing.T) {
	ctx := context.Background()
	st, ts := demoConsole(t)
	travel, err := st.FindProjectBySlug(ctx, "travel-agent")
	if err != nil {
		t.Fatal(err)
	}
	token := mustAPIToken(t, st, travel.ID, governance.ScopeExport)
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/export", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	export, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("export: %d, %v", res.StatusCode, err)
	}

	fresh := sqlitetest.Open(t)
	imported, _, err := fresh.ImportExport(ctx, bytes.NewReader(export), governance.ImportOptions{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	shape := func(s *store.Store, projectID int64) string {
		rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &projectID})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rules {
			out = append(out, strings.Join([]string{r.Text, string(r.Kind), string(r.Status), r.SubjectID, string(r.PromotionReason)}, "|"))
		}
		return strings.Join(out, "\n")
	}
	if a, b := shape(st, travel.ID), shape(fresh, imported.ID); a != b || a == "" {
		t.Fatalf("rules differ:\n%s\nvs\n%s", a, b)
	}
	subject := "" // the travel family
	demo, _ := seed.DemoProjects()
	subject = demo[0].SubjectIDs[0]
	recall := func(s *store.Store, projectID int64) string {
		pkg, err := s.Recall(ctx, "test", governance.RecallRequest{Task: shanghaiTask, ProjectID: projectID, SubjectID: subject, Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range pkg.Items {
			out = append(out, string(it.Kind)+" "+it.Text)
		}
		return strings.Join(out, "\n")
	}
	if a, b := recall(st, travel.ID), recall(fresh, imported.ID); a != b {
		t.Fatalf("recall differs:\n%s\nvs\n%s", a, b)
	}
	before := shape(fresh, imported.ID)
	demoBeat(t, fresh)
	if after := shape(fresh, imported.ID); after != before {
		t.Fatalf("a heartbeat after import changed the rules:\n%s", after)
	}
}
