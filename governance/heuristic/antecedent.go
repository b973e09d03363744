package heuristic

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A rule that names a thing of the sentence before it by a pronoun ("I
// don't like emojis. Please leave them out from now on.", 我不喜欢表情符号。
// 以后都别用它们了。) must say what the pronoun stands for: a rule of "leave
// them out" tells a reviewer and a later recall nothing. The antecedent is
// a noun phrase of the sentence before: the object of a verb of liking or
// wanting (antecedent_object), or the subject before a predicate
// (antecedent_subject) when the sentence opens with no personal pronoun.
// When exactly one such phrase can be meant (in English, one of the
// pronoun's number; never a person for "it", 它, 这个), the pronoun is
// replaced by it; otherwise the rule keeps the sentence before it.

var (
	cueAntecedentObjectEN  = loadCues("antecedent_object.en")
	cueAntecedentSubjectEN = loadCues("antecedent_subject.en")
	cueAntecedentObjectZH  = loadCues("antecedent_object.zh")
	cueAntecedentSubjectZH = loadCues("antecedent_subject.zh")
)

// pronoun is a pronoun of a rule that stands for a thing said before.
type pronoun struct {
	start, end int // byte offsets in the sentence
	plural     bool
	// personal: "them", "they", "it", 它, 它们 — with no antecedent found,
	// the rule keeps the sentence before it. A demonstrative (这个, 那些)
	// may stand for what was said, which the back-references read.
	personal bool
	// thing: the pronoun stands for no person ("it", 它, 这个).
	thing bool
}

// resolvePronoun rewrites sentence, a rule after prev, with its pronoun
// replaced by the noun phrase of prev it stands for. found reports that
// the sentence holds such a pronoun; ok that its antecedent is the one
// phrase of prev it can be.
func resolvePronoun(prev, sentence string) (out string, found, ok bool) {
	var p pronoun
	var nps []string
	if hasHan(sentence) {
		if !hasHan(prev) {
			return "", false, false
		}
		if p, found = pronounZH(sentence); !found || strings.ContainsAny(sentence[:p.start], "，,：:") {
			return "", false, false // 收到发票，就把它存起来: its own
		}
		nps = nounPhrasesZH(prev)
	} else {
		if hasHan(prev) {
			return "", false, false
		}
		if p, found = pronounEN(sentence); !found || ownAntecedentEN(sentence[:p.start], p) {
			return "", false, false
		}
		nps = nounPhrasesEN(prev)
	}
	var match []string
	for _, np := range nps {
		if p.thing && namesPerson(np) {
			continue
		}
		if !hasHan(np) && p.plural != pluralEN(np) {
			continue
		}
		match = append(match, np)
	}
	if len(match) != 1 {
		return "", true, false
	}
	np := match[0]
	if !hasHan(np) {
		np = caseAt(np, p.start == 0)
	}
	return sentence[:p.start] + np + sentence[p.end:], true, true
}

// namesPerson reports whether a noun phrase names a person by a noun (my
// kids, 孩子们).
func namesPerson(np string) bool {
	if hasHan(np) {
		return containsAny(np, cuePersonNounsZH)
	}
	l := lowerASCII(np)
	for _, w := range strings.Fields(l) {
		w = strings.TrimSuffix(w, "s")
		for _, n := range cuePersonNounsEN {
			if w == n || w+"s" == n {
				return true
			}
		}
	}
	return false
}

// pronounEN finds "them", "they" or an object "it" ("leave it out", "stick
// to it"; not "it is", "keep it short").
func pronounEN(s string) (pronoun, bool) {
	l := lowerASCII(strings.ReplaceAll(s, "’", "'"))
	if len(l) != len(s) {
		return pronoun{}, false
	}
	words := wordSpans(l)
	for i, w := range words {
		switch word := l[w[0]:w[1]]; word {
		case "them", "they":
			return pronoun{start: w[0], end: w[1], plural: true, personal: true}, true
		case "it":
			if i == 0 || i+1 < len(words) && strings.HasPrefix(l[words[i+1][0]:], "is") {
				continue
			}
			if i+1 == len(words) || strings.ContainsAny(l[w[1]:words[i+1][0]], ",.;:!?") {
				return pronoun{start: w[0], end: w[1], personal: true, thing: true}, true
			}
			switch l[words[i+1][0]:words[i+1][1]] {
			case "out", "off", "away", "up", "down", "aside", "back", "from", "in", "on", "for", "again", "every", "always", "going":
				return pronoun{start: w[0], end: w[1], personal: true, thing: true}, true
			}
		}
	}
	return pronoun{}, false
}

// wordSpans are the byte spans of the words (letters and apostrophes) of
// a lower-case sentence.
func wordSpans(l string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range l {
		in := unicode.IsLetter(r) || r == '\''
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(l)})
	}
	return out
}

// npBreakersEN end a noun phrase: prepositions, conjunctions of clauses,
// adverbs of degree.
var npBreakersEN = map[string]bool{
	"in": true, "on": true, "at": true, "for": true, "with": true, "from": true, "by": true, "when": true, "because": true,
	"since": true, "if": true, "unless": true, "that": true, "which": true, "who": true, "while": true, "during": true,
	"before": true, "after": true, "about": true, "than": true, "so": true, "but": true, "as": true, "to": true,
	"very": true, "much": true, "anymore": true, "either": true, "too": true, "at all": true, "is": true, "are": true,
	"was": true, "were": true, "really": true, "all": true, "though": true, "honestly": true, "there": true,
}

// personalEN are the pronouns a sentence that names its subject by no
// noun phrase opens with.
var personalEN = map[string]bool{"i": true, "we": true, "you": true, "he": true, "she": true, "it": true, "they": true,
	"this": true, "that": true, "there": true, "i'm": true, "we're": true, "it's": true, "that's": true, "i've": true,
	"honestly": true, "please": true, "also": true, "and": true, "but": true, "so": true, "ugh": true}

// nounPhrasesEN are the phrases of an English sentence a later pronoun may
// stand for: the object of a verb of liking or wanting, the subject before
// a predicate.
func nounPhrasesEN(raw string) []string {
	l := lowerASCII(strings.ReplaceAll(raw, "’", "'"))
	if len(l) != len(raw) {
		return nil
	}
	words := wordSpans(l)
	if len(words) == 0 {
		return nil
	}
	var out []string
	// The subject: the words before the first verb of a predicate.
	if !personalEN[l[words[0][0]:words[0][1]]] {
		for i := 1; i < len(words) && i <= 4; i++ {
			if slices.Contains(cueAntecedentSubjectEN, l[words[i][0]:words[i][1]]) {
				if np := strings.TrimSpace(raw[words[0][0]:words[i-1][1]]); !strings.ContainsAny(np, ",;:") {
					out = append(out, np)
				}
				break
			}
		}
	}
	// The object of the first verb of liking or wanting.
	at, end := -1, -1
	for _, v := range cueAntecedentObjectEN {
		if k := phraseAt(l, v); k >= 0 && (at < 0 || k < at) {
			at, end = k, k+len(v)
		}
	}
	if at < 0 {
		return out
	}
	var first, last = -1, -1
	for _, w := range words {
		if w[0] < end {
			continue
		}
		if first >= 0 && strings.ContainsAny(l[last:w[0]], ",.;:!?\"()") || first < 0 && strings.ContainsAny(l[end:w[0]], ",.;:!?\"()") {
			break
		}
		word := l[w[0]:w[1]]
		if npBreakersEN[word] || stopEN[word] && word != "the" && word != "my" && word != "our" && word != "and" && word != "or" && word != "any" {
			if first < 0 && (word == "it" || word == "that" || word == "this" || word == "when" || word == "to" || word == "how") {
				return out // a clause, not a thing: "I hate it when …"
			}
			if first >= 0 || npBreakersEN[word] {
				break
			}
			continue
		}
		if first < 0 && strings.HasSuffix(word, "ing") && word != "thing" && word != "things" {
			continue // "I hate getting long emails": the emails
		}
		if first < 0 {
			first = w[0]
		}
		last = w[1]
	}
	if first >= 0 {
		np := strings.TrimSpace(raw[first:last])
		for _, c := range []string{" and", " or"} {
			np = strings.TrimSuffix(np, c)
		}
		if n := len(strings.Fields(np)); n > 0 && n <= 6 && !slices.Contains(out, np) {
			out = append(out, np)
		}
	}
	return out
}

// pluralEN reports whether a noun phrase is plural: its head ends in an s
// (not "ss", "us", "is"), a plural without one, or phrases joined by
// "and"/"or".
func pluralEN(np string) bool {
	l := lowerASCII(np)
	if strings.Contains(l, " and ") || strings.Contains(l, " or ") {
		return true
	}
	f := strings.Fields(l)
	head := f[len(f)-1]
	switch head {
	case "people", "children", "men", "women", "feet", "teeth", "mice", "geese", "data", "media", "staff", "police":
		return true
	}
	switch head {
	case "this", "is", "was", "has", "does", "news", "series":
		return false
	}
	return strings.HasSuffix(head, "s") && !strings.HasSuffix(head, "ss") && !strings.HasSuffix(head, "us") && !strings.HasSuffix(head, "sis")
}

// pronounZH finds 它们, 它, or a demonstrative standing alone (这个, 那些, 这种
// before a particle, a punctuation mark, 都 or 也, or the end: 别用这个了; not
// 这个会).
func pronounZH(s string) (pronoun, bool) {
	if k := strings.Index(s, "它们"); k >= 0 {
		return pronoun{start: k, end: k + len("它们"), plural: true, personal: true, thing: true}, true
	}
	if k := strings.Index(s, "它"); k >= 0 && !strings.HasSuffix(s[:k], "其") {
		return pronoun{start: k, end: k + len("它"), personal: true, thing: true}, true
	}
	for _, d := range []string{"这些", "那些", "这个", "那个", "这种", "那种"} {
		for off := 0; ; {
			k := strings.Index(s[off:], d)
			if k < 0 {
				break
			}
			k += off
			off = k + len(d)
			rest := s[off:]
			r, _ := utf8.DecodeRuneInString(rest)
			if rest == "" || strings.ContainsRune("了吧啊呢。，！？,.!?都也", r) {
				return pronoun{start: k, end: off, thing: true}, true
			}
		}
	}
	return pronoun{}, false
}

// nounPhrasesZH are the phrases of a Chinese sentence a later pronoun may
// stand for: the object of a verb of liking, the subject before a
// predicate when the sentence opens with no personal pronoun.
func nounPhrasesZH(s string) []string {
	var out []string
	cut := func(t string) string {
		if k := strings.IndexAny(t, "，。！？；,.!?;：:"); k >= 0 {
			t = t[:k]
		}
		for _, w := range []string{"了", "的时候", "因为", "吧", "啊", "呢"} {
			if k := strings.Index(t, w); k >= 0 {
				t = t[:k]
			}
		}
		return strings.TrimSpace(t)
	}
	personal := false
	for _, p := range []string{"我", "咱", "你", "他", "她", "它", "这", "那", "说实话", "其实", "老实说"} {
		if strings.HasPrefix(s, p) {
			personal = true
		}
	}
	if !personal {
		k := -1
		for _, v := range append(cueAntecedentSubjectZH, cueAntecedentObjectZH...) {
			if j := strings.Index(s, v); j > 0 && (k < 0 || j < k) {
				k = j
			}
		}
		subj := cut(s[:max(k, 0)])
		for _, w := range []string{"在", "对", "给", "跟"} {
			if j := strings.Index(subj, w); j > 0 {
				subj = subj[:j]
			}
		}
		if k > 0 && utf8.RuneCountInString(subj) <= 8 {
			out = append(out, subj)
		}
	}
	at, end := -1, -1
	for _, v := range cueAntecedentObjectZH {
		if k := strings.Index(s, v); k >= 0 && (at < 0 || k < at || k == at && k+len(v) > end) {
			at, end = k, k+len(v)
		}
	}
	if at >= 0 {
		obj := cut(s[end:])
		for _, v := range []string{"看到", "收到", "看", "听", "读", "用", "吃"} {
			obj = strings.TrimPrefix(obj, v)
		}
		if n := utf8.RuneCountInString(obj); n > 0 && n <= 10 && !slices.Contains(out, obj) {
			out = append(out, obj)
		}
	}
	return out
}

// pronounPersonal reports whether a sentence's pronoun is a personal one
// (them, it, 它们), which says nothing without its antecedent.
func pronounPersonal(s string) bool {
	var p pronoun
	if hasHan(s) {
		p, _ = pronounZH(s)
	} else {
		p, _ = pronounEN(s)
	}
	return p.personal
}

// caseAt writes a noun phrase for its place: capitalised opening a
// sentence; elsewhere a phrase that opened its own sentence loses its
// capital when it reads as a common noun — a later word in lower case, or
// one plural word ("Long tables" → "long tables", "Emojis" → "emojis";
// "Google Docs" stays).
func caseAt(np string, opening bool) string {
	if opening {
		return strings.ToUpper(np[:1]) + np[1:]
	}
	f := strings.Fields(np)
	if len(np) < 2 || np[0] < 'A' || np[0] > 'Z' || np[1] < 'a' || np[1] > 'z' {
		return np
	}
	common := len(f) == 1 && pluralEN(np)
	for _, w := range f[1:] {
		if 'a' <= w[0] && w[0] <= 'z' {
			common = true
		}
	}
	if common {
		return strings.ToLower(np[:1]) + np[1:]
	}
	return np
}

// ownAntecedentEN reports whether the words of a rule before its pronoun
// hold what it stands for ("when you write migrations, make them
// idempotent"): a plural word for "them", a word after a comma or colon
// that is no function word for "it" ("When a PDF arrives, rename it").
func ownAntecedentEN(before string, p pronoun) bool {
	l := lowerASCII(before)
	for _, w := range wordSpans(l) {
		word := l[w[0]:w[1]]
		if stopEN[word] || slices.Contains(functionWordsEN, word) {
			continue
		}
		if p.plural && pluralEN(word) {
			return true
		}
		if !p.plural && strings.ContainsAny(l[:w[0]], ",:") && !slices.Contains(cueVerbs.en, word) {
			return true
		}
	}
	return false
}
