package web

import (
	"context"
	"fmt"

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
	t, err := mcpToken(req, governance.ActExport)
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
	t, err := mcpToken(req, governance.ActIngest)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.app.Imports.Memory(ctx, governance.TokenActor(t), t.ProjectID, in.JSONL)
	if err != nil {
		return nil, nil, s.toolError(ctx, "import_memory", err)
	}
	session := res.Session
	msg := fmt.Sprintf("%d memory item(s) recorded as events (session %s), %d already present. The heartbeat gates them and proposes rules only on evidence.",
		res.Inserted-min(res.Inserted, 1), session, res.Skipped)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, res.ImportResult, nil
}
