package heuristic

import (
	"slices"
	"testing"
)

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"下午两点到四点午睡":        "14:00–16:00午睡",
		"每天下午2点至4点半":       "每天14:00–16:30",
		"上午十点到下午两点":        "10:00–14:00",
		"晚上九点前回酒店":         "21:00前回酒店",
		"中午十二点吃饭":          "12:00吃饭",
		"两点那个得改一下":         "两点那个得改一下",
		"１４：００－１６：００":      "14:00–16:00",
		"14:00-16:00 nap":  "14:00–16:00 nap",
		"14:00 to 16:00":   "14:00–16:00",
		"keep 2-4pm free":  "keep 14:00–16:00 free",
		"keep 2 to 4 pm":   "keep 14:00–16:00",
		"200块以下不用发票":       "200元以下不用发票",
		"under 200 CNY":    "under 200元",
		"no numbers here":  "no numbers here",
		"Go 1.26 is fine.": "Go 1.26 is fine.",
	} {
		if got := canonical(in); got != want {
			t.Errorf("canonical(%q): got %q, want %q", in, got, want)
		}
	}
}

func TestSplitSentences(t *testing.T) {
	got := splitSentences(nil, "你好！能帮我排个行程吗？We're on Go 1.26. See due_test.go: ok!! 最后一句")
	var texts []string
	var questions []bool
	for _, s := range got {
		texts = append(texts, s.text)
		questions = append(questions, s.question)
	}
	if want := []string{"你好", "能帮我排个行程吗", "We're on Go 1.26", "See due_test.go: ok", "最后一句"}; !slices.Equal(texts, want) {
		t.Errorf("got %q, want %q", texts, want)
	}
	if want := []bool{false, true, false, false, false}; !slices.Equal(questions, want) {
		t.Errorf("questions: got %v, want %v", questions, want)
	}
}

func TestIsSmallTalk(t *testing.T) {
	for s, want := range map[string]bool{
		"好的，谢谢": true, "行，就这么定了": false, "thanks, sounds good": true, "hi there": false, "你好": true,
	} {
		if got := isSmallTalk(s); got != want {
			t.Errorf("isSmallTalk(%q): got %v, want %v", s, got, want)
		}
	}
}

// TestSplitTurnAbbreviations: a full stop after an abbreviation, listed
// (governance/tokenizer/abbreviations.en.txt) or dotted, does not end the sentence; one
// after a word or a file name does.
func TestSplitTurnAbbreviations(t *testing.T) {
	for in, want := range map[string][]string{
		"Address me as Dr. Okafor. Thanks":                          {"Address me as Dr. Okafor", "Thanks"},
		"File receipts from U.S. vendors under USD. Always":         {"File receipts from U.S. vendors under USD", "Always"},
		"Nothing before 9 a.m. on weekdays. I mean it":              {"Nothing before 9 a.m. on weekdays", "I mean it"},
		"Spell out small numbers, e.g. three. Keep that in mind":    {"Spell out small numbers, e.g. three", "Keep that in mind"},
		"Sign as Jane Roe, Ph.D. in letters. Every time":            {"Sign as Jane Roe, Ph.D. in letters", "Every time"},
		"Write the section as No. 14. Thanks":                       {"Write the section as No. 14", "Thanks"},
		"Open main.go. Then run it":                                 {"Open main.go", "Then run it"},
		"We ship on Fridays. Deploys wait":                          {"We ship on Fridays", "Deploys wait"},
		"No calls before 10 a.m. Ever":                              {"No calls before 10 a.m", "Ever"},
		"Ship only within the U.S. Always":                          {"Ship only within the U.S", "Always"},
		"Use plain words, e.g. Monday rather than the weekday name": {"Use plain words, e.g. Monday rather than the weekday name"},
	} {
		var got []string
		for _, s := range splitTurn(nil, in) {
			got = append(got, s.text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("splitTurn(%q): got %q, want %q", in, got, want)
		}
	}
}
