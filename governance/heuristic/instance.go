package heuristic

import (
	"regexp"
	"strings"
	"unicode/utf8"
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
