package governance

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
	"golang.org/x/text/unicode/norm"
)

// Conflict detection between two statements about the same thing — used by
// consolidation (is a new statement a replacement for a rule?) and by recall
// (which of two in-scope rules wins?). Code judges what it can check: the
// numbers (times, amounts, counts) and whether one side is negated.

// StatementShape is what conflict detection reads of a statement.
type StatementShape struct {
	Negated bool
	Numbers []string
}

// ShapeOf reads text's shape.
func ShapeOf(text string) StatementShape {
	return StatementShape{Negated: negated(text), Numbers: numbers(text)}
}

// Conflicts: a negation on one side only, or numbers on both sides that differ.
func (a StatementShape) Conflicts(b StatementShape) bool {
	return a.Negated != b.Negated || a.NumbersDiffer(b)
}

// NumbersDiffer reports whether both statements hold numbers and they are
// not the same ones.
func (a StatementShape) NumbersDiffer(b StatementShape) bool {
	return len(a.Numbers) > 0 && len(b.Numbers) > 0 && !slices.Equal(a.Numbers, b.Numbers)
}

// replaceMarkers say the user changes an earlier instruction.
var replaceMarkers = []string{"改成", "改为", "改到", "换成", "不再", "取消", "instead", "no longer", "anymore", "any more"}

// Contradicts reports whether a new statement, about the same thing as an
// existing rule, says something else: other times or amounts, a negation
// on one side only, or an explicit change ("改成", "no longer", "instead").
// Paraphrases with the same facts do not contradict.
func Contradicts(rule, statement string) bool {
	if ShapeOf(rule).NumbersDiffer(ShapeOf(statement)) || weekdaysDiffer(rule, statement) || NegationConflicts(rule, statement) {
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
		"勿", "禁止", "避免", "别", "去掉", "省略", "略去", "拿掉"}
	negationWord = map[string]bool{"not": true, "no": true, "never": true, "dont": true, "doesnt": true,
		"without": true, "avoid": true, "cannot": true, "cant": true, "wont": true, "isnt": true, "arent": true}
)

// boundsEN rewrites a bound worded with a negation ("no more than 100
// words", "not later than 9", "别超过三句话"): a limit, not a negated
// instruction.
var boundsEN = strings.NewReplacer("no more than", "at most", "not more than", "at most", "no longer than", "at most",
	"no later than", "by", "not later than", "by", "no less than", "at least", "not less than", "at least",
	"no fewer than", "at least", "no earlier than", "from",
	"不要超过", "最多", "别超过", "最多", "不能超过", "最多", "不得超过", "最多", "不可超过", "最多",
	"不要少于", "至少", "别少于", "至少", "不能少于", "至少", "不得少于", "至少")

// NegationConflicts reports whether one statement negates what the other
// says: a negated clause of one ("别写我的名字", "never cc Maria") whose
// content words the other says without a negation. A negation about
// something else ("落款写“客服团队”，别写我的名字" against "落款用“客服团队”")
// is no conflict.
func NegationConflicts(a, b string) bool {
	na, nb := negated(a), negated(b)
	if na == nb {
		return false
	}
	neg, pos := a, b
	if nb {
		neg, pos = b, a
	}
	posTokens := reshapeTokens(pos)
	for _, c := range strings.FieldsFunc(neg, func(r rune) bool { return strings.ContainsRune(",;，；。.!！?？:：", r) }) {
		if !negated(c) {
			continue
		}
		toks := reshapeTokens(omitEN.Replace(strings.ToLower(c)))
		n, shared := 0, 0
		for w := range toks {
			if negationWord[w] || isNegationCJK(w) {
				continue
			}
			n++
			if posTokens[w] {
				shared++
			}
		}
		if n > 0 && shared*2 >= n {
			return true
		}
	}
	return false
}

// isNegationCJK reports whether a Han character is part of a negating word.
func isNegationCJK(w string) bool {
	for _, m := range negationCJK {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// omitEN rewrites an omission ("leave out the prices", "skip the jargon")
// as the negation it is: "leave out X" and "no X" say one thing, and
// "include X" the opposite.
var omitEN = strings.NewReplacer("leave out", "no", "leaves out", "no", "leaving out", "no", "cut out", "no",
	"skip the", "no the", "drop the", "no the", "omit", "no", "exclude", "no")

func negated(text string) bool {
	lower := omitEN.Replace(boundsEN.Replace(strings.ToLower(norm.NFKC.String(text))))
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

// numbers lists the distinct facts of text (facts.go), sorted, each as its
// readings joined by "|": clock times on a 24-hour clock whether written
// 14:00, 下午2点, 下午两点 or 2pm (so paraphrases of one time agree; an hour
// without a part of day reads "2:00|14:00"), dates as month-day, amounts
// and counts in digits (三百元 and 300元 are 300; 一个 "a" is no number),
// the other numbers with leading zeros dropped.
func numbers(text string) []string {
	fs, _ := facts(text)
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, strings.Join(f, "|"))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// A clock time: an optional part of day, an hour in digits or Chinese
// numerals, then 点/点钟/时 with optional minutes, or a colon and two
// digits of minutes.
var clockRe = regexp.MustCompile(`(上午|早上|早晨|凌晨|中午|下午|傍晚|晚上|夜里)?` +
	`(?:(\d{1,2}):(\d{2})|(\d{1,2}|[零〇一二两三四五六七八九十]{1,3})(点钟|点|时)(半|一刻|三刻|(\d{1,2}|[零〇一二两三四五六七八九十]{1,3})分)?)`)

// rangeJoin is what may stand between two times of one range (两点到四点).
var rangeJoin = regexp.MustCompile(`^\s*(到|至|~|-|–|—|－)\s*$`)

// clock is a time of day read from text. Ambiguous: written without a part
// of day and an hour from 1 to 11 not padded with a zero (2点, 2:30), so it
// may as well be the same hour after noon.
type clock struct {
	hour, minute int
	ambiguous    bool
}

func (c clock) String() string { return fmt.Sprintf("%d:%02d", c.hour, c.minute) }

// readings are the 24-hour times c may mean.
func (c clock) readings() []string {
	if c.ambiguous {
		return []string{c.String(), clock{hour: c.hour + 12, minute: c.minute}.String()}
	}
	return []string{c.String()}
}

// clockTimes finds the clock times in text and returns them with the text
// left once they are blanked out. A Chinese-numeral hour counts only where
// it must be a time — after a part of day, with minutes or 钟, or as the end
// of a range — since 一点 and 两点 also mean "a little" and "two points".
func clockTimes(text string) ([]clock, string) {
	var (
		out    []clock
		b      strings.Builder
		last   int    // end of the previous match
		period string // part of day in force, carried along a range
	)
	for _, m := range clockRe.FindAllStringSubmatchIndex(text, -1) {
		group := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return text[m[2*i]:m[2*i+1]]
		}
		inRange := len(out) > 0 && rangeJoin.MatchString(text[last:m[0]])
		if !inRange {
			period = ""
		}
		if p := group(1); p != "" {
			period = p
		}
		var (
			hour, minute int
			written      string // the hour as written
		)
		switch {
		case group(2) != "":
			hour, minute, written = atoi(group(2)), atoi(group(3)), group(2)
		default:
			spoken := !isDigits(group(4))
			sure := group(1) != "" || inRange || group(5) == "点钟" || (group(5) == "点" && group(6) != "")
			if spoken && !sure {
				continue // 一点 "a little", 两点 "two points", 一时半会 "a while"
			}
			hour, written = chineseNumber(group(4)), group(4)
			switch suffix := group(6); suffix {
			case "":
			case "半":
				minute = 30
			case "一刻":
				minute = 15
			case "三刻":
				minute = 45
			default:
				minute = chineseNumber(group(7))
			}
		}
		if hour < 0 || hour > 24 || minute < 0 || minute > 59 {
			continue
		}
		switch period {
		case "下午", "傍晚":
			if hour < 12 {
				hour += 12
			}
		case "晚上", "夜里": // 晚上八点 is 20:00, 夜里一点 1:00
			if hour >= 5 && hour < 12 {
				hour += 12
			}
		case "中午":
			if hour < 3 {
				hour += 12
			}
		}
		ambiguous := period == "" && hour >= 1 && hour <= 11 && !strings.HasPrefix(written, "0")
		out = append(out, clock{hour: hour, minute: minute, ambiguous: ambiguous})
		b.WriteString(text[last:m[0]])
		b.WriteByte(' ')
		last = m[1]
	}
	b.WriteString(text[last:])
	return out, b.String()
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

var chineseDigit = map[rune]int{'零': 0, '〇': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}

// chineseNumber reads 0–99 in digits or Chinese numerals (十二, 二十, 两);
// -1 when it cannot.
func chineseNumber(s string) int {
	if isDigits(s) {
		return atoi(s)
	}
	rs := []rune(s)
	if i := slices.Index(rs, '十'); i >= 0 {
		tens, ones := 1, 0
		if i > 0 {
			d, ok := chineseDigit[rs[0]]
			if !ok || i != 1 {
				return -1
			}
			tens = d
		}
		if rest := rs[i+1:]; len(rest) == 1 {
			d, ok := chineseDigit[rest[0]]
			if !ok {
				return -1
			}
			ones = d
		} else if len(rest) > 1 {
			return -1
		}
		return tens*10 + ones
	}
	if len(rs) != 1 {
		return -1
	}
	if d, ok := chineseDigit[rs[0]]; ok {
		return d
	}
	return -1
}

// Widening and narrowing: a statement that keeps (nearly) everything an
// active rule says and adds a tool, a condition or a scope to it replaces
// the rule rather than repeating it — "always run go vet and the linter
// before committing" against "always run the linter before committing".
// Filed as evidence, the addition would be lost.

// addMarkers join another item to what a rule asks (widening); onlyMarkers
// limit it to a condition or scope (narrowing). English ones match as
// words, Chinese ones as substrings.
var (
	addMarkers  = []string{"and", "also", "plus", "as well", "too", "和", "及", "以及", "并且", "还要", "也要", "同时", "、"}
	onlyMarkers = []string{"only", "unless", "except", "when", "if", "whenever", "只", "仅", "除了", "除非", "如果", "的时候"}
)

// reshapeStop are English words that carry no subject of their own.
var reshapeStop = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "on": true, "in": true, "from": true, "now": true,
	"always": true, "please": true, "you": true, "i": true, "we": true, "it": true, "is": true, "be": true,
	"should": true, "must": true, "do": true, "will": true, "my": true, "me": true, "for": true, "every": true,
	"time": true, "first": true, "then": true,
}

// reshapeTokens are the content words of a text: English words and digits
// runs, and each Han character (Chinese has no spaces to split words).
func reshapeTokens(text string) map[string]bool {
	out := map[string]bool{}
	var word []rune
	flush := func() {
		if len(word) > 0 {
			if w := string(word); !reshapeStop[w] {
				out[w] = true
			}
			word = word[:0]
		}
	}
	for _, r := range strings.ToLower(norm.NFKC.String(text)) {
		switch {
		case unicode.Is(unicode.Han, r):
			flush()
			out[string(r)] = true
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word = append(word, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// hasMarker reports whether text holds one of markers.
func hasMarker(text string, markers []string) bool {
	lower := " " + strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Han, r) || r == '、' {
			return r
		}
		return ' '
	}, strings.ToLower(norm.NFKC.String(text))) + " "
	for _, m := range markers {
		if isASCII(m) {
			if strings.Contains(lower, " "+m+" ") {
				return true
			}
		} else if strings.Contains(lower, m) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII {
			return false
		}
	}
	return true
}

// Reshapes reports whether statement widens or narrows rule: it keeps at
// least four fifths of the rule's content words, adds content words of its
// own, and joins them with a marker of addition ("and", "和") or of a
// condition ("only", "只") that the rule does not have.
func Reshapes(rule, statement string) bool {
	rt, st := reshapeTokens(rule), reshapeTokens(statement)
	if len(rt) == 0 {
		return false
	}
	kept, added := 0, 0
	for w := range rt {
		if st[w] {
			kept++
		}
	}
	for w := range st {
		if !rt[w] {
			added++
		}
	}
	if added == 0 || kept*5 < len(rt)*4 {
		return false
	}
	return (hasMarker(statement, addMarkers) && !hasMarker(rule, addMarkers)) ||
		(hasMarker(statement, onlyMarkers) && !hasMarker(rule, onlyMarkers))
}

// Replaces reports whether a new statement about the same thing as a rule
// should be proposed as the rule's replacement: it contradicts the rule, or
// widens or narrows it.
func Replaces(rule, statement string) bool {
	return Contradicts(rule, statement) || Reshapes(rule, statement)
}

// correctionMarkers say the user changes what was agreed, not only that a
// statement differs from a rule (correction_markers.txt): English ones
// match as words, Chinese ones as substrings.
var correctionMarkers = func() []string {
	var out []string
	for _, line := range strings.Split(correctionMarkersFile, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}()

//go:embed correction_markers.txt
var correctionMarkersFile string

// Corrects reports whether statement corrects rule: it would replace the
// rule (Replaces) and says so as a change of what was agreed — a marker
// ("change of plan", "make that", "now", "moved", "instead", 改成, 调到, 不再:
// correction_markers.txt), the shape "X now, not Y", or the rule's old
// value named as gone ("…, not Priya", 不是两千, 不是周一了: NamesOldValue).
// A correction replaces the rule it corrects on the user's word, durability
// word or not (DecideReplacement).
func Corrects(rule, statement string) bool {
	if !Replaces(rule, statement) {
		return false
	}
	lower := strings.ToLower(norm.NFKC.String(statement))
	if i := strings.Index(lower, " now"); i >= 0 && strings.Contains(lower[i:], " not ") {
		return true
	}
	if NamesOldValue(rule, statement) {
		return true
	}
	for _, m := range correctionMarkers {
		if isASCII(m) {
			if hasMarker(lower, []string{m}) {
				return true
			}
		} else if strings.Contains(lower, m) {
			return true
		}
	}
	return false
}

// oldValueEN and oldValueZH find what a statement says is gone: the words
// after "not", "instead of", "rather than" or "no longer" ("cc Tomas, not
// Priya"; "30 euros, not 50"), and after 不是, 不再是 or 别再 (上限是三千了，
// 不是两千; 周会不是周一了; 别再抄送王芳了).
var (
	oldValueEN = regexp.MustCompile(`\b(?:not|instead of|rather than|no longer)\s+((?:[\p{L}\p{N}:.'-]+\s*){1,3})`)
	oldValueZH = regexp.MustCompile(`(?:不是|不再是|别再|不要再)([^，,。.！!？?；;：:\s]{1,8})`)
	hourZH     = regexp.MustCompile(`^[零〇一二两三四五六七八九十]{1,3}点`)
)

// NamesOldValue reports whether statement names a value of rule as gone —
// "not 50", "not Priya", "instead of Mondays", 不是两千, 不是周一了, 别再抄送王芳了 —
// so it is about the same aspect as the rule even where the two share few
// words ("Actually make that 30, not 50"). The value is a fact (a number,
// time or amount, however written), a weekday, or a word of the rule.
func NamesOldValue(rule, statement string) bool {
	st := norm.NFKC.String(statement)
	ruleFacts, _ := facts(rule)
	ruleDays := weekdays(rule)
	ruleWords := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(norm.NFKC.String(rule)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		ruleWords[w] = true
	}
	named := func(gone string) bool {
		fs, _ := facts(gone)
		for _, f := range fs {
			for _, g := range ruleFacts {
				if f.meets(g) {
					return true
				}
			}
		}
		for _, d := range weekdays(gone) {
			if slices.Contains(ruleDays, d) {
				return true
			}
		}
		return false
	}
	for _, m := range oldValueEN.FindAllStringSubmatch(st, -1) {
		if named(m[1]) {
			return true
		}
		// A name: the first word after the marker, capitalised, in the rule.
		if w := strings.Fields(m[1])[0]; w != strings.ToLower(w) && ruleWords[strings.ToLower(strings.Trim(w, ".'"))] {
			return true
		}
	}
	for _, m := range oldValueZH.FindAllStringSubmatch(st, -1) {
		// After 不是 an hour in numerals is a time (不是十点), as 十点钟
		// is; on its own 两点 may be "two points".
		if named(m[1]) || hourZH.MatchString(m[1]) && named(hourZH.FindString(m[1])+"钟") {
			return true
		}
		r := []rune(strings.TrimSuffix(m[1], "了"))
		for i := 0; i+2 <= len(r); i++ {
			if strings.Contains(rule, string(r[i:i+2])) {
				return true
			}
		}
	}
	return false
}

// Bounds of what a value change may add to the rule it changes.
const (
	valueChangeWords = 4 // English words (or other alphabetic scripts)
	valueChangeHan   = 6 // Han characters
)

// correctionWords are the words of the English correction markers
// ("instead", "switch", "no longer"): saying a change is no addition.
var correctionWords = func() map[string]bool {
	out := map[string]bool{}
	for _, m := range correctionMarkers {
		if isASCII(m) {
			for _, w := range strings.Fields(m) {
				out[w] = true
			}
		}
	}
	return out
}()

// hanNumerals are the characters of Chinese numbers: a value, as digits are.
const hanNumerals = "零〇一二三四五六七八九十百千万两半"

// ChangesValue reports whether statement, a correction of rule (Corrects),
// changes only a value of it: besides numbers, times and amounts, it adds
// at most a few words of its own ("switch … instead", "now, not", 改成,
// 现在是…不是), so what it asks is what the rule asked with another value.
// Such a correction of a rule in the low-risk set stands where the rule
// stands; one that says more must be placed on its own words.
func ChangesValue(rule, statement string) bool {
	if !Corrects(rule, statement) {
		return false
	}
	rt := reshapeTokens(rule)
	words, han := 0, 0
	for w := range reshapeTokens(statement) {
		switch {
		case rt[w] || strings.ContainsFunc(w, unicode.IsDigit) || tokenizer.IsStopWord(w) || correctionWords[w] ||
			strings.Contains(hanNumerals, w):
		case utf8.RuneCountInString(w) == 1 && unicode.Is(unicode.Han, []rune(w)[0]):
			han++
		default:
			words++
		}
	}
	return words <= valueChangeWords && han <= valueChangeHan
}
