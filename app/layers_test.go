package app_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayers holds the dependency rules of docs/ARCHITECTURE.md, "Layers and dependency direction",
// over every package of the module (tests aside, which may import what
// they drive): the store is reached only through the interfaces the use
// cases declare, so no package but cmd/* depends on it; the domain and
// its engines know no layer above them; the stores link neither the eval
// runner nor the model client; only web and auth speak echo.
//
// A name is a package of the module, relative to it ("app"), or any other
// import path; "x/..." is x and every package below it, "..." every
// package of the module.
func TestLayers(t *testing.T) {
	// Packages under store/ that only tests import: they drive the eval
	// runner and the seed over a store, and still know nothing above.
	storeTestSupport := []string{"store/storetest", "store/internal/crashtest"}
	above := []string{"app", "web/...", "auth", "cmd/..."}
	beside := []string{"evals", "transcript", "seed"}
	sqlSide := []string{"store/...", "database/sql", "github.com/jackc/pgx/...", "modernc.org/sqlite/..."}
	// The engines that decide over the domain; lifecycle and forgetplan
	// need none of them.
	engines := []string{"governance/gate/...", "governance/recall", "governance/consolidate",
		"governance/agentfile", "governance/heuristic", "governance/model/...", "governance/evalrow",
		"governance/lifecycle", "governance/forgetplan"}
	for _, r := range []struct {
		from    string
		except  []string
		deps    []string // not even indirectly
		imports []string // not directly
	}{
		// Only cmd/* wires the stores in; the backends share code only
		// through store/internal/... .
		{from: "...", except: []string{"store/...", "cmd/..."}, deps: []string{"store", "store/postgres"}},
		{from: "store", deps: []string{"store/postgres"}},
		{from: "store/postgres", deps: []string{"store"}},
		// The stores (store/internal/... too) know nothing above them.
		{from: "store/...", except: storeTestSupport,
			deps: cat(above, beside, []string{"locale", "github.com/sashabaranov/go-openai"})},
		{from: "store/storetest", deps: above},
		{from: "store/internal/crashtest", deps: above},
		// Only web and auth speak HTTP through echo.
		{from: "...", except: []string{"web/...", "auth"}, imports: []string{"github.com/labstack/echo/..."}},
		// The use cases: no HTTP, no SQL, no sessions, no demo.
		{from: "app", deps: []string{"web/...", "auth", "seed", "cmd/..."},
			imports: []string{"database/sql", "net/http"}},
		{from: "web/...", deps: []string{"seed", "cmd/..."}, imports: []string{"database/sql"}},
		{from: "web/templates", deps: []string{"app", "evals", "transcript"}},
		// The libraries beside app know none of it; evals and transcript
		// not each other, and the demo (seed) reads its files with
		// transcript's readers.
		{from: "evals", deps: cat(above, []string{"transcript", "seed"}), imports: []string{"database/sql"}},
		{from: "transcript", deps: cat(above, []string{"evals", "seed"})},
		{from: "seed", deps: cat(above, []string{"evals"})},
		{from: "locale", deps: cat(above, beside)},
		// The domain and its engines (the decisions: lifecycle, forgetplan,
		// recall's gathering among them) know no layer above them, no store
		// and no SQL: each backend implements their narrow interfaces. The
		// domain knows none of its engines, each engine only those below
		// it: gate ← consolidate ← the extractors; recall and agentfile
		// read through the domain's masker.
		{from: "governance/...", deps: cat(above, beside, sqlSide, []string{"locale"})},
		{from: "governance", deps: []string{"governance/gate/...", "governance/recall", "governance/consolidate",
			"governance/lifecycle", "governance/forgetplan",
			"governance/agentfile", "governance/heuristic", "governance/model/...", "governance/evalrow",
			"github.com/sashabaranov/go-openai"}, imports: []string{"database/sql", "net/http"}},
		{from: "governance/lifecycle", deps: engines},
		{from: "governance/forgetplan", deps: engines},
		{from: "governance/evalrow", deps: []string{"governance/gate/...", "governance/recall", "governance/consolidate",
			"governance/agentfile", "governance/heuristic", "governance/model/..."}},
		{from: "governance/gate", deps: []string{"governance/recall", "governance/consolidate", "governance/agentfile",
			"governance/heuristic", "governance/model/..."}},
		// The read paths hand stored text out through governance.Masker
		// (the gate registers itself), never the gate engine (docs/gate.md).
		{from: "governance/recall", deps: []string{"governance/gate/...", "governance/consolidate", "governance/agentfile",
			"governance/heuristic", "governance/model/..."}},
		{from: "governance/agentfile", deps: []string{"governance/gate/...", "governance/consolidate",
			"governance/heuristic", "governance/model/..."}},
		{from: "governance/consolidate", deps: []string{"governance/recall", "governance/agentfile",
			"governance/heuristic", "governance/model/..."}},
	} {
		matched := false
		for _, p := range modulePackages(t) {
			if !match(r.from, p.path) || slices.ContainsFunc(r.except, func(e string) bool { return match(e, p.path) }) {
				continue
			}
			matched = true
			for _, d := range p.deps {
				if slices.ContainsFunc(r.deps, func(x string) bool { return match(x, d) }) {
					t.Errorf("%s depends on %s: see docs/ARCHITECTURE.md, \"Layers and dependency direction\"", p.path, d)
				}
			}
			for _, i := range p.imports {
				if slices.ContainsFunc(r.imports, func(x string) bool { return match(x, i) }) {
					t.Errorf("%s imports %s: see docs/ARCHITECTURE.md, \"Layers and dependency direction\"", p.path, i)
				}
			}
		}
		if !matched {
			t.Errorf("the rule for %s names no package of the module", r.from)
		}
	}
}

const module = "github.com/mnemo-console/mnemo"

// match reports whether path is pattern: a package of the module
// (relative) or another import path, with "/..." for everything below.
func match(pattern, path string) bool {
	if pattern == "..." {
		return strings.HasPrefix(path, module+"/")
	}
	for _, p := range []string{pattern, module + "/" + pattern} {
		if dir, ok := strings.CutSuffix(p, "/..."); ok && (path == dir || strings.HasPrefix(path, dir+"/")) || p == path {
			return true
		}
	}
	return false
}

func cat(lists ...[]string) []string { return slices.Concat(lists...) }

type goPackage struct {
	path          string
	deps, imports []string
}

var packages []goPackage

// modulePackages lists the module's packages once, with what each
// depends on and imports (tests left out).
func modulePackages(t *testing.T) []goPackage {
	t.Helper()
	if packages != nil {
		return packages
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{join .Deps \" \"}}\t{{join .Imports \" \"}}", module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		packages = append(packages, goPackage{path: f[0], deps: strings.Fields(f[1]), imports: strings.Fields(f[2])})
	}
	if len(packages) < 20 {
		t.Fatalf("go list found %d packages", len(packages))
	}
	return packages
}
