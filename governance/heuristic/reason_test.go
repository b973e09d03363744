package heuristic_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestWishWithReason: a wish said with the speaker's reason after it is
// read as the wish alone — it is a wish, it stands for every time only
// when the wish says so, and the statement is the wish (the write gate
// places no reason clause: the event keeps the reason). A clause after
// the wish that qualifies it, speaks to the agent, or a wish that is only
// a scope is read whole as before.
func TestWishWithReason(t *testing.T) {
	for _, c := range []struct {
		said    string
		durable bool
		keeps   string // a word the statement keeps
		drops   string // a word of the reason it leaves out; "" when read whole
	}{
		{"Keep the rehearsal notes short, I read them on the bus.", false, "short", "bus"},
		{"Put the claim totals in a table, my supervisor prints them.", false, "table", "supervisor"},
		{"Show the claim totals in a table, she prints every one.", false, "table", "prints"},
		{"Use bullet points, my manager reads these on her phone.", false, "bullet", "phone"},
		{"Keep it brief, I read these between meetings.", false, "brief", "meetings"},
		{"用公里就行，我们这边没人用英里。", false, "公里", "英里"},
		{"别用英制单位，反正读者也看不懂。", false, "英制", "看不懂"},
		{"From now on keep answers short, I mean it.", true, "short", "mean"},
		{"以后都用公里，我们这边没人用英里。", true, "公里", ""},
		{"Keep answers short, you know how busy I am.", false, "busy", ""},
		{"Sort the list by date, the newest first.", false, "newest", ""},
		// A wish that would read as cut off alone keeps its reason.
		{"Never edit the files under gen/, they are generated.", true, "generated", ""},
	} {
		ex := mustExtract(t, session("user", c.said))
		var prefs []governance.ExtractedItem
		for _, it := range ex.Items {
			if it.Type == governance.TypePreference {
				prefs = append(prefs, it)
			}
		}
		if len(prefs) != 1 {
			t.Errorf("%q: %d preferences %+v, want one", c.said, len(prefs), ex.Items)
			continue
		}
		if prefs[0].Durable != c.durable {
			t.Errorf("%q: durable %v, want %v", c.said, prefs[0].Durable, c.durable)
		}
		if !strings.Contains(prefs[0].Statement, c.keeps) {
			t.Errorf("%q: statement %q lost %q", c.said, prefs[0].Statement, c.keeps)
		}
		if c.drops != "" && strings.Contains(prefs[0].Statement, c.drops) {
			t.Errorf("%q: statement %q keeps the reason (%q)", c.said, prefs[0].Statement, c.drops)
		}
		for _, it := range ex.Items {
			if it.Type == governance.TypeFact {
				t.Errorf("%q: the reason became a fact of its own: %q", c.said, it.Statement)
			}
		}
	}
	// A scope before a report is not a wish with a reason.
	for _, said := range []string{"As a rule, we don't merge on Fridays.", "From here on, the petty cash log is reconciled every Friday."} {
		for _, it := range mustExtract(t, session("user", said)).Items {
			if len(strings.Fields(it.Statement)) <= 3 {
				t.Errorf("%q: cut to %q", said, it.Statement)
			}
		}
	}
}
