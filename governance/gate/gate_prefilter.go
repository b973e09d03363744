package gate

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The gate's literal prefilter. Every expression of the gate is split into
// its top-level alternatives (pieces), and from each piece the literal
// strings are extracted that every match must contain: for a concatenation
// several sets, one member of each of which must occur. All these literals
// (and the rules' hints derived from them) are compiled into one
// Aho–Corasick automaton, which reads a text once, folding ASCII case, and
// marks which literals it holds. A piece whose literals are not all there
// cannot match and is skipped, so a text pays only for the few expressions
// that may match it. TestGateHintsAreNecessary holds the extraction to the
// expressions over the corpora.

// gatePiece is one top-level alternative of a rule's expression, compiled on
// its own: small expressions run on Go's backtracker instead of the slower
// NFA, and most texts skip most pieces on their literals alone.
type gatePiece struct {
	// re is the piece's expression, compiled for a piece without lead
	// literals; a piece with them runs anchored (at0, after1), and plain
	// compiles re when a test asks for it.
	re   *regexp.Regexp
	expr string
	// need are literal sets (lower-case) of which each must have a member
	// in the text for the piece to match.
	need [][]string
	sets []literalSet // need as sets of literal ids
	// lead, when set, are literals one of which every match starts with
	// (ASCII case folded). The piece is then tried only where one occurs,
	// anchored there: at the start of the text (at0), or after the rune
	// before it (after1), so assertions such as \b still see that rune.
	lead        []string
	leadIDs     []int32
	leadSet     literalSet
	at0, after1 *regexp.Regexp
	// runs, when set, says where every match of the piece lies: in one run
	// of characters of a class that holds a marker (a host name with a
	// dot and a letter after it, an address with '@'), and for a host name
	// its path up to the next white space. The piece is then tried only on
	// such runs instead of at every position of the text.
	runs *runWindow
	// lower: the piece ignores ASCII case, and was compiled without case
	// folding to run on the text with ASCII letters lower-cased
	// (scanned.lower), where Go's regexp compares runes directly.
	lower bool
	// span bounds the bytes a match of the piece may cover in a given
	// text: an anchored attempt then reads only that much of the text and
	// one rune more (what an assertion at the end sees), instead of the
	// rest of the text.
	span span
}

// plain returns the piece's expression compiled as it is, unanchored.
func (p *gatePiece) plain() *regexp.Regexp {
	if p.re != nil {
		return p.re
	}
	return regexp.MustCompile(p.expr)
}

// caseFree reports whether re matches the same in a text as in the text
// with its ASCII letters lower-cased: every literal with ASCII letters
// folds case, and every character class holds both cases of its ASCII
// letters. (The gate's texts are NFKD-normalised, so the non-ASCII runes
// that fold to ASCII letters, U+017F and U+212A, never occur in them.)
func caseFree(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			for _, r := range re.Rune {
				if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
					return false
				}
			}
		}
	case syntax.OpCharClass:
		for c := 'A'; c <= 'Z'; c++ {
			if inClass(re.Rune, c) != inClass(re.Rune, c+'a'-'A') {
				return false
			}
		}
	}
	for _, sub := range re.Sub {
		if !caseFree(sub) {
			return false
		}
	}
	return true
}

func inClass(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] <= r && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// unfold returns a copy of re whose case-folding literals are lower-case
// ones that do not fold: it matches a lower-cased text as re matched the
// text. (Pieces share parts, so re itself is left alone.)
func unfold(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	if c.Op == syntax.OpLiteral && c.Flags&syntax.FoldCase != 0 {
		c.Flags &^= syntax.FoldCase
		c.Rune = slices.Clone(c.Rune)
		for i, r := range c.Rune {
			if 'A' <= r && r <= 'Z' {
				c.Rune[i] = r + 'a' - 'A'
			}
		}
	}
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, sub := range re.Sub {
		c.Sub[i] = unfold(sub)
	}
	return &c
}

// subject returns the text p runs on: s, or its lower-cased form.
func (p *gatePiece) subject(s string, lits *scanned) string {
	if p.lower {
		return lits.lowered(s)
	}
	return s
}

// maxLiteralSet bounds a literal set; a larger one is no useful filter.
const maxLiteralSet = 64

// splitPieces parses expr and returns its top-level alternatives as pieces.
func splitPieces(expr string) []gatePiece {
	alts := pieceTrees(expr)
	pieces := make([]gatePiece, 0, len(alts))
	for _, a := range alts {
		p := gatePiece{need: conjuncts(a)}
		if caseFree(a) {
			p.lower = true
			a = unfold(a)
		}
		expr := exprString(a)
		p.expr = expr
		p.span = spanOf(a)
		if lead, ok := prefixes(a); ok {
			p.lead = lead
			p.at0 = regexp.MustCompile(`\A(?:` + expr + `)`)
			p.after1 = regexp.MustCompile(`\A(?s:.)(?:` + expr + `)`)
		} else {
			p.re = regexp.MustCompile(expr)
		}
		pieces = append(pieces, p)
	}
	return pieces
}

// pieceTrees parses expr and returns its pieces' expressions: its
// top-level alternatives, unbounded and distributed.
func pieceTrees(expr string) []*syntax.Regexp {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(err)
	}
	alts := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		alts = re.Sub
	}
	for i := range alts {
		unbound(alts[i])
	}
	return distribute(alts)
}

// exprString writes re as an expression that parses back to it. Unlike
// (*syntax.Regexp).String it states every flag where it applies, and so
// never has to work out which flags a character class folds under (which
// walks every rune of a negated class such as [^\n], and made building
// the gate take seconds).
func exprString(re *syntax.Regexp) string {
	var b strings.Builder
	writeExpr(&b, re)
	return b.String()
}

func writeExpr(b *strings.Builder, re *syntax.Regexp) {
	group := func(sub *syntax.Regexp) {
		b.WriteString("(?:")
		writeExpr(b, sub)
		b.WriteString(")")
	}
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			b.WriteString("(?i:")
		} else {
			b.WriteString("(?:")
		}
		for _, r := range re.Rune {
			writeRune(b, r)
		}
		b.WriteString(")")
	case syntax.OpCharClass:
		b.WriteString("[")
		if len(re.Rune) == 0 {
			b.WriteString(`^\x00-\x{10FFFF}`)
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			writeRune(b, re.Rune[i])
			if re.Rune[i+1] != re.Rune[i] {
				b.WriteString("-")
				writeRune(b, re.Rune[i+1])
			}
		}
		b.WriteString("]")
	case syntax.OpAnyCharNotNL:
		b.WriteString(`(?-s:.)`)
	case syntax.OpAnyChar:
		b.WriteString(`(?s:.)`)
	case syntax.OpBeginLine:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine:
		b.WriteString(`(?m:$)`)
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpCapture:
		b.WriteString("(")
		if re.Name != "" {
			b.WriteString("?P<" + re.Name + ">")
		}
		writeExpr(b, re.Sub[0])
		b.WriteString(")")
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		group(re.Sub[0])
		switch re.Op {
		case syntax.OpStar:
			b.WriteString("*")
		case syntax.OpPlus:
			b.WriteString("+")
		case syntax.OpQuest:
			b.WriteString("?")
		default:
			b.WriteString("{" + strconv.Itoa(re.Min))
			switch {
			case re.Max < 0:
				b.WriteString(",")
			case re.Max != re.Min:
				b.WriteString("," + strconv.Itoa(re.Max))
			}
			b.WriteString("}")
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteString("?")
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			group(sub)
		}
	case syntax.OpAlternate:
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteString("|")
			}
			group(sub)
		}
	default:
		panic("gate: unknown expression op " + re.Op.String())
	}
}

// writeRune writes r as itself when it is a letter or digit of ASCII, and
// escaped otherwise.
func writeRune(b *strings.Builder, r rune) {
	if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
		b.WriteRune(r)
		return
	}
	b.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + "}")
}

// prefixes returns literal strings (lower-case) one of which every match
// of re starts with, and false when there is no such set.
func prefixes(re *syntax.Regexp) ([]string, bool) {
	if set, ok := exact(re); ok {
		return set, !slices.Contains(set, "")
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return prefixes(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return prefixes(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			set, ok := prefixes(sub)
			if !ok {
				return nil, false
			}
			all = append(all, set...)
		}
		// Too many prefixes are cut shorter until they are few enough;
		// a prefix of a prefix is one still.
		all = compact(all)
		for n := goodPrefix; len(all) > maxLiteralSet && n > 0; n-- {
			for i, s := range all {
				all[i] = s[:min(n, len(s))]
			}
			all = compact(all)
		}
		return all, len(all) <= maxLiteralSet
	case syntax.OpConcat:
		// Prefixes grow part by part until each is long enough to be rare
		// (goodPrefix bytes); longer ones only make more literals.
		out := []string{""}
		for _, sub := range re.Sub {
			if shortest(out) >= goodPrefix {
				break
			}
			set, whole := exact(sub)
			if !whole {
				var ok bool
				if set, ok = prefixes(sub); !ok {
					break
				}
			}
			p, ok := product(out, set)
			if !ok {
				break
			}
			out = p
			if !whole {
				break
			}
		}
		return out, !slices.Contains(out, "")
	}
	return nil, false
}

// goodPrefix is the length from which a lead literal is rare enough.
const goodPrefix = 4

// maxBacktrackProg is the largest program Go's regexp package runs on its
// backtracker, which is much faster than its NFA.
const maxBacktrackProg = 500

// distribute splits a piece too large for the backtracker, x(a|b|c|d)y,
// at the heaviest alternation of its concatenation into x(a|b)y and
// x(c|d)y, again until each piece is small enough (or has no alternation
// left to halve). A text matches the piece at a start exactly when it
// matches one of the halves there, and the gate reports the leftmost
// start; each half needs only its own alternatives' literals, so the
// prefilter skips most halves.
func distribute(alts []*syntax.Regexp) []*syntax.Regexp {
	var out []*syntax.Regexp
	for _, a := range alts {
		out = append(out, distributeOne(a, maxDistributed)...)
	}
	return out
}

// maxDistributed bounds the pieces one alternative is split into.
const maxDistributed = 32

func distributeOne(re *syntax.Regexp, budget int) []*syntax.Regexp {
	if budget < 2 || progSize(re) <= maxBacktrackProg {
		return []*syntax.Regexp{re}
	}
	parts := flatConcat(re)
	// The heaviest alternation among the parts; a capture group that only
	// holds one keeps its group around each half.
	k, weight := -1, 0
	for i, part := range parts {
		alt := part
		if alt.Op == syntax.OpCapture {
			alt = alt.Sub[0]
		}
		if alt.Op != syntax.OpAlternate {
			continue
		}
		if w := progSize(part); w > weight {
			k, weight = i, w
		}
	}
	if k < 0 {
		return []*syntax.Regexp{re}
	}
	alt, capture := parts[k], (*syntax.Regexp)(nil)
	if alt.Op == syntax.OpCapture {
		capture, alt = alt, alt.Sub[0]
	}
	half := len(alt.Sub) / 2
	var out []*syntax.Regexp
	for _, subs := range [][]*syntax.Regexp{alt.Sub[:half], alt.Sub[half:]} {
		a := subs[0]
		if len(subs) > 1 {
			a = &syntax.Regexp{Op: syntax.OpAlternate, Flags: alt.Flags, Sub: subs}
		}
		if capture != nil {
			c := *capture
			c.Sub = []*syntax.Regexp{a}
			a = &c
		}
		concat := append(append(append([]*syntax.Regexp{}, parts[:k]...), a), parts[k+1:]...)
		out = append(out, distributeOne(&syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: concat}, budget/2)...)
	}
	return out
}

// flatConcat returns re's concatenation with nested concatenations (and
// non-capturing groups around them) flattened; re alone when it is not a
// concatenation.
func flatConcat(re *syntax.Regexp) []*syntax.Regexp {
	if re.Op != syntax.OpConcat {
		return []*syntax.Regexp{re}
	}
	var out []*syntax.Regexp
	for _, sub := range re.Sub {
		if sub.Op == syntax.OpConcat {
			out = append(out, flatConcat(sub)...)
			continue
		}
		out = append(out, sub)
	}
	return out
}

// progSize is the number of instructions re compiles to.
func progSize(re *syntax.Regexp) int {
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		panic(err)
	}
	return len(prog.Inst)
}

// unbound lifts the upper bound of every counted repetition with a range
// ({0,60}, {1,6}): Go compiles such a repetition into one copy per count,
// and a program of thousands of instructions runs on the slow NFA. Without
// the bound a piece matches everything it matched before, and more (a
// longer gap, a longer quoted payload), so no attack gets through that was
// caught before; the corpora hold the benign false positives where they were.
// An exact count ({16}) is kept.
func unbound(re *syntax.Regexp) {
	if re.Op == syntax.OpRepeat && re.Max > re.Min && re.Max >= 3 {
		re.Max = -1
	}
	for _, sub := range re.Sub {
		unbound(sub)
	}
}

// exact returns every string re can match, lower-cased, when they are few
// (zero-width assertions match ""), and false otherwise.
func exact(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] >= 8 {
				return nil, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = append(set, strings.ToLower(string(r)))
			}
		}
		set = compact(set)
		return set, len(set) > 0 && len(set) <= 8
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpQuest:
		set, ok := exact(re.Sub[0])
		if !ok {
			return nil, false
		}
		return compact(append(set, "")), true
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			set, ok := exact(sub)
			if !ok {
				return nil, false
			}
			all = append(all, set...)
		}
		all = compact(all)
		return all, len(all) <= maxLiteralSet
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			set, ok := exact(sub)
			if !ok {
				return nil, false
			}
			if out, ok = product(out, set); !ok {
				return nil, false
			}
		}
		return out, true
	case syntax.OpRepeat:
		if re.Min != re.Max || re.Min > 4 {
			return nil, false
		}
		set, ok := exact(re.Sub[0])
		if !ok {
			return nil, false
		}
		out := []string{""}
		for range re.Min {
			if out, ok = product(out, set); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// required returns literal strings one of which every match of re holds
// (lower-cased), and false when there is no such set.
func required(re *syntax.Regexp) ([]string, bool) {
	if set, ok := exact(re); ok {
		return set, !slices.Contains(set, "")
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			set, ok := required(sub)
			if !ok {
				return nil, false
			}
			all = append(all, set...)
		}
		all = compact(all)
		return all, len(all) <= maxLiteralSet
	case syntax.OpConcat:
		// Of the concatenation's sets, the one whose shortest string is
		// longest is the best filter.
		var best []string
		for _, set := range conjuncts(re) {
			if best == nil || shortest(set) > shortest(best) {
				best = set
			}
		}
		return best, best != nil
	}
	return nil, false
}

// conjuncts returns the literal sets every match of re holds a member of:
// for a concatenation, the products of its runs of exact parts and the
// required sets of the others; otherwise re's required set.
func conjuncts(re *syntax.Regexp) [][]string {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		if set, ok := required(re); ok {
			return [][]string{set}
		}
		return nil
	}
	var out [][]string
	run := []string{""}
	flush := func() {
		if !slices.Contains(run, "") {
			out = append(out, run)
		}
		run = []string{""}
	}
	for _, sub := range re.Sub {
		if set, ok := exact(sub); ok {
			if p, ok := product(run, set); ok {
				run = p
				continue
			}
			flush()
			run = set
			continue
		}
		flush()
		if set, ok := required(sub); ok {
			out = append(out, set)
		}
	}
	flush()
	return out
}

// product returns every a+b, or false when there would be too many.
func product(as, bs []string) ([]string, bool) {
	if len(as)*len(bs) > maxLiteralSet {
		return nil, false
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			out = append(out, a+b)
		}
	}
	return compact(out), true
}

func compact(set []string) []string {
	slices.Sort(set)
	return slices.Compact(set)
}

func shortest(set []string) int {
	n := len(set[0])
	for _, s := range set {
		n = min(n, len(s))
	}
	return n
}

// matchAt returns p's match anchored at pos of s (as
// FindStringSubmatchIndex with sub, else FindStringIndex; in s's
// coordinates), or nil. With lits, s is the text they were scanned from
// (p's subject is then taken from them).
func (p *gatePiece) matchAt(s string, pos int, sub bool, lits *scanned, conv bool) []int {
	if conv {
		s = p.subject(s, lits)
	}
	find := (*regexp.Regexp).FindStringIndex
	if sub {
		find = (*regexp.Regexp).FindStringSubmatchIndex
	}
	if n, ok := p.span.in(lits); ok && pos+n < len(s) {
		// No match is longer than n: the text past it and one rune more
		// cannot change what matches at pos.
		end := pos + n + 1
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		s = s[:end]
	}
	var loc []int
	if pos == 0 {
		loc = find(p.at0, s)
	} else {
		_, size := utf8.DecodeLastRuneInString(s[:pos])
		q := pos - size
		if loc = find(p.after1, s[q:]); loc != nil {
			for i := range loc {
				if loc[i] >= 0 {
					loc[i] += q
				}
			}
			loc[0] = pos
		}
	}
	return loc
}

// starts returns where, in a text whose literal hits are hits, a match
// of p may start: the sorted starts of its lead literals.
func (p *gatePiece) starts(hits []literalHit) []int {
	var out []int
	for _, h := range hits {
		if p.leadSet.has(h.id) {
			out = append(out, int(h.start))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// findAll returns p's leftmost-first, non-overlapping matches in s, with
// their submatches when sub is set (as FindAllStringSubmatchIndex, else
// as FindAllStringIndex: only a check of a rule's matches reads them),
// trying only where a lead literal starts. With first set it returns the
// first match only, as FindStringIndex.
func (p *gatePiece) findAll(s string, lits *scanned, first, sub bool) [][]int {
	s = p.subject(s, lits)
	if p.lead == nil && p.runs != nil {
		if lits.digits < p.runs.digits {
			return nil
		}
		return p.findInRuns(s, first, sub)
	}
	if p.lead == nil {
		switch {
		case first:
			if loc := p.re.FindStringIndex(s); loc != nil {
				return [][]int{loc}
			}
			return nil
		case sub:
			return p.re.FindAllStringSubmatchIndex(s, -1)
		}
		return p.re.FindAllStringIndex(s, -1)
	}
	var out [][]int
	end := 0
	for _, pos := range p.starts(lits.hits) {
		if pos < end {
			continue
		}
		if loc := p.matchAt(s, pos, !first && sub, lits, false); loc != nil {
			out = append(out, loc)
			if first {
				return out
			}
			end = loc[1]
		}
	}
	return out
}

// runWindow describes the runs a piece's matches lie in (gatePiece.runs).
type runWindow struct {
	in      func(c byte) bool     // the run's characters
	marked  func(run string) bool // whether a run may hold a match
	toSpace bool                  // a match may go on past the run up to white space
	// digits is the least number of digits a text with a marked run holds.
	digits int32
}

// hostRun: a host name ([\w.-]) with a dot followed by a letter, and its path.
var hostRun = &runWindow{
	in: func(c byte) bool { return isWordByte(c) || c == '-' || c == '.' },
	marked: func(run string) bool {
		for i := 0; i+1 < len(run); i++ {
			if run[i] == '.' && ('a' <= run[i+1]|0x20 && run[i+1]|0x20 <= 'z') {
				return true
			}
		}
		return false
	},
	toSpace: true,
}

// addressRun: an e-mail address ([\w.+-] and '@').
var addressRun = &runWindow{
	in:     func(c byte) bool { return isWordByte(c) || c == '-' || c == '.' || c == '+' || c == '@' },
	marked: func(run string) bool { return strings.IndexByte(run, '@') >= 0 },
}

// numberRun: digits with the separators of a telephone or card number,
// seven digits or more.
var numberRun = &runWindow{
	in: func(c byte) bool {
		return '0' <= c && c <= '9' || c == ' ' || c == '-' || c == '.' || c == '+' || c == '(' || c == ')'
	},
	marked: func(run string) bool {
		n := 0
		for i := 0; i < len(run); i++ {
			if '0' <= run[i] && run[i] <= '9' {
				n++
			}
		}
		return n >= 7
	},
	digits: 7,
}

// ipRun: digits and dots (and a port), three dots or more.
var ipRun = &runWindow{
	in:     func(c byte) bool { return '0' <= c && c <= '9' || c == '.' || c == ':' },
	marked: func(run string) bool { return strings.Count(run, ".") >= 3 },
	digits: 4,
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// isSpaceByte reports whether c is white space as \s reads it.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// findInRuns is findAll for a piece with runs: the expression runs on
// each marked run, from the byte before it (so \b sees it) to its end or,
// with toSpace, to the next white space.
func (p *gatePiece) findInRuns(s string, first, sub bool) [][]int {
	w := p.runs
	var out [][]int
	end := 0
	for i := 0; i < len(s); {
		if !w.in(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && w.in(s[j]) {
			j++
		}
		if i < end || !w.marked(s[i:j]) {
			i = j
			continue
		}
		q, e := max(0, i-1), j
		for w.toSpace && e < len(s) && !isSpaceByte(s[e]) {
			e++
		}
		find := p.re.FindAllStringIndex
		if sub && !first {
			find = p.re.FindAllStringSubmatchIndex
		}
		for _, loc := range find(s[q:e], -1) {
			if loc[0]+q < end {
				continue
			}
			for k := range loc {
				if loc[k] >= 0 {
					loc[k] += q
				}
			}
			if first {
				return [][]int{loc[:2]}
			}
			out = append(out, loc)
			end = loc[1]
		}
		i = j
	}
	return out
}

// literalBits marks which of the gate's literals a text holds.
type literalBits []uint64

func (b literalBits) has(id int32) bool { return b[id>>6]&(1<<(id&63)) != 0 }

// hasAny reports whether the text holds one of ids.
func (b literalBits) hasAny(set literalSet) bool {
	for _, w := range set {
		if b[w.word]&w.mask != 0 {
			return true
		}
	}
	return false
}

// literalSet is a set of literal ids as the words of literalBits it
// touches, so a test against a text's bits costs one AND a word.
type literalSet []literalWord

type literalWord struct {
	word int32
	mask uint64
}

// newLiteralSet returns the set of ids.
func newLiteralSet(ids []int32) literalSet {
	var set literalSet
	for _, id := range ids {
		w := id >> 6
		i := slices.IndexFunc(set, func(lw literalWord) bool { return lw.word == w })
		if i < 0 {
			set = append(set, literalWord{word: w})
			i = len(set) - 1
		}
		set[i].mask |= 1 << (id & 63)
	}
	slices.SortFunc(set, func(a, b literalWord) int { return int(a.word - b.word) })
	return set
}

// has reports whether id is in the set.
func (set literalSet) has(id int32) bool {
	w := id >> 6
	for _, lw := range set {
		if lw.word == w {
			return lw.mask&(1<<(id&63)) != 0
		}
		if lw.word > w {
			return false
		}
	}
	return false
}

// literalHit is where a lead literal occurs in a text.
type literalHit struct {
	id    int32
	start int32
}

// scanned is what the prefilter found in a text.
type scanned struct {
	bits literalBits
	// lower is the text with ASCII letters lower-cased, made on first use.
	lower    string
	hasLower bool
	hits     []literalHit // lead literals only, in order of their ends
	// payload caches holdsPayload: 0 unknown, 1 no, 2 yes.
	payload int8
	// digits counts the ASCII digits of the text.
	digits int32
	// text is the text scanned; spaceRun and wordRun are its longest runs
	// of ASCII white space and of ASCII word characters (what bounds a
	// piece's span), counted on first use (hasRuns).
	text              string
	spaceRun, wordRun int
	hasRuns           bool
}

// runs returns the longest runs of ASCII white space and of ASCII word
// characters in the text.
func (lits *scanned) runs() (space, word int) {
	if !lits.hasRuns {
		lits.hasRuns = true
		sp, w := 0, 0
		for i := 0; i < len(lits.text); i++ {
			switch c := lits.text[i]; {
			case isSpaceByte(c):
				sp, w = sp+1, 0
				lits.spaceRun = max(lits.spaceRun, sp)
			case isWordByte(c):
				sp, w = 0, w+1
				lits.wordRun = max(lits.wordRun, w)
			default:
				sp, w = 0, 0
			}
		}
	}
	return lits.spaceRun, lits.wordRun
}

// lowered returns s (the text lits were scanned from) with its ASCII
// letters lower-cased.
func (lits *scanned) lowered(s string) string {
	if !lits.hasLower {
		lits.hasLower = true
		lits.lower = asciiLower(s)
	}
	return lits.lower
}

// asciiLower returns s with its ASCII letters lower-cased (same length).
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// holdsPayload reports whether s (the text lits were scanned from) holds
// one of payloadWords.
func (lits *scanned) holdsPayload(s string) bool {
	if lits.payload == 0 {
		lits.payload = 1
		for i := range payloadWords {
			if p := &payloadWords[i]; p.mayMatch(lits) && p.findAll(s, lits, true, false) != nil {
				lits.payload = 2
				break
			}
		}
	}
	return lits.payload == 2
}

// mayMatch reports whether the text holds a member of each of p's sets.
func (p *gatePiece) mayMatch(lits *scanned) bool {
	for _, set := range p.sets {
		if !lits.bits.hasAny(set) {
			return false
		}
	}
	return true
}

// literalIndex is the automaton over every literal of the gate. The root
// and its children have dense rows (every byte class, failures resolved);
// deeper states, which a text reaches rarely, keep their own edges and a
// failure link. So the table stays small enough for the processor's caches.
type literalIndex struct {
	ids   map[string]int32
	class [256]uint8 // byte → class; ASCII upper case folds to lower
	width int        // byte classes
	row   []int32    // per state: offset of its dense row in dense, or -1
	dense []int32
	// Sparse states: edges edgeFirst[s]…edgeFirst[s+1] of edgeClass/edgeTo.
	edgeFirst []int32
	edgeClass []uint8
	edgeTo    []int32
	fail      []int32
	// Literals ending at a state (its own and its suffixes'):
	// outIDs[outFirst[s]:outFirst[s+1]].
	outFirst []int32
	outIDs   []int32
	words    int // uint64 words of a literalBits
	// lead marks the literals whose positions a scan records; size is each
	// literal's length.
	lead literalBits
	size []int32
}

// gateIndex is built by the init of gate_rules.go, once every rule exists.
var gateIndex *literalIndex

// id returns the literal id of s, adding it when new.
func (x *literalIndex) id(s string) int32 {
	if id, ok := x.ids[s]; ok {
		return id
	}
	id := int32(len(x.ids))
	x.ids[s] = id
	return id
}

// idSet returns the ids of set.
func (x *literalIndex) idSet(set []string) []int32 {
	out := make([]int32, len(set))
	for i, s := range set {
		out[i] = x.id(s)
	}
	return out
}

// build compiles the automaton over every literal given an id so far.
func (x *literalIndex) build() {
	lits := make([]string, len(x.ids))
	for s, id := range x.ids {
		lits[id] = s
	}
	// Byte classes: every byte of a literal has a class of its own, ASCII
	// upper-case letters share their lower-case letter's; all other bytes
	// share class 0.
	for _, s := range lits {
		for i := 0; i < len(s); i++ {
			if x.class[s[i]] == 0 {
				x.width++
				x.class[s[i]] = uint8(x.width)
			}
		}
	}
	x.width++
	for c := 'A'; c <= 'Z'; c++ {
		x.class[c] = x.class[c+'a'-'A']
	}
	// The trie.
	type node struct {
		child map[uint8]int32
		depth int
		out   []int32
	}
	nodes := []node{{child: map[uint8]int32{}}}
	for id, s := range lits {
		cur := int32(0)
		for i := 0; i < len(s); i++ {
			c := x.class[s[i]]
			nx, ok := nodes[cur].child[c]
			if !ok {
				nx = int32(len(nodes))
				nodes = append(nodes, node{child: map[uint8]int32{}, depth: nodes[cur].depth + 1})
				nodes[cur].child[c] = nx
			}
			cur = nx
		}
		nodes[cur].out = append(nodes[cur].out, int32(id))
	}
	// Failure links breadth first; full transitions (goto) are computed
	// for every state while building, kept only for the dense rows.
	n := len(nodes)
	x.fail = make([]int32, n)
	full := make([]int32, n*x.width)
	queue := []int32{0}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for c := 0; c < x.width; c++ {
			nx, ok := nodes[cur].child[uint8(c)]
			switch {
			case ok:
				if cur != 0 {
					x.fail[nx] = full[int(x.fail[cur])*x.width+c]
				}
				nodes[nx].out = append(nodes[nx].out, nodes[x.fail[nx]].out...)
				full[int(cur)*x.width+c] = nx
				queue = append(queue, nx)
			case cur != 0:
				full[int(cur)*x.width+c] = full[int(x.fail[cur])*x.width+c]
			}
		}
	}
	x.row = make([]int32, n)
	x.edgeFirst = make([]int32, n+1)
	x.outFirst = make([]int32, n+1)
	for st := range nodes {
		x.row[st] = -1
		if nodes[st].depth <= 1 {
			x.row[st] = int32(len(x.dense))
			x.dense = append(x.dense, full[st*x.width:(st+1)*x.width]...)
		}
		x.edgeFirst[st] = int32(len(x.edgeTo))
		for c := 0; c < x.width; c++ {
			if nx, ok := nodes[st].child[uint8(c)]; ok && x.row[st] < 0 {
				x.edgeClass = append(x.edgeClass, uint8(c))
				x.edgeTo = append(x.edgeTo, nx)
			}
		}
		x.outFirst[st] = int32(len(x.outIDs))
		x.outIDs = append(x.outIDs, compactIDs(nodes[st].out)...)
	}
	x.edgeFirst[n] = int32(len(x.edgeTo))
	x.outFirst[n] = int32(len(x.outIDs))
	x.words = (len(lits) + 63) / 64
	x.size = make([]int32, len(lits))
	for id, s := range lits {
		x.size[id] = int32(len(s))
	}
}

// step returns the state after state reads a byte of class c.
func (x *literalIndex) step(state int32, c uint8) int32 {
	for {
		if r := x.row[state]; r >= 0 {
			return x.dense[int(r)+int(c)]
		}
		for e := x.edgeFirst[state]; e < x.edgeFirst[state+1]; e++ {
			if x.edgeClass[e] == c {
				return x.edgeTo[e]
			}
		}
		state = x.fail[state]
	}
}

// markLead asks scans to record where the literals ids occur.
func (x *literalIndex) markLead(ids []int32) {
	if x.lead == nil {
		x.lead = make(literalBits, x.words)
	}
	for _, id := range ids {
		x.lead[id>>6] |= 1 << (id & 63)
	}
}

func compactIDs(ids []int32) []int32 {
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// scan returns which literals s holds, ASCII case folded, and where the
// lead literals start.
func (x *literalIndex) scan(s string) *scanned {
	return x.scanInto(&scanned{bits: make(literalBits, x.words)}, s)
}

// scannedPool keeps scans a caller is done with (release), so a scan
// reuses their memory.
var scannedPool sync.Pool

// scanPooled is scan into a scan from the pool; the caller releases it
// when nothing it returned refers to it any more.
func (x *literalIndex) scanPooled(s string) *scanned {
	res, _ := scannedPool.Get().(*scanned)
	if res == nil || len(res.bits) != x.words {
		return x.scan(s)
	}
	clear(res.bits)
	*res = scanned{bits: res.bits, hits: res.hits[:0]}
	return x.scanInto(res, s)
}

// release returns lits to the pool.
func (lits *scanned) release() { scannedPool.Put(lits) }

// scanInto fills res, whose bits are clear, with the literals of s.
func (x *literalIndex) scanInto(res *scanned, s string) *scanned {
	res.text = s
	state := int32(0)
	for i := 0; i < len(s); i++ {
		if s[i]-'0' < 10 {
			res.digits++
		}
		state = x.step(state, x.class[s[i]])
		for _, id := range x.outIDs[x.outFirst[state]:x.outFirst[state+1]] {
			res.bits[id>>6] |= 1 << (id & 63)
			if x.lead.has(id) {
				res.hits = append(res.hits, literalHit{id, int32(i+1) - x.size[id]})
			}
		}
	}
	return res
}

// span bounds the bytes a match covers: fixed bytes, plus runs of ASCII
// white space and of ASCII word characters (each at most the text's
// longest such run). ok is false when a match is unbounded otherwise (a
// star or a plus of anything else, a repeat without a maximum).
type span struct {
	fixed, space, word int
	ok                 bool
}

// in returns the bound in a text whose runs lits holds.
func (sp span) in(lits *scanned) (int, bool) {
	if !sp.ok || lits == nil {
		return 0, false
	}
	if sp.space == 0 && sp.word == 0 {
		return sp.fixed, true
	}
	space, word := lits.runs()
	return sp.fixed + sp.space*space + sp.word*word, true
}

// spanOf returns the span of re's matches. A case-folded letter may fold
// to a longer encoding, so it counts as utf8.UTFMax bytes.
func spanOf(re *syntax.Regexp) span {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return span{ok: true}
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				n += utf8.UTFMax
			} else {
				n += utf8.RuneLen(r)
			}
		}
		return span{fixed: n, ok: true}
	case syntax.OpCharClass:
		n := 0
		for i := 1; i < len(re.Rune); i += 2 {
			l := utf8.RuneLen(re.Rune[i])
			if l < 0 {
				l = utf8.UTFMax
			}
			n = max(n, l)
		}
		return span{fixed: n, ok: true}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return span{fixed: utf8.UTFMax, ok: true}
	case syntax.OpCapture, syntax.OpQuest:
		return spanOf(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return runSpan(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return runSpan(re.Sub[0])
		}
		sub := spanOf(re.Sub[0])
		return span{re.Max * sub.fixed, re.Max * sub.space, re.Max * sub.word, sub.ok}
	case syntax.OpConcat:
		out := span{ok: true}
		for _, sub := range re.Sub {
			m := spanOf(sub)
			out = span{out.fixed + m.fixed, out.space + m.space, out.word + m.word, out.ok && m.ok}
		}
		return out
	case syntax.OpAlternate:
		out := span{ok: true}
		for _, sub := range re.Sub {
			m := spanOf(sub)
			out = span{max(out.fixed, m.fixed), max(out.space, m.space), max(out.word, m.word), out.ok && m.ok}
		}
		return out
	}
	return span{}
}

// runSpan is the span of an unbounded repeat of re: one run of ASCII
// white space or of ASCII word characters when re matches only those.
func runSpan(re *syntax.Regexp) span {
	var lo, hi []rune // the ranges re matches
	switch re.Op {
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi = append(lo, re.Rune[i]), append(hi, re.Rune[i+1])
		}
	case syntax.OpLiteral:
		if len(re.Rune) != 1 || re.Flags&syntax.FoldCase != 0 && unicode.SimpleFold(re.Rune[0]) != re.Rune[0] {
			return span{}
		}
		lo, hi = []rune{re.Rune[0]}, []rune{re.Rune[0]}
	default:
		return span{}
	}
	all := func(in func(byte) bool) bool {
		for i := range lo {
			for r := lo[i]; r <= hi[i]; r++ {
				if r >= utf8.RuneSelf || !in(byte(r)) {
					return false
				}
			}
		}
		return true
	}
	switch {
	case all(isSpaceByte):
		return span{space: 1, ok: true}
	case all(isWordByte):
		return span{word: 1, ok: true}
	}
	return span{}
}
