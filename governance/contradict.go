package governance

import (
	"regexp"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

var (
	// numberPattern finds checkable facts in a statement: times, amounts,
	// counts (14:00, 16:00, 200, 1.5).
	numberPattern = regexp.MustCompile(`\d+(?:[:.]\d+)?`)
	// replaceMarkers say the user changes an earlier instruction.
	replaceMarkers = []string{"改成", "改为", "换成", "不再", "取消", "instead", "no longer", "anymore", "any more"}
	// negations are whole negating words (not 不 alone: 不管, 不错 are not negations).
	negationWords = []string{"不要", "不用", "不必", "无需", "别", "禁止", "never", "don't", "do not", "not ", "stop "}
)

// Contradicts reports whether a new statement, which the merger found to
// be about the same thing as an existing rule, says something else. Code
// judges what it can check: different times or amounts, a negation on one
// side only, or an explicit change ("改成", "no longer", "instead").
// Paraphrases with the same facts do not contradict.
func Contradicts(rule, statement string) bool {
	a := strings.ToLower(norm.NFKC.String(rule))
	b := strings.ToLower(norm.NFKC.String(statement))
	na, nb := statementNumbers(a), statementNumbers(b)
	if len(na) > 0 && len(nb) > 0 && !slices.Equal(na, nb) {
		return true
	}
	for _, m := range replaceMarkers {
		if strings.Contains(b, m) && !strings.Contains(a, m) {
			return true
		}
	}
	return negates(a) != negates(b)
}

func statementNumbers(s string) []string {
	out := numberPattern.FindAllString(s, -1)
	slices.Sort(out)
	return slices.Compact(out)
}

func negates(s string) bool {
	for _, n := range negationWords {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}
