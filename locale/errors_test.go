package locale_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

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
	// Why the write gate flagged something, and why a candidate waits.
	"governance/gate_classes.go", "governance/promotion.go",
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
}

func TestTranslatedErrorsAreInBothCatalogs(t *testing.T) {
	found := 0
	for _, f := range translatedErrorFiles {
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
