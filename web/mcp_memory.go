package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MemoryLine is one line of the portable memory format (JSON Lines) that
// export_memory writes and import_memory reads: a memory's kind, text and
// scope, readable by any agent.
type MemoryLine struct {
	ID        string `json:"id,omitempty"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	SubjectID string `json:"subject_id,omitempty"`
	Reason    string `json:"promotion_reason,omitempty"`
	Trust     string `json:"trust,omitempty"`
	UpdatedAt string `json:"updated_at,omitempty"`
}

// maxMemoryLines bounds one import_memory call.
const maxMemoryLines = 500

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
	subject := in.SubjectID
	f := governance.RuleFilter{ProjectID: &t.ProjectID, ForSubject: &subject, Statuses: []governance.RuleStatus{governance.RuleActive}, Limit: 1000}
	rules, _, err := s.store.FindRules(ctx, f)
	if err != nil {
		return nil, nil, s.toolError(ctx, "export_memory", err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	n := 0
	now := time.Now()
	for _, r := range rules {
		if ok, _ := r.Usable(now); !ok {
			continue
		}
		if err := enc.Encode(MemoryLine{ID: governance.RecallRuleID(r.ID), Kind: string(r.Kind), Text: r.Text, SubjectID: r.SubjectID,
			Reason: string(r.PromotionReason), Trust: fmt.Sprintf("%.2f", r.Trust), UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339)}); err != nil {
			return nil, nil, err
		}
		n++
	}
	out := MCPExportMemoryOutput{JSONL: b.String(), Count: n}
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
	var (
		lines []MemoryLine
		bad   []governance.LineError
	)
	sc := bufio.NewScanner(strings.NewReader(in.JSONL))
	sc.Buffer(make([]byte, 0, 64<<10), governance.MaxEventTextBytes+4096)
	for n := 1; sc.Scan(); n++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var m MemoryLine
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			bad = append(bad, governance.LineError{Line: n, Problems: []string{"invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")}})
			continue
		}
		switch governance.MemoryType(m.Kind) {
		case governance.TypePreference, governance.TypeFact, governance.TypeLesson:
		default:
			bad = append(bad, governance.LineError{Line: n, Problems: []string{fmt.Sprintf("kind %q is not one of user_preference, fact, lesson", m.Kind)}})
			continue
		}
		if strings.TrimSpace(m.Text) == "" {
			bad = append(bad, governance.LineError{Line: n, Problems: []string{"text is required"}})
			continue
		}
		lines = append(lines, m)
		if len(lines) > maxMemoryLines {
			return nil, nil, fmt.Errorf("at most %d memories per call", maxMemoryLines)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("a line is too long: %w", err)
	}
	if len(bad) > 0 {
		return nil, nil, s.toolError(ctx, "import_memory", &governance.ImportError{Lines: bad})
	}
	if len(lines) == 0 {
		return nil, nil, errors.New("the input holds no memories")
	}
	sum := sha256.New()
	for _, m := range lines {
		fmt.Fprintf(sum, "%s\x00%s\x00%s\n", m.Kind, m.SubjectID, m.Text)
	}
	session := "memory-import-" + hex.EncodeToString(sum.Sum(nil))[:16]
	now := time.Now().UTC().Truncate(time.Second)
	events := make([]*governance.Event, 0, len(lines)+1)
	for i, m := range lines {
		h := sha256.Sum256([]byte(m.Kind + "\x00" + m.SubjectID + "\x00" + m.Text))
		events = append(events, &governance.Event{
			ID: "mem:" + hex.EncodeToString(h[:12]), SessionID: session, SubjectID: m.SubjectID, Turn: i + 1,
			Role: governance.RoleUser, Text: m.Text, OccurredAt: now.Add(time.Duration(i) * time.Millisecond),
		})
	}
	events = append(events, &governance.Event{ID: session + ":end", SessionID: session, Kind: governance.KindSessionEnd,
		OccurredAt: now.Add(time.Duration(len(lines)) * time.Millisecond)})
	res, err := s.store.IngestEvents(ctx, t.ProjectID, events)
	if err != nil {
		return nil, nil, s.toolError(ctx, "import_memory", err)
	}
	msg := fmt.Sprintf("%d memory item(s) recorded as events (session %s), %d already present. The heartbeat gates them and proposes rules only on evidence.",
		res.Inserted-min(res.Inserted, 1), session, res.Skipped)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, res, nil
}
