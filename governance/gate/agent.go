package gate

import (
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// RuleTextForAgent is a rule's text as anything an agent reads outside
// recall holds it (the agent files, Hermes's files, MCP export_memory): on
// one line, credentials masked and fence tags neutralised. ok is false
// when the write gate blocks any of it — even in an active rule a
// reviewer approved — or nothing is left: such a rule is left out whole.
func RuleTextForAgent(r *governance.Rule) (string, bool) {
	gated, withheld := Withhold(oneLine(r.Text))
	if withheld {
		return "", false
	}
	text := NeutraliseFence(gated)
	return text, text != ""
}

// EventTextForAgent is a raw event's text as an agent may read it outside
// recall (search over the API and MCP): the write gate's blocked sentences
// withheld (withheld reports any), credentials masked, fence tags
// neutralised.
func EventTextForAgent(text string) (string, bool) {
	gated, withheld := Withhold(text)
	return NeutraliseFence(gated), withheld
}

// oneLine folds white space runs (newlines included) into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
