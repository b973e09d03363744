package governance_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

var noFindings = governance.ClassifierFunc(func(_ context.Context, text string) (governance.GateResult, error) {
	return governance.GateResult{Text: text}, nil
})

// TestRuleTextCap: a rule's text holds at most MaxRuleText characters,
// counted as characters (a CJK text is not cut at a third of it); an edit
// or an imported rule longer than that is refused, the import naming the
// line; a candidate that long is held, never promoted.
func TestRuleTextCap(t *testing.T) {
	max, over := strings.Repeat("午", governance.MaxRuleText), strings.Repeat("午", governance.MaxRuleText+1)
	if err := governance.CheckRuleText(max); err != nil {
		t.Fatalf("a text of %d characters: %v", governance.MaxRuleText, err)
	}
	if governance.ErrorCode(governance.CheckRuleText(over)) != governance.EINVALID {
		t.Fatal("a text over the cap passed")
	}
	r := &governance.Rule{ID: 1, Kind: governance.TypeFact, Text: "x", Status: governance.RuleProposed}
	if _, err := governance.CheckRuleEdit(context.Background(), r, governance.RuleEdit{Text: over, Reason: "longer"}, noFindings); governance.ErrorCode(err) != governance.EINVALID {
		t.Fatalf("an edit over the cap: %v", err)
	}
	export := `{"type":"project","format":"` + governance.ExportFormat + `","project":{"slug":"p","name":"P"}}
{"type":"rule","rule":{"ref":1,"kind":"fact","text":"` + over + `","status":"active"}}
`
	_, err := governance.ParseExport(context.Background(), strings.NewReader(export), noFindings)
	if err == nil || !strings.Contains(err.Error(), "line 2: a text of this rule is longer than 2,000") {
		t.Fatalf("an imported rule over the cap: %v", err)
	}
	d := governance.Decide([]*governance.Candidate{{Type: governance.TypePreference, Statement: over, Durable: true}}, nil, nil)
	if d.Status != governance.CandidateHeld {
		t.Fatalf("a candidate over the cap: %+v", d)
	}
}
