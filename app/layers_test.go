package app_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayers holds the dependency direction of docs/ARCHITECTURE.md: the
// store is reached only through the interfaces the use cases declare, so
// no package above it imports it, even indirectly (cmd/* wires it in);
// the use cases and the domain speak neither HTTP nor SQL themselves.
func TestLayers(t *testing.T) {
	const mod = "github.com/mnemo-console/mnemo/"
	for _, c := range []struct {
		pkg     string
		deps    []string // not even indirectly
		imports []string // not directly
	}{
		{"app", []string{"store", "web", "auth"}, []string{"database/sql", "net/http", "github.com/labstack/echo/v4"}},
		{"web", []string{"store"}, []string{"database/sql"}},
		{"evals", []string{"store", "app", "web"}, []string{"database/sql"}},
		{"seed", []string{"store", "app", "web"}, nil},
		{"governance", []string{"store", "app", "web", "auth", "evals"}, []string{"database/sql", "net/http"}},
		// The domain knows none of its engines; each engine only those below it:
		// gate ← recall, consolidate ← the extractors.
		{"governance", []string{"governance/gate", "governance/recall", "governance/consolidate",
			"governance/agentfile", "governance/heuristic", "governance/model"}, nil},
		{"governance/gate", []string{"governance/recall", "governance/consolidate", "governance/agentfile",
			"governance/heuristic", "governance/model", "store", "app", "web", "evals"}, nil},
		{"governance/recall", []string{"governance/consolidate", "governance/agentfile", "governance/heuristic",
			"governance/model", "store", "app", "web", "evals"}, nil},
		{"governance/consolidate", []string{"governance/recall", "governance/agentfile", "governance/heuristic",
			"governance/model", "store", "app", "web", "evals"}, nil},
		// The backends share code only through store/internal/... .
		{"store/postgres", []string{"store", "app", "web"}, nil},
	} {
		deps := goList(t, "{{join .Deps \"\\n\"}}", mod+c.pkg)
		for _, d := range c.deps {
			if slices.Contains(deps, mod+d) {
				t.Errorf("%s depends on %s: see docs/ARCHITECTURE.md, Layers", c.pkg, d)
			}
		}
		imports := goList(t, "{{join .Imports \"\\n\"}}", mod+c.pkg)
		for _, i := range c.imports {
			if slices.Contains(imports, i) {
				t.Errorf("%s imports %s: see docs/ARCHITECTURE.md, Layers", c.pkg, i)
			}
		}
	}
}

func goList(t *testing.T, format, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", format, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}
