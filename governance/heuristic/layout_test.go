package heuristic

import (
	"slices"
	"testing"
)

// TestLayoutShapes: a place in the answer, one item a line or row, and an
// answer cut into a count of points are shapes of the answers read by
// structure, whatever the thing is called; a bound of length is not a
// layout, and an errand with no place in the answer has no shape.
func TestLayoutShapes(t *testing.T) {
	for _, c := range []struct {
		said   string
		aspect string // "" for no shape of the answers
		wish   bool   // a plain request about the answers
	}{
		{"End each lesson plan with a two-line recap.", "include", true},
		{"A short pronunciation note at the bottom please.", "include", true},
		{"Finish the quotes with a line about delivery times.", "include", true},
		{"Put a one-line verdict at the top of every review.", "include", true},
		{"教案末尾附一段小结。", "include", true},
		{"生词后面标上拼音。", "include", true},
		{"每首歌后面加个简短的背景介绍。", "include", true},
		{"One row per volunteer on the rota.", "list", true},
		{"Each supplier on a line of its own, please.", "list", true},
		{"值班表一人一行。", "list", true},
		{"菜单每道菜单独一行吧。", "list", true},
		{"分成三点说。", "list", true},
		{"回答分两部分写吧。", "list", true},
		// A length bound stays a length bound.
		{"Three sentences max.", "length", true},
		// Errands and reports: no place in the answer, nothing to hold.
		{"Put the receipts in the blue folder.", "", false},
		{"Please add a --verbose flag to the CLI.", "", false},
		{"他说分成三点比较好。", "list", false},
	} {
		sh := shapeOfOutput(c.said)
		if c.aspect == "" && len(sh.aspects) > 0 || c.aspect != "" && !slices.Contains(sh.aspects, c.aspect) {
			t.Errorf("%q: aspects %v, want %q", c.said, sh.aspects, c.aspect)
		}
		if got := outputRequest(newText(trimRightPunct(c.said))); got != c.wish && c.wish {
			t.Errorf("%q: a request about the answers = %v, want %v", c.said, got, c.wish)
		}
	}
	if sh := shapeOfOutput("Handover list: one line per patient, please"); slices.Contains(sh.aspects, "length") {
		t.Errorf("one line per patient read as a length bound: %+v", sh)
	}
}
