package heuristic

import (
	"slices"
	"strings"
	"testing"
)

// TestCueFiles checks the data files of the structural reader: every file
// is loaded by some class, documents its class in a header comment, and
// holds no duplicate and (in English) no upper-case phrase.
func TestCueFiles(t *testing.T) {
	entries, err := cueFiles.ReadDir("cues")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".txt")
		if !slices.Contains(cueNames, name) {
			t.Errorf("cues/%s is not loaded by any class", e.Name())
		}
		b, _ := cueFiles.ReadFile("cues/" + e.Name())
		if !strings.HasPrefix(string(b), "# ") {
			t.Errorf("cues/%s: want a header comment saying what the class is", e.Name())
		}
		seen := map[string]bool{}
		for _, p := range loadCues(name) {
			if seen[p] {
				t.Errorf("cues/%s: %q twice", e.Name(), p)
			}
			seen[p] = true
			if strings.HasSuffix(name, ".en") && p != strings.ToLower(p) {
				t.Errorf("cues/%s: %q must be lower case", e.Name(), p)
			}
		}
	}
}
