package governance

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// gatePiece is one top-level alternative of a rule's expression, compiled on
// its own with the literal strings one of which every match must contain.
// Small expressions run on Go's backtracker instead of the slower NFA, and
// most texts skip most pieces on their literals alone.
type gatePiece struct {
	re    *regexp.Regexp
	hints []string // lower-case; nil when no literal is required
	// also are further literal sets (one per part of a concatenation) of
	// which each must have a member in the text.
	also [][]string
}

// splitPieces parses expr and returns its top-level alternatives as pieces.
func splitPieces(expr string) []gatePiece {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(err)
	}
	alts := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		alts = re.Sub
	}
	pieces := make([]gatePiece, 0, len(alts))
	for _, a := range alts {
		p := gatePiece{re: regexp.MustCompile(a.String())}
		if set, ok := required(a); ok && len(set) > 0 && !slices.ContainsFunc(set, func(s string) bool { return len(s) < 2 }) {
			p.hints = set
		}
		if a.Op == syntax.OpConcat {
			for _, sub := range a.Sub {
				if sub.Op == syntax.OpLiteral {
					continue // the joined literals are in hints already, or short
				}
				if set, ok := required(sub); ok && len(set) > 0 && len(set) <= 64 {
					p.also = append(p.also, set)
				}
			}
		}
		pieces = append(pieces, p)
	}
	return pieces
}

// required returns literal strings one of which every match of re holds
// (lower-cased), and false when there is no such set.
func required(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		// Hints are matched against lower-cased text, so every literal is
		// lower-cased: a case-sensitive match still lies in the lowered text.
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil, false
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			set, ok := required(sub)
			if !ok {
				return nil, false
			}
			all = append(all, set...)
		}
		slices.Sort(all)
		return slices.Compact(all), true
	case syntax.OpConcat:
		// Adjacent literals join; of the children's sets, the one whose
		// shortest string is longest is the best filter.
		var best []string
		bestLen := 0
		for i := 0; i < len(re.Sub); i++ {
			sub := re.Sub[i]
			if sub.Op == syntax.OpLiteral {
				j := i
				var lit strings.Builder
				for j < len(re.Sub) && re.Sub[j].Op == syntax.OpLiteral && re.Sub[j].Flags&syntax.FoldCase == sub.Flags&syntax.FoldCase {
					lit.WriteString(string(re.Sub[j].Rune))
					j++
				}
				s := strings.ToLower(lit.String())
				if n := utf8.RuneCountInString(s); len(s) > bestLen && n > 0 {
					best, bestLen = []string{s}, len(s)
				}
				i = j - 1
				continue
			}
			set, ok := required(sub)
			if !ok || len(set) == 0 {
				continue
			}
			shortest := len(set[0])
			for _, s := range set {
				shortest = min(shortest, len(s))
			}
			if shortest > bestLen {
				best, bestLen = set, shortest
			}
		}
		return best, best != nil
	}
	return nil, false
}

// mayMatch reports whether the lower-cased text holds one of p's literals.
func (p gatePiece) mayMatch(lower string) bool {
	if p.hints != nil && !containsAny(lower, p.hints) {
		return false
	}
	for _, set := range p.also {
		if !containsAny(lower, set) {
			return false
		}
	}
	return true
}

func containsAny(s string, subs []string) bool {
	for _, h := range subs {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}
