package model

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

var _ governance.SkillDrafter = (*Client)(nil)

// SkillPromptVersion is the version of the skill drafter's prompt and
// schema (prompts/skill.*), part of the drafter's name. Bump it with any
// change to them (TestSkillPromptVersioned).
const SkillPromptVersion = "1"

var (
	//go:embed prompts/skill.txt
	skillSystemPrompt string
	//go:embed prompts/skill.schema.json
	skillSchema string
)

type skillReply struct {
	Title       *string `json:"title"`
	Description *string `json:"description"`
	WhenToUse   *string `json:"when_to_use"`
}

// DrafterName names the model and the prompt version that worded a draft.
func (c *Client) DrafterName() string { return "model/" + c.cfg.Model + "@skill" + SkillPromptVersion }

// DraftSkillText asks the model to word a draft skill from its steps and
// what users asked (governance.SkillDrafter). A reply that is not a valid
// wording (no JSON, a field missing, a bound broken, a refusal, cut off)
// is an error: the caller words the draft itself.
func (c *Client) DraftSkillText(ctx context.Context, in governance.SkillDraftInput) (governance.SkillDraftText, error) {
	user := jsonLines([]struct {
		Name  string   `json:"name"`
		Topic string   `json:"topic,omitempty"`
		Steps []string `json:"steps"`
		Check string   `json:"check"`
		Asks  []string `json:"users_asked"`
	}{{in.Name, in.Topic, in.Steps, in.Check, in.Asks}})
	content, _, cut, err := c.call(ctx, "skill", skillSystemPrompt, user, "skill_draft", skillSchema)
	if err != nil {
		return governance.SkillDraftText{}, err
	}
	if cut {
		return governance.SkillDraftText{}, c.rejectReply("skill", content, errors.New("reply cut off at the token limit"))
	}
	raw, ok := jsonObject(content)
	if !ok {
		return governance.SkillDraftText{}, c.rejectReply("skill", content, errors.New("no JSON object in the reply"))
	}
	var reply skillReply
	if err := json.Unmarshal(raw, &reply); err != nil {
		return governance.SkillDraftText{}, c.rejectReply("skill", content, err)
	}
	if reply.Title == nil || reply.Description == nil || reply.WhenToUse == nil {
		return governance.SkillDraftText{}, invalidReply("skill", errors.New("title, description or when_to_use missing"))
	}
	t := governance.SkillDraftText{Title: strings.TrimSpace(*reply.Title), Description: strings.TrimSpace(*reply.Description),
		WhenToUse: strings.TrimSpace(*reply.WhenToUse), Drafter: c.DrafterName()}
	if err := t.Valid(); err != nil {
		return governance.SkillDraftText{}, invalidReply("skill", err)
	}
	return t, nil
}
