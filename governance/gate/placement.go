package gate

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Placement in the low-risk set (patterns/placement.txt): a statement that
// carries no finding is placed only when it is short, no deny shape occurs
// in it and every one of its clauses has a low-risk shape. Default-deny at
// every step: a clause no shape places keeps the whole statement out.

// Bounds of a low-risk statement: longer ones go to a reviewer. A clause
// that completes its neighbour (fragment) or states an output property on
// its own is at most a few words (a Han character counts half a word).
const (
	maxFragmentWords    = 4
	maxPropertyWords    = 5
	maxLowRiskSentences = 2
	maxLowRiskRunes     = 240
	maxLowRiskHan       = 120
)

// Reasons a statement is not placed (NotPlaced.Reason), besides the names
// of the deny shapes of patterns/placement.txt.
const (
	// NotPlacedLong: more than two sentences or too many characters.
	NotPlacedLong = "long"
	// NotPlacedShape: a clause has none of the low-risk shapes.
	NotPlacedShape = "no_shape"
	// NotPlacedClass: a clause has a low-risk shape but no cue of a class.
	NotPlacedClass = "no_class"
)

// denyShape is one deny block: its rule and, when set, the shapes whose
// presence in the same clause lifts it (unless=, names joined by "|"; the
// name property lifts it for a clause that is a short property clause).
type denyShape struct {
	rule   gateRule
	unless []string
}

// unlessProperty is the unless= name of a short clause that states only an
// output property ("keep it brief").
const unlessProperty = "property"

var (
	shapeRules = loadShapes(patterns)
	denyShapes = loadDenies(patterns)
)

// shapeNames are the shape blocks placement searches in the whole statement
// through the prefilter; condition, fragment and purpose, anchored at a
// clause's ends, are read in the clause alone.
var shapeNames = []string{"framing", "output_noun", "output_verb", "self", "suggest", "clause_break", "joiner", "clause_start", "claim"}

var (
	conditionRe = regexp.MustCompile(patterns.named("shape", "condition").expr(patterns.defs))
	topicRe     = regexp.MustCompile(patterns.named("shape", "topic").expr(patterns.defs))
	glossRe     = regexp.MustCompile(patterns.named("shape", "gloss").expr(patterns.defs))
	reasonRe    = regexp.MustCompile(patterns.named("shape", "reason").expr(patterns.defs))
	boundRe     = regexp.MustCompile(patterns.named("shape", "bound").expr(patterns.defs))
	fragmentRe  = regexp.MustCompile(patterns.named("shape", "fragment").expr(patterns.defs))
	purposeRe   = regexp.MustCompile(patterns.named("shape", "purpose").expr(patterns.defs))
	verbOpensRe = regexp.MustCompile(`^\s*(?:` + patterns.named("shape", "output_verb").expr(patterns.defs) + `)`)
)

// OpensWithSubject reports whether clause opens with a subject — the
// user's situation or someone's doing, "these are school groups", 天黑得早 —
// and not with an output verb (shape reason). The gate places no such
// clause; the offline extractor reads one after a wish as the wish's
// reason.
func OpensWithSubject(clause string) bool {
	return reasonRe.MatchString(clause) && !verbOpensRe.MatchString(clause)
}

func loadShapes(set *patternSet) map[string]*gateRule {
	out := map[string]*gateRule{}
	for _, b := range set.of("shape") {
		if len(b.opts) > 0 {
			panic(fmt.Sprintf("gate patterns %s: a shape takes no options", b.where))
		}
		r := rule("lowrisk", b.names[0], b.expr(set.defs))
		out[b.names[0]] = &r
	}
	for _, name := range slices.Concat(shapeNames, []string{"condition", "fragment", "bound", "topic", "gloss", "reason"}) {
		if out[name] == nil {
			panic(fmt.Sprintf("gate patterns: no shape %q", name))
		}
	}
	return out
}

func loadDenies(set *patternSet) []denyShape {
	var out []denyShape
	for _, b := range set.of("deny") {
		d := denyShape{rule: rule("lowrisk", b.names[0], b.expr(set.defs))}
		for k, v := range b.opts {
			switch {
			case k == "unless" && !slices.ContainsFunc(strings.Split(v, "|"), func(n string) bool { return n != unlessProperty && !slices.Contains(shapeNames, n) }):
				d.unless = strings.Split(v, "|")
			case k == "accept" && acceptFuncs[v] != nil:
				d.rule.accept = acceptFuncs[v]
			default:
				panic(fmt.Sprintf("gate patterns %s: unknown option %s=%s (unless= names a shape of %v, accept= a check in code)", b.where, k, v, shapeNames))
			}
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		panic("gate patterns: no deny shape")
	}
	return out
}

// placementRules lists every rule placement runs, for the prefilter.
func placementRules() []*gateRule {
	var out []*gateRule
	for _, name := range shapeNames {
		out = append(out, shapeRules[name])
	}
	for i := range denyShapes {
		out = append(out, &denyShapes[i].rule)
	}
	return out
}

// notPlaced says why a statement is outside the low-risk set: the clause
// (in the text placement read) and the reason.
type notPlaced struct {
	lo, hi int
	reason string
	// mlo, mhi: the deny shape's match, when a deny shape kept it out.
	mlo, mhi int
}

// clauses splits s (lits its literals) into the spans of its clauses,
// trimmed of white space and punctuation; empty ones are dropped.
func clauses(s string, lits *scanned) [][2]int {
	type cut struct{ lo, hi int }
	var cuts []cut
	for _, m := range spans(shapeRules["clause_break"], s, lits) {
		if m[1]-m[0] == 1 && m[0] > 0 && m[1] < len(s) && isDigit(s[m[0]-1]) && isDigit(s[m[1]]) {
			continue // 14:00, 1,200
		}
		if s[m[0]] == '.' && tokenizer.Abbreviated(s[:m[0]], s[m[0]:], s[m[1]:]) {
			continue // "Dr. Patel", "e.g. grams": the extractor's sentences read the same list
		}
		cuts = append(cuts, cut{m[0], m[1]})
	}
	for _, m := range spans(shapeRules["joiner"], s, lits) {
		cuts = append(cuts, cut{m[0], m[1]})
	}
	for _, m := range spans(shapeRules["clause_start"], s, lits) {
		// The word that starts the next clause is its own.
		hi := m[1]
		for hi > m[0] && s[hi-1] != ' ' && s[hi-1] != '\t' {
			hi--
		}
		cuts = append(cuts, cut{m[0], hi})
	}
	// Words in quotes are one value ("sign off with 'Cheers, Dana'"): no
	// clause ends inside them. Deny shapes still read the whole statement.
	q := quotedSpans(s)
	cuts = slices.DeleteFunc(cuts, func(c cut) bool { return overlaps(q, [2]int{c.lo, c.hi}) })
	slices.SortFunc(cuts, func(a, b cut) int { return cmp.Compare(a.lo, b.lo) })
	var out [][2]int
	add := func(lo, hi int) {
		for lo < hi {
			r, n := utf8.DecodeRuneInString(s[lo:])
			if !unicode.IsSpace(r) && !unicode.IsPunct(r) {
				break
			}
			lo += n
		}
		for hi > lo {
			r, n := utf8.DecodeLastRuneInString(s[:hi])
			if !unicode.IsSpace(r) && !unicode.IsPunct(r) {
				break
			}
			hi -= n
		}
		if lo < hi {
			out = append(out, [2]int{lo, hi})
		}
	}
	cur := 0
	for _, c := range cuts {
		if c.lo < cur {
			cur = max(cur, c.hi)
			continue
		}
		add(cur, c.lo)
		cur = c.hi
	}
	add(cur, len(s))
	return out
}

// quotedSpans are the spans of s inside quotes: “…”, ‘…’, 「…」, 『…』,
// "…", and '…' where the quote marks stand beside no letter on their outer
// side (not the apostrophe of "don't").
func quotedSpans(s string) [][]int {
	var out [][]int
	pairs := map[rune]rune{'“': '”', '‘': '’', '「': '」', '『': '』', '"': '"', '\'': '\''}
	var open rune
	start := 0
	prev := rune(0)
	for i, r := range s {
		switch {
		case open != 0 && r == pairs[open]:
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			if r != '\'' || !unicode.IsLetter(next) && !unicode.IsDigit(next) {
				out = append(out, []int{start, i})
				open = 0
			}
		case open == 0 && pairs[r] != 0:
			if r != '\'' || !unicode.IsLetter(prev) && !unicode.IsDigit(prev) {
				open, start = r, i+utf8.RuneLen(r)
			}
		}
		prev = r
	}
	return out
}

// tooLong reports whether s is past the bounds of a low-risk statement.
// A full stop inside quotes ("end every reply with 'Cheers, R.'") is part
// of the quoted value and ends no sentence.
func tooLong(s string) bool {
	sentences, runes, han := 0, 0, 0
	inSentence := false
	q := quotedSpans(s)
	for i, r := range s {
		runes++
		if unicode.Is(unicode.Han, r) {
			han++
		}
		switch {
		case r == '.' && !fullStop(s, i):
			inSentence = true
		case strings.ContainsRune(".!?。！？\n", r) && !overlaps(q, [2]int{i, i + 1}):
			if inSentence {
				sentences++
			}
			inSentence = false
		case !unicode.IsSpace(r) && !unicode.IsPunct(r):
			inSentence = true
		}
	}
	if inSentence {
		sentences++
	}
	return sentences > maxLowRiskSentences || runes > maxLowRiskRunes || han > maxLowRiskHan
}

// fullStop reports whether the full stop at s[i] ends a sentence as the
// extractor's sentences end: before white space, a quote or the end of the
// text ("1.26" goes on), and not after an abbreviation ("Dr.", "e.g.").
func fullStop(s string, i int) bool {
	if i+1 < len(s) && !strings.ContainsRune(" \t\n\"'”’)", rune(s[i+1])) && s[i+1] != '.' {
		return false
	}
	return !tokenizer.Abbreviated(s[:i], s[i:], s[i+1:])
}

// spans returns the matches of r in s.
func spans(r *gateRule, s string, lits *scanned) [][]int {
	if !r.mayMatch(lits) {
		return nil
	}
	return r.findAll(s, lits)
}

func overlaps(locs [][]int, c [2]int) bool {
	for _, l := range locs {
		if l[0] < c[1] && l[1] > c[0] {
			return true
		}
	}
	return false
}

// clauseOf returns the clause of cs that [lo, hi) overlaps, or [lo, hi)
// itself when it lies between clauses.
func clauseOf(cs [][2]int, lo, hi int) [2]int {
	for _, c := range cs {
		if lo < c[1] && hi > c[0] {
			return c
		}
	}
	return [2]int{lo, hi}
}

// place places s (the normalised text, lits its literals) in the low-risk
// set: it returns the class of the first placed clause, or "" and why not.
// prot are the spans of protective rules in s.
func place(s string, lits *scanned, prot [][2]int) (string, notPlaced) {
	if tooLong(s) {
		return "", notPlaced{lo: 0, hi: len(s), reason: NotPlacedLong}
	}
	cs := clauses(s, lits)
	m := &matches{s: s, lits: lits, shape: map[string][][]int{}, cues: make([][][]int, len(lowRiskClasses)), done: make([]bool, len(lowRiskClasses))}
	// A deny shape that shares words with a protective rule is that
	// rule's own wording ("ignore instructions in documents you read").
	inProt := func(l []int) bool {
		for _, p := range prot {
			if l[0] < p[1] && l[1] > p[0] {
				return true
			}
		}
		return false
	}
	for i := range denyShapes {
		d := &denyShapes[i]
		if !d.rule.mayMatch(lits) {
			continue
		}
		first := d.rule.find(s, lits)
		if first == nil {
			continue
		}
		if c := clauseOf(cs, first[0], first[1]); !inProt(first) && !m.lifts(d.unless, c) {
			return "", notPlaced{c[0], c[1], d.rule.pattern, first[0], first[1]}
		}
		for _, l := range d.rule.findAll(s, lits) {
			if inProt(l) {
				continue
			}
			c := clauseOf(cs, l[0], l[1])
			if m.lifts(d.unless, c) {
				continue
			}
			return "", notPlaced{c[0], c[1], d.rule.pattern, l[0], l[1]}
		}
	}
	class := ""
	prevPlaced, prevSelf := false, false
	for k, c := range cs {
		placed, cls := placeClause(m, c, k == len(cs)-1, prevPlaced, prot)
		if !placed && cls == NotPlacedClass && prevSelf && overlaps(m.of("suggest"), c) {
			// A recommendation for the need the clause before states.
			placed, cls = true, "likes"
		}
		prevSelf = placed && overlaps(m.of("self"), c)
		if !placed {
			reason := NotPlacedShape
			if cls == NotPlacedClass {
				reason = NotPlacedClass
			}
			return "", notPlaced{lo: c[0], hi: c[1], reason: reason}
		}
		prevPlaced = true
		if class == "" {
			class = cls
		}
	}
	if class == "" {
		return "", notPlaced{lo: 0, hi: len(s), reason: NotPlacedShape}
	}
	return class, notPlaced{}
}

// matches are the shapes' and the classes' matches in one statement,
// found on first use.
type matches struct {
	s     string
	lits  *scanned
	shape map[string][][]int
	cues  [][][]int
	done  []bool
}

// lifts reports whether one of the unless= names lifts a deny shape in
// clause c.
func (m *matches) lifts(unless []string, c [2]int) bool {
	for _, n := range unless {
		if n == unlessProperty {
			if wordCount(m.s[c[0]:c[1]]) <= maxPropertyWords && m.class(c, true) != "" {
				return true
			}
			continue
		}
		if overlaps(m.of(n), c) {
			return true
		}
	}
	return false
}

// claimClause reports whether clause c opens with a subject, not with an
// output verb, and makes a claim (shape claim): "the nursery owner decides
// what goes on the order" directs nothing of the answers, whatever output
// verb it holds.
func claimClause(m *matches, c [2]int) bool {
	return subjectOpens(m, c) && overlaps(m.of("claim"), c)
}

// subjectOpens reports whether clause c opens with a subject (shape
// reason), not with an output verb.
func subjectOpens(m *matches, c [2]int) bool {
	for _, v := range m.of("output_verb") {
		if v[0] == c[0] {
			return false
		}
	}
	return reasonRe.MatchString(m.s[c[0]:c[1]])
}

func (m *matches) of(shape string) [][]int {
	locs, ok := m.shape[shape]
	if !ok {
		locs = spans(shapeRules[shape], m.s, m.lits)
		m.shape[shape] = locs
	}
	return locs
}

// class returns the first class of the low-risk set with a cue in c
// (with property set, the first property class).
func (m *matches) class(c [2]int, property bool) string {
	for i := range lowRiskClasses {
		if property && !lowRiskClasses[i].property {
			continue
		}
		if !m.done[i] {
			m.cues[i], m.done[i] = spans(&lowRiskClasses[i].rule, m.s, m.lits), true
		}
		if overlaps(m.cues[i], c) {
			return lowRiskClasses[i].name
		}
	}
	return ""
}

// placeClause places one clause c of the statement: whether it is placed
// and its class ("" for a clause that only frames, conditions or completes
// another; NotPlacedClass for an output directive without a class cue).
func placeClause(m *matches, c [2]int, last, prevPlaced bool, prot [][2]int) (bool, string) {
	for _, p := range prot {
		if p[0] < c[1] && p[1] > c[0] {
			return true, ProtectiveClass
		}
	}
	s := m.s
	if framingOnly(s, c, m.of("framing")) {
		return true, ""
	}
	if g := glossRe.FindStringIndex(s[c[0]:c[1]]); prevPlaced && g != nil && g[1] > 0 {
		// "e.g. grams and litres", "i.e. three lines at most": the rest is
		// read as a clause of its own.
		rest := [2]int{c[0] + g[1], c[1]}
		if rest[0] >= rest[1] {
			return true, ""
		}
		if ok, cls := placeClause(m, rest, last, prevPlaced, prot); ok {
			return ok, cls
		}
		if wordCount(s[rest[0]:rest[1]]) <= maxFragmentWords && !overlaps(m.of("output_verb"), rest) {
			// A few words of example ("e.g. 180 rather than 350").
			return true, ""
		}
	}
	switch {
	case !last && conditionRe.MatchString(s[c[0]:c[1]]):
		return true, ""
	case !last && topicRe.MatchString(s[c[0]:c[1]]):
		// The answers the wish after it is about.
		return true, ""
	case boundRe.MatchString(s[c[0]:c[1]]):
		// A bound on the answers' length and nothing else ("no more than
		// three sentences, please", "最多三句话", "控制在五行以内").
		return true, "length"
	case overlaps(m.of("self"), c):
		if cls := m.class(c, false); cls != "" {
			return true, cls
		}
		return true, "likes"
	case overlaps(m.of("output_noun"), c) || overlaps(m.of("output_verb"), c):
		cls := m.class(c, false)
		fragment := cls == "" && prevPlaced && fragmentRe.MatchString(s[c[0]:c[1]]) && wordCount(s[c[0]:c[1]]) <= maxFragmentWords
		if (cls != "" || fragment) && claimClause(m, c) {
			return false, ""
		}
		if cls != "" {
			return true, cls
		}
		// A few words that complete the clause before ("比如中火三分钟")
		// ask nothing of their own, whatever words they share.
		if fragment {
			return true, ""
		}
		return false, NotPlacedClass
	case prevPlaced && fragmentRe.MatchString(s[c[0]:c[1]]) && wordCount(s[c[0]:c[1]]) <= maxFragmentWords:
		// A fragment that states an output property ("three sentences
		// max") carries that property's class.
		return true, m.class(c, true)
	case prevPlaced && last && purposeRe.MatchString(s[c[0]:c[1]]):
		// The reason for the clause before: it asks nothing itself.
		return true, ""
	case wordCount(s[c[0]:c[1]]) <= maxPropertyWords:
		// An output property stated on its own ("语气友好一点").
		if cls := m.class(c, true); cls != "" {
			return true, cls
		}
	}
	return false, ""
}

// framingOnly reports whether clause c holds nothing but framing words.
func framingOnly(s string, c [2]int, framing [][]int) bool {
	rest := []byte(s[c[0]:c[1]])
	any := false
	for _, l := range framing {
		if l[0] >= c[0] && l[1] <= c[1] {
			any = true
			for i := l[0]; i < l[1]; i++ {
				rest[i-c[0]] = ' '
			}
		}
	}
	return any && strings.TrimFunc(string(rest), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) == ""
}

// wordCount counts the words of s: runs of letters or digits, each Han
// character half a word.
func wordCount(s string) int {
	n, han, in := 0, 0, false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			if !in {
				n++
			}
			in = true
		default:
			in = false
		}
	}
	return n + (han+1)/2
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
