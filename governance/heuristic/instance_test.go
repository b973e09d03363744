package heuristic

import "testing"

// TestOneInstance: a request about one definite thing, and its look-alikes
// that name many (a word of recurrence, a plural, a noun that is not the
// phrase's head, no thing of one occasion at all).
func TestOneInstance(t *testing.T) {
	for _, c := range []struct {
		said string
		one  bool
	}{
		{"Move the meeting to 3pm.", true},
		{"Change my dinner reservation to 8pm, not 7.", true},
		{"Switch the booking to a window seat.", true},
		{"Move it to the 14th.", true},
		{"Push the call to March 3rd.", true},
		{"Write this email in Spanish.", true},
		{"The weekly meeting is at 10 now, not 9.", false},
		{"Meetings go on Tuesdays now, not Mondays.", false},
		{"The order cut-off is 5pm now, not 4.", false},
		{"The refund limit is 30 euros now, not 50.", false},
		{"Give the quantities as 1/2 cups.", false},
		{"Every booking gets a window seat.", false},
		{"The meeting notes should be numbered.", false},
		{"The meeting is no longer at 9, it's at 10.", false},
		{"把会议改到下午三点。", true},
		{"这个会挪到周四上午。", true},
		{"那张单子的金额改成三百。", true},
		{"机票改签到五号晚上的航班。", true},
		{"把订单的收货地址改成公司。", true},
		{"会议室换成三楼那间。", true},
		{"周会改到周四上午。", false},
		{"每次会议都改到下午。", false},
		{"周报不再周一发了，改成周五下午发给我。", false},
		{"周计划改到周日晚上发，不是周一了。", false},
		{"月报改到周二交，不是周四了。", false},
		{"退款上限改成三十欧。", false},
		{"饮食按一日三餐排。", false},
		{"出门坐地铁三号线。", false},
		{"会议纪要分点写。", false},
		{"订单号写在标题里。", false},
		{"晚饭的预订改到七点半。", true},
		{"Write the meeting notes in bullet points.", false},
		{"Keep the call summary under 100 words.", false},
	} {
		if got := oneInstance(newText(c.said)); got != c.one {
			t.Errorf("oneInstance(%q) = %v, want %v", c.said, got, c.one)
		}
	}
}

// TestBareBackReference: a sentence that says nothing but a scope and a
// word pointing back, and sentences with a scope that say their own
// content.
func TestBareBackReference(t *testing.T) {
	for _, c := range []struct {
		said string
		bare bool
	}{
		{"I mean it, from now on.", true},
		{"And do that every time, going forward.", true},
		{"Please remember that for all future trips.", true},
		{"Stick to it in every draft.", true},
		{"这个标准以后一直适用。", true},
		{"以后回复都用这个。", true},
		{"记住，以后每个月都按这个来。", true},
		{"That file should always be read-only.", false},
		{"From now on, file receipts from U.S. vendors under the USD ledger.", false},
		{"Always reply to customers within one business day.", false},
		{"以后这个文件夹都用英文命名。", false},
		{"以后周报都抄送财务部的小李。", false},
	} {
		r := readSentence(trimTrailing(c.said), false)
		if r.bare != c.bare {
			t.Errorf("%q: bare %v, want %v (%+v)", c.said, r.bare, c.bare, r)
		}
	}
}
