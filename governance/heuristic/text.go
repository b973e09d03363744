package heuristic

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// sentence is one sentence of a message, without its terminator.
type sentence struct {
	text     string
	question bool
}

// splitSentences appends the sentences of s to dst. It splits on Chinese and
// English terminators and on line breaks; an English full stop ends a
// sentence only when followed by a space or the end of the text, so "1.26"
// and "due_test.go" stay whole.
func splitSentences(dst []sentence, s string) []sentence {
	tokenizer.Sentences(s, func(start, end, _ int, question bool) bool {
		dst = appendSentence(dst, s[start:end], question)
		return true
	})
	return dst
}

// splitTurn appends the sentences of a user's turn to dst, as
// splitSentences does, except that a full stop after an abbreviation ("Dr.",
// "e.g.") or inside a quotation does not end the sentence: "Address me as
// Dr. Okafor" stays whole, and so does a quoted sentence with what is said
// of it.
func splitTurn(dst []sentence, s string) []sentence {
	start := -1
	question := false
	tokenizer.Sentences(s, func(from, end, next int, q bool) bool {
		if start < 0 {
			start = from
		}
		question = question || q
		// A semicolon joins clauses of one sentence ("Bins go out Sunday
		// night; remind me every week").
		semicolon := strings.HasPrefix(s[end:next], ";") || strings.HasPrefix(s[end:next], "；")
		if next < len(s) && (semicolon || endsWithAbbreviation(s[start:end], s[end:next], s[next:]) || openQuote(s[start:end])) {
			return true
		}
		dst = appendTurnSentence(dst, s[start:end], question)
		start, question = -1, false
		return true
	})
	if start >= 0 {
		dst = appendTurnSentence(dst, s[start:], question)
	}
	return dst
}

// appendTurnSentence appends a sentence trimmed of spaces, and of quotation
// marks only when they are unpaired: 'Sign off as "The Support Team"' keeps
// its closing quote.
func appendTurnSentence(dst []sentence, s string, question bool) []sentence {
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\u3000' })
	if openQuote(s) || strings.Count(s, "”") > strings.Count(s, "“") {
		s = trimSpaceQuotes(s)
	}
	if s == "" {
		return dst
	}
	return append(dst, sentence{text: s, question: question})
}

// endsWithAbbreviation reports whether a sentence cut at a full stop ends in
// an abbreviation or an initial (tokenizer.Abbreviated: the write gate's
// clauses read the same list), so the text after goes on with it.
func endsWithAbbreviation(text, terminator, after string) bool {
	return tokenizer.Abbreviated(text, terminator, after)
}

// openQuote reports whether text opens a quotation it does not close:
// no sentence ends inside quotes ("End every reply with 'Cheers, R.'").
func openQuote(text string) bool {
	return strings.Count(text, "“") > strings.Count(text, "”") || strings.Count(text, "「") > strings.Count(text, "」") ||
		strings.Count(text, "『") > strings.Count(text, "』") || strings.Count(text, "‘") > strings.Count(text, "’") ||
		strings.Count(text, `"`)%2 == 1 || openSingleQuote(text)
}

// openSingleQuote reports whether text ends inside a '…' quotation: one
// opens after a space, a bracket or at the start and closes after a letter,
// a digit or a full stop, before no letter, so an apostrophe ("don't",
// "Ana's", "users' notes") is not taken for one.
func openSingleQuote(text string) bool {
	open := false
	for i := 0; i < len(text); i++ {
		if text[i] != '\'' {
			continue
		}
		before := byte(' ')
		if i > 0 {
			before = text[i-1]
		}
		after := byte(' ')
		if i+1 < len(text) {
			after = text[i+1]
		}
		switch {
		case !open && (before == ' ' || before == '(' || before == '\t' || i == 0) && after != ' ':
			open = true
		case open && (isLetterByte(before) || isDigitByte(before) || before == '.' || before == '!' || before == '?') && !isLetterByte(after):
			open = false
		}
	}
	return open
}

func isDigitByte(b byte) bool { return '0' <= b && b <= '9' }

func appendSentence(dst []sentence, s string, question bool) []sentence {
	s = trimSpaceQuotes(s)
	if s == "" {
		return dst
	}
	return append(dst, sentence{text: s, question: question})
}

func trimSpaceQuotes(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '“' || r == '”' || r == '\u3000'
	})
}

// splitClauses splits a sentence on commas (Chinese and English).
func splitClauses(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == '，' || r == ',' || r == '、' || r == '：' || r == ':'
	})
}

// isSep reports whether r separates a leading filler from the rest.
func isSep(r rune) bool {
	return r == '，' || r == ',' || r == ' ' || r == '、' || r == '：' || r == ':' || r == '\u3000' || r == '—' || r == '-'
}

// stripLeading removes leading fillers ("对了，", "And ", "By the way,")
// from s, repeatedly. A filler is removed only when a separator follows it,
// so "还是带女儿" keeps its "还是". It compares case-insensitively for ASCII.
func stripLeading(s string, fillers []string) string {
	for {
		trimmed := strings.TrimLeftFunc(s, isSep)
		changed := len(trimmed) != len(s)
		s = trimmed
		for _, f := range fillers {
			if len(s) <= len(f) || !hasPrefixFold(s, f) {
				continue
			}
			r, _ := utf8.DecodeRuneInString(s[len(f):])
			if !isSep(r) {
				continue
			}
			s = s[len(f):]
			changed = true
			break
		}
		if !changed {
			return s
		}
	}
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		a, b := s[i], prefix[i]
		if a == b {
			continue
		}
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// hasLatin reports whether s contains an ASCII letter.
func hasLatin(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; 'a' <= c && c <= 'z' {
			return true
		}
	}
	return false
}

// trimTrailing removes closing particles and punctuation.
func trimTrailing(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool {
		switch r {
		case '吧', '啊', '呀', '哈', '啦', '嘛', '哦', '呢', '~', '～', '，', ',', '、', '…', '.', ' ':
			return true
		}
		return unicode.IsSpace(r)
	})
}

// lowerASCII lowercases ASCII letters, returning s itself when it has none
// in upper case (the common case for Chinese text: no allocation).
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// hasWord reports whether lower contains phrase at word boundaries (for
// English phrases; the caller lowercased both).
func hasWord(lower, phrase string) bool {
	for off := 0; ; {
		i := strings.Index(lower[off:], phrase)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(phrase)
		if (i == 0 || !isWordByte(lower[i-1])) && (j == len(lower) || !isWordByte(lower[j])) {
			return true
		}
		off = i + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '\'' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// containsAny reports whether s contains any of the substrings (Chinese).
func containsAny(s string, subs []string) bool {
	if idx := indexOf(subs); idx != nil {
		i, _ := idx.first(s, false)
		return i >= 0
	}
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// hasAnyWord reports whether lower contains any phrase at word boundaries.
func hasAnyWord(lower string, phrases []string) bool {
	for _, p := range phrases {
		if hasWord(lower, p) {
			return true
		}
	}
	return false
}

// hasHan reports whether s contains a Han character.
func hasHan(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 && unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// truncateRunes shortens s to at most n runes, marking the cut with "…".
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n-1; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
}

// foldWidth maps full-width ASCII forms (Ｕ+FF01..FF5E) and the ideographic
// space to their narrow forms, so "１４：００" and "14:00" compare equal.
func foldWidth(s string) string {
	wide := false
	for _, r := range s {
		if r == '\u3000' || r >= 0xFF01 && r <= 0xFF5E && !keepWide(r) {
			wide = true
			break
		}
	}
	if !wide {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\u3000':
			return ' '
		case r >= 0xFF01 && r <= 0xFF5E && !keepWide(r):
			return r - 0xFF01 + 0x21
		}
		return r
	}, s)
}

// keepWide: the Chinese comma, exclamation and question marks, semicolon,
// colon and parentheses stay as they are, so statements keep their Chinese
// punctuation.
func keepWide(r rune) bool {
	switch r {
	case '，', '！', '？', '；', '：', '（', '）':
		return true
	}
	return false
}

// Time and amount canonicalisation, so that "下午两点到四点", "14:00-16:00"
// and "2-4pm" become the same "14:00–16:00" for statements and for merging.
var (
	zhNum      = `([0-9]{1,2}|[零一二两三四五六七八九十]{1,3})`
	zhPeriod   = `(上午|早上|早晨|中午|下午|傍晚|晚上)?`
	zhMinute   = `(半|[0-9]{1,2}分?)?`
	zhTimeRe   = regexp.MustCompile(zhPeriod + zhNum + `点` + zhMinute + `(?:(?:到|至|-|—|–|~|～)` + zhPeriod + zhNum + `点` + zhMinute + `)?`)
	clockRe    = regexp.MustCompile(`\b([01]?[0-9]|2[0-3])[:：]([0-5][0-9])\s*(?:到|至|-|—|–|~|～|to)\s*([01]?[0-9]|2[0-3])[:：]([0-5][0-9])\b`)
	ampmRe     = regexp.MustCompile(`(?i)\b(1[0-2]|0?[1-9])(?::([0-5][0-9]))?\s*(am|pm)?\s*(?:-|–|to)\s*(1[0-2]|0?[1-9])(?::([0-5][0-9]))?\s*(am|pm)\b`)
	amountRe   = regexp.MustCompile(`([0-9]+(?:\.[0-9]+)?)\s*(?:块钱|块|元|(?i:rmb|cny|yuan)\b)`)
	zhDigitVal = map[rune]int{'零': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
)

// canonical rewrites times and amounts of s into one canonical form. It
// returns s unchanged (no allocation) when s has nothing to rewrite.
func canonical(s string) string {
	s = foldWidth(s)
	if strings.Contains(s, "点") {
		s = replaceSubmatches(zhTimeRe, s, zhTime)
	}
	if strings.IndexByte(s, ':') >= 0 || strings.Contains(s, "：") {
		s = replaceSubmatches(clockRe, s, func(m string, p []string) string {
			return clock(atoi(p[1]), atoi(p[2])) + "–" + clock(atoi(p[3]), atoi(p[4]))
		})
	}
	if !hasASCIIDigit(s) {
		return s
	}
	if strings.Contains(s, "m") || strings.Contains(s, "M") {
		s = replaceSubmatches(ampmRe, s, func(m string, p []string) string {
			startPM := strings.EqualFold(p[3], "pm") || p[3] == "" && strings.EqualFold(p[6], "pm")
			return clock(hour12(atoi(p[1]), startPM), atoi(p[2])) + "–" + clock(hour12(atoi(p[4]), strings.EqualFold(p[6], "pm")), atoi(p[5]))
		})
	}
	if strings.Contains(s, "块") || strings.Contains(s, "元") || strings.ContainsAny(s, "RrCcYy") {
		s = amountRe.ReplaceAllString(s, "${1}元")
	}
	return s
}

// replaceSubmatches replaces every match of re in s by f(match, submatches),
// matching each only once (ReplaceAllStringFunc gives f no submatches).
func replaceSubmatches(re *regexp.Regexp, s string, f func(m string, sub []string) string) string {
	matches := re.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	last := 0
	sub := make([]string, re.NumSubexp()+1)
	for _, loc := range matches {
		for k := range sub {
			sub[k] = ""
			if loc[2*k] >= 0 {
				sub[k] = s[loc[2*k]:loc[2*k+1]]
			}
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(f(sub[0], sub))
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// zhTime rewrites one match of zhTimeRe. A time without a period of day
// ("两点") is ambiguous and left as it is; in a range, the end inherits the
// start's period ("下午两点到四点" is 14:00–16:00).
func zhTime(m string, p []string) string {
	startPeriod, startH, startM := p[1], p[2], p[3]
	endPeriod, endH, endM := p[4], p[5], p[6]
	isRange := endH != ""
	if startPeriod == "" && (!isRange || endPeriod == "") {
		return m
	}
	if isRange && endPeriod == "" {
		endPeriod = startPeriod
	}
	h1, ok1 := zhHour(startH)
	if !ok1 {
		return m
	}
	out := clock(dayHour(h1, startPeriod), zhMinutes(startM))
	if !isRange {
		return out
	}
	h2, ok2 := zhHour(endH)
	if !ok2 {
		return m
	}
	if startPeriod == "" {
		startPeriod = endPeriod
		out = clock(dayHour(h1, startPeriod), zhMinutes(startM))
	}
	return out + "–" + clock(dayHour(h2, endPeriod), zhMinutes(endM))
}

func zhHour(s string) (int, bool) {
	if s[0] >= '0' && s[0] <= '9' {
		return atoi(s), true
	}
	h := 0
	if i := strings.Index(s, "十"); i >= 0 {
		tens, ones := s[:i], s[i+len("十"):]
		t := 1
		if tens != "" {
			r, _ := utf8.DecodeRuneInString(tens)
			t = zhDigitVal[r]
		}
		h = t * 10
		if ones != "" {
			r, _ := utf8.DecodeRuneInString(ones)
			h += zhDigitVal[r]
		}
	} else {
		r, size := utf8.DecodeRuneInString(s)
		if size != len(s) {
			return 0, false
		}
		h = zhDigitVal[r]
	}
	return h, h <= 24
}

func zhMinutes(s string) int {
	if s == "" {
		return 0
	}
	if s == "半" {
		return 30
	}
	return atoi(strings.TrimSuffix(s, "分"))
}

func dayHour(h int, period string) int {
	switch period {
	case "下午", "傍晚", "晚上":
		if h < 12 {
			return h + 12
		}
	case "中午":
		if h <= 2 {
			return h + 12
		}
	}
	return h
}

func hour12(h int, pm bool) int {
	switch {
	case pm && h < 12:
		return h + 12
	case !pm && h == 12:
		return 0
	}
	return h
}

func clock(h, m int) string {
	b := make([]byte, 0, 5)
	b = append(b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10))
	return string(b)
}

func hasASCIIDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			return true
		}
	}
	return false
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
