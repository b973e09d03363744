package evals

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// A project's regression suite holds the cases reviewers add when they
// decide an outcome review (docs/outcomes.md): recall, for the task an
// agent was misled on, must leave the rule out and include its
// replacement. It runs against the live project (use_live_project). Each
// case is written as one line holding a JSON object, so the store can
// drop a forgotten subject's cases from the body without parsing it
// (store/internal/outcome.DropSubjectCases).

// RegressionSuiteName is the name of project slug's regression suite.
func RegressionSuiteName(slug string) string { return "regressions-" + slug }

// regressionLine is a case as its line holds it; the field order is fixed
// ("subject" before "description").
type regressionLine struct {
	ID          string     `json:"id"`
	Kind        Kind       `json:"kind"`
	Subject     string     `json:"subject,omitempty"`
	Description string     `json:"description"`
	Task        string     `json:"task"`
	Exclude     []*Matcher `json:"exclude"`
	Include     []*Matcher `json:"include,omitempty"`
}

// RegressionCaseYAML is case c as its suite line holds it (without the
// leading "  - ").
func RegressionCaseYAML(c governance.RegressionCase) string {
	l := regressionLine{ID: c.ID, Kind: KindRecall, Subject: c.SubjectID, Task: c.Task,
		Exclude:     []*Matcher{{Rule: c.Exclude}},
		Description: fmt.Sprintf("Recall leaves out rule %d, which misled agents (outcome review %d).", c.Exclude, c.ReviewID)}
	if c.Include != 0 {
		l.Include = []*Matcher{{Rule: c.Include}}
		l.Description = fmt.Sprintf("Recall gives rule %d instead of rule %d, which misled agents (outcome review %d).", c.Include, c.Exclude, c.ReviewID)
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// AddRegressionCase returns the regression suite of project slug with c
// added (a case of the same id replaced): body is the suite as stored, ""
// when there is none yet. The result is checked as any suite is.
func AddRegressionCase(body, slug string, c governance.RegressionCase) (string, error) {
	var cases []string
	prefix := fmt.Sprintf(`{"id":%q,`, c.ID)
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "- {") && !strings.HasPrefix(l, "- "+prefix) {
			cases = append(cases, strings.TrimPrefix(l, "- "))
		}
	}
	cases = append(cases, RegressionCaseYAML(c))
	var b strings.Builder
	name, _ := json.Marshal(RegressionSuiteName(slug))
	project, _ := json.Marshal(slug)
	fmt.Fprintf(&b, "# Regression cases reviewers added from outcome reviews (docs/outcomes.md).\n")
	fmt.Fprintf(&b, "# One case a line; the console rewrites this file.\n")
	fmt.Fprintf(&b, "name: %s\n", name)
	fmt.Fprintf(&b, "description: Recall no longer gives the rules that misled agents of this project.\n")
	fmt.Fprintf(&b, "project: %s\n", project)
	fmt.Fprintf(&b, "fixtures:\n  use_live_project: true\ncases:\n")
	for _, l := range cases {
		fmt.Fprintf(&b, "  - %s\n", l)
	}
	out := b.String()
	if _, err := ParseSuite(RegressionSuiteName(slug)+".yaml", []byte(out)); err != nil {
		return "", fmt.Errorf("evals: regression case %s: %w", c.ID, err)
	}
	return out, nil
}
