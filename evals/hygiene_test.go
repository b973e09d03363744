package evals_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/evals"
)

// TestSuiteHygiene: control characters decoded from YAML escapes, and ids
// that are not printable, are problems naming the place.
func TestSuiteHygiene(t *testing.T) {
	for name, body := range map[string]string{
		"TextEscape":  "name: x\nproject: p\nfixtures:\n  sessions:\n    - events: [{text: \"hi\\x1b[2J\"}]\ncases:\n  - {id: c1, kind: recall, task: t, include: [hi]}\n",
		"SessionBidi": "name: x\nproject: p\nfixtures:\n  sessions:\n    - id: \"s\\u202e1\"\n      events: [{text: hi}]\ncases:\n  - {id: c1, kind: recall, task: t, include: [hi]}\n",
		"CaseIDNul":   "name: x\nproject: p\nfixtures:\n  sessions:\n    - events: [{text: hi}]\ncases:\n  - {id: \"c\\0\", kind: recall, task: t, include: [hi]}\n",
		"TaskNul":     "name: x\nproject: p\nfixtures:\n  sessions:\n    - events: [{text: hi}]\ncases:\n  - {id: c1, kind: recall, task: \"t\\0\", include: [hi]}\n",
		"EventIDZW":   "name: x\nproject: p\nfixtures:\n  sessions:\n    - events: [{id: \"e\\u200b1\", text: hi}]\ncases:\n  - {id: c1, kind: recall, task: t, include: [hi]}\n",
		"InvalidUTF8": "name: x\nproject: p\nfixtures:\n  sessions:\n    - events: [{text: \"h\xffi\"}]\ncases:\n  - {id: c1, kind: recall, task: t, include: [hi]}\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := evals.ParseSuite("test.yaml", []byte(body))
			if err == nil {
				t.Fatal("suite accepted")
			}
		})
	}
	// The same suite, clean, is accepted.
	MustParseSuite(t, "name: x\nproject: p\nfixtures:\n  sessions:\n    - id: s1\n      events: [{id: e1, text: \"hi\\tthere\"}]\ncases:\n  - {id: c1, kind: recall, task: t, include: [hi]}\n")
}
