package locale_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

// translatedErrorFiles are the use cases, handlers and store operations
// whose messages reach translated pages (the error page, a flash, a form's
// field errors) through Phrase: every fixed sentence they write must be in
// both catalogs. Add a file here when its page is translated.
var translatedErrorFiles = []string{
	"app/review.go", "app/rule.go", "app/recall.go",
	"web/review.go", "web/proposal.go", "web/project_policy.go", "web/rule.go", "web/eval_checks.go", "web/recall.go",
	"store/rule_lifecycle.go", "store/rule_review.go", "store/rule_edit.go", "store/heartbeat.go",
	// Why a candidate is in its status after a reviewer's decision.
	"governance/lifecycle/rules.go", "governance/lifecycle/held.go", "governance/lifecycle/undo.go",
	// Why the write gate flagged something, and why a candidate waits.
	"governance/gate/gate_classes.go", "governance/promotion.go",
}

var errorSentences = []*regexp.Regexp{
	regexp.MustCompile(`Errorf\(governance\.E[A-Z]+,\s*"([^"%]+)"\)`),                 // *governance.Error
	regexp.MustCompile(`\b(?:fe|errs)\[(?:"\w+"|\w+)\]\s*=\s*"([^"%]+)"`),             // app.FieldErrors, form errors
	regexp.MustCompile(`FieldErrors\{"\w+":\s*"([^"%]+)"\}`),                          // one field error
	regexp.MustCompile(`needReason\(\w+,\s*"([^"%]+)"\)`),                             // store: a reason is asked
	regexp.MustCompile(`toCandidates\([^)]*,\s*"([^"%]+)"\)`),                         // store: a candidate's status reason
	regexp.MustCompile(`(?m)^\t(?:Gate\w+|"\w+"):\s+"(It [^"]+|A [^"]+|An [^"]+)",$`), // gateWhyText
	regexp.MustCompile(`\bd\.Why\s*=\s*"((?:[^"\\%]|\\.)+)"`),                         // governance.Decide
	regexp.MustCompile(`d\.Status, d\.Why = \w+, "([^"%]+)"`),                         // governance.Decide
	regexp.MustCompile(`\bwhy := "([^"%]+)"`),                                         // a candidate's status reason
}

func TestTranslatedErrorsAreInBothCatalogs(t *testing.T) {
	found := 0
	files := translatedErrorFiles
	// Every use case: its field errors and errors reach a page.
	apps, err := filepath.Glob(filepath.Join("..", "app", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range apps {
		if !strings.HasSuffix(f, "_test.go") {
			files = append(files, strings.TrimPrefix(filepath.ToSlash(f), "../"))
		}
	}
	for _, f := range files {
		buf, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range errorSentences {
			for _, m := range re.FindAllStringSubmatch(string(buf), -1) {
				found++
				msg, err := strconv.Unquote(`"` + m[1] + `"`)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				for _, code := range locale.Languages {
					if !locale.For(code).Has(msg) {
						t.Errorf("%s: %q (%s) is missing", code, msg, f)
					}
				}
			}
		}
	}
	if found < 60 {
		t.Fatalf("found only %d sentences; is the scan broken?", found)
	}
}

// valueSentences find the English fmt formats of sentences that carry a
// value: errors, per-line import problems, eval case reasons and problems,
// a followed file's problems. Pages translate them (Phrasef, Phrase), so
// each must be in both catalogs with the same values.
var valueSentences = []*regexp.Regexp{
	regexp.MustCompile(`Errorf\((?:governance\.)?E[A-Z]+,\s*"((?:[^"\\]|\\.)*%(?:[^"\\]|\\.)*)"`),
	regexp.MustCompile(`\.bad\(\w+,\s*(?:fmt\.Sprintf\()?"((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile(`(?:problems|Problems) = append\([\w.]+,\s*(?:fmt\.Sprintf\()?"((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile(`\bReason = (?:fmt\.Sprintf\()?"((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile(`\bproblem = fmt\.Sprintf\("((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile(`\bfail\("((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile(`\bproblems\("((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile(`\bv\.add\([\w.]+, [^,]+, (?:fmt\.Sprintf\()?"((?:[^"\\]|\\.)+)"`), // eval suite problems
	regexp.MustCompile(`\bProblem\{\{?(?:Field: [^,]+, )?Message: (?:fmt\.Sprintf\()?"((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile(`\b(?:tr\.Phrasef|line)\("((?:[^"\\]|\\.)+)"`), // an eval report's lines
	regexp.MustCompile(`\bbad\.Add\(\w+,\s*(?:fmt\.Sprintf\()?"((?:[^"\\]|\\.)+)"`),
}

// eventProblem finds governance.Event.Validate's problems.
var eventProblem = regexp.MustCompile(`\badd\("((?:[^"\\]|\\.)+)"`)

// valueDirs are the packages whose sentences reach a page.
var valueDirs = []string{"app", "governance", "store", "store/postgres", "web", "evals", "transcript"}

func TestValueSentencesAreInBothCatalogs(t *testing.T) {
	found := map[string]string{}
	for _, dir := range valueDirs {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_templ.go") {
				continue
			}
			buf, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res := valueSentences
			if dir == "governance" {
				res = append(res[:len(res):len(res)], eventProblem)
			}
			for _, re := range res {
				for _, m := range re.FindAllStringSubmatch(string(buf), -1) {
					msg, err := strconv.Unquote(`"` + m[1] + `"`)
					if err != nil {
						t.Fatalf("%s: %v", f, err)
					}
					if strings.Trim(msg, "%s: ") == "" {
						continue // "%s": a message made elsewhere
					}
					if strings.HasSuffix(msg, " ") {
						msg += "%s" // "leak: "+l is the format "leak: %s"
					}
					found[msg] = f
				}
			}
		}
	}
	if len(found) < 100 {
		t.Fatalf("found only %d sentences; is the scan broken?", len(found))
	}
	var msgs []string
	for m := range found {
		msgs = append(msgs, m)
	}
	sort.Strings(msgs)
	for _, msg := range msgs {
		for _, code := range locale.Languages {
			if !locale.For(code).Has(msg) {
				t.Errorf("%s: %q (%s) is missing", code, msg, found[msg])
			}
		}
	}
}

// cliSentences find what the command line says: e.say and e.fail formats
// and the help of its flags.
var cliSentences = []*regexp.Regexp{
	regexp.MustCompile(`\be\.(?:say\(e\.\w+,|fail\()\s*"((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile(`\bfs\.\w+\((?:&[\w.]+,\s*)?"[\w-]+",\s*[^,]+,\s*"((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile(`\.(?:Phrase|Phrasef)\("((?:[^"\\]|\\.)+)"`),
	regexp.MustCompile("\\.(?:say\\(e\\.\\w+,|fail\\()\\s*`([^`]+)`"), // a sentence with quotes in it
	regexp.MustCompile(`\berrorf\(\s*"((?:[^"\\]|\\.)+)"`),            // configuration and setup errors
}

func TestCLISentencesAreInBothCatalogs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "cmd", "console", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		buf, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range cliSentences {
			for _, m := range re.FindAllStringSubmatch(string(buf), -1) {
				quoted := `"` + m[1] + `"`
				if strings.Contains(re.String(), "`") {
					quoted = "`" + m[1] + "`"
				}
				msg, err := strconv.Unquote(quoted)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if strings.HasSuffix(msg, " ") {
					msg += "%s"
				}
				found[msg] = f
			}
		}
	}
	if len(found) < 60 {
		t.Fatalf("found only %d sentences; is the scan broken?", len(found))
	}
	for msg, f := range found {
		for _, code := range locale.Languages {
			if !locale.For(code).Has(msg) {
				t.Errorf("%s: %q (%s) is missing", code, msg, f)
			}
		}
	}
	for _, code := range locale.Languages {
		if !locale.For(code).Has("cli.usage") {
			t.Errorf("%s: no cli.usage", code)
		}
	}
}

// auditActionWrites are the ways the code names the action of an audit
// row: a literal Action field, or the action argument of the stores' and
// the lifecycle's audit helpers.
var auditActionWrites = []*regexp.Regexp{
	regexp.MustCompile(`Action:\s*"([a-z_]+\.[a-z_]+)"`),
	regexp.MustCompile(`\b(?:Audit|audit[A-Za-z]*)\([^"\n]*"([a-z_]+\.[a-z_]+)"`),
	regexp.MustCompile(`\baction\s*:?=\s*"([a-z_]+\.[a-z_]+)"`),
}

// TestAuditActionsListed: every action the code writes to the audit log is
// in governance.AuditActions, so it has a label in both languages
// (TestEnumLabels) and the audit page never shows a raw identifier.
func TestAuditActionsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, a := range governance.AuditActions {
		listed[a] = true
	}
	found := 0
	// Every package of the module, so an action written in a package no
	// one thought to list is caught too.
	err := filepath.WalkDir("..", func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || n != ".." && strings.HasPrefix(n, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			return nil
		}
		buf, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		for _, re := range auditActionWrites {
			for _, m := range re.FindAllStringSubmatch(string(buf), -1) {
				found++
				if !listed[m[1]] {
					t.Errorf("%s writes audit action %q, which governance.AuditActions does not list", f, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 30 {
		t.Fatalf("found only %d audit actions written; is the scan broken?", found)
	}
}
