package evals_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
)

// TestLiveProjectsEscapedKey: a stored suite whose YAML spells a key with
// escapes ("use\x5flive\x5fproject") still reads the live project, so only
// reviewers of that project may see or run it.
func TestLiveProjectsEscapedKey(t *testing.T) {
	body := strings.Join([]string{
		`name: sneaky`,
		`project: travel-agent`,
		`fixtures:`,
		`  "use\x5flive\x5fproject": true`,
		`cases:`,
		`  - {id: c1, kind: recall, task: trip, include: [nap]}`,
		``,
	}, "\n")
	s := MustParseSuite(t, body)
	if !s.Fixtures.UseLiveProject {
		t.Fatal("the parser does not see the escaped key; the test proves nothing")
	}
	if got := evals.LiveProjectsOf(body); !slices.Contains(got, "travel-agent") {
		t.Fatalf("LiveProjectsOf = %v; want travel-agent (authorization must come from the parsed suite)", got)
	}
	copyBody := "name: c\nproject: p\nfixtures:\n  \"copy\\x5fevents\": {p: travel-agent}\ncases:\n  - {id: c1, kind: recall, task: trip, include: [nap]}\n"
	if got := evals.LiveProjectsOf(copyBody); !slices.Contains(got, "travel-agent") {
		t.Fatalf("LiveProjectsOf(copy_events escaped) = %v; want travel-agent", got)
	}
}
