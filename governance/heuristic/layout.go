package heuristic

import (
	"regexp"
	"strings"
)

// Shapes of the answers read by structure, with no phrase of
// cues/output_aspect to name them: where in an answer something goes,
// one line or row for each thing, and a count of points. What is put in
// a place of the answer is included in it ("End the lesson plans with a
// short recap", "A quick recap at the bottom please", 生词后面标上拼音, 教案
// 末尾附一段小结), whatever it is called; a layout of one item a line is
// the list aspect ("One row per patient", "each patient on a row of
// their own", 一人一行, 每位病人占一行), and so is an answer cut into a
// count of points (分成三点说). A date written as the order of its parts
// is the date format ("day, month, year", "dd/mm/yyyy", "day-month-year",
// 年月日), whatever separates them: the order is its content.
var (
	positionEN = regexp.MustCompile(`\b(?:at|to|on) the (?:very )?(?:end|bottom|top|start|beginning)\b|\b(?:end|finish|close|start|open|begin) (?:[a-z'-]+ ){0,4}?with (?:a|an|the|some)\b`)
	annotateZH = regexp.MustCompile(`(?:最后|末尾|结尾|文末|后面|开头|前面)?(?:(?:标|注)(?:上|明|出)|附(?:上|一段|一句|一份|个)?|加(?:上|个|一段|一句|一行|两句))(\p{Han}{2,6})`)
	perItemEN  = regexp.MustCompile(`\b(?:one|a|a single|a separate) (?:row|line|bullet|entry|card|paragraph|column) (?:per|for each|for every|a) [a-z]+|\beach [a-z]+ (?:on|in|gets) (?:a|its|their|his|her) (?:own )?(?:row|line|bullet)\b|\b(?:row|line) of (?:its|their|his|her) own\b`)
	perItemZH  = regexp.MustCompile(`一(?:人|个|位|项|条|天|站|家|户|单)一(?:行|条|段|栏|页)|(?:单独|各占|占|各)一(?:行|条|段|栏|页)`)
	pointsZH   = regexp.MustCompile(`分(?:成)?([一二两三四五六七八九十\d]+)(?:点|条|部分|段)`)
)

// layoutAspects adds the aspects that lower shows by structure to o; for
// an inclusion in Chinese, what is included is its object.
func layoutAspects(o *outputShape, lower string, latin, han bool) {
	if latin && positionEN.MatchString(lower) {
		o.aspects = append(o.aspects, "include")
	}
	if latin && perItemEN.MatchString(lower) || han && perItemZH.MatchString(lower) {
		o.aspects = append(o.aspects, "list")
	}
	if order := dateOrder(lower, latin, han); order != "" {
		o.aspects = append(o.aspects, "datefmt")
		o.content = append(o.content, "date "+order)
	}
	if han {
		if m := annotateZH.FindStringSubmatch(lower); m != nil {
			o.aspects = append(o.aspects, "include")
			if o.object == "" {
				o.object = m[1]
			}
		}
		if m := pointsZH.FindStringSubmatch(lower); m != nil {
			o.aspects = append(o.aspects, "list")
			if n := boundCount(m[1]); n > 0 {
				o.content = append(o.content, fmtPoints(n))
			}
		}
	}
}

// layoutShape reports whether a statement shows a shape of the answers by
// structure alone (layoutAspects).
func layoutShape(lower string, latin, han bool) bool {
	var o outputShape
	layoutAspects(&o, lower, latin, han)
	return len(o.aspects) > 0
}

// datePartEN is a part of a date as a word or a format letter run.
var datePartEN = regexp.MustCompile(`\b(?:days?|months?|years?|dd?|mm?|yy(?:yy)?)\b`)

// dateOrder returns the order of a date's three parts as lower writes it
// ("d-m-y" for "day, month, year", "dd/mm/yyyy", 日月年), or "": three
// distinct parts one after another with nothing but separators between
// them (a single letter only with a dash, slash or dot).
func dateOrder(lower string, latin, han bool) string {
	var parts []string
	if latin {
		last := -1
		for _, m := range datePartEN.FindAllStringIndex(lower, -1) {
			w := lower[m[0]:m[1]]
			if n := len(parts); n > 0 {
				gap := lower[last:m[0]]
				short := len(w) == 1 || len(parts[n-1]) == 1
				if gap == "" || len(gap) > 3 || strings.Trim(gap, " ,/.-") != "" || short && strings.Trim(gap, "/.-") != "" {
					parts = parts[:0]
				}
			}
			parts, last = append(parts, w), m[1]
			if order := orderOf(parts); order != "" {
				return order
			}
		}
	}
	if han {
		parts = parts[:0]
		prev := -1
		for i, r := range lower {
			if r != '年' && r != '月' && r != '日' {
				if !strings.ContainsRune("-/.、 ", r) {
					parts = parts[:0]
				}
				continue
			}
			if prev >= 0 && i-prev > 4 {
				parts = parts[:0]
			}
			parts, prev = append(parts, string(r)), i
			if order := orderOf(parts); order != "" {
				return order
			}
		}
	}
	return ""
}

// orderOf returns "d-m-y" and the like when the last three of parts are a
// day, a month and a year in some order.
func orderOf(parts []string) string {
	if len(parts) < 3 {
		return ""
	}
	var out []string
	for _, p := range parts[len(parts)-3:] {
		switch {
		case p == "日" || strings.HasPrefix(p, "d"):
			out = append(out, "d")
		case p == "月" || strings.HasPrefix(p, "m"):
			out = append(out, "m")
		default:
			out = append(out, "y")
		}
	}
	if out[0] == out[1] || out[1] == out[2] || out[0] == out[2] {
		return ""
	}
	return strings.Join(out, "-")
}
