package outcome_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/outcome"
)

// TestDropSubjectCases: a subject's cases leave a regression suite, with
// their tasks; the other subjects' cases and the suite stay valid; a
// subject named inside another case's text is not mistaken for it.
func TestDropSubjectCases(t *testing.T) {
	body := ""
	for _, c := range []governance.RegressionCase{
		{ID: "outcome-1", ReviewID: 1, SubjectID: "family-chen", Task: "带女儿去上海", Exclude: 7},
		{ID: "outcome-2", ReviewID: 2, SubjectID: "family-li", Task: `family-chen's "nap"`, Exclude: 8},
		{ID: "outcome-3", ReviewID: 3, SubjectID: "family-chen", Task: "下午午睡", Exclude: 9},
	} {
		var err error
		if body, err = evals.AddRegressionCase(body, "travel", c); err != nil {
			t.Fatal(err)
		}
	}
	kept, tasks := outcome.DropSubjectCases(body, "family-chen")
	if strings.Join(tasks, "|") != "带女儿去上海|下午午睡" {
		t.Errorf("dropped tasks %q", tasks)
	}
	s, err := evals.ParseSuite("r.yaml", []byte(kept))
	if err != nil || len(s.Cases) != 1 || s.Cases[0].ID != "outcome-2" {
		t.Fatalf("after the drop: %v\n%s", err, kept)
	}
	if again, tasks := outcome.DropSubjectCases(kept, "family-chen"); again != kept || tasks != nil {
		t.Error("a second drop changed the body")
	}
}

// TestVariants: a text as written and escaped once and twice in JSON.
func TestVariants(t *testing.T) {
	got := outcome.Variants(`say "hi"`)
	want := []string{`say "hi"`, `say \"hi\"`, `say \\\"hi\\\"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Variants = %q, want %q", got, want)
	}
	if outcome.Variants(governance.RedactedText) != nil || len(outcome.Variants("午睡")) != 1 {
		t.Error("Variants of a redacted or plain text")
	}
}
