package gate

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// What an unplaced clause asks, for the reviewer's marker
// (governance.OutsideMarker). The reading only words the marker: a
// statement outside the low-risk set without a finding carries the marker
// whatever is read here.
var (
	// actionRule goes through the prefilter like the placement shapes:
	// most statements hold none of its verbs.
	actionRule      = rule("lowrisk", "reading_action", patterns.exprOf("reading_action"))
	conditionOpenRe = regexp.MustCompile(patterns.exprOf("reading_condition"))
	// A joiner that ends a clause before the one it conditions.
	conditionJoinerRe = regexp.MustCompile(`(?i)(?:\bunless|\botherwise|除非|否则|要不然)[\s,，]*$`)
	// An action whose object is the user ("remind me", 提醒我) shapes
	// what the agent tells the user; 我妈, 我的… name someone else.
	toUserRe = regexp.MustCompile(`(?i)^\s*(?:me|us)\b|^给?我(?:们)?(?:$|[^妈爸老家的儿女哥姐弟妹同朋领上客婆公舅叔姨岳])`)
)

// identityDenies are the deny shapes that say who the agent is, whom it
// obeys or whose words count.
var identityDenies = map[string]bool{"persona": true, "persona_name": true, "authority": true, "content_instructions": true}

// maxJoinerBytes bounds how far before a clause its joiner is looked for.
const maxJoinerBytes = 16

// maxActionWords bounds the words after an action's verb the marker
// quotes as its object (a Han character counts half a word).
const maxActionWords = 8

// readAsks fills np's reading of what the clause why (in v's text)
// asks: an identity or whose words count (the deny shapes that say so), an
// action beyond the agent's answers (its verb and object), a claim by a
// clause that opens with its subject, a condition or standing policy, or
// the clause alone. Spans are in text, the text as written.
func readAsks(np *governance.NotPlaced, text string, v *gateView, lits *scanned, why notPlaced) {
	s := v.text
	asks, lo, hi := "", why.lo, why.hi
	clause := s[why.lo:why.hi]
	switch {
	case identityDenies[why.reason] && why.mlo < why.mhi:
		asks, lo, hi = governance.AsksIdentity, why.mlo, why.mhi
	case conditionOpenRe.MatchString(clause):
		asks = governance.AsksCondition
	default:
		before := max(0, why.lo-maxJoinerBytes)
		if j := conditionJoinerRe.FindStringIndex(s[before:why.lo]); j != nil {
			// "…, unless the caterer objects": the joiner opens the clause.
			asks, lo = governance.AsksCondition, before+j[0]
		} else if alo, ahi, ok := action(s, lits, why.lo, why.hi); ok {
			asks, lo, hi = governance.AsksAct, alo, ahi
		} else if OpensWithSubject(clause) && overlaps(spans(shapeRules["claim"], s, lits), [2]int{why.lo, why.hi}) {
			asks = governance.AsksClaim
		}
	}
	olo, ohi := v.origin(lo, hi)
	olo, ohi = trimSpan(text, olo, ohi)
	np.Asks, np.Words, np.Start, np.End = asks, text[olo:ohi], olo, ohi
}

// action finds in s[lo:hi] the first verb by which the agent acts beyond
// its answers, not on the user ("tell my landlord", not "tell me"), and
// returns the span of the verb and the words after it that name its
// object (at most maxActionWords, within the clause).
func action(s string, lits *scanned, lo, hi int) (int, int, bool) {
	ms := spans(&actionRule, s, lits)
	slices.SortFunc(ms, func(a, b []int) int { return cmp.Compare(a[0], b[0]) })
	for _, m := range ms {
		vlo, vhi := m[0], m[1]
		if vlo < lo || vhi > hi {
			continue
		}
		if toUserRe.MatchString(s[vhi:hi]) {
			continue
		}
		if b := strings.LastIndexAny(s[lo:vlo], "把将"); b >= 0 {
			// 把仓库的监控关掉: the object stands before the verb.
			return lo + b, objectEnd(s, vhi, hi), true
		}
		return vlo, objectEnd(s, vhi, hi), true
	}
	return 0, 0, false
}

// objectEnd is where the words after a verb at from end: at most
// maxActionWords words, before hi.
func objectEnd(s string, from, hi int) int {
	words, han, in := 0, 0, false
	end := from
	for i, r := range s[from:hi] {
		at := from + i
		switch {
		case unicode.Is(unicode.Han, r):
			han++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '-':
			if !in {
				words++
			}
			in = true
		default:
			in = false
		}
		if words+(han+1)/2 > maxActionWords {
			return end
		}
		end = at + utf8.RuneLen(r)
	}
	return end
}

// trimSpan trims white space and punctuation from both ends of s[lo:hi].
func trimSpan(s string, lo, hi int) (int, int) {
	lo, hi = max(0, min(lo, len(s))), max(0, min(hi, len(s)))
	for lo < hi {
		r, n := utf8.DecodeRuneInString(s[lo:])
		if !unicode.IsSpace(r) && !unicode.IsPunct(r) {
			break
		}
		lo += n
	}
	for hi > lo {
		r, n := utf8.DecodeLastRuneInString(s[:hi])
		if !unicode.IsSpace(r) && !unicode.IsPunct(r) || strings.ContainsRune("'”’\")", r) && strings.ContainsAny(s[lo:hi], "'“‘\"(") {
			break
		}
		hi -= n
	}
	return lo, hi
}
