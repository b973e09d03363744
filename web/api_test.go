package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/web"
)

// apiErr is the API's error body.
type apiErr struct {
	Code    string                 `json:"code"`
	Message string                 `json:"message"`
	Items   []governance.LineError `json:"items"`
}

// mustAPIRule inserts an active rule with SQL and returns its id.
func mustAPIRule(tb testing.TB, s *store.Store, projectID int64, subject string, kind governance.MemoryType, text string) int64 {
	tb.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	res, err := s.DB().ExecContext(context.Background(), `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, trust, created_at, updated_at)
		VALUES (?, ?, ?, ?, 'explicit_user_instruction', 'active', 0.8, ?, ?)`, projectID, subject, kind, text, now, now)
	if err != nil {
		tb.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}

func apiEvent(id, session string, turn int, text string) map[string]any {
	return map[string]any{"id": id, "session_id": session, "subject_id": "family-li", "turn": turn, "role": "user",
		"text": text, "occurred_at": "2026-07-01T10:00:00Z"}
}

func eventCount(tb testing.TB, s *store.Store, projectID int64) int {
	tb.Helper()
	_, n, err := s.FindEvents(context.Background(), governance.EventFilter{ProjectID: &projectID, Limit: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func TestAPIAuth(t *testing.T) {
	f := NewFixture(t, web.Config{})
	ingest := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeIngest)
	body := mustJSON(t, []any{apiEvent("a1", "s9", 1, "hello")})

	t.Run("NoToken", func(t *testing.T) {
		var e apiErr
		res := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", "", "application/json", body, &e)
		wantStatus(t, res, http.StatusUnauthorized)
		if e.Code != governance.EUNAUTHORIZED || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("error = %+v, WWW-Authenticate %q", e, res.Header.Get("WWW-Authenticate"))
		}
	})
	t.Run("UnknownToken", func(t *testing.T) {
		var e apiErr
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", "mnemo_nope", "application/json", body, &e), http.StatusUnauthorized)
	})
	t.Run("SessionCookieIsNotEnough", func(t *testing.T) {
		c := f.Login(t, Admin)
		res, _ := c.Do(http.MethodPost, "/api/v1/recall", strings.NewReader(`{"task":"x"}`), http.Header{"Content-Type": {"application/json"}})
		wantStatus(t, res, http.StatusUnauthorized)
	})
	t.Run("ScopeEnforced", func(t *testing.T) {
		var e apiErr
		res := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/rules/1/forget", ingest, "application/json", nil, &e)
		wantStatus(t, res, http.StatusForbidden)
		if e.Code != governance.EFORBIDDEN || !strings.Contains(e.Message, "forget") {
			t.Errorf("error = %+v", e)
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodDelete, "/api/v1/subjects/family-li", ingest, "", nil, &e), http.StatusForbidden)
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/recall", ingest, "application/json", []byte(`{"task":"x"}`), &e), http.StatusForbidden)
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/export", ingest, "", nil, &e), http.StatusForbidden)
		var ok governance.ImportResult
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", ingest, "application/json", body, &ok), http.StatusOK)
	})
	t.Run("RevokedRejected", func(t *testing.T) {
		secret := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeRecall)
		tok, err := f.Store.FindTokens(context.Background(), governance.TokenFilter{ProjectID: f.Travel.ID})
		if err != nil {
			t.Fatal(err)
		}
		var e apiErr
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules", secret, "", nil, nil), http.StatusOK)
		if err := f.Store.RevokeToken(context.Background(), tok[0].ID, "admin"); err != nil {
			t.Fatal(err)
		}
		res := apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules", secret, "", nil, &e)
		wantStatus(t, res, http.StatusUnauthorized)
		if !strings.Contains(e.Message, "revoked") {
			t.Errorf("error = %+v", e)
		}
	})
	t.Run("NotFoundIsJSON", func(t *testing.T) {
		var e apiErr
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/nothing", ingest, "", nil, &e), http.StatusNotFound)
		if e.Code != governance.ENOTFOUND {
			t.Errorf("error = %+v", e)
		}
	})
}

func TestAPIEvents(t *testing.T) {
	f := NewFixture(t, web.Config{})
	token := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeIngest)
	before := eventCount(t, f.Store, f.Travel.ID)

	t.Run("JSONArray", func(t *testing.T) {
		var res governance.ImportResult
		r := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/json",
			mustJSON(t, []any{apiEvent("n1", "s9", 1, "第一条"), apiEvent("n2", "s9", 2, "第二条")}), &res)
		wantStatus(t, r, http.StatusOK)
		if res.Inserted != 2 || res.Skipped != 0 {
			t.Fatalf("result = %+v", res)
		}
	})
	t.Run("DuplicatesSkippedAndCounted", func(t *testing.T) {
		var res governance.ImportResult
		ndjson := strings.Join([]string{string(mustJSON(t, apiEvent("n1", "s9", 1, "第一条"))), string(mustJSON(t, apiEvent("n3", "s9", 3, "第三条")))}, "\n")
		r := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/x-ndjson", []byte(ndjson), &res)
		wantStatus(t, r, http.StatusOK)
		if res.Inserted != 1 || res.Skipped != 1 || len(res.SkippedIDs) != 1 || res.SkippedIDs[0] != "n1" {
			t.Fatalf("result = %+v", res)
		}
	})
	n := eventCount(t, f.Store, f.Travel.ID)
	if n != before+3 {
		t.Fatalf("events = %d, want %d", n, before+3)
	}
	t.Run("MalformedNDJSONNamesTheLineAndWritesNothing", func(t *testing.T) {
		ndjson := string(mustJSON(t, apiEvent("m1", "s9", 4, "ok"))) + "\n{not json\n" + string(mustJSON(t, apiEvent("m3", "s9", 5, ""))) + "\n"
		var e apiErr
		r := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/x-ndjson", []byte(ndjson), &e)
		wantStatus(t, r, http.StatusBadRequest)
		if e.Code != governance.EINVALID || len(e.Items) != 2 || e.Items[0].Line != 2 || e.Items[1].Line != 3 {
			t.Fatalf("error = %+v", e)
		}
		if got := eventCount(t, f.Store, f.Travel.ID); got != n {
			t.Fatalf("events = %d after a rejected batch, want %d", got, n)
		}
	})
	t.Run("InvalidItemsNamed", func(t *testing.T) {
		bad := apiEvent("m4", "s9", 6, "x")
		bad["role"] = "robot"
		extra := apiEvent("m5", "s9", 7, "x")
		extra["mood"] = "happy"
		var e apiErr
		r := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/json",
			mustJSON(t, []any{apiEvent("m6", "s9", 8, "ok"), bad, extra}), &e)
		wantStatus(t, r, http.StatusBadRequest)
		if len(e.Items) != 1 || e.Items[0].Line != 3 {
			t.Fatalf("error = %+v (unknown fields are found first, item by item)", e)
		}
		r = apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/json",
			mustJSON(t, []any{apiEvent("m6", "s9", 8, "ok"), bad}), &e)
		wantStatus(t, r, http.StatusBadRequest)
		if len(e.Items) != 1 || e.Items[0].Line != 2 || !strings.Contains(e.Items[0].Problems[0], "robot") {
			t.Fatalf("error = %+v", e)
		}
		if got := eventCount(t, f.Store, f.Travel.ID); got != n {
			t.Fatalf("events = %d after a rejected batch, want %d", got, n)
		}
	})
	t.Run("LoneSurrogateIDsRefused", func(t *testing.T) {
		// \udfff and \udffe decode alike (U+FFFD): the second would be
		// skipped silently as the first's duplicate.
		ndjson := strings.Replace(string(mustJSON(t, apiEvent("lone-X", "s9", 9, "one"))), "X", `\udfff`, 1) + "\n" +
			strings.Replace(string(mustJSON(t, apiEvent("lone-X", "s9", 10, "two"))), "X", `\udffe`, 1) + "\n"
		var e apiErr
		r := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/x-ndjson", []byte(ndjson), &e)
		wantStatus(t, r, http.StatusBadRequest)
		if len(e.Items) != 2 || !strings.Contains(e.Items[0].Problems[0], "U+FFFD") {
			t.Fatalf("error = %+v, want both ids refused", e)
		}
		if got := eventCount(t, f.Store, f.Travel.ID); got != n {
			t.Fatalf("events = %d after a rejected batch, want %d", got, n)
		}
	})
	t.Run("BrokenArrayNamesTheItem", func(t *testing.T) {
		ok := string(mustJSON(t, apiEvent("m8", "s9", 10, "ok")))
		for body, item := range map[string]int{"[" + ok + `, {"id": "m9",` + "]": 2, "[" + ok + ", null]": 2} {
			var e apiErr
			wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/json", []byte(body), &e), http.StatusBadRequest)
			if len(e.Items) != 1 || e.Items[0].Line != item {
				t.Errorf("%s: error = %+v", body, e)
			}
		}
		var e apiErr
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/json", []byte(`{"id":"x"}`), &e), http.StatusBadRequest)
		if got := eventCount(t, f.Store, f.Travel.ID); got != n {
			t.Fatalf("events = %d, want %d", got, n)
		}
	})
	t.Run("OtherProjectRejected", func(t *testing.T) {
		ev := apiEvent("m7", "s9", 9, "x")
		ev["project"] = "expense-agent"
		var e apiErr
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/json", mustJSON(t, []any{ev}), &e), http.StatusBadRequest)
	})
	t.Run("TooLarge", func(t *testing.T) {
		big := make([]any, 0, 300)
		for i := range 300 {
			big = append(big, apiEvent(fmt.Sprintf("big-%d", i), "s9", i, strings.Repeat("长", 10000)))
		}
		body := mustJSON(t, big)
		if len(body) <= web.APIMaxEventsBytes {
			t.Fatalf("test body is only %d bytes", len(body))
		}
		var e apiErr
		r := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/json", body, &e)
		wantStatus(t, r, http.StatusRequestEntityTooLarge)
		if e.Code != governance.ETOOLARGE {
			t.Errorf("error = %+v", e)
		}
		many := make([]any, web.APIMaxEvents+1)
		for i := range many {
			many[i] = map[string]any{"id": fmt.Sprint(i)}
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "application/json", mustJSON(t, many), &e), http.StatusRequestEntityTooLarge)
		if got := eventCount(t, f.Store, f.Travel.ID); got != n {
			t.Fatalf("events = %d, want %d", got, n)
		}
	})
	t.Run("UnsupportedMediaType", func(t *testing.T) {
		var e apiErr
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", token, "text/csv", []byte("a,b"), &e), http.StatusUnsupportedMediaType)
	})
}

func TestAPIRecallAndRules(t *testing.T) {
	f := NewFixture(t, web.Config{})
	nap := mustAPIRule(t, f.Store, f.Travel.ID, "family-li", governance.TypePreference, "每天 14:00–16:00 留给孩子午睡。")
	wangNap := mustAPIRule(t, f.Store, f.Travel.ID, "family-wang", governance.TypePreference, "王家的孩子不午睡，晚上八点睡觉。")
	day := mustAPIRule(t, f.Store, f.Travel.ID, "", governance.TypeLesson, "远距离的大型景点单独安排一天。")
	invoice := mustAPIRule(t, f.Store, f.Expense.ID, "", governance.TypeFact, "200 元以下的报销不需要扫描发票。")
	token := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeRecall)

	t.Run("SubjectIsolation", func(t *testing.T) {
		var raw json.RawMessage
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/recall", token, "application/json",
			mustJSON(t, map[string]any{"task": "带孩子去上海玩两天", "subject_id": "family-li"}), &raw), http.StatusOK)
		var pkg governance.RecallPackage
		if err := json.Unmarshal(raw, &pkg); err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, it := range pkg.Items {
			ids[it.ID] = true
		}
		if !ids[governance.RecallRuleID(nap)] || !ids[governance.RecallRuleID(day)] {
			t.Errorf("items = %v", ids)
		}
		for _, id := range []int64{wangNap, invoice} {
			if strings.Contains(string(raw), `"`+governance.RecallRuleID(id)+`"`) {
				t.Errorf("out-of-scope rule %d named in the answer", id)
			}
		}
		if strings.Contains(string(raw), "王家") || strings.Contains(string(raw), "报销") {
			t.Error("out-of-scope text in the answer")
		}
		if c := pkg.Trace.ScopeFiltered; c.RulesOtherProjects != 1 || c.RulesOtherSubjects != 1 {
			t.Errorf("scope filtered = %+v", c)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, body := range []string{`{}`, `{"task":"x","project_id":2}`, `{"task":"x","budget":{"total":-1}}`, `not json`} {
			var e apiErr
			wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/recall", token, "application/json", []byte(body), &e), http.StatusBadRequest)
			if e.Code != governance.EINVALID {
				t.Errorf("%s: error = %+v", body, e)
			}
		}
	})
	t.Run("Rules", func(t *testing.T) {
		var list struct {
			Rules []governance.Rule `json:"rules"`
			Total int               `json:"total"`
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules?for_subject=family-li", token, "", nil, &list), http.StatusOK)
		if list.Total != 2 {
			t.Errorf("rules for family-li = %+v", list)
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules?kind=lesson", token, "", nil, &list), http.StatusOK)
		if list.Total != 1 || list.Rules[0].ID != day {
			t.Errorf("lessons = %+v", list)
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules?status=active&q=zzzz", token, "", nil, &list), http.StatusOK)
		if list.Total != 0 || list.Rules == nil {
			t.Errorf("no match = %+v", list)
		}
		// An agent reads active rules only: never a proposed, rejected or
		// forgotten rule's text.
		for _, status := range []string{"proposed", "rejected", "forgotten"} {
			var e apiErr
			wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules?status="+status, token, "", nil, &e), http.StatusBadRequest)
		}
	})
	t.Run("Forget", func(t *testing.T) {
		forget := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeForget)
		var e apiErr
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, fmt.Sprintf("/api/v1/rules/%d/forget", invoice), forget, "", nil, &e), http.StatusNotFound)
		var out struct {
			Forgotten string `json:"forgotten"`
			Report    struct {
				RuleIDs     []int64 `json:"rule_ids"`
				ContentHash string  `json:"content_hash"`
			} `json:"report"`
		}
		res := apiCall(t, f.Server.URL, http.MethodPost, fmt.Sprintf("/api/v1/rules/%d/forget", nap), forget, "application/json", []byte(`{"with_events":false}`), &out)
		wantStatus(t, res, http.StatusOK)
		if out.Forgotten != governance.RecallRuleID(nap) || len(out.Report.RuleIDs) != 1 || out.Report.ContentHash == "" {
			t.Errorf("forget = %+v", out)
		}
		// Forgotten: excluded with its reason, its text nowhere in the answer; forgetting again is 404.
		raw := apiRaw(t, f.Server.URL, "/api/v1/recall", token, map[string]any{"task": "带孩子去上海玩两天", "subject_id": "family-li"})
		if strings.Contains(raw, "午睡") || !strings.Contains(raw, `"id":"`+governance.RecallRuleID(nap)+`","kind":"rule","included":false,"reason":"forgotten"`) {
			t.Errorf("recall after forget: %s", raw)
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, fmt.Sprintf("/api/v1/rules/%d/forget", nap), forget, "", nil, &e), http.StatusNotFound)
		var subj struct {
			ForgottenSubject string `json:"forgotten_subject"`
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodDelete, "/api/v1/subjects/family-wang", forget, "", nil, &subj), http.StatusOK)
		if subj.ForgottenSubject != "family-wang" {
			t.Errorf("forget subject = %+v", subj)
		}
		if r, _ := f.Store.FindRuleByID(context.Background(), wangNap); r.Status != governance.RuleForgotten || strings.Contains(r.Text, "八点") {
			t.Errorf("family-wang's rule after forgetting the subject: %+v", r)
		}
	})
}

func TestAPIExportAndOpenAPI(t *testing.T) {
	f := NewFixture(t, web.Config{})
	mustAPIRule(t, f.Store, f.Travel.ID, "", governance.TypeLesson, "远距离的大型景点单独安排一天。")
	mustAPIRule(t, f.Store, f.Travel.ID, "family-li", governance.TypePreference, "每天 14:00–16:00 留给孩子午睡。")
	token := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeExport)

	get := func(path string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, f.Server.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(res.Body)
		return res, b.String()
	}
	res, body := get("/api/v1/export")
	wantStatus(t, res, http.StatusOK)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "application/x-ndjson") || !strings.Contains(body, `"format":"mnemo-export/1"`) ||
		strings.Contains(body, "报销") {
		t.Fatalf("export: %s\n%.300s", res.Header.Get("Content-Type"), body)
	}
	res, body = get("/api/v1/export?format=memory")
	wantStatus(t, res, http.StatusOK)
	if body != "远距离的大型景点单独安排一天。" {
		t.Errorf("MEMORY.md = %q", body)
	}
	res, body = get("/api/v1/export?format=user&subject_id=family-li")
	wantStatus(t, res, http.StatusOK)
	if body != "每天 14:00–16:00 留给孩子午睡。" {
		t.Errorf("USER.md = %q", body)
	}
	res, _ = get("/api/v1/export?format=user")
	wantStatus(t, res, http.StatusBadRequest)
	audit, _, err := f.Store.FindAudit(context.Background(), governance.AuditFilter{Action: "project.export"})
	if err != nil || len(audit) != 1 || !strings.HasPrefix(audit[0].Actor, "token:") {
		t.Errorf("export audit = %+v, %v", audit, err)
	}

	t.Run("OpenAPI", func(t *testing.T) {
		var doc struct {
			OpenAPI string                    `json:"openapi"`
			Paths   map[string]map[string]any `json:"paths"`
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/openapi.json", "", "", nil, &doc), http.StatusOK)
		if doc.OpenAPI != "3.1.0" {
			t.Errorf("openapi = %q", doc.OpenAPI)
		}
		// Every documented operation exists: without a token it answers 401, not 404.
		for path, ops := range doc.Paths {
			for method := range ops {
				p := strings.NewReplacer("{id}", "1", "{name}", "some-skill").Replace(path)
				res := apiCall(t, f.Server.URL, strings.ToUpper(method), "/api/v1"+p, "", "", nil, nil)
				if path == "/openapi.json" {
					wantStatus(t, res, http.StatusOK)
				} else {
					wantStatus(t, res, http.StatusUnauthorized)
				}
			}
		}
		if len(doc.Paths) != 12 {
			t.Errorf("paths = %d", len(doc.Paths))
		}
	})
}

// Errors raised before a handler (no route, wrong method) still answer
// agents in the API's {code, message} shape.
func TestAPIErrorsBeforeHandlers(t *testing.T) {
	f := NewFixture(t, web.Config{})
	token := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeRecall)
	for _, tc := range []struct {
		method, path string
		status       int
		code         string
	}{
		{http.MethodPut, "/api/v1/rules", http.StatusNotFound, governance.ENOTFOUND},
		{http.MethodGet, "/api/v1/nowhere", http.StatusNotFound, governance.ENOTFOUND},
		{http.MethodPut, "/healthz", http.StatusMethodNotAllowed, "method_not_allowed"},
	} {
		var e apiErr
		res := apiCall(t, f.Server.URL, tc.method, tc.path, token, "application/json", nil, &e)
		if res.StatusCode != tc.status || e.Code != tc.code || e.Message == "" {
			t.Errorf("%s %s = %d %+v, want %d with code %s", tc.method, tc.path, res.StatusCode, e, tc.status, tc.code)
		}
	}
}
