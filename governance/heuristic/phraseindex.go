package heuristic

import (
	"strings"
	"unicode/utf8"
)

// A phrase list is searched once per text, not once per phrase: the
// phrases of a registered list are indexed by their first rune, and a
// search walks the text once, trying at each position only the phrases
// that start with the rune there. Lists are registered while the package
// loads (every cue file, and the marker rules' long lists) and never change
// after, so the indexes are read without locks; an unregistered list is
// searched phrase by phrase.

type phraseIndex struct {
	ascii  [128][]string     // phrases by first byte, longest first
	byRune map[rune][]string // the others by first rune, longest first
}

type listKey struct {
	first *string
	n     int
}

var phraseIndexes = map[listKey]*phraseIndex{}

// indexed registers list for indexed search and returns it.
func indexed(list []string) []string {
	if len(list) == 0 {
		return list
	}
	registerCombined(list)
	if len(list) < 8 {
		return list
	}
	idx := &phraseIndex{byRune: map[rune][]string{}}
	for _, p := range list {
		if p == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(p)
		if r < 128 {
			idx.ascii[r] = insertLongestFirst(idx.ascii[r], p)
		} else {
			idx.byRune[r] = insertLongestFirst(idx.byRune[r], p)
		}
	}
	phraseIndexes[listKey{&list[0], len(list)}] = idx
	return list
}

func insertLongestFirst(ps []string, p string) []string {
	ps = append(ps, p)
	for j := len(ps) - 1; j > 0 && len(ps[j]) > len(ps[j-1]); j-- {
		ps[j], ps[j-1] = ps[j-1], ps[j]
	}
	return ps
}

// indexOf returns the index of a registered list, or nil.
func indexOf(list []string) *phraseIndex {
	if len(list) < 8 {
		return nil
	}
	return phraseIndexes[listKey{&list[0], len(list)}]
}

// at returns the longest phrase of the index at byte i of s (ok reports a
// hit); word boundaries are checked when words is set.
func (idx *phraseIndex) at(s string, i int, words bool) (string, bool) {
	var ps []string
	if c := s[i]; c < 128 {
		ps = idx.ascii[c]
	} else {
		r, _ := utf8.DecodeRuneInString(s[i:])
		ps = idx.byRune[r]
	}
	for _, p := range ps {
		if !strings.HasPrefix(s[i:], p) {
			continue
		}
		if words && !boundedAt(s, i, p) {
			continue
		}
		return p, true
	}
	return "", false
}

// first returns the offset and phrase of the earliest hit, or -1.
func (idx *phraseIndex) first(s string, words bool) (int, string) {
	for i := 0; i < len(s); {
		if p, ok := idx.at(s, i, words); ok {
			return i, p
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return -1, ""
}

// blank replaces every hit, leftmost-longest, with filler runes of the
// same width in runes (fill is one byte).
func (idx *phraseIndex) blank(s string, words bool, fill byte) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if p, ok := idx.at(s, i, words); ok {
			if b.Len() == 0 && last == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:i])
			n := len(p)
			if fill == '_' {
				n = utf8.RuneCountInString(p)
			}
			for range n {
				b.WriteByte(fill)
			}
			i += len(p)
			last = i
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// boundedAt reports whether phrase at byte i of lower stands at word
// boundaries (a side of the phrase that is not a letter needs none).
func boundedAt(lower string, i int, phrase string) bool {
	needLeft := isWordByte(phrase[0]) && phrase[0] != '\''
	needRight := isWordByte(phrase[len(phrase)-1])
	j := i + len(phrase)
	return (!needLeft || i == 0 || !isLetterByte(lower[i-1])) && (!needRight || j == len(lower) || !isLetterByte(lower[j]))
}

// The marker rules' long lists, searched indexed too.
func init() {
	for _, l := range [][]string{durableZH, durableEN, oneOffZH, oneOffEN, taskScopeEN, taskScopeZH, directiveZH, modalEN, wishZH, wishEN,
		likeZH, likeEN, weatherZH, weatherEN, smallTalkZH, smallTalkEN, fillersZH, fillersEN, familyZH, fillers,
		standingOpenersEN, standingPhrasesEN, notStandingEN, standingOpenersZH, standingPhrasesZH, notStandingZH,
		standingFillersEN, standingFillersZH, projectScopesEN, universalZH, obligationZH, projectRuleZH,
		modalZH, notModalZH, complaintZH, describedZH, thisZH, projectZH, chatterZH, pastZH, frequencyZH, notLaterZH} {
		indexed(l)
	}
}

// One pass over a sentence finds the hits of every registered list at
// once (scanHits): the reader asks a dozen lists about the same sentence,
// and each question is then a bit test.

type combinedEntry struct {
	p  string
	id int
}

var (
	listIDs       = map[listKey]int{}
	combined1     [128][]combinedEntry                    // one-byte phrases
	combinedASCII [128 * 128][]combinedEntry              // by the first two bytes, both ASCII
	combinedHan   [hanLast - hanFirst + 1][]combinedEntry // by the first rune, a CJK ideograph
	combinedRune  = map[rune][]combinedEntry{}            // by the first rune, the others
	combinedLists [][]string
)

const (
	maxLists = 256
	hanFirst = 0x4E00
	hanLast  = 0x9FFF
)

func registerCombined(list []string) {
	k := listKey{&list[0], len(list)}
	if _, ok := listIDs[k]; ok {
		return
	}
	if len(combinedLists) == maxLists {
		panic("heuristic: more cue lists than the one-pass search holds; raise maxLists")
	}
	id := len(combinedLists)
	listIDs[k] = id
	combinedLists = append(combinedLists, list)
	for _, p := range list {
		switch {
		case p == "":
		case len(p) == 1:
			if p[0] < 128 {
				combined1[p[0]] = append(combined1[p[0]], combinedEntry{p, id})
			}
		case p[0] < 128 && p[1] < 128:
			key := int(p[0])<<7 | int(p[1])
			combinedASCII[key] = append(combinedASCII[key], combinedEntry{p, id})
		case p[0] < 128:
			// An ASCII byte then a rune: found by its first byte alone.
			combined1[p[0]] = append(combined1[p[0]], combinedEntry{p, id})
		default:
			r, _ := utf8.DecodeRuneInString(p)
			if r >= hanFirst && r <= hanLast {
				combinedHan[r-hanFirst] = append(combinedHan[r-hanFirst], combinedEntry{p, id})
			} else {
				combinedRune[r] = append(combinedRune[r], combinedEntry{p, id})
			}
		}
	}
}

// hits are the registered lists with a hit in one text: as a substring
// (sub) and at word boundaries (word).
type hits struct {
	s         string
	sub, word [maxLists / 64]uint64
}

func scanHits(s string) *hits { return scan(s, false) }

// scanWordHits is scanHits for English text read at word boundaries only
// (hasWord): positions inside a word are skipped.
func scanWordHits(s string) *hits { return scan(s, true) }

func scan(s string, words bool) *hits {
	h := &hits{s: s}
	h.scan(words)
	return h
}

func (h *hits) scan(words bool) {
	s := h.s
	for i := 0; i < len(s); i++ {
		c := s[i]
		if words && i > 0 && isLetterByte(c) && isLetterByte(s[i-1]) {
			continue
		}
		var es []combinedEntry
		switch {
		case c < 128:
			for _, e := range combined1[c] {
				if strings.HasPrefix(s[i:], e.p) {
					h.set(i, e)
				}
			}
			if i+1 >= len(s) || s[i+1] >= 128 {
				continue
			}
			es = combinedASCII[int(c)<<7|int(s[i+1])]
		case c < 0xC0:
			continue // inside a rune: no phrase starts here
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			if r >= hanFirst && r <= hanLast {
				es = combinedHan[r-hanFirst]
			} else {
				es = combinedRune[r]
			}
		}
		for _, e := range es {
			if strings.HasPrefix(s[i:], e.p) {
				h.set(i, e)
			}
		}
	}
}

func (h *hits) set(i int, e combinedEntry) {
	h.sub[e.id>>6] |= 1 << (e.id & 63)
	if boundedAt(h.s, i, e.p) {
		h.word[e.id>>6] |= 1 << (e.id & 63)
	}
}

// has reports a substring hit of list (containsAny).
func (h *hits) has(list []string) bool {
	if id, ok := h.id(list); ok {
		return h.sub[id>>6]&(1<<(id&63)) != 0
	}
	return containsAny(h.s, list)
}

// hasWord reports a hit of list at word boundaries (anyEN); with
// scanWordHits the only hits are such.
func (h *hits) hasWord(list []string) bool {
	if id, ok := h.id(list); ok {
		return h.word[id>>6]&(1<<(id&63)) != 0
	}
	return anyEN(h.s, list)
}

func (h *hits) id(list []string) (int, bool) {
	if len(list) == 0 {
		return 0, false
	}
	id, ok := listIDs[listKey{&list[0], len(list)}]
	return id, ok
}

// zh reports a substring hit of the set's Chinese list; en a hit of its
// English list at word boundaries.
func (h *hits) zh(c cueSet) bool { return h.sub[c.zhID>>6]&(1<<(c.zhID&63)) != 0 }
func (h *hits) en(c cueSet) bool { return h.word[c.enID>>6]&(1<<(c.enID&63)) != 0 }
