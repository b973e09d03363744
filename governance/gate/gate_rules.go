package gate

import (
	"cmp"
	"regexp"
	"slices"

	"github.com/mnemo-console/mnemo/governance"
)

// Rules of the write gate, read from patterns/*.txt (see patterns.go).
// Each rule names its risk class, a pattern name, an expression over the
// normalised text (see normalise) and the hints, derived from the
// expression, that let a text skip it cheaply.

type gateRule struct {
	category string
	pattern  string
	// expr is the rule's expression; only its pieces are compiled for
	// scanning (tests compile the whole, see plain).
	expr   string
	pieces []gatePiece
	// secret: the rule finds a credential value (redacted, not blocked).
	secret bool
	// accept, when set, vets a match (as from FindAllStringSubmatchIndex).
	accept func(s string, loc []int) bool
	// hints are lower-case substrings of which every match contains at
	// least one; a text with none of them skips the expression.
	hints   []string
	hintIDs literalSet
	// payload: the rule matches only in a text holding payloadWords.
	payload bool
	// feature: a risk feature (patterns/risk.txt), read only in a text
	// nothing blocks: a blocked statement never becomes active anyway.
	feature bool
}

// mayMatch reports whether the text (its literals) holds one of r's hints
// (always true for a rule without hints).
func (r *gateRule) mayMatch(lits *scanned) bool {
	return len(r.hintIDs) == 0 || lits.bits.hasAny(r.hintIDs)
}

// find returns the leftmost accepted match of r in s (lits are its
// literals), or nil. Each piece of the expression runs only when its
// literals occur; pieces with lead literals are tried start by start, in
// text order, so the search ends at the first start where one matches.
func (r *gateRule) find(s string, lits *scanned) []int {
	if r.payload && !lits.holdsPayload(s) {
		return nil
	}
	var first []int
	type start struct {
		pos   int32
		piece int32
	}
	var starts []start
	for i := range r.pieces {
		p := &r.pieces[i]
		if !p.mayMatch(lits) {
			continue
		}
		if p.lead != nil {
			for _, h := range lits.hits {
				if p.leadSet.has(h.id) {
					starts = append(starts, start{h.start, int32(i)})
				}
			}
			continue
		}
		for _, l := range p.findAll(s, lits, r.accept == nil, r.accept != nil) {
			if r.accept == nil || r.accept(s, l) {
				if first == nil || l[0] < first[0] {
					first = l
				}
				break
			}
		}
	}
	slices.SortFunc(starts, func(a, b start) int { return cmp.Compare(a.pos, b.pos) })
	for i, st := range starts {
		if first != nil && int(st.pos) >= first[0] {
			break
		}
		if i > 0 && starts[i-1] == st {
			continue
		}
		loc := r.pieces[st.piece].matchAt(s, int(st.pos), r.accept != nil, lits, true)
		if loc != nil && (r.accept == nil || r.accept(s, loc)) {
			return loc
		}
	}
	return first
}

// findAll returns every accepted match of r in s, piece by piece.
func (r *gateRule) findAll(s string, lits *scanned) [][]int {
	if r.payload && !lits.holdsPayload(s) {
		return nil
	}
	var out [][]int
	for i := range r.pieces {
		p := &r.pieces[i]
		if !p.mayMatch(lits) {
			continue
		}
		for _, l := range p.findAll(s, lits, false, r.accept != nil || r.secret) {
			if r.accept == nil || r.accept(s, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

func rule(category, pattern, expr string) gateRule {
	return gateRule{category: category, pattern: pattern, expr: expr, pieces: splitPieces(expr)}
}

func secretRule(pattern, expr string) gateRule {
	r := rule(governance.GateCredentials, pattern, expr)
	r.secret = true
	return r
}

// instructionWords marks hidden HTML that carries instructions rather than
// an ordinary developer's comment.
var instructionWords = regexp.MustCompile(patterns.exprOf("instruction_words"))

func carriesInstructions(s string, loc []int) bool {
	return loc[2] >= 0 && instructionWords.MatchString(s[loc[2]:loc[3]])
}

func init() {
	x := &literalIndex{ids: map[string]int32{}}
	all := make([]*gateRule, 0, len(gateRules)+len(lowRiskClasses)+1)
	for i := range gateRules {
		all = append(all, &gateRules[i])
	}
	for i := range lowRiskClasses {
		all = append(all, &lowRiskClasses[i].rule)
	}
	all = append(all, &protectiveRule)
	all = append(all, placementRules()...)
	all = append(all, &actionRule)
	for _, r := range all {
		r.hints = derivedHints(r.pieces)
		r.hintIDs = newLiteralSet(x.idSet(r.hints))
		indexPieces(x, r.pieces)
	}
	indexPieces(x, payloadWords)
	x.build()
	for _, r := range all {
		for _, p := range r.pieces {
			x.markLead(p.leadIDs)
		}
	}
	for _, p := range payloadWords {
		x.markLead(p.leadIDs)
	}
	gateIndex = x
}

// indexPieces gives the pieces' literals their ids in x.
func indexPieces(x *literalIndex, pieces []gatePiece) {
	for j := range pieces {
		p := &pieces[j]
		// The sets are checked in turn until one misses: the rarest first
		// (the longest shortest member), and of those the cheapest.
		need := slices.Clone(p.need)
		slices.SortStableFunc(need, func(a, b []string) int {
			return cmp.Or(cmp.Compare(shortest(b), shortest(a)), cmp.Compare(len(a), len(b)))
		})
		for _, set := range need {
			p.sets = append(p.sets, newLiteralSet(x.idSet(set)))
		}
		p.leadIDs = x.idSet(p.lead)
		p.leadSet = newLiteralSet(p.leadIDs)
	}
}

// derivedHints returns literals of which every match of the pieces holds
// one: from each piece the literal set it needs (or its lead literals) whose
// shortest member is longest (the rarest), all together. A piece that needs no literal makes
// the rule run on every text (nil). The hints are derived from the
// expression, never kept by hand, so no phrasing added to a pattern file
// can be skipped by the prefilter.
func derivedHints(pieces []gatePiece) []string {
	var hints []string
	for _, p := range pieces {
		need := p.need
		if p.lead != nil {
			need = append(slices.Clip(need), p.lead)
		}
		if len(need) == 0 {
			return nil
		}
		best := need[0]
		for _, set := range need[1:] {
			if shortest(set) > shortest(best) || shortest(set) == shortest(best) && len(set) < len(best) {
				best = set
			}
		}
		for _, h := range best {
			if !slices.Contains(hints, h) {
				hints = append(hints, h)
			}
		}
	}
	return hints
}

// gateRules are matched in order against prepared text; Findings follow it
// within a risk class (see patternFileOrder).
var gateRules = loadRules(patterns)
