package heuristic

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// A request about one definite thing — the meeting, this booking, 这个会,
// 那张单子, a one-time change to a date of its own — is a task, even when the
// same words recur: repetition promotes wishes about the answers, the plans
// or the user, never an errand said again.
var (
	cueOccasionNounsEN = loadCues("occasion_nouns.en")
	cueOccasionNounsZH = loadCues("occasion_nouns.zh")
	cueRecurrence      = loadCueSet("recurrence")

	// definiteEN is a definite determiner and up to two words before a
	// noun: "the meeting", "my dentist appointment".
	definiteEN = regexp.MustCompile(`\b(?:the|my|our|this|that)((?: [a-z][a-z'-]*){1,3})\b`)
	// dateEN is a date of its own: "the 14th", "March 3".
	dateEN = regexp.MustCompile(`\bthe \d{1,2}(?:st|nd|rd|th)\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}(?:st|nd|rd|th)?\b`)
	// thatOneZH is a demonstrative with a measure word: 这个会, 那张单子, 那间.
	thatOneZH = regexp.MustCompile(`[这那](?:个|封|份|张|篇|条|段|些|本|件|位|间|场|趟|班|家|单|笔|次)`)
	// dateZH is a date of its own: 五号, 3月5日 (not 三号线, 一日三餐; a
	// word of recurrence keeps 每月5号 out before).
	dateZH = regexp.MustCompile(`(?:[0-9]{1,2}|[一二三四五六七八九十]{1,3})(?:月[0-9一二三四五六七八九十]{1,3}[日号]|号(?:$|[^线楼码房门位车]))`)
)

// oneInstance reports whether a request is about one definite thing: with
// no word of recurrence (cues/recurrence: "every", "on Mondays", "no
// longer", 每, 都, 不再), a demonstrative or a day (the task objects of plain
// requests), a date of its own, or a thing of one occasion
// (cues/occasion_nouns) named definitely.
func oneInstance(t text) bool {
	if t.han {
		u := t.raw
		if containsAny(u, cueRecurrence.zh) {
			return false
		}
		return taskObjectZH.MatchString(u) || thatOneZH.MatchString(u) || dateZH.MatchString(u) || occasionHeadZH(u)
	}
	if !t.latin {
		return false
	}
	u := t.lower
	if hasAnyWord(u, cueRecurrence.en) {
		return false
	}
	if taskObjectEN.MatchString(u) || dateEN.MatchString(u) {
		return true
	}
	for _, m := range definiteEN.FindAllStringSubmatchIndex(u, -1) {
		words := strings.Fields(u[m[2]:m[3]])
		for i, w := range words {
			if !hasAnyWord(w, cueOccasionNounsEN) {
				continue
			}
			// The noun heads the phrase: nothing after it in the match
			// but a function word ("the order cut-off" is a cut-off).
			if i+1 == len(words) || isFunctionWordEN(words[i+1]) {
				return true
			}
		}
	}
	return false
}

// isFunctionWordEN reports whether w is a preposition, a form of "be" or
// another word that ends a noun phrase before it.
func isFunctionWordEN(w string) bool {
	for _, f := range functionWordsEN {
		if w == f {
			return true
		}
	}
	switch w {
	case "into", "until", "till", "back", "up", "now", "of", "are", "isn't", "has", "should", "must", "goes", "starts":
		return true
	}
	return false
}

// afterHeadZH are what may follow a noun that heads its phrase: a particle, a
// verb of change or placement, a punctuation mark. Anything else continues
// a compound whose head comes later (会议纪要, 订单号, 机票价格: the minutes,
// the number, the price).
const afterHeadZH = "的改换挪推调取延提定订安约往到在是要得不别先还也就从由跟，,。；;！!？?：: "

// occasionHeadZH reports whether a thing of one occasion heads its phrase
// in u: "把会议改到下午三点", "晚饭的预订改到七点半", not "会议纪要分点写".
func occasionHeadZH(u string) bool {
	for _, n := range cueOccasionNounsZH {
		for k := range occurrences(u, n) {
			rest := u[k+len(n):]
			if rest == "" {
				return true
			}
			r, _ := utf8.DecodeRuneInString(rest)
			if strings.ContainsRune(afterHeadZH, r) {
				return true
			}
		}
	}
	return false
}

// correctsOccasion reports whether a request about one definite thing
// states that thing's new value in place of its old one — "The call is at
// 5 now, not 4", 理疗预约改成四点了，不是三点 — with no demonstrative, day or
// date that makes it one occasion's ("this call", "tomorrow's", 今天的, 五号),
// and no imperative ("Move the call to 5, not 4" is an errand): a
// correction of a standing rule about that thing, if there is one.
func correctsOccasion(t text) bool {
	if t.han {
		u := t.raw
		return containsAny(u, []string{"不是", "不再是"}) && (changeValueZH(u) || valueAfterZH(u, cueCorrection.zh)) &&
			!taskObjectZH.MatchString(u) && !thatOneZH.MatchString(u) && !dateZH.MatchString(u) && !strings.HasPrefix(u, "把")
	}
	if !t.latin || !nowNotEN(t.lower) || taskObjectEN.MatchString(t.lower) || dateEN.MatchString(t.lower) {
		return false
	}
	cs := clausesOf(t.lower)
	return len(cs) > 0 && !clauseOpensWithVerbEN(strings.TrimSpace(stripLeading(strings.TrimSpace(cs[0]), fillersEN)))
}

// valueAfterZH reports whether one of cues comes before a value (改成四点).
func valueAfterZH(raw string, cues []string) bool {
	for _, c := range cues {
		if i := strings.Index(raw, c); i >= 0 && governance.HasValue(raw[i+len(c):]) {
			return true
		}
	}
	return false
}

// pronounValueEN is a new value given to what was said before, named by a
// pronoun: "Make that Fahrenheit instead", "change it to 30 euros, not 50",
// "switch that to metric". The pronoun is the earlier value, not a thing of
// the task at hand ("Make that chart smaller" is one: no value replaces
// another in it).
var pronounValueEN = regexp.MustCompile(`^(?:(?:actually|ok|okay|so|oh|and|also)[, ]+)*(?:please )?(?:make|change|switch|turn|set) (?:that|it|those|them) (?:to |into |over to )?\S`)

// valueForPronoun reports whether a correction gives what a pronoun stands
// for a new value: a pronoun object with a value after it and a word of
// replacement (instead, rather, "not" an old value).
func valueForPronoun(t text) bool {
	m := pronounValueEN.FindStringIndex(t.lower)
	if !t.latin || m == nil || strings.HasPrefix(t.lower[m[1]-1:], "one") {
		return false // "make that one bigger": a thing of the task at hand
	}
	return hasAnyWord(t.lower, []string{"instead", "rather", "not"})
}
