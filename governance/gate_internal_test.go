package governance

import (
	"os"
	"strings"
	"testing"
)

// TestGateHintsAreNecessary checks, over both corpora, that whenever a
// rule's expression matches, the text holds one of the rule's hints: the
// prefilter may only skip texts the expression would not match anyway.
func TestGateHintsAreNecessary(t *testing.T) {
	var texts []string
	for _, name := range []string{"testdata/gate/attacks.txt", "testdata/gate/benign.txt"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			if _, text, ok := strings.Cut(l, "\t"); ok && strings.HasSuffix(name, "attacks.txt") {
				l = text
			}
			texts = append(texts, l)
		}
	}
	matched := 0
	for _, text := range texts {
		s := normalise(text, nil).view.text
		lower := strings.ToLower(s)
		for _, r := range gateRules {
			if r.re.FindStringIndex(s) == nil {
				continue
			}
			matched++
			if !r.mayMatch(lower) {
				t.Errorf("rule %s matches %q but none of its hints %q is in it", r.pattern, text, r.hints)
			}
			for _, p := range r.pieces {
				if p.re.FindStringIndex(s) != nil && !p.mayMatch(lower) {
					t.Errorf("a piece of rule %s matches %q but none of its literals %q is in it", r.pattern, text, p.hints)
				}
			}
			if r.accept == nil && r.find(s, lower) == nil {
				t.Errorf("rule %s matches %q as a whole but not piece by piece", r.pattern, text)
			}
		}
	}
	if matched < 100 {
		t.Fatalf("only %d rule matches over the corpora; the check proves little", matched)
	}
	for _, r := range gateRules {
		if len(r.hints) == 0 {
			t.Errorf("rule %s has no hints: every text pays for its expression", r.pattern)
		}
	}
}
