package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/sashabaranov/go-openai"
)

const answerPrompt = `You are an assistant completing the user's task.
Reply with exactly one JSON object that follows the response schema; no prose outside it.`

// answer asks the model for the task's answer, with the recalled memory
// (a fenced block) or without it.
func (e *engine) answer(ctx context.Context, c *Case, memory string) (string, openai.Usage, error) {
	system := answerPrompt
	if memory != "" {
		system += "\n\n" + memory
	}
	req := openai.ChatCompletionRequest{
		Model: e.deps.ModelName,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: c.Task},
		},
		Temperature:    0,
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject},
	}
	if c.OutputSchema != nil {
		schema, err := json.Marshal(normalizeYAMLValue(c.OutputSchema))
		if err != nil {
			return "", openai.Usage{}, fmt.Errorf("output_schema is not JSON-compatible: %w", err)
		}
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "answer", Schema: json.RawMessage(schema)},
		}
	}
	resp, err := e.deps.Model.CreateChatCompletion(ctx, req)
	if err != nil {
		return "", openai.Usage{}, fmt.Errorf("model call failed: %w", err)
	}
	if len(resp.Choices) == 0 {
		return "", resp.Usage, errors.New("the model returned no choices")
	}
	return resp.Choices[0].Message.Content, resp.Usage, nil
}

// Judge decides whether an output follows a rule that has no code check.
// governance/model's *Client is the judge the product uses; a reply that is
// not a valid verdict is an error, never a default verdict.
type Judge interface {
	Judge(ctx context.Context, rule, output string) (model.Verdict, int, error)
}

// JudgeFunc adapts a function to Judge.
type JudgeFunc func(ctx context.Context, rule, output string) (model.Verdict, int, error)

// Judge calls f.
func (f JudgeFunc) Judge(ctx context.Context, rule, output string) (model.Verdict, int, error) {
	return f(ctx, rule, output)
}

// judgeRule judges output against rule with Deps.Judge and checks that the
// evidence it quotes occurs in the output. The judge's tokens count as
// prompt tokens.
func (e *engine) judgeRule(ctx context.Context, rule, output string) (*Verdict, openai.Usage, error) {
	if e.deps.Judge == nil {
		return nil, openai.Usage{}, errors.New("no judge is configured for rules without code checks")
	}
	res, tokens, err := e.deps.Judge.Judge(ctx, rule, output)
	usage := openai.Usage{PromptTokens: tokens, TotalTokens: tokens}
	if err != nil {
		return nil, usage, fmt.Errorf("judge: %w", err)
	}
	if !res.Result.Valid() {
		return nil, usage, fmt.Errorf("judge verdict %q is not satisfied, partial or unsatisfied", res.Result)
	}
	v := &Verdict{Verdict: string(res.Result), Evidence: res.Evidence}
	if v.Evidence != "" {
		q := quoted(v.Evidence, output)
		v.Quoted = &q
	}
	return v, usage, nil
}

// quoted reports whether evidence occurs in output, ignoring white space
// and JSON escaping differences.
func quoted(evidence, output string) bool {
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	ev, out := squash(evidence), squash(output)
	if strings.Contains(out, ev) {
		return true
	}
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(output)) == nil {
		var v any
		if json.Unmarshal(buf.Bytes(), &v) == nil {
			return strings.Contains(squash(allStrings(v)), ev)
		}
	}
	return false
}

func allStrings(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case string:
			b.WriteString(t)
			b.WriteByte('\n')
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}
