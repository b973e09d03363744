package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// mcpConnect connects an MCP client from the same SDK to the console.
func mcpConnect(t *testing.T, base, token string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "mnemo-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:             base + web.MCPPath,
		HTTPClient:           &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}
	cs, err := client.Connect(context.Background(), transport, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	return res, strings.Join(text, "\n")
}

func TestMCP(t *testing.T) {
	f := NewFixture(t, web.Config{})
	nap := mustAPIRule(t, f.Store, f.Travel.ID, "family-li", governance.TypePreference, "每天 14:00–16:00 留给孩子午睡。")
	mustAPIRule(t, f.Store, f.Travel.ID, "", governance.TypeLesson, "远距离的大型景点单独安排一天。")
	mustAPIRule(t, f.Store, f.Expense.ID, "", governance.TypeFact, "200 元以下的报销不需要扫描发票。")
	all := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeIngest, governance.ScopeRecall, governance.ScopeForget)
	cs, err := mcpConnect(t, f.Server.URL, all)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("ListTools", func(t *testing.T) {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if strings.Join(names, ",") != "export_memory,forget_memory,get_skill,import_memory,list_rules,list_skills,recall_memory,record_events,report_memory_outcome,search_events" {
			t.Errorf("tools = %v", names)
		}
	})
	t.Run("RecallMemory", func(t *testing.T) {
		res, text := callTool(t, cs, "recall_memory", map[string]any{"task": "带孩子去上海玩两天", "subject_id": "family-li"})
		if res.IsError {
			t.Fatalf("error: %s", text)
		}
		if !strings.HasPrefix(text, governance.RecallFenceOpen) || !strings.Contains(text, "午睡") || !strings.Contains(text, "not instructions") {
			t.Errorf("text:\n%s", text)
		}
		if strings.Contains(text, "报销") || !strings.Contains(text, "1 memories outside") {
			t.Errorf("scope leak or no count:\n%s", text)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var pkg governance.RecallPackage
		if err := json.Unmarshal(b, &pkg); err != nil || len(pkg.Items) != 2 || pkg.Trace.ID == 0 {
			t.Errorf("structured = %s (%v)", b, err)
		}
	})
	t.Run("RecordEvents", func(t *testing.T) {
		args := map[string]any{"events": []any{
			map[string]any{"id": "mcp-1", "session_id": "m1", "subject_id": "family-li", "turn": 1, "role": "user", "text": "你好", "occurred_at": "2026-07-01T10:00:00Z"},
			map[string]any{"id": "bj-1-1", "session_id": "bj-1", "subject_id": "family-li", "turn": 1, "role": "user", "text": "dup", "occurred_at": "2026-07-01T10:00:00Z"},
		}}
		res, text := callTool(t, cs, "record_events", args)
		if res.IsError {
			t.Fatalf("error: %s", text)
		}
		var got governance.ImportResult
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &got); err != nil || got.Inserted != 1 || got.Skipped != 1 {
			t.Errorf("result = %s", b)
		}
		res, text = callTool(t, cs, "record_events", map[string]any{"events": []any{
			map[string]any{"id": "mcp-2", "session_id": "m1", "role": "robot", "text": "x", "occurred_at": "2026-07-01T10:00:00Z"}}})
		if !res.IsError || !strings.Contains(text, "item 1") {
			t.Errorf("invalid event accepted: %s", text)
		}
	})
	t.Run("SearchEvents", func(t *testing.T) {
		res, text := callTool(t, cs, "search_events", map[string]any{"query": "你好", "order": "newest"})
		if res.IsError || !strings.Contains(text, "session m1 turn 1") {
			t.Fatalf("search: %s", text)
		}
		var got web.MCPSearchOutput
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &got); err != nil || got.Total == 0 || got.Events[0].ID != "mcp-1" {
			t.Errorf("structured = %s (%v)", b, err)
		}
		if res, text := callTool(t, cs, "search_events", map[string]any{"query": "报销"}); res.IsError || !strings.HasPrefix(text, "0 matching") {
			t.Errorf("another project's events: %s", text)
		}
		if res, text := callTool(t, cs, "search_events", map[string]any{"query": "x", "order": "oldest"}); !res.IsError {
			t.Errorf("bad order accepted: %s", text)
		}
	})
	t.Run("ListRules", func(t *testing.T) {
		res, text := callTool(t, cs, "list_rules", map[string]any{"subject_id": "family-li"})
		if res.IsError || !strings.Contains(text, "2 rule(s)") || strings.Contains(text, "报销") {
			t.Errorf("list: %s", text)
		}
	})
	t.Run("ForgetMemory", func(t *testing.T) {
		res, text := callTool(t, cs, "forget_memory", map[string]any{"rule_id": nap})
		if res.IsError || !strings.Contains(text, "content_hash") {
			t.Errorf("forget: %s", text)
		}
		if r, _ := f.Store.FindRuleByID(context.Background(), nap); r.Status != governance.RuleForgotten {
			t.Errorf("rule after forget_memory: %+v", r)
		}
		if res, text := callTool(t, cs, "forget_memory", map[string]any{"rule_id": nap}); !res.IsError {
			t.Errorf("forgot twice: %s", text)
		}
		res, text = callTool(t, cs, "forget_memory", map[string]any{})
		if !res.IsError {
			t.Errorf("forget without a target: %s", text)
		}
	})
	t.Run("ScopeEnforced", func(t *testing.T) {
		ingest := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeIngest)
		cs, err := mcpConnect(t, f.Server.URL, ingest)
		if err != nil {
			t.Fatal(err)
		}
		for tool, args := range map[string]map[string]any{
			"recall_memory": {"task": "x"}, "forget_memory": {"rule_id": nap}, "list_rules": {}, "search_events": {"query": "x"},
		} {
			res, text := callTool(t, cs, tool, args)
			if !res.IsError || !strings.Contains(text, "scope") {
				t.Errorf("%s with an ingest token: %s", tool, text)
			}
		}
	})
	t.Run("ErrUnauthorized", func(t *testing.T) {
		if _, err := mcpConnect(t, f.Server.URL, "mnemo_wrong"); err == nil {
			t.Error("connected with an unknown token")
		}
		if _, err := mcpConnect(t, f.Server.URL, ""); err == nil {
			t.Error("connected without a token")
		}
	})
}
