package model

import (
	_ "embed"
	"strings"
)

// PromptVersion is the version of the prompts in prompts/, part of the
// extractor's name ("model/<model>@prompt<version>"), so the review queue
// and every candidate say which prompts proposed what. Bump it with any
// change to a prompt or a schema (TestPromptsVersioned).
const PromptVersion = "3"

var (
	//go:embed prompts/extract.txt
	extractSystemPrompt string
	//go:embed prompts/extract.schema.json
	extractSchema string
	//go:embed prompts/merge.txt
	mergeSystemPrompt string
	//go:embed prompts/merge.schema.json
	mergeSchema string
)

// withSchema is a system prompt for a server that does not constrain the
// reply to the schema (no response_format, or JSON mode only): the reply's
// form is asked for in words.
func withSchema(system, schema string) string {
	return strings.TrimRight(system, "\n") + "\n\nReply with one JSON object and nothing else: no prose, no code fence. The object must match this JSON schema:\n" + schema
}
