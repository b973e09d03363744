package governance_test

import (
	"slices"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestContradicts(t *testing.T) {
	for _, tc := range []struct {
		rule, statement string
		want            bool
	}{
		{"孩子每天14:00–16:00要午睡，以后不管去哪儿玩，这个时间段都给她空出来", "14:00–16:00孩子要午睡，这段时间都空出来", false},
		{"孩子每天14:00–16:00要午睡，以后不管去哪儿玩，这个时间段都给她空出来", "孩子的午睡改到13:00–15:00了，以后按这个时间空出来", true},
		{"以后200元以下的报销都不用找用户要发票扫描件", "200元以下的报销都不用发票扫描件", false},
		{"以后200元以下的报销都不用找用户要发票扫描件", "以后300元以下的报销都不用发票扫描件", true},
		{"以后订酒店都要选带早餐的", "以后订酒店不要带早餐的", true},
		{"以后每次都把路线检查结论附上", "以后不再附上路线检查结论", true},
		{"From now on, always run the linter before committing", "Always run the linter before you commit", false},
		{"From now on, always run the linter before committing", "Do not run the linter before committing anymore", true},
		{"Keep pull requests under 400 lines", "Keep pull requests under 400 lines from now on", false},
		{"Keep pull requests under 400 lines", "Keep pull requests under 200 lines instead", true},
		// Clock times agree however they are written.
		{"孩子每天14:00–16:00要午睡", "孩子每天下午两点到四点要午睡", false},
		{"孩子每天14:00–16:00要午睡", "孩子每天下午2点到4点要午睡", false},
		{"孩子每天14:00–16:00要午睡", "孩子每天下午一点到三点午睡", true},
		{"每天14:30出发", "每天下午两点半出发", false},
		{"晚上八点以后不要安排活动", "20:00以后不要安排活动", false},
		{"中午十二点吃午饭", "12:00吃午饭", false},
		// 一点 and 两点 that are not times are not numbers.
		{"孩子每天14:00–16:00要午睡", "孩子每天14:00–16:00要午睡，房间安静一点", false},
		{"注意两点：14:00前出发，带上护照", "14:00前出发，带上护照", false},
		// A bound worded with a negation is a limit, not a negation.
		{"Workout summaries: no more than 100 words", "Make the summary shorter, 100 words max", false},
		{"Replies no longer than 100 words", "Keep replies under 100 words", false},
		{"Workout summaries: no more than 100 words", "Workout summaries: no more than 200 words", true},
		{"Never put prices in the summary", "Put prices in the summary", true},
		// 一个 and 一次 used as "a" are no amounts; counts and prices are.
		{"我想要一个安静的房间，两位成人", "我想要安静的房间，两位成人", false},
		{"我想要一个安静的房间，两位成人", "我想要安静的房间，三位成人", true},
		{"每周提醒我一次交房租，房租三千元", "每周提醒我交房租，房租3000元", false},
		{"每周提醒我一次交房租，房租三千元", "每周提醒我一次交房租，房租两千元", true},
		{"订两个靠窗的位子", "订三个靠窗的位子", true},
		{"千万别订红眼航班", "别订红眼航班", false},
	} {
		if got := governance.Contradicts(tc.rule, tc.statement); got != tc.want {
			t.Errorf("Contradicts(%q, %q) = %v, want %v", tc.rule, tc.statement, got, tc.want)
		}
	}
}

// A statement that adds a tool, a condition or a scope to a rule replaces
// it; a paraphrase or a plain repeat does not.
func TestReshapes(t *testing.T) {
	for _, tc := range []struct {
		rule, statement string
		want            bool
	}{
		{"Always run the linter before committing.", "From now on, always run go vet and the linter before committing.", true},
		{"Always run the linter before committing.", "Run the linter before committing, always.", false},
		{"Always run the linter before committing.", "From now on, always run the linter before committing.", false},
		{"Always run the linter before committing.", "Only run the linter before committing to main.", true},
		{"提交前要运行 linter。", "从现在起，提交前要运行 go vet 和 linter。", true},
		{"提交前要运行 linter。", "以后提交前都要运行 linter。", false},
		{"出差订酒店要靠近地铁站。", "出差订酒店要靠近地铁站，只订四星以上的。", true},
		{"出差订酒店要靠近地铁站。", "我喜欢咖啡和茶。", false},
	} {
		if got := governance.Reshapes(tc.rule, tc.statement); got != tc.want {
			t.Errorf("Reshapes(%q, %q) = %v, want %v", tc.rule, tc.statement, got, tc.want)
		}
		if tc.want && !governance.Replaces(tc.rule, tc.statement) {
			t.Errorf("Replaces(%q, %q) = false", tc.rule, tc.statement)
		}
	}
}

// The numbers of a statement are its facts: amounts and counts however
// written, and no number where a numeral is part of a word or the article
// "a" (一个, 一次, 一位).
func TestShapeNumbers(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		// Amounts: a unit after any numeral, a count word after any but 一.
		{"每晚预算三百元", []string{"300"}},
		{"住一晚就走", []string{"1"}},
		{"孩子今年五岁", []string{"5"}},
		{"买两斤苹果，走三公里", []string{"2", "3"}},
		{"两位成人", []string{"2"}},
		{"订三个房间", []string{"3"}},
		{"每天提醒两次", []string{"2"}},
		{"十一个人", []string{"11"}},
		{"要1个房间", []string{"1"}},
		{"一块钱也不能多花", []string{"1"}},
		{"只剩三块了", []string{"3"}},
		{"第一次来杭州", []string{"1"}},
		{"预算1,200元", []string{"1200"}},
		{"6月15日下午两点", []string{"14:00", "6-15"}},
		// Determiners and words: no number.
		{"我想要一个安静的房间", nil},
		{"再试一次", nil},
		{"我有一位朋友在杭州", nil},
		{"给我一间朝南的房", nil},
		{"我们一块去吃饭", nil},
		{"一起去，带一些零食", nil},
		{"千万别忘了带护照", nil},
		{"万一下雨就改期", nil},
		{"房间安静一点", nil},
		// A weekday is no amount, nor is an evening; a count a week is.
		{"周三晚上到杭州", nil},
		{"星期一晚上不要安排活动", nil},
		{"每周三次健身", []string{"3"}},
		{"住三晚", []string{"3"}},
		{"三天气温都在三十度以上", []string{"30"}},
	} {
		got := governance.ShapeOf(tc.text).Numbers
		if len(got) == 0 {
			got = nil
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ShapeOf(%q).Numbers = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestCorrectsWithoutDurability: a correction worded without a durability
// word corrects the rule whose value it changes, tied to it by the old value
// it names as gone; a statement with another value but no word of change,
// or about another value, does not.
func TestCorrectsWithoutDurability(t *testing.T) {
	for _, tc := range []struct {
		rule, statement string
		names, corrects bool
	}{
		{"You can approve refunds up to 50 euros without asking me", "Actually make that 30 euros, not 50", true, true},
		{"Always cc Priya on invoices to the Lisbon client", "Change that: cc Tomas on the Lisbon invoices, not Priya", true, true},
		{"Send the team newsletter every Monday", "Send the newsletter on Tuesdays instead", false, true},
		{"Schedule the weekly stand-up for 9 am on Mondays", "We moved the stand-up to 9:30", false, true},
		{"以后报销单超过两千块要先发给我看", "改一下：上限是三千了，不是两千", true, true},
		{"以后每周一早上九点开周会", "周会不是周一了，改周二", true, true},
		{"以后发票都抄送给王芳", "别再抄送王芳了，换成李强", true, true},
		// Another value, no word of change: a statement, not a correction.
		{"Send the team newsletter every Monday", "The newsletter went out on Tuesday", false, false},
		// The value named as gone is not the rule's.
		{"You can approve refunds up to 50 euros without asking me", "Book 3 seats, not 4", false, false},
	} {
		if got := governance.NamesOldValue(tc.rule, tc.statement); got != tc.names {
			t.Errorf("NamesOldValue(%q, %q) = %v, want %v", tc.rule, tc.statement, got, tc.names)
		}
		if got := governance.Corrects(tc.rule, tc.statement); got != tc.corrects {
			t.Errorf("Corrects(%q, %q) = %v, want %v", tc.rule, tc.statement, got, tc.corrects)
		}
	}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"make that 30", true}, {"thirty minutes", true}, {"escalate to Lee", true}, {"改周二", true},
		{"调到九点半", true}, {"sounds good to me", false}, {"好的，谢谢", false},
	} {
		if got := governance.HasValue(tc.text); got != tc.want {
			t.Errorf("HasValue(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// A correction that only changes a value of a rule adds no more than a
// few words of its own; one that asks something more is not a value change.
func TestChangesValue(t *testing.T) {
	for _, c := range []struct {
		rule, statement string
		want            bool
	}{
		{"From now on say the library closes at 6pm in the reminders.", "The library closes at 7pm now, not 6pm.", true},
		{"From now on write the minutes in British spelling.", "Switch the minutes to American spelling instead.", true},
		{"以后导览都按每组十五人安排。", "每组现在是十二人了，不是十五人。", true},
		{"以后周会纪要都用英文写。", "周会纪要改成中文写吧。", true},
		{"From now on write the class notes in Spanish.",
			"Write the class notes in Portuguese now, not Spanish, and send each one to every parent on the class mailing list.", false},
		{"以后导览都按每组十五人安排。", "每组现在是十二人了，不是十五人，另外每次导览结束后把签到表拍照发到家长群里。", false},
		{"From now on write the class notes in Spanish.", "Put the class notes in the shared drive.", false},
	} {
		if got := governance.ChangesValue(c.rule, c.statement); got != c.want {
			t.Errorf("ChangesValue(%q, %q) = %v, want %v", c.rule, c.statement, got, c.want)
		}
	}
}
