package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/web"
)

// TestCredentialsMaskedByShape: a pasted key without a vendor prefix —
// next to a key word, as "name: value" or "the key is …", in both
// languages — never reaches an agent or a reviewer as written: not through
// REST or MCP recall with raw events, search, the rules list, the memory
// export, nor the rule a reviewer sees after the heartbeat.
func TestCredentialsMaskedByShape(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t, web.Config{})
	p := MustCreateProject(t, f.Store, "keys", "Pasted keys")
	if err := f.Store.SetProjectAutoActivate(ctx, "test", p.ID, true); err != nil {
		t.Fatal(err)
	}
	secrets := []string{"Zq8vLr3XkP0mNw7tYb2cHs9dJf4gAa", "7f3c9a1e5b2d8f4a6c0e9b7d3a1f5c2e", "Pq7XrT2vLm9NkW4sYb6cHd3fJg8a"}
	texts := []string{
		"From now on use the key for the tracking API: " + secrets[0] + " whenever you query shipments.",
		"The key is " + secrets[1] + ", always use it for the tracking uploads.",
		"以后查物流都用这个令牌 " + secrets[2] + "，别弄丢。",
	}
	var events []*governance.Event
	for round := range 3 {
		for i, text := range texts {
			id := fmt.Sprintf("k-%d-%d", round, i)
			events = append(events,
				&governance.Event{ID: id, SessionID: id, SubjectID: "alice", Turn: 1, Role: governance.RoleUser, Text: text,
					OccurredAt: t0.Add(time.Duration(round*10+i) * time.Minute)},
				&governance.Event{ID: id + "-end", SessionID: id, SubjectID: "alice", Turn: 2, Kind: governance.KindSessionEnd,
					OccurredAt: t0.Add(time.Duration(round*10+i)*time.Minute + time.Second)})
		}
	}
	MustIngest(t, f.Store, p, events...)
	hb := &consolidate.Heartbeat{Store: f.Store, Idle: time.Minute, Consolidator: heuristic.NewConsolidator(nil)}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	leaks := func(surface, got string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(got, s) {
				t.Errorf("%s hands out the key %s: %.300s", surface, s, got)
			}
		}
	}
	token := mustAPIToken(t, f.Store, p.ID, governance.ScopeRecall, governance.ScopeIngest, governance.ScopeExport)
	for _, task := range []string{"query the tracking API for shipments", "查物流"} {
		args := map[string]any{"task": task, "subject_id": "alice", "include_events": true}
		var pkg governance.RecallPackage
		res := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/recall", token, "application/json", mustJSON(t, args), &pkg)
		wantStatus(t, res, http.StatusOK)
		leaks("REST recall", string(mustJSON(t, pkg)))
		if len(pkg.Items) == 0 {
			t.Errorf("REST recall for %q returned nothing: the check proves little", task)
		}
	}
	var search map[string]any
	wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/search?q="+url.QueryEscape("tracking"), token, "", nil, &search), http.StatusOK)
	leaks("search", string(mustJSON(t, search)))
	if !strings.Contains(string(mustJSON(t, search)), "[REDACTED:") {
		t.Errorf("search returned no masked event: the check proves little: %s", mustJSON(t, search))
	}
	var rules map[string]any
	wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules", token, "", nil, &rules), http.StatusOK)
	leaks("the rules API", string(mustJSON(t, rules)))

	cs, err := mcpConnect(t, f.Server.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"recall_memory", map[string]any{"task": "query the tracking API", "subject_id": "alice", "include_events": true}},
		{"search_events", map[string]any{"query": "tracking"}},
		{"list_rules", map[string]any{}},
		{"export_memory", map[string]any{"subject_id": "alice"}},
	} {
		res, text := callTool(t, cs, tool.name, tool.args)
		if res.IsError {
			t.Fatalf("%s: %s", tool.name, text)
		}
		out := text + string(mustJSON(t, res.StructuredContent))
		leaks("MCP "+tool.name, out)
		if tool.name != "list_rules" && tool.name != "export_memory" && !strings.Contains(out, "REDACTED") {
			t.Errorf("MCP %s returned no masked text: the check proves little: %.300s", tool.name, out)
		}
	}

	stored, _, err := f.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range stored {
		leaks(fmt.Sprintf("rule %d", r.ID), r.Text)
	}
	eps, _, err := f.Store.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: p.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range eps {
		leaks("an episode summary", ep.Summary)
	}
}
