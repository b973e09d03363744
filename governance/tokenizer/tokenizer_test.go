package tokenizer_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

func TestTerms(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Always run the Linter before committing!", "alway run linter befor commit"},
		{"Caroline's painting of a sunrise", "carolin paint sunris"},
		{"带女儿去上海", "带女 女儿 儿去 去上 上海 带 女 儿 去 上 海"},
		{"订 App 的酒店", "订 app 的酒 酒店 的 酒 店"},
		{"14:00–16:00 nap", "14 00 16 00 nap"},
		{"Café crème", "café crème"},
	} {
		if got := strings.Join(tokenizer.Terms(tc.in), " "); got != tc.want {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var phrase []string
	tokenizer.PhraseTokens("上海迪士尼 trip", func(term string, _ int) { phrase = append(phrase, term) })
	if got := strings.Join(phrase, " "); got != "上海 海迪 迪士 士尼 trip" {
		t.Errorf("PhraseTokens = %q", got)
	}
}

func TestIsCJK(t *testing.T) {
	for r, want := range map[rune]bool{'上': true, 'か': true, 'カ': true, '한': true, 'a': false, 'é': false, '1': false} {
		if tokenizer.IsCJK(r) != want {
			t.Errorf("IsCJK(%q) = %v", r, !want)
		}
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"committing": "commit", "committed": "commit", "commits": "commit", "running": "run",
		"passing": "pass", "tests": "test", "linter": "linter", "class": "class", "status": "status",
		"naïve": "naïve",
	} {
		if got := tokenizer.Stem(in); got != want {
			t.Errorf("Stem(%q): got %q, want %q", in, got, want)
		}
	}
}

func TestSentences(t *testing.T) {
	s := "你好！能帮我排个行程吗？？We're on Go 1.26. See due_test.go\n最后一句"
	var got []string
	var questions []bool
	var whole strings.Builder
	tokenizer.Sentences(s, func(start, end, next int, question bool) bool {
		got = append(got, s[start:end])
		questions = append(questions, question)
		whole.WriteString(s[start:next])
		return true
	})
	if want := "你好|能帮我排个行程吗|We're on Go 1.26| See due_test.go|最后一句"; strings.Join(got, "|") != want {
		t.Errorf("sentences = %q", got)
	}
	if questions[0] || !questions[1] || questions[2] {
		t.Errorf("questions = %v", questions)
	}
	if whole.String() != s {
		t.Errorf("pieces give %q", whole.String())
	}
}

func TestHasTerms(t *testing.T) {
	for _, s := range []string{"", "???", "。。。", "the", "The a of", "!!! ... ---", "？！，", "“”"} {
		if tokenizer.HasTerms(s) {
			t.Errorf("HasTerms(%q) = true, want false", s)
		}
	}
	for _, s := range []string{"linter", "the linter", "午睡", "北", "2026", "go vet?"} {
		if !tokenizer.HasTerms(s) {
			t.Errorf("HasTerms(%q) = false, want true", s)
		}
	}
}
