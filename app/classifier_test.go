package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// markerClassifier is the pattern gate with one more finding: a text
// holding word is blocked, as a model classifier beside the gate would
// block what the patterns miss.
func markerClassifier(word string) governance.Classifier {
	return governance.Beside(gate.Patterns, governance.ClassifierFunc(func(_ context.Context, text string) (governance.GateResult, error) {
		res := governance.GateResult{Text: text}
		if i := strings.Index(text, word); i >= 0 {
			res.Findings = []governance.Finding{{Category: governance.GatePersistence, Pattern: "marker", Excerpt: word, Start: i, End: i + len(word)}}
		}
		return res, nil
	}))
}

// TestWrites_ThroughClassifier: what agents write beside events — an
// outcome report's note and task, a skill for its risk review — is read
// by the classifier the app is given (App.SetClassifier), not by the
// pattern gate alone, and a classifier that fails refuses the write.
func TestWrites_ThroughClassifier(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	f.Rule(t, f.Travel, "", "Plan a nap window after lunch on every trip")
	tok := f.Actors[TokenRecall]
	report := func(note string) error {
		pkg, err := f.App.Recalls.Recall(ctx, tok, governance.RecallRequest{ProjectID: f.Travel.ID, Task: "plan a trip with a nap"})
		if err != nil {
			t.Fatal(err)
		}
		if len(pkg.Items) == 0 {
			t.Fatal("recall returned nothing to report on")
		}
		_, err = f.App.Outcomes.Report(ctx, tok, pkg.Trace.ID, governance.OutcomeInput{Verdict: governance.OutcomeVerdicts[0], ItemID: pkg.Items[0].ID, Note: note})
		return err
	}
	if err := report("the zephyr plan worked"); err != nil {
		t.Fatalf("the pattern gate alone finds nothing in the note: %v", err)
	}

	f.App.SetClassifier(markerClassifier("zephyr"))
	if err := report("the zephyr plan worked"); governance.ErrorCode(err) != governance.EINVALID {
		t.Errorf("a note the classifier blocks: %v, want EINVALID", err)
	}
	if err := report("the nap plan worked"); err != nil {
		t.Errorf("a note the classifier finds nothing in: %v", err)
	}
	res, err := f.App.Skills.Import(ctx, f.Actors[Admin], app.SkillImportInput{Project: app.ProjectSlug("travel-agent"),
		Folders: []governance.SkillFolder{skillFolder("zephyr-day", "Plan a quiet day.", "\n1. Follow the zephyr notes.\n")}, Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Findings["zephyr-day"] == 0 {
		t.Error("the skill's risk review did not read it through the app's classifier")
	}

	down := errors.New("classifier down")
	f.App.SetClassifier(governance.ClassifierFunc(func(context.Context, string) (governance.GateResult, error) {
		return governance.GateResult{}, down
	}))
	if err := report("the nap plan worked"); !errors.Is(err, down) {
		t.Errorf("a failing classifier: %v, want the report refused with its error", err)
	}
}
