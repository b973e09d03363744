package web

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MemoryLine is one line of the portable memory format (app.MemoryLine).
type MemoryLine = app.MemoryLine

// MCPExportMemoryInput is the input of export_memory.
type MCPExportMemoryInput struct {
	SubjectID string `json:"subject_id,omitempty" jsonschema:"also export this end user's memories; omit for project-wide memory only"`
}

// MCPExportMemoryOutput is export_memory's structured result.
type MCPExportMemoryOutput struct {
	JSONL string `json:"jsonl"`
	Count int    `json:"count"`
}

// mcpExportMemory returns the token's project's active rules (and one
// subject's, when asked) as portable JSON Lines. Scope: export.
func (s *Server) mcpExportMemory(ctx context.Context, req *mcp.CallToolRequest, in MCPExportMemoryInput) (*mcp.CallToolResult, any, error) {
	t, err := mcpToken(req)
	if err != nil {
		return nil, nil, err
	}
	jsonl, n, err := s.app.Exports.Memory(ctx, governance.TokenActor(t), t.ProjectID, in.SubjectID)
	if err != nil {
		return nil, nil, s.toolError(ctx, "export_memory", err)
	}
	out := MCPExportMemoryOutput{JSONL: jsonl, Count: n}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.JSONL}}}, out, nil
}

// MCPImportMemoryInput is the input of import_memory.
type MCPImportMemoryInput struct {
	JSONL string `json:"jsonl" jsonschema:"portable memory, one JSON object per line with kind (user_preference, fact or lesson), text and optional subject_id"`
}

// mcpImportMemory records imported memories as raw events of one session
// (one event per memory, then the session's end), so they pass through
// the heartbeat like any other write: the write gate, the extractor and
// the promotion channels decide what becomes a rule; nothing is activated
// here. Ids derive from the content, so importing the same memory again
// is skipped. A malformed line rejects the call whole. Scope: ingest.
func (s *Server) mcpImportMemory(ctx context.Context, req *mcp.CallToolRequest, in MCPImportMemoryInput) (*mcp.CallToolResult, any, error) {
	t, err := mcpToken(req)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.app.Imports.Memory(ctx, governance.TokenActor(t), t.ProjectID, in.JSONL)
	if err != nil {
		return nil, nil, s.toolError(ctx, "import_memory", err)
	}
	session := res.Session
	msg := fmt.Sprintf("%d memory item(s) recorded as imported events (session %s), %d already present. The heartbeat gates them; "+
		"an imported memory becomes a rule only when the person's own words or a reviewer confirm it.",
		res.Inserted, session, res.Skipped)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, res.ImportResult, nil
}

// MCPSearchInput is the input of search_events.
type MCPSearchInput struct {
	Query   string `json:"query" jsonschema:"words or a question (any word may match; more and rarer words rank higher), \"quoted phrases\" exact, Chinese substrings of two or more characters"`
	Order   string `json:"order,omitempty" jsonschema:"relevance (the default) or newest"`
	Session string `json:"session_id,omitempty" jsonschema:"only this session's events"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many events (1 to 100, default 20)"`
}

// MCPSearchOutput is search_events' structured result.
type MCPSearchOutput struct {
	Events []*governance.Event `json:"events"`
	Total  int                 `json:"total"`
}

// mcpSearchEvents searches the token's project's raw events through the
// search page's use case. Scope: recall.
func (s *Server) mcpSearchEvents(ctx context.Context, req *mcp.CallToolRequest, in MCPSearchInput) (*mcp.CallToolResult, any, error) {
	t, err := mcpToken(req)
	if err != nil {
		return nil, nil, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = apiSearchDefaultLimit
	}
	hits, total, err := s.app.Events.Search(ctx, governance.TokenActor(t), app.SearchInput{ProjectID: t.ProjectID,
		Query: strings.TrimSpace(in.Query), Order: searchOrder(in.Order), Session: in.Session, Page: app.Page{Size: limit}, Agent: true})
	if err != nil {
		return nil, nil, s.toolError(ctx, "search_events", err)
	}
	out := MCPSearchOutput{Events: make([]*governance.Event, 0, len(hits)), Total: min(total, searchCountCap)}
	var b strings.Builder
	fmt.Fprintf(&b, "%d matching event(s)", out.Total)
	for _, h := range hits {
		e := h.Event
		out.Events = append(out.Events, e)
		fmt.Fprintf(&b, "\n- %s · session %s turn %d · %s: %s", governance.RecallEventID(e.Seq), e.SessionID, e.Turn, e.Role, e.Text)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, out, nil
}
