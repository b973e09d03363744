package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The agent surfaces of skills: GET /api/v1/skills and
// GET /api/v1/skills/{name} (REST), list_skills and get_skill (MCP). An
// agent sees its project's active skills only; the list carries name and
// description (the trigger), the body is fetched on demand and counted as
// a use.

// apiSkill is one skill of the agent list.
type apiSkill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Version     int    `json:"version"`
}

// apiSkillList is the answer of GET /api/v1/skills and list_skills.
type apiSkillList struct {
	Skills []apiSkill `json:"skills"`
	Total  int        `json:"total"`
}

func (s *Server) skillList(ctx context.Context, t *governance.APIToken, query string, limit, offset int) (*apiSkillList, error) {
	list, err := s.app.Skills.List(ctx, governance.TokenActor(t), app.SkillListInput{Project: app.ProjectRef(t.ProjectID),
		Query: query, Limit: limit, Offset: offset})
	if err != nil {
		return nil, err
	}
	out := &apiSkillList{Skills: make([]apiSkill, 0, len(list.Skills)), Total: list.Total}
	for _, sk := range list.Skills {
		out.Skills = append(out.Skills, apiSkill{Name: sk.Name, Description: sk.Description, Version: sk.Version})
	}
	return out, nil
}

// handleAPISkillIndex lists the token's project's active skills.
func (s *Server) handleAPISkillIndex(c echo.Context) error {
	ctx := c.Request().Context()
	q := c.QueryParams()
	limit, _ := strconv.Atoi(q.Get("limit"))
	offset, _ := strconv.Atoi(q.Get("offset"))
	if limit < 0 || offset < 0 || limit > governance.MaxSkillPage {
		return governance.Errorf(governance.EINVALID, "limit must be 0 to %d and offset 0 or more.", governance.MaxSkillPage)
	}
	if limit == 0 {
		limit = 100
	}
	list, err := s.skillList(ctx, tokenFrom(ctx), q.Get("q"), limit, offset)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, list)
}

// handleAPISkillShow returns one active skill's SKILL.md and its files
// (?file= one file's text).
func (s *Server) handleAPISkillShow(c echo.Context) error {
	ctx := c.Request().Context()
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	t := tokenFrom(ctx)
	sk, err := s.app.Skills.Fetch(ctx, governance.TokenActor(t), app.ProjectRef(t.ProjectID), name, c.QueryParam("file"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sk)
}

// MCPListSkillsInput is the input of list_skills.
type MCPListSkillsInput struct {
	Query string `json:"query,omitempty" jsonschema:"text the name or description contains"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many (default 100, max 1000)"`
}

// MCPGetSkillInput is the input of get_skill.
type MCPGetSkillInput struct {
	Name string `json:"name" jsonschema:"the skill's name"`
	File string `json:"file,omitempty" jsonschema:"one of the skill's files (scripts/…, references/…) to read as well"`
}

// addSkillTools registers list_skills and get_skill.
func (s *Server) addSkillTools(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{
		Name:        "list_skills",
		Title:       "List skills",
		Description: "Lists the project's active skills (procedures: how a kind of task is done here) by name and description; read one with get_skill before you use it.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, s.mcpListSkills)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "get_skill",
		Title:       "Get a skill",
		Description: "Returns an active skill's SKILL.md (its steps) and the names of its files; with file, that file's text too.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, s.mcpGetSkill)
}

func (s *Server) mcpListSkills(ctx context.Context, req *mcp.CallToolRequest, in MCPListSkillsInput) (*mcp.CallToolResult, any, error) {
	t, err := mcpToken(req)
	if err != nil {
		return nil, nil, err
	}
	limit := in.Limit
	if limit <= 0 || limit > governance.MaxSkillPage {
		limit = 100
	}
	list, err := s.skillList(ctx, t, in.Query, limit, 0)
	if err != nil {
		return nil, nil, s.toolError(ctx, "list_skills", err)
	}
	return nil, list, nil
}

func (s *Server) mcpGetSkill(ctx context.Context, req *mcp.CallToolRequest, in MCPGetSkillInput) (*mcp.CallToolResult, any, error) {
	t, err := mcpToken(req)
	if err != nil {
		return nil, nil, err
	}
	sk, err := s.app.Skills.Fetch(ctx, governance.TokenActor(t), app.ProjectRef(t.ProjectID), in.Name, in.File)
	if err != nil {
		return nil, nil, s.toolError(ctx, "get_skill", err)
	}
	return nil, sk, nil
}
