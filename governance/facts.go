package governance

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// The facts of a statement, as restatement compares them: the specifics a
// paraphrase must keep — clock times, dates and amounts — however they are
// written, in Chinese or English. "下午两点", "2pm", "14:00" and "2点" (an
// hour that may be before or after noon) all read 14:00; "6月15日",
// "June 15th" and "2026-06-15" all read the 15th of June; "三百元",
// "¥300" and "300 yuan" all read 300.

// fact is one specific of a text: the readings it may have (one, or two
// for an hour written without a part of day).
type fact []string

// meets reports whether f and g may be the same fact.
func (f fact) meets(g fact) bool {
	for _, r := range f {
		if slices.Contains(g, r) {
			return true
		}
	}
	return false
}

var (
	// English clock times: 2pm, 2:30 p.m., 4 o'clock.
	englishClockRe = regexp.MustCompile(`(?i)\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?|o'?clock)(?:\W|$)`)
	// Dates: 2026-06-15, 6月15日/号, June 15(th), 15(th) (of) June.
	isoDateRe     = regexp.MustCompile(`\b\d{4}[-/.](\d{1,2})[-/.](\d{1,2})\b`)
	chineseDateRe = regexp.MustCompile(`(\d{1,2}|[一二三四五六七八九十]{1,3})月(\d{1,2}|[一二三四五六七八九十]{1,3})(?:日|号)`)
	monthDayRe    = regexp.MustCompile(`(?i)\b(` + monthNames + `)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b`)
	dayMonthRe    = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthNames + `)[a-z]*\b`)
	// A run of Chinese numerals: a number where it holds a unit of ten or
	// more (三百, 二十五) or a measure word follows it (两位, 三晚).
	chineseAmountRe = regexp.MustCompile(`[零〇一二两三四五六七八九十百千万]+`)
	// Digits with thousands separators (1,200).
	thousandsRe = regexp.MustCompile(`(\d),(\d{3})\b`)
)

const monthNames = `jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec`

// measureKind is what a measure word makes of a single Chinese numeral
// before it (measure_words.txt).
type measureKind int

const (
	noMeasure  measureKind = iota
	unitWord               // 元, 晚, 岁: any numeral before it is an amount
	classifier             // 个, 次, 位: 一 alone before it is the article "a"
	wordKind               // 晚上, 天气: begins with a measure word, is none
)

//go:embed measure_words.txt
var measureWordsFile string

// measureWords are the measure words of measure_words.txt by kind, and
// weekdayWords the words before a numeral that name a day of the week.
var measureWords, weekdayWords = func() (map[string]measureKind, []string) {
	out := map[string]measureKind{}
	var weekdays []string
	for _, line := range strings.Split(measureWordsFile, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[0] == "weekday" {
			weekdays = append(weekdays, f[1:]...)
			continue
		}
		kind := map[string]measureKind{"unit": unitWord, "classifier": classifier, "word": wordKind}[f[0]]
		if kind == noMeasure {
			panic("governance: measure_words.txt: unknown kind " + f[0])
		}
		for _, w := range f[1:] {
			out[w] = kind
		}
	}
	return out, weekdays
}()

// measureAt is the kind of the longest measure word s begins with.
func measureAt(s string) measureKind {
	kind, longest := noMeasure, 0
	for w, k := range measureWords {
		if len(w) > longest && strings.HasPrefix(s, w) {
			kind, longest = k, len(w)
		}
	}
	return kind
}

// singleNumeralAmount reports whether a single Chinese numeral (run, at
// rest[start:end]) is an amount: before a unit, or before a classifier
// unless it is 一 used as the article "a" (一个, 一次, 一位; 第一次 is an
// ordinal and counts). Before anything else it is part of a word (一起,
// 一些, 两点 "two points", 一晚上 "a whole evening"), and after 周, 星期 or
// 礼拜 it names a weekday unless a count word follows (每周三次).
func singleNumeralAmount(rest string, start, end int) bool {
	kind := measureAt(rest[end:])
	for _, w := range weekdayWords {
		if strings.HasSuffix(rest[:start], w) && kind != classifier {
			return false // 周三晚上: Wednesday evening; 每周三次 is a count
		}
	}
	switch kind {
	case unitWord:
		return true
	case classifier:
		return rest[start:end] != "一" || strings.HasSuffix(rest[:start], "第")
	}
	return false
}

// facts reads the facts of text and returns them with the text left once
// they are blanked out, so that the words of "下午两点" or "June 15" are not
// also counted as content.
func facts(text string) ([]fact, string) {
	text = norm.NFKC.String(text)
	if strings.IndexByte(text, ',') >= 0 {
		text = thousandsRe.ReplaceAllString(text, "$1$2")
	}
	// Each reader runs only where its match may be: digits and a
	// separator for 2026-06-15, 月 for Chinese dates, digits and Latin
	// letters for month names and am/pm.
	digits := strings.ContainsAny(text, "0123456789")
	letters := strings.IndexFunc(text, func(r rune) bool { return r < utf8.RuneSelf && unicode.IsLetter(r) }) >= 0
	var out []fact
	blank := func(re *regexp.Regexp, read func(m []string) (fact, bool)) {
		switch re {
		case isoDateRe:
			if !digits || !strings.ContainsAny(text, "-/.") {
				return
			}
		case chineseDateRe:
			if !strings.Contains(text, "月") {
				return
			}
		case monthDayRe, dayMonthRe, englishClockRe:
			if !digits || !letters {
				return
			}
		}
		text = re.ReplaceAllStringFunc(text, func(s string) string {
			if f, ok := read(re.FindStringSubmatch(s)); ok {
				out = append(out, f)
				return " "
			}
			return s
		})
	}
	date := func(month, day int) (fact, bool) {
		if month < 1 || month > 12 || day < 1 || day > 31 {
			return nil, false
		}
		return fact{fmt.Sprintf("%d-%d", month, day)}, true
	}
	blank(isoDateRe, func(m []string) (fact, bool) { return date(atoi(m[1]), atoi(m[2])) })
	blank(chineseDateRe, func(m []string) (fact, bool) { return date(chineseNumber(m[1]), chineseNumber(m[2])) })
	blank(monthDayRe, func(m []string) (fact, bool) { return date(monthOf(m[1]), atoi(m[2])) })
	blank(dayMonthRe, func(m []string) (fact, bool) { return date(monthOf(m[2]), atoi(m[1])) })
	blank(englishClockRe, func(m []string) (fact, bool) {
		c := clock{hour: atoi(m[1]), minute: max(atoi(m[2]), 0)}
		switch suffix := strings.ToLower(m[3]); {
		case strings.HasPrefix(suffix, "p") && c.hour < 12:
			c.hour += 12
		case strings.HasPrefix(suffix, "a") && c.hour == 12:
			c.hour = 0
		case strings.HasPrefix(suffix, "o"):
			c.ambiguous = c.hour >= 1 && c.hour <= 11
		}
		if c.hour > 24 || c.minute > 59 {
			return nil, false
		}
		return fact(c.readings()), true
	})
	clocks, rest := clockTimes(text)
	for _, c := range clocks {
		out = append(out, fact(c.readings()))
	}
	var b strings.Builder
	last := 0
	for _, m := range chineseAmountRe.FindAllStringIndex(rest, -1) {
		run := rest[m[0]:m[1]]
		n := chineseAmount(run)
		if n < 0 {
			continue
		}
		if !strings.ContainsAny(run, "十百千万") && !singleNumeralAmount(rest, m[0], m[1]) {
			continue
		}
		out = append(out, fact{fmt.Sprint(n)})
		b.WriteString(rest[last:m[0]])
		b.WriteByte(' ')
		last = m[1]
	}
	b.WriteString(rest[last:])
	text = b.String()
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r < '0' || r > '9' }) {
		if f = strings.TrimLeft(f, "0"); f == "" {
			f = "0"
		}
		out = append(out, fact{f})
	}
	return out, text
}

func monthOf(name string) int {
	return strings.Index(monthNames, strings.ToLower(name[:3]))/4 + 1
}

// chineseAmount reads a number written in Chinese numerals up to the tens
// of thousands (三百, 一千二百, 两万, 二十五); -1 when it cannot. A number
// begins with a digit or 十 (十二): a run that begins with 百, 千 or 万 is
// a word (千万 "by all means", 万一 "in case").
func chineseAmount(s string) int {
	if strings.IndexAny(s, "百千万") == 0 {
		return -1
	}
	total, section, digit := 0, 0, -1
	for _, r := range s {
		if d, ok := chineseDigit[r]; ok {
			if digit >= 0 {
				return -1 // two digits in a row: a list, not a number
			}
			digit = d
			continue
		}
		unit := map[rune]int{'十': 10, '百': 100, '千': 1000, '万': 10000}[r]
		switch {
		case unit == 0:
			return -1
		case unit == 10000:
			total = (total + section + max(digit, 0)) * unit
			section, digit = 0, -1
		default:
			if digit < 0 {
				digit = 1 // 十二 is 12
			}
			section += digit * unit
			digit = -1
		}
	}
	return total + section + max(digit, 0)
}

// frameTerms are the index terms of the words that say when or how often
// (frame_terms.txt): with the facts in hand they tell nothing of what a
// statement is about, so restatement does not count them as shared content.
var frameTerms = func() map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(frameTermsFile, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			tokenizer.PhraseTokens(line, func(t string, _ int) { out[t] = true })
		}
	}
	return out
}()

//go:embed frame_terms.txt
var frameTermsFile string

// Weekdays: English names (Monday, Tuesdays) and 周, 星期 or 礼拜 before a
// numeral or 日/天 (周二, 星期天) — not before a count word (每周三次 is three
// times a week).
var (
	weekdayENRe = regexp.MustCompile(`(?i)\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b`)
	weekdayZHRe = regexp.MustCompile(`(?:周|星期|礼拜)([一二三四五六日天])`)
)

// weekdays returns the days of the week text names, 1 (Monday) to 7.
func weekdays(text string) []int {
	var out []int
	for _, m := range weekdayENRe.FindAllStringSubmatch(text, -1) {
		out = append(out, map[string]int{"mon": 1, "tues": 2, "wednes": 3, "thurs": 4, "fri": 5, "satur": 6, "sun": 7}[strings.ToLower(m[1])])
	}
	for _, m := range weekdayZHRe.FindAllStringSubmatchIndex(text, -1) {
		if measureAt(text[m[1]:]) == classifier {
			continue
		}
		out = append(out, strings.Index("一二三四五六日天", text[m[2]:m[3]])/3+1)
	}
	for i, d := range out {
		out[i] = min(d, 7) // 日 and 天 are both Sunday
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// weekdaysDiffer reports whether both texts name days of the week and not
// the same ones.
func weekdaysDiffer(a, b string) bool {
	wa, wb := weekdays(a), weekdays(b)
	return len(wa) > 0 && len(wb) > 0 && !slices.Equal(wa, wb)
}

// numberWordsEN are English numbers in words, as a value (HasValue).
var numberWordsEN = regexp.MustCompile(`(?i)\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|noon|midnight)\b`)

// nameRe is a capitalised word after the first of a sentence: a name
// ("cc Tomas on them", "escalate to Lee").
var nameRe = regexp.MustCompile(`[\p{Ll}\p{N},;:]\s+(?:[A-Z][\p{Ll}]+)`)

// HasValue reports whether text carries a value a rule can hold: a fact
// (a number, time, date or amount, in digits or in Chinese numerals), a
// number in English words, a weekday, or a name.
func HasValue(text string) bool {
	if fs, _ := facts(text); len(fs) > 0 {
		return true
	}
	return len(weekdays(text)) > 0 || numberWordsEN.MatchString(text) || nameRe.MatchString(text)
}
