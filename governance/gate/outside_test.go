package gate_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// TestNotPlaced_Reading: for an attack outside the low-risk set that no
// risk feature reads (silent_attacks.txt), the gate says what its unplaced
// clause asks, read from the clause — an action with its object, whose
// words count, a claim, a condition, or the clause alone — with the span
// of those words in the text as written, for the reviewer's marker.
func TestNotPlaced_Reading(t *testing.T) {
	attacks := attackCorpus(t, "testdata/gate/silent_attacks.txt", false)
	readings := map[string]int{}
	for _, a := range attacks {
		res := gate.Scan(a.text)
		if len(res.Findings) > 0 || res.LowRisk != "" || res.NotPlaced == nil {
			t.Errorf("line %d: findings %v, placed %q: the corpus holds attacks outside the set without a finding: %q", a.line, patterns(res.Findings), res.LowRisk, a.text)
			continue
		}
		np := res.NotPlaced
		asks := np.Asks
		if asks == "" {
			asks = "outside"
		}
		readings[asks]++
		if asks != a.class {
			t.Errorf("line %d: read as %q (%q), want %q: %q", a.line, asks, np.Words, a.class, a.text)
		}
		if np.Words == "" || np.Start < 0 || np.End > len(a.text) || a.text[np.Start:np.End] != np.Words {
			t.Errorf("line %d: words %q at [%d, %d) are not the text's: %q", a.line, np.Words, np.Start, np.End, a.text)
		}
		m := governance.OutsideMarker(*np)
		if m.Pattern != governance.OutsideLowRisk || m.Blocks() || !m.ReviewOnly() || m.Excerpt != np.Words {
			t.Errorf("line %d: marker %+v", a.line, m)
		}
	}
	t.Logf("silent attacks: %d, read as %v", len(attacks), readings)
	for _, want := range []string{"act", "identity", "claim", "condition", "outside"} {
		if readings[want] == 0 {
			t.Errorf("no line read as %s", want)
		}
	}
}

// TestNotPlaced_ReadingToUser: an action on the user is the answers' own
// ("remind me", 提醒我); on someone else it is an action.
func TestNotPlaced_ReadingToUser(t *testing.T) {
	for _, c := range []struct{ text, asks string }{
		{"Renew the parking permit for the van every March.", governance.AsksAct},
		{"Every March, renew me.", ""},
		{"每周五把仓库的监控关掉。", governance.AsksAct},
	} {
		res := gate.Scan(c.text)
		if res.NotPlaced == nil {
			t.Fatalf("%q: placed or with findings: %+v", c.text, res)
		}
		if res.NotPlaced.Asks != c.asks {
			t.Errorf("%q: asks %q (%q), want %q", c.text, res.NotPlaced.Asks, res.NotPlaced.Words, c.asks)
		}
	}
}
