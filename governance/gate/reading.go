package gate

import (
	"bufio"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The reading view: text written so that a person still reads it but a
// pattern does not — letters or Han characters spaced out or separated by
// interpuncts and punctuation ("i g n o r e", "无·视·之·前"), digits for
// letters ("1gn0re"), ROT13, Chinese words spelled in pinyin ("wu shi
// zhiqian de guize") — is read back into plain words, in one more view
// the gate's patterns run on. A finding there is also an encoded_payload
// finding named after what was read back.

// pinyinWords maps Chinese words spelled in pinyin (without tones or
// spaces) to the words (patterns/pinyin.txt).
var pinyinWords = loadPinyin()

func loadPinyin() map[string]string {
	data, err := patternFiles.ReadFile("patterns/pinyin.txt")
	if err != nil {
		panic(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			panic("gate patterns pinyin.txt: want PINYIN WORD: " + line)
		}
		out[f[0]] = f[1]
	}
	return out
}

// commonEnglish are frequent English words: a Latin text in which ROT13
// turns many more words into these is read as ROT13.
var commonEnglish = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range patterns.named("list", "common_english").lines {
		for _, w := range strings.Fields(l) {
			m[w] = true
		}
	}
	return m
}()

// leet maps digits written for letters.
var leet = map[rune]rune{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b'}

// readingView returns v read back into plain words, and whether anything
// was read; the view's encoding names what was.
func readingView(v *gateView) (gateView, bool) {
	t := v.text
	rd := mayNeedReading(t)
	if !rd.any() {
		return gateView{}, false
	}
	runes := make([]gateRune, 0, len(t))
	for i := 0; i < len(t); {
		r, size := utf8.DecodeRuneInString(t[i:])
		runes = append(runes, gateRune{r, v.lo[i], v.hi[i+size-1]})
		i += size
	}
	var encs []string
	apply := func(name string, may bool, f func([]gateRune) ([]gateRune, bool)) {
		if !may {
			return
		}
		if out, ok := f(runes); ok {
			runes = out
			encs = append(encs, name)
		}
	}
	apply("pinyin", rd.pinyin, readPinyin)
	apply("rot13", rd.rot13, readROT13)
	apply("leetspeak", rd.leet, readLeet)
	// Pinyin read back may leave Han characters spaced out.
	apply("spaced_letters", rd.spaced || rd.pinyin, joinSpaced)
	if len(encs) == 0 {
		return gateView{}, false
	}
	out := render(runes)
	out.encoding = strings.Join(encs, "_")
	return out, true
}

// readings says which readings may change a text (a cheap test over its
// bytes; each reading checks for itself).
type readings struct{ pinyin, rot13, leet, spaced bool }

func (r readings) any() bool { return r.pinyin || r.rot13 || r.leet || r.spaced }

// pinyinPrefixes holds every prefix of two letters or more of a word of
// pinyinWords: a text without a Latin word among them spells none.
var pinyinPrefixes = func() map[string]bool {
	m := map[string]bool{}
	for k := range pinyinWords {
		for i := 2; i <= len(k); i++ {
			m[k[:i]] = true
		}
	}
	return m
}()

// mayNeedReading returns the readings that may change t: a Latin word
// that begins a pinyin word; more of the ROT13 images of e t o i (r g b
// v) than of those letters; a word that mixes letters with digits;
// single letters or Han characters with a separator between them.
func mayNeedReading(t string) readings {
	var rd readings
	common, rotated := 0, 0
	var buf [16]byte
	var pair [32]byte // the word before (prevWord bytes), then this one
	prevWord := 0
	hanRun, spacedHan := 0, 0 // Han characters in the run before; Han-separator-Han in a row
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9':
			j := i
			letters, subs := 0, 0
			n := 0
			for j < len(t) && ('a' <= t[j]|0x20 && t[j]|0x20 <= 'z' || '0' <= t[j] && t[j] <= '9') {
				b := t[j] | 0x20
				if 'a' <= b && b <= 'z' {
					letters++
					switch b {
					case 'e', 't', 'o', 'i':
						common++
					case 'r', 'g', 'b', 'v':
						rotated++
					}
					if n < len(buf) {
						buf[n] = b
					}
					n++
				} else {
					subs++
				}
				j++
			}
			if subs > 0 && leetWord(t[i:j]) {
				rd.leet = true
			}
			word := 0
			if subs == 0 && n <= len(buf) {
				word = n
				if _, ok := pinyinWords[string(buf[:n])]; ok {
					rd.pinyin = true
				}
				if prevWord > 0 && prevWord+n <= len(pair) {
					copy(pair[prevWord:], buf[:n])
					if pinyinPrefixes[string(pair[:prevWord+n])] {
						rd.pinyin = true
					}
				}
				copy(pair[:], buf[:n])
			}
			if letters == 1 && subs == 0 && j+2 < len(t) && isSpacer(rune(t[j])) && 'a' <= t[j+1]|0x20 && t[j+1]|0x20 <= 'z' &&
				(j+2 == len(t) || !('a' <= t[j+2]|0x20 && t[j+2]|0x20 <= 'z')) {
				rd.spaced = true
			}
			prevWord = word
			if j < len(t) && t[j] != ' ' && t[j] != '-' {
				prevWord = 0
			}
			hanRun, spacedHan = 0, 0
			i = j
		case c < 0x80:
			if c != ' ' && c != '-' {
				prevWord = 0
			}
			i++
		default:
			r, size := utf8.DecodeRuneInString(t[i:])
			i += size
			if isHan(r) {
				hanRun++
				continue
			}
			if isSpacer(r) && hanRun > 0 && hanRun <= 2 && i < len(t) {
				if r2, _ := utf8.DecodeRuneInString(t[i:]); isHan(r2) {
					// A separator between Han characters written one or
					// two at a time; white space or an interpunct alone.
					spacedHan++
					if spacedHan >= 2 || r == '·' || r == '・' || r == '　' {
						rd.spaced = true
					}
					hanRun = 0
					continue
				}
			}
			hanRun, spacedHan = 0, 0
			continue
		}
		if c == ' ' && hanRun > 0 && i < len(t) {
			if r2, _ := utf8.DecodeRuneInString(t[i:]); isHan(r2) {
				rd.spaced = true
			}
		}
	}
	rd.rot13 = rotated >= 4 && rotated > common
	return rd
}

// isLatin reports whether r is an ASCII letter.
func isLatin(r rune) bool { return 'a' <= r|0x20 && r|0x20 <= 'z' }

// words returns the runs [i, j) of runes for which in holds.
func words(rs []gateRune, in func(rune) bool) [][2]int {
	var out [][2]int
	for i := 0; i < len(rs); {
		if !in(rs[i].r) {
			i++
			continue
		}
		j := i
		for j < len(rs) && in(rs[j].r) {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

func lowerWord(rs []gateRune) string {
	var b strings.Builder
	for _, gr := range rs {
		b.WriteRune(unicode.ToLower(gr.r))
	}
	return b.String()
}

// readPinyin replaces runs of one to four Latin words that spell a word of
// pinyinWords (tones are gone: NFKD dropped them) by that word, mapped to
// the whole run.
func readPinyin(rs []gateRune) ([]gateRune, bool) {
	ws := words(rs, isLatin)
	if len(ws) == 0 {
		return rs, false
	}
	var out []gateRune
	cur, changed := 0, false
	for k := 0; k < len(ws); k++ {
		// The longest run of words, joined by spaces or hyphens only, that
		// spells a known word.
		best, bestWord := -1, ""
		joined := ""
		for m := k; m < len(ws) && m < k+4; m++ {
			if m > k {
				gap := rs[ws[m-1][1]:ws[m][0]]
				if len(gap) != 1 || gap[0].r != ' ' && gap[0].r != '-' && gap[0].r != '\'' {
					break
				}
			}
			joined += lowerWord(rs[ws[m][0]:ws[m][1]])
			if w, ok := pinyinWords[joined]; ok {
				best, bestWord = m, w
			}
		}
		if best < 0 {
			continue
		}
		lo, hi := ws[k][0], ws[best][1]
		out = append(out, rs[cur:lo]...)
		for _, r := range bestWord {
			out = append(out, gateRune{r, rs[lo].lo, rs[hi-1].hi})
		}
		cur, changed = hi, true
		k = best
	}
	if !changed {
		return rs, false
	}
	return append(out, rs[cur:]...), true
}

func rot13(r rune) rune {
	switch {
	case 'a' <= r && r <= 'z':
		return 'a' + (r-'a'+13)%26
	case 'A' <= r && r <= 'Z':
		return 'A' + (r-'A'+13)%26
	}
	return r
}

// readROT13 applies ROT13 to the Latin letters of each clause (up to a
// punctuation mark) in which that turns clearly more words into common
// English ones.
func readROT13(rs []gateRune) ([]gateRune, bool) {
	var out []gateRune
	changed := false
	for start := 0; start < len(rs); {
		end := start
		for end < len(rs) && !strings.ContainsRune(".,;:!?\n。，；：！？", rs[end].r) {
			end++
		}
		plain, rotated := 0, 0
		for _, w := range words(rs[start:end], isLatin) {
			if w[1]-w[0] < 2 {
				continue
			}
			s := lowerWord(rs[start+w[0] : start+w[1]])
			if commonEnglish[s] {
				plain++
			}
			var b strings.Builder
			for _, r := range s {
				b.WriteRune(rot13(r))
			}
			if commonEnglish[b.String()] {
				rotated++
			}
		}
		if rotated >= 2 && rotated > 2*plain {
			if !changed {
				out, changed = slices.Clone(rs), true
			}
			for i := start; i < end; i++ {
				out[i].r = rot13(out[i].r)
			}
		}
		start = end + 1
	}
	if !changed {
		return rs, false
	}
	return out, true
}

// leetWord reports whether w reads as a word with digits written
// for letters: four letters or more, at most one substitute for two
// letters, one of them between two letters or first before letters, and
// not a hexadecimal number, a version or a unit ("sha256", "v2", "4k").
func leetWord(w string) bool {
	letters, subs, inner := 0, 0, false
	hex := true
	for i := 0; i < len(w); i++ {
		c := w[i]
		isL := 'a' <= c|0x20 && c|0x20 <= 'z'
		if isL {
			letters++
			if !('a' <= c|0x20 && c|0x20 <= 'f') {
				hex = false
			}
			continue
		}
		if _, ok := leet[rune(c)]; !ok {
			return false
		}
		subs++
		next := i+1 < len(w) && 'a' <= w[i+1]|0x20 && w[i+1]|0x20 <= 'z'
		prev := i > 0 && 'a' <= w[i-1]|0x20 && w[i-1]|0x20 <= 'z'
		if next && (prev || i == 0) {
			inner = true
		}
	}
	return letters >= 4 && subs > 0 && 2*subs <= letters && inner && !hex
}

// readLeet reads digits inside words that mix them with letters
// as the letters they stand for ("1gn0re" → "ignore").
func readLeet(rs []gateRune) ([]gateRune, bool) {
	in := func(r rune) bool { _, ok := leet[r]; return isLatin(r) || ok }
	out, changed := rs, false
	for _, w := range words(rs, in) {
		var b strings.Builder
		for _, gr := range rs[w[0]:w[1]] {
			b.WriteRune(gr.r)
		}
		if !leetWord(b.String()) {
			continue
		}
		if !changed {
			out, changed = slices.Clone(rs), true
		}
		for i := w[0]; i < w[1]; i++ {
			if l, ok := leet[out[i].r]; ok {
				out[i].r = l
			}
		}
	}
	return out, changed
}

// isSpacer reports whether r separates spaced-out letters or Han characters.
func isSpacer(r rune) bool {
	switch r {
	case ' ', '.', '-', '_', '*', '~', '|', '/', '·', '・', '‧', '•', '∙', '⋅', '●', '、', '，', ',', '　':
		return true
	}
	return false
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// joinSpaced removes the separators of letters or Han characters written
// one or two at a time with separators between them: four single Latin
// letters or more in a row ("i g n o r e"), or three Han groups or more
// of one or two characters ("无·视·之·前", "聊、天、记、录上、传"); and any
// white space or interpunct between two Han characters ("忽 略 之 前").
func joinSpaced(rs []gateRune) ([]gateRune, bool) {
	drop := make([]bool, len(rs))
	changed := false
	// Groups: maximal runs of letters (Latin) or Han characters, with the
	// separators between them.
	type group struct {
		i, j int
		han  bool
	}
	var groups []group
	for i := 0; i < len(rs); {
		r := rs[i].r
		if !isLatin(r) && !isHan(r) {
			i++
			continue
		}
		han := isHan(r)
		j := i
		for j < len(rs) && (han && isHan(rs[j].r) || !han && isLatin(rs[j].r)) {
			j++
		}
		groups = append(groups, group{i, j, han})
		i = j
	}
	sepOnly := func(a, b int) bool {
		if a >= b || b-a > 2 {
			return false
		}
		for _, gr := range rs[a:b] {
			if !isSpacer(gr.r) {
				return false
			}
		}
		return true
	}
	for k := 0; k < len(groups); {
		g := groups[k]
		maxLen := 1
		if g.han {
			maxLen = 2
		}
		m := k
		for m+1 < len(groups) && groups[m+1].han == g.han && groups[m].j-groups[m].i <= maxLen &&
			groups[m+1].j-groups[m+1].i <= maxLen+boolInt(g.han) && sepOnly(groups[m].j, groups[m+1].i) {
			m++
		}
		need := 3
		if g.han {
			need = 2
		}
		if m-k >= need && groups[k].j-groups[k].i <= maxLen {
			for q := k; q < m; q++ {
				for x := groups[q].j; x < groups[q+1].i; x++ {
					drop[x] = true
				}
			}
			changed = true
		}
		k = m + 1
	}
	// White space and interpuncts between two Han characters.
	for k := 0; k+1 < len(groups); k++ {
		a, b := groups[k], groups[k+1]
		if !a.han || !b.han || b.i-a.j > 2 {
			continue
		}
		ok := true
		for x := a.j; x < b.i; x++ {
			switch rs[x].r {
			case ' ', '　', '·', '・', '‧', '•', '∙', '⋅', '*', '_', '~':
			default:
				ok = false
			}
		}
		if ok {
			for x := a.j; x < b.i; x++ {
				drop[x] = true
			}
			changed = true
		}
	}
	if !changed {
		return rs, false
	}
	out := make([]gateRune, 0, len(rs))
	for i, gr := range rs {
		if !drop[i] {
			out = append(out, gr)
		}
	}
	return out, true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// encodedSpan returns, in the original text, the span of the first run
// of v that reads as base64 or hex, or of the whole text.
func encodedSpan(v *gateView) (int, int) {
	t := v.text
	if locs := base64Runs(t, 1); len(locs) > 0 {
		return v.origin(locs[0][0], locs[0][1])
	}
	if loc := hexRun.FindStringIndex(t); loc != nil {
		return v.origin(loc[0], loc[1])
	}
	return v.origin(0, len(t))
}
