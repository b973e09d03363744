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
//   - says the same in other words: when the statement names facts (clock
//     times, dates, amounts and other numbers, read by facts however they
//     are written), the sentence names every one of them and shares at
//     least RestateNumberTerms of its content terms — one is enough when
//     the statement names two facts or more ("收到，以后午睡时间改为14:00到
//     16:00" for "每天14:00–16:00留给孩子午睡"); without facts, it shares at
//     least RestateMinTerms content terms and RestateShare of the
//     statement's.
//
// Content terms are those of the search index (tokenizer.PhraseTokens):
// stemmed words without stop words, and the character pairs of Chinese.
// With facts, the words of the facts themselves and the words that only say
// when or how often (frame_terms.txt: "every day", "每天") are not content:
// "每天14:00到16:00去游泳" shares the nap rule's times and its "every day",
// nothing it is about. And when the lines a forget searches are known
// (LineStats), a term most of them hold — the child's name in every line of
// a family's trip — tells them apart no better and counts for nothing.
const (
	RestateNumberTerms = 2
	RestateMinTerms    = 3
	RestateShare       = 0.4
)

// Restates reports whether sentence restates statement (see above).
func Restates(sentence, statement string) bool {
	return RestatesAmong(sentence, statement, nil)
}

// RestatesAmong is Restates for a sentence among lines whose terms stats
// counts (nil: unknown).
func RestatesAmong(sentence, statement string, stats *LineStats) bool {
	if statement == "" || statement == RedactedText || sentence == "" || sentence == RedactedText {
		return false
	}
	return Quotes(sentence, statement) || paraphrases(sentence, statement, stats)
}

// RestatesAny reports whether any sentence of text restates any of the
// statements.
func RestatesAny(text string, statements []string) bool {
	return RestatesAnyAmong(text, statements, nil)
}

// RestatesAnyAmong is RestatesAny with the terms of the lines searched.
func RestatesAnyAmong(text string, statements []string, stats *LineStats) bool {
	for _, s := range SplitSentences(text) {
		for _, st := range statements {
			if RestatesAmong(s, st, stats) {
				return true
			}
		}
	}
	return false
}

// LineStats counts in how many of a set of lines each content term occurs.
type LineStats struct {
	lines, added int
	df           map[string]int
}

// NewLineStats starts counting over lines lines in all (the lines Add is
// given may be fewer: those holding a term of interest).
func NewLineStats(lines int) *LineStats { return &LineStats{lines: lines, df: map[string]int{}} }

// Add counts the terms of one line.
func (s *LineStats) Add(text string) {
	s.added++
	for t := range contentTerms(text) {
		s.df[t]++
	}
}

// RestateCommonShare: a term held by more than this share of the lines
// (of at least RestateCommonLines) is too common to tell a restatement.
const (
	RestateCommonShare = 0.5
	RestateCommonLines = 4
)

func (s *LineStats) common(t string) bool {
	if s == nil {
		return false
	}
	n := max(s.lines, s.added)
	return n >= RestateCommonLines && float64(s.df[t]) > RestateCommonShare*float64(n)
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

func paraphrases(sentence, statement string, stats *LineStats) bool {
	want, rest := facts(statement)
	if len(want) == 0 {
		st := contentTerms(statement)
		shared := countShared(st, contentTerms(sentence), stats)
		return shared >= RestateMinTerms && float64(shared) >= RestateShare*float64(len(st))
	}
	have, sentRest := facts(sentence)
	for _, f := range want {
		if !slices.ContainsFunc(have, f.meets) {
			return false
		}
	}
	need := RestateNumberTerms
	if len(want) >= 2 {
		need = 1
	}
	return countShared(subjectTerms(rest), subjectTerms(sentRest), stats) >= need
}

// countShared counts the terms of st that sl holds, leaving out the terms
// too common among the lines searched.
func countShared(st, sl map[string]bool, stats *LineStats) int {
	n := 0
	for t := range st {
		if sl[t] && !stats.common(t) {
			n++
		}
	}
	return n
}

// subjectTerms are the content terms of s without the frame terms.
func subjectTerms(s string) map[string]bool {
	out := contentTerms(s)
	for t := range out {
		if frameTerms[t] {
			delete(out, t)
		}
	}
	return out
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
