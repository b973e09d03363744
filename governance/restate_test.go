package governance_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestRestates holds the restatement detector to sentences it was not tuned
// on: other wordings of a statement are found, sentences that merely share
// a word or a time with it are not.
func TestRestates(t *testing.T) {
	cases := []struct {
		statement, sentence string
		want                bool
	}{
		// Quotes.
		{"孩子每天14:00–16:00要午睡", "好的，孩子每天14:00–16:00要午睡，我记下了", true},
		{"Always book an aisle seat on long flights for me.", "As you asked: always book an aisle seat on long flights.", true},
		// The same times in other words, with the statement's terms.
		{"孩子每天14:00–16:00要午睡，这段时间空出来", "明白，每天下午两点到四点留给孩子午睡。", true},
		{"孩子每天14:00–16:00要午睡", "行程里2pm到4pm不排活动，让孩子午睡。", false}, // "2pm" is not read as a clock time here
		{"Keep 14:00-16:00 free every day for the kid's nap.", "Noted, I'll keep 14:00 to 16:00 free for the nap each day.", true},
		// Paraphrases without numbers.
		{"Always book an aisle seat on long flights.", "Got it: from now on I book aisle seats on every long flight.", true},
		{"以后订酒店都要选带早餐的", "好的，以后酒店都订含早餐的。", true},
		// Not restatements: one shared word, one shared time, another subject.
		{"孩子每天14:00–16:00要午睡", "下午两点去断桥散步。", false},
		{"孩子每天14:00–16:00要午睡", "每天14:00到16:00去游泳。", false},
		{"Always book an aisle seat on long flights.", "The flight leaves at nine; I booked your hotel.", false},
		{"以后订酒店都要选带早餐的", "这家酒店的早餐不错。", false},
		{"以后订酒店都要选带早餐的", governance.RedactedText, false},
	}
	for _, c := range cases {
		if got := governance.Restates(c.sentence, c.statement); got != c.want {
			t.Errorf("Restates(%q, %q) = %v, want %v", c.sentence, c.statement, got, c.want)
		}
	}
	if !governance.RestatesAny("第一天下午回酒店。每天下午两点到四点留给孩子午睡。", []string{"孩子每天14:00–16:00要午睡，这段时间空出来"}) {
		t.Error("RestatesAny misses the second sentence")
	}
}
