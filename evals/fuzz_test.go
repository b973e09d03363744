package evals_test

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/evals"
)

// FuzzParseSuite: a suite body is either rejected with a *ValidationError
// listing at least one problem, or parses into a suite that validates
// again; its YAML form (Marshal, what the database stores) parses back into
// a suite with the same cases and live projects, and marshals to the same
// bytes (parse → marshal → parse is stable).
func FuzzParseSuite(f *testing.F) {
	body, err := os.ReadFile("testdata/fake-suite.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body)
	f.Add([]byte("name: s\nproject: p\ncases:\n  - id: a\n    kind: recall\n    task: t\n    include: [x]\n"))
	f.Add([]byte("name: s\nproject: p\n\"use\\x5flive\\x5fproject\": true\ncases: []\n"))
	f.Add([]byte("name: \"\\x1b[31m\"\n"))
	f.Add([]byte("name: a\n---\nname: b\n"))
	f.Add([]byte("\xff\xfe"))
	f.Add([]byte("[]"))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := evals.ParseSuite("fuzz.yaml", body)
		if err != nil {
			var ve *evals.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error is %T, not *ValidationError: %v", err, err)
			}
			if len(ve.Problems) == 0 {
				t.Fatalf("rejection without a problem: %v", err)
			}
			if s != nil {
				t.Fatal("rejected body returned a suite")
			}
			if utf8.Valid(body) && !utf8.ValidString(err.Error()) {
				t.Fatalf("error message is not valid UTF-8: %q", err.Error())
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("parsed suite fails Validate again: %v", err)
		}
		out, err := s.Marshal()
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		s2, err := evals.ParseSuite("fuzz.yaml", out)
		if err != nil {
			t.Fatalf("re-parsing the marshalled suite: %v\n%s", err, out)
		}
		if !slices.Equal(s.CaseIDs(), s2.CaseIDs()) {
			t.Fatalf("cases %v became %v", s.CaseIDs(), s2.CaseIDs())
		}
		if !slices.Equal(s.LiveProjects(), s2.LiveProjects()) {
			t.Fatalf("live projects %v became %v", s.LiveProjects(), s2.LiveProjects())
		}
		out2, err := s2.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("marshal is not stable:\n%s\n---\n%s", out, out2)
		}
	})
}
