package heuristic_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestPronounAntecedent: a rule that names a thing of the sentence before
// it by a pronoun says what the pronoun stands for — the one noun phrase
// of that sentence it can be (the object of a verb of liking or wanting,
// the subject before a predicate; in English one of the pronoun's number,
// never a person for "it"); with more than one, the rule keeps the
// sentence before it. A pronoun with its antecedent in its own sentence
// carries nothing more.
func TestPronounAntecedent(t *testing.T) {
	for _, c := range []struct {
		said      string
		want      []string // words the durable rule must hold
		wantNot   []string // words it must not hold
		wantWhole bool     // the rule keeps the sentence before it
	}{
		{said: "I can't stand voice notes. Please transcribe them from now on.", want: []string{"transcribe voice notes"}, wantNot: []string{"them"}},
		{said: "Long tables are hard to read on my phone. Split them up from now on.", want: []string{"Split long tables up"}, wantNot: []string{"them"}},
		{said: "The dark theme hurts my eyes at night. Turn it off from now on.", want: []string{"Turn the dark theme off"}, wantNot: []string{" it "}},
		{said: "I hate getting stock photos in the slides. Always leave them out.", want: []string{"leave stock photos out"}},
		// Two plural phrases it can stand for: the sentence before stays.
		{said: "My cats hate loud toys. Never suggest them from now on.", want: []string{"loud toys", "cats", "suggest them"}, wantWhole: true},
		// Its antecedent is its own.
		{said: "For the future: when you file receipts, name them by date.", want: []string{"receipts", "name them by date"}},
		{said: "我受不了广告弹窗。以后都别给我推荐它们了。", want: []string{"推荐广告弹窗"}, wantNot: []string{"它们"}},
		{said: "我讨厌香菜。以后点外卖都别加它了。", want: []string{"别加香菜"}, wantNot: []string{"它"}},
		{said: "我不喜欢语音消息。以后都别发这个了。", want: []string{"别发语音消息"}, wantNot: []string{"这个"}},
		{said: "长表格在手机上太难看了。以后都拆开它们吧。", want: []string{"拆开长表格"}, wantNot: []string{"它们"}},
		// 孩子们 is a person, 动画片 a thing: 这个 stands for the thing.
		{said: "孩子们喜欢动画片。以后都先给他们放这个。", want: []string{"放动画片", "孩子们"}},
	} {
		ex := mustExtract(t, session("user", c.said))
		var rule string
		for _, it := range ex.Items {
			if it.Type == governance.TypePreference && it.Durable {
				rule = it.Statement
			}
		}
		if rule == "" {
			t.Errorf("%q: no durable rule (items %+v)", c.said, ex.Items)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(rule, w) {
				t.Errorf("%q: rule %q does not hold %q", c.said, rule, w)
			}
		}
		for _, w := range c.wantNot {
			if strings.Contains(rule+" ", w) {
				t.Errorf("%q: rule %q still holds %q", c.said, rule, w)
			}
		}
		first, _, _ := strings.Cut(c.said, ". ")
		if whole := strings.Contains(rule, first); whole != c.wantWhole && !hasHanTest(c.said) {
			t.Errorf("%q: rule %q keeps the sentence before = %v, want %v", c.said, rule, whole, c.wantWhole)
		}
	}
}

func hasHanTest(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}
