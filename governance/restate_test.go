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
		{"孩子每天14:00–16:00要午睡", "行程里2pm到4pm不排活动，让孩子午睡。", true},
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
		// A short rule: two facts and one shared term of what it is about;
		// an hour without a part of day may be after noon.
		{"每天14:00–16:00留给孩子午睡", "收到，以后午睡时间改为14:00到16:00。", true},
		{"每天14:00–16:00留给孩子午睡", "好的，2点到4点回酒店午睡。", true},
		{"每天14:00–16:00留给孩子午睡", "每天14:00到16:00去游泳。", false},
		{"每天14:00–16:00留给孩子午睡", "凌晨2点到4点的航班别订，孩子要午睡。", false}, // 凌晨 2:00 is not 14:00
		{"每天14:00–16:00留给孩子午睡", "午睡之后，每天16:00去公园。", false},    // one of the two times
		{"Keep 2pm to 4pm free every day for the nap.", "Got it, 14:00–16:00 stays free for her nap.", true},
		{"Keep 2pm to 4pm free every day for the nap.", "Every day from 2 o'clock to 4 o'clock is nap time.", true},
		{"Keep 2pm to 4pm free every day for the nap.", "Every day 14:00 to 16:00 is pool time.", false},
		// Dates and amounts, however written.
		{"The anniversary dinner is on June 15th, budget $300.", "Noted: dinner on 2026-06-15, up to 300 dollars.", true},
		{"The anniversary dinner is on June 15th, budget $300.", "Booked the museum on June 15th for $300.", false},
		{"6月15日的纪念日晚餐预算三百元", "好的，15 June的晚餐按300元预算订。", true},
		{"6月15日的纪念日晚餐预算三百元", "6月16日的晚餐预算三百元。", false},
		{"酒店预算每晚1,200元以内", "明白，酒店每晚不超过1200元，已按这个预算筛选。", true},
		{"酒店预算每晚1,200元以内", "机票预算1200元。", false},
		// 一个 "a" is no fact a restatement must name; 两个 is.
		{"我想要一个安静的房间，远离电梯", "房间要安静，远离电梯的。", true},
		{"我想要两个安静的房间，远离电梯", "房间要安静，远离电梯的。", false},
		{"我想要两个安静的房间，远离电梯", "明白，两间安静的房间，都远离电梯。", true},
	}
	for _, c := range cases {
		if got := governance.Restates(c.sentence, c.statement); got != c.want {
			t.Errorf("Restates(%q, %q) = %v, want %v", c.sentence, c.statement, got, c.want)
		}
	}
	// A term most of the searched lines hold (the child's name in every
	// line of the trip) does not tell a restatement on its own.
	lines := []string{"朵朵喜欢熊猫。", "朵朵晚上九点睡。", "给朵朵带零食。", "朵朵每天14:00到16:00去游泳。", "朵朵要坐靠窗。"}
	stats := governance.NewLineStats(len(lines))
	for _, l := range lines {
		stats.Add(l)
	}
	const rule = "每天14:00–16:00朵朵要午睡"
	if !governance.Restates(lines[3], rule) || governance.RestatesAmong(lines[3], rule, stats) {
		t.Error("a term common to the lines searched still tells a restatement")
	}
	if !governance.RestatesAmong("朵朵的午睡改到14:00到16:00。", rule, stats) {
		t.Error("the lines' statistics lose a real restatement")
	}
	if !governance.RestatesAny("第一天下午回酒店。每天下午两点到四点留给孩子午睡。", []string{"孩子每天14:00–16:00要午睡，这段时间空出来"}) {
		t.Error("RestatesAny misses the second sentence")
	}
}
