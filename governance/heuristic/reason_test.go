package heuristic_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestWishWithReason: a wish said with the speaker's reason after it is
// decided on the wish alone — it is a wish, and it stands for every time
// only when the wish says so — and the rule keeps the whole sentence. A
// clause after the wish that qualifies it, speaks to the agent, or a
// wish that is only a scope is read whole as before.
func TestWishWithReason(t *testing.T) {
	for _, c := range []struct {
		said    string
		durable bool
		keeps   string // a word of the reason the statement keeps
	}{
		{"Keep the rehearsal notes short, I read them on the bus.", false, "bus"},
		{"Put the claim totals in a table, my supervisor prints them.", false, "supervisor"},
		{"Show the claim totals in a table, she prints every one.", false, "prints"},
		{"Use bullet points, my manager reads these on her phone.", false, "phone"},
		{"Keep it brief, I read these between meetings.", false, "meetings"},
		{"用公里就行，我们这边没人用英里。", false, "英里"},
		{"别用英制单位，反正读者也看不懂。", false, "看不懂"},
		{"From now on keep answers short, I mean it.", true, "mean"},
		{"以后都用公里，我们这边没人用英里。", true, "英里"},
		{"Keep answers short, you know how busy I am.", false, "busy"},
		{"Sort the list by date, the newest first.", false, "newest"},
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
			t.Errorf("%q: statement %q lost the reason (%q)", c.said, prefs[0].Statement, c.keeps)
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
