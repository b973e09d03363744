package evals_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
)

// TestKindsDocumented holds README.md's kind table to the registry: every
// registered kind has a row, and every row names a registered kind.
func TestKindsDocumented(t *testing.T) {
	body, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	start := strings.Index(text, "| kind | fields | passes when |")
	if start < 0 {
		t.Fatal("README.md has no kind table")
	}
	var documented []string
	for _, line := range strings.Split(text[start:], "\n")[2:] {
		if !strings.HasPrefix(line, "| `") {
			break
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
		documented = append(documented, name)
	}
	var registered []string
	for _, k := range evals.Kinds {
		registered = append(registered, string(k))
	}
	slices.Sort(documented)
	slices.Sort(registered)
	if !slices.Equal(documented, registered) {
		t.Errorf("README.md documents kinds %v, the registry holds %v", documented, registered)
	}
}

// TestFieldOfOtherKind: a field that belongs to another kind is named in
// the validation error, whatever kind declares it.
func TestFieldOfOtherKind(t *testing.T) {
	_, err := evals.ParseSuite("x.yaml", []byte(`
name: x
project: p
fixtures:
  sessions: [{events: [{text: hi}]}]
cases:
  - id: r
    kind: recall
    task: t
    include: [hi]
    steps: [{forget: hi, expect: {forgets: [hi]}}]
    min_uplift: 0.5
    with_fixtures: true
`))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"steps: does not apply to recall cases", "min_uplift: does not apply to recall cases",
		"with_fixtures: applies to sequence and poisoning cases only"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
