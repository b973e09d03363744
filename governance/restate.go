package governance

import (
	"slices"
	"strings"
	"unicode"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Restatement: whether a sentence says a forgotten statement again. A
// forget uses this one detector twice: to drop the sentences of episode
// summaries that restate what is forgotten, and, when a rule is forgotten
// with its lines, to redact the other lines of the subject's conversations
// that repeat it (typically the assistant's "Noted: every day 14:00–16:00
// stays free for her nap").
//
// A sentence restates a statement when it
//   - quotes it: the two share a run of text of 8 runes when the statement
//     holds Chinese, 24 otherwise (or the whole statement when it is
//     shorter), or
//   - says the same in other words: when the statement names numbers
//     (clock times compared on a 24-hour clock, so 下午两点 is 14:00, and
//     other numbers), the sentence names every one of them and shares at
//     least RestateNumberTerms of its content terms; without numbers, it
//     shares at least RestateMinTerms content terms and RestateShare of the
//     statement's.
//
// Content terms are those of the search index (tokenizer.PhraseTokens):
// stemmed words without stop words, and the character pairs of Chinese.
// Sharing one word ("each day", "hotel") is never enough: what decides is
// the statement's specifics (its numbers) or most of its words.
const (
	RestateNumberTerms = 2
	RestateMinTerms    = 3
	RestateShare       = 0.4
)

// Restates reports whether sentence restates statement (see above).
func Restates(sentence, statement string) bool {
	if statement == "" || statement == RedactedText || sentence == "" || sentence == RedactedText {
		return false
	}
	return Quotes(sentence, statement) || paraphrases(sentence, statement)
}

// RestatesAny reports whether any sentence of text restates any of the
// statements.
func RestatesAny(text string, statements []string) bool {
	for _, s := range SplitSentences(text) {
		for _, st := range statements {
			if Restates(s, st) {
				return true
			}
		}
	}
	return false
}

// Quotes reports whether sentence shares a run of text with statement long
// enough to be a quote: 8 runes when the statement holds Chinese, 24
// otherwise, or the whole statement when it is shorter (but at least 4).
func Quotes(sentence, statement string) bool {
	fr := []rune(statement)
	if len(fr) < 4 {
		return false
	}
	need := 24
	for _, r := range fr {
		if unicode.Is(unicode.Han, r) {
			need = 8
			break
		}
	}
	need = min(need, len(fr))
	return longestCommonRun([]rune(sentence), fr) >= need
}

func paraphrases(sentence, statement string) bool {
	st := contentTerms(statement)
	if len(st) == 0 {
		return false
	}
	sl := contentTerms(sentence)
	shared := 0
	for t := range st {
		if sl[t] {
			shared++
		}
	}
	if nums := numbers(statement); len(nums) > 0 {
		have := numbers(sentence)
		for _, n := range nums {
			if !slices.Contains(have, n) {
				return false
			}
		}
		return shared >= RestateNumberTerms
	}
	return shared >= RestateMinTerms && float64(shared) >= RestateShare*float64(len(st))
}

// contentTerms are the distinct index terms of s without bare numbers
// (numbers are compared by numbers, which reads times).
func contentTerms(s string) map[string]bool {
	out := map[string]bool{}
	tokenizer.PhraseTokens(s, func(t string, _ int) {
		if strings.Trim(t, "0123456789") != "" {
			out[t] = true
		}
	})
	return out
}

// SplitSentences splits text after sentence ends (Chinese and English),
// trimming each sentence.
func SplitSentences(text string) []string {
	var (
		out []string
		cur []rune
	)
	rs := []rune(text)
	for i, r := range rs {
		cur = append(cur, r)
		end := strings.ContainsRune("。！？；!?\n", r)
		if r == '.' && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) {
			end = true
		}
		if end {
			if s := strings.TrimSpace(string(cur)); s != "" {
				out = append(out, s)
			}
			cur = cur[:0]
		}
	}
	if s := strings.TrimSpace(string(cur)); s != "" {
		out = append(out, s)
	}
	return out
}

// longestCommonRun is the length of the longest common substring, in runes.
func longestCommonRun(a, b []rune) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	best := 0
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
				best = max(best, cur[j])
			} else {
				cur[j] = 0
			}
		}
		prev, cur = cur, prev
	}
	return best
}
