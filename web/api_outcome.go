package web

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Outcomes in the agent API and MCP (docs/outcomes.md): an agent reports
// what a recalled item did, and reads a recall's receipt back.

// apiOutcome is a stored report as the API returns it (the task it was
// sent with stays out).
type apiOutcome struct {
	ID        int64                     `json:"id"`
	TraceID   int64                     `json:"trace_id"`
	ItemID    string                    `json:"item_id,omitempty"`
	RuleID    int64                     `json:"rule_id,omitempty"`
	Verdict   governance.OutcomeVerdict `json:"verdict"`
	Note      string                    `json:"note,omitempty"`
	SessionID string                    `json:"session_id,omitempty"`
	CreatedAt time.Time                 `json:"created_at"`
}

func toAPIOutcome(r *governance.OutcomeReport) apiOutcome {
	return apiOutcome{ID: r.ID, TraceID: r.TraceID, ItemID: r.ItemID, RuleID: r.RuleID, Verdict: r.Verdict, Note: r.Note,
		SessionID: r.SessionID, CreatedAt: r.CreatedAt}
}

// handleAPIOutcomeCreate stores an outcome report about one recall.
func (s *Server) handleAPIOutcomeCreate(c echo.Context) error {
	id, err := idParam(c, "id", "recall")
	if err != nil {
		return err
	}
	var body governance.OutcomeInput
	if err := decodeJSON(c, APIMaxBodyBytes, &body); err != nil {
		return err
	}
	ctx := c.Request().Context()
	r, err := s.app.Outcomes.Report(ctx, actorOf(ctx), id, body)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, toAPIOutcome(r))
}

// apiRecallReceipt is GET /api/v1/recalls/{id}: the recall's receipt, each
// item checked against memory now (a forgotten item says only that), and
// the reports about it.
type apiRecallReceipt struct {
	TraceID   int64                     `json:"trace_id"`
	SubjectID string                    `json:"subject_id,omitempty"`
	CreatedAt time.Time                 `json:"created_at"`
	Receipt   *apiReceipt               `json:"receipt"`
	Items     []governance.ReceiptCheck `json:"items"`
	Outcomes  []apiOutcome              `json:"outcomes"`
}

type apiReceipt struct {
	Hash          string `json:"hash"`
	PolicyVersion string `json:"policy_version"`
	// Intact says the stored receipt still hashes to Hash.
	Intact bool `json:"intact"`
}

func toAPIRecallReceipt(v *app.TraceView) apiRecallReceipt {
	out := apiRecallReceipt{TraceID: v.Trace.ID, SubjectID: v.Trace.SubjectID, CreatedAt: v.Trace.CreatedAt,
		Items: v.Checks, Outcomes: []apiOutcome{}}
	if out.Items == nil {
		out.Items = []governance.ReceiptCheck{}
	}
	if rc := v.Trace.Receipt; rc != nil {
		out.Receipt = &apiReceipt{Hash: rc.Hash, PolicyVersion: rc.PolicyVersion, Intact: v.Intact}
	}
	for _, r := range v.Reports {
		out.Outcomes = append(out.Outcomes, toAPIOutcome(r))
	}
	return out
}

// handleAPIRecallShow returns a recall's receipt, checked.
func (s *Server) handleAPIRecallShow(c echo.Context) error {
	id, err := idParam(c, "id", "recall")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	v, err := s.app.Outcomes.Trace(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAPIRecallReceipt(v))
}

// MCPOutcomeInput is the input of report_memory_outcome.
type MCPOutcomeInput struct {
	TraceID   int64  `json:"trace_id" jsonschema:"the recall's trace id (trace.id of recall_memory's result)"`
	ItemID    string `json:"item_id,omitempty" jsonschema:"the recalled item (e.g. rule:7); omit for the whole package"`
	Verdict   string `json:"verdict" jsonschema:"helped, not_used, misled or conflicted_with_current"`
	Note      string `json:"note,omitempty" jsonschema:"what happened, in a sentence"`
	Task      string `json:"task,omitempty" jsonschema:"the task of the recall, as sent; a regression case drafted from the report asks it again"`
	SessionID string `json:"session_id,omitempty" jsonschema:"your session; reports from one session count once"`
}

func (s *Server) mcpReportOutcome(ctx context.Context, req *mcp.CallToolRequest, in MCPOutcomeInput) (*mcp.CallToolResult, any, error) {
	t, err := mcpToken(req)
	if err != nil {
		return nil, nil, err
	}
	r, err := s.app.Outcomes.Report(ctx, governance.TokenActor(t), in.TraceID, governance.OutcomeInput{ItemID: in.ItemID,
		Verdict: governance.OutcomeVerdict(in.Verdict), Note: in.Note, Task: in.Task, SessionID: in.SessionID})
	if err != nil {
		return nil, nil, s.toolError(ctx, "report_memory_outcome", err)
	}
	text := "Report recorded: the whole package " + string(r.Verdict) + "."
	if r.ItemID != "" {
		text = "Report recorded: " + r.ItemID + " " + string(r.Verdict) + "."
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, toAPIOutcome(r), nil
}

// addOutcomeTools registers the outcome tools of the MCP server.
func (s *Server) addOutcomeTools(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{
		Name:  "report_memory_outcome",
		Title: "Report what a recalled memory did",
		Description: "After a task, say what a recalled item (item_id) or the whole package did: helped, not_used, misled or " +
			"conflicted_with_current, with an optional note. Reports are evidence for the project's reviewers, never memories; " +
			"memories that mislead are proposed for demotion.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: false},
	}, s.mcpReportOutcome)
}
