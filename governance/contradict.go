package governance

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Conflict detection between two statements about the same thing — used by
// consolidation (is a new statement a replacement for a rule?) and by recall
// (which of two in-scope rules wins?). Code judges what it can check: the
// numbers (times, amounts, counts) and whether one side is negated.

// statementShape is what conflict detection reads of a statement.
type statementShape struct {
	negated bool
	numbers []string
}

func shapeOf(text string) statementShape {
	return statementShape{negated: negated(text), numbers: numbers(text)}
}

// conflicts: a negation on one side only, or numbers on both sides that differ.
func (a statementShape) conflicts(b statementShape) bool {
	if a.negated != b.negated {
		return true
	}
	return len(a.numbers) > 0 && len(b.numbers) > 0 && !slices.Equal(a.numbers, b.numbers)
}

// replaceMarkers say the user changes an earlier instruction.
var replaceMarkers = []string{"改成", "改为", "改到", "换成", "不再", "取消", "instead", "no longer", "anymore", "any more"}

// Contradicts reports whether a new statement, about the same thing as an
// existing rule, says something else: other times or amounts, a negation
// on one side only, or an explicit change ("改成", "no longer", "instead").
// Paraphrases with the same facts do not contradict.
func Contradicts(rule, statement string) bool {
	if shapeOf(rule).conflicts(shapeOf(statement)) {
		return true
	}
	a := strings.ToLower(norm.NFKC.String(rule))
	b := strings.ToLower(norm.NFKC.String(statement))
	for _, m := range replaceMarkers {
		if strings.Contains(b, m) && !strings.Contains(a, m) {
			return true
		}
	}
	return false
}

// Negation markers: Chinese ones match as substrings (whole negating words,
// not 不 alone: 不管 and 不错 negate nothing), English ones as words.
var (
	negationCJK = []string{"不要", "不用", "不必", "不能", "不许", "不准", "不得", "不再", "不需", "没", "无需", "无须",
		"勿", "禁止", "避免", "别"}
	negationWord = map[string]bool{"not": true, "no": true, "never": true, "dont": true, "doesnt": true,
		"without": true, "avoid": true, "cannot": true, "cant": true, "wont": true, "isnt": true, "arent": true}
)

func negated(text string) bool {
	lower := strings.ToLower(norm.NFKC.String(text))
	for _, m := range negationCJK {
		if strings.Contains(lower, m) {
			return true
		}
	}
	for _, f := range strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' }) {
		if strings.ContainsAny(f, "'’") {
			f = strings.ReplaceAll(strings.ReplaceAll(f, "'", ""), "’", "")
		}
		if negationWord[f] {
			return true
		}
	}
	return false
}

// numbers lists the distinct numbers in text (full-width digits folded,
// leading zeros dropped), sorted.
func numbers(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(norm.NFKC.String(text), func(r rune) bool { return r < '0' || r > '9' }) {
		if f = strings.TrimLeft(f, "0"); f == "" {
			f = "0"
		}
		out = append(out, f)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
