package heuristic_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestCorrectsOccasion: a correction of one definite thing's value with
// no durability word ("The call with the tutor is at 7pm now, not 6",
// 理疗预约改成下午四点了，不是三点) is an item that may only replace a rule
// about that thing (ReplacesOnly); the same with a day, a demonstrative or
// as an imperative errand gives nothing, and a correction of a thing of no
// one occasion stays a wish.
func TestCorrectsOccasion(t *testing.T) {
	for _, c := range []struct {
		said string
		want string // "only", "wish" or "none"
	}{
		{"The call with the tutor is at 7pm now, not 6.", "only"},
		{"The dentist appointment is at 9 now, not 10.", "only"},
		// A word of recurrence: a wish about every such appointment.
		{"The vet appointment is on Fridays now, not Thursdays.", "wish"},
		{"理疗预约改成下午四点了，不是三点。", "only"},
		{"晚饭的预订改到七点半了，不是七点。", "only"},
		{"Tomorrow's call with the tutor is at 7pm now, not 6.", "none"},
		{"This appointment is at 4pm now, not 3.", "none"},
		{"Move the call with the tutor to 7pm now, not 6.", "none"},
		{"明天的理疗预约改成下午四点了，不是三点。", "none"},
		{"把理疗预约改成下午四点，不是三点。", "none"},
		{"The refund limit is 30 euros now, not 50.", "wish"},
		// A pronoun standing for the earlier value gets a new one: a
		// correction of the wish it was; a demonstrative of a thing is a task.
		{"Make that Fahrenheit instead.", "wish"},
		{"Actually, change it to 30 euros, not 50.", "wish"},
		{"Make that Celsius instead, our readers are in Lyon.", "wish"},
		{"Make that chart smaller.", "none"},
		{"Make that one bigger instead.", "none"},
	} {
		ex := mustExtract(t, session("user", c.said))
		got := "none"
		for _, it := range ex.Items {
			if it.Type != governance.TypePreference {
				continue
			}
			if it.Durable {
				t.Errorf("%q: durable item %q", c.said, it.Statement)
			}
			got = "wish"
			if it.ReplacesOnly {
				got = "only"
			}
		}
		if got != c.want {
			t.Errorf("%q: %s, want %s (items %+v)", c.said, got, c.want, ex.Items)
		}
	}
}
