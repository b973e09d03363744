package evals_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
)

// MustLoadSuite parses a suite file from testdata.
func MustLoadSuite(tb testing.TB, path string) *evals.Suite {
	tb.Helper()
	s, err := evals.LoadSuiteFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// MustParseSuite parses a suite from text.
func MustParseSuite(tb testing.TB, body string) *evals.Suite {
	tb.Helper()
	s, err := evals.ParseSuite("test.yaml", []byte(body))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestParseSuite(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		s := MustLoadSuite(t, "testdata/fake-suite.yaml")
		if got, want := strings.Join(s.CaseIDs(), ","), "shanghai,expense-stays-out,lifecycle,rumour"; got != want {
			t.Fatalf("cases = %s, want %s", got, want)
		}
		if got := s.Cases[0].Include[1].Regex; got != "route check" {
			t.Fatalf("regex matcher = %q", got)
		}
		if got := s.Cases[3].Untrusted[0].Events[0].Source; got != "external" {
			t.Fatalf("untrusted source defaults to %q", got)
		}
	})
	t.Run("RoundTrip", func(t *testing.T) {
		s := MustLoadSuite(t, "testdata/fake-suite.yaml")
		body, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		again := MustParseSuite(t, string(body))
		if len(again.Cases) != len(s.Cases) || again.Cases[2].Steps[3].Expect.Supersedes[0].New.Text != "13:00" {
			t.Fatalf("round trip lost data:\n%s", body)
		}
	})

	const head = "name: x\nproject: p\nfixtures:\n  sessions:\n    - events: [{text: hi}]\ncases:\n"
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"UnknownField", head + "  - {id: a, kind: recall, taks: t, include: [x]}\n",
			[]string{"test.yaml:", "field taks not found"}},
		{"UnknownMatcherField", head + "  - {id: a, kind: recall, task: t, include: [{txt: x}]}\n",
			[]string{"field txt not found (known: rule, text, regex)"}},
		{"BadKind", head + "  - {id: a, kind: recal, task: t}\n",
			[]string{`case "a": kind: "recal" is not one of recall, isolation, sequence, ab, poisoning`}},
		{"MissingTask", head + "  - {id: a, kind: recall, include: [x]}\n",
			[]string{`case "a": task: is required`}},
		{"BadRegex", head + "  - {id: a, kind: recall, task: t, include: [{regex: '('}]}\n",
			[]string{`case "a": include[0].regex: is not a valid regular expression`}},
		{"BadCheck", head + "  - {id: a, kind: ab, task: t, rules: [{text: r, checks: [{type: containz, value: x}]}]}\n",
			[]string{`case "a": rules[0].checks[0]: type: "containz" is not one of contains`}},
		{"BadWindow", head + "  - {id: a, kind: ab, task: t, rules: [{text: r, checks: [{type: time_window, start: '16:00', end: '14:00'}]}]}\n",
			[]string{`rules[0].checks[0]: start, end: need two times HH:MM with start before end`}},
		{"DuplicateID", head + "  - {id: a, kind: recall, task: t, include: [x]}\n  - {id: a, kind: recall, task: t, include: [x]}\n",
			[]string{`case "a": id: duplicates cases[0]`}},
		{"ForeignOwnProject", head + "  - {id: a, kind: isolation, task: t, foreign: {project: p}}\n",
			[]string{`case "a": foreign: is the case's own project`}},
		{"UnknownAlias", head + "  - {id: a, kind: recall, project: q, task: t, include: [x]}\n",
			[]string{`case "a": project: "q" is not a fixture project (known: p)`}},
		{"FieldOfOtherKind", head + "  - {id: a, kind: recall, task: t, include: [x], steps: [{forget: x, expect: {no_writes: true}}]}\n",
			[]string{`case "a": steps: does not apply to recall cases`}},
		{"StepNeedsExpect", head + "  - {id: a, kind: sequence, steps: [{turns: [{text: hi}]}]}\n",
			[]string{`case "a": steps[0].expect: name at least one of`}},
		{"UntrustedMustBeExternal", head + "  - {id: a, kind: poisoning, forbid: [x], untrusted: [{events: [{text: hi, source: conversation}]}]}\n",
			[]string{`case "a": untrusted[0].events[0].source: untrusted events must have source external`}},
		{"BadEventRole", head + "  - {id: a, kind: sequence, steps: [{turns: [{role: robot, text: hi}], expect: {no_writes: true}}]}\n",
			[]string{`case "a": steps[0].turns[0]: role "robot" is not one of user, assistant, tool`}},
		{"Empty", "", []string{"test.yaml: invalid suite", "file is empty"}},
		{"NoCases", "name: x\n", []string{"cases: at least one case is required"}},
	} {
		t.Run("Err"+tc.name, func(t *testing.T) {
			_, err := evals.ParseSuite("test.yaml", []byte(tc.body))
			if err == nil {
				t.Fatal("no error")
			}
			if _, ok := evals.IsValidation(err); !ok {
				t.Fatalf("err is %T, want *ValidationError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestREADMEExample(t *testing.T) {
	// The example in README.md must stay a valid suite.
	body, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	start := strings.Index(text, "```yaml\n")
	if start < 0 {
		t.Fatal("README has no yaml example")
	}
	text = text[start+len("```yaml\n"):]
	end := strings.Index(text, "```")
	MustParseSuite(t, text[:end])
}

func readFile(tb testing.TB, path string) (string, error) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b), nil
}
