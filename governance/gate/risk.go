package gate

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/mnemo-console/mnemo/governance"
)

// Checks the risk features of patterns/risk.txt name (accept=...).

// idioms are set phrases a feature's word is part of without its meaning.
var idioms = regexp.MustCompile(patterns.exprOf("idioms"))

// notIdiom refuses a match that starts inside an idiom ("pay attention").
func notIdiom(s string, loc []int) bool {
	lo := max(0, loc[0]-24)
	for lo > 0 && lo < len(s) && s[lo]&0xC0 == 0x80 {
		lo--
	}
	hi := min(len(s), loc[1]+24)
	for hi < len(s) && s[hi]&0xC0 == 0x80 {
		hi++
	}
	for _, m := range idioms.FindAllStringIndex(s[lo:hi], -1) {
		if lo+m[0] <= loc[0] && loc[0] < lo+m[1] {
			return false
		}
	}
	return true
}

// digitsOf returns the digits of s[loc[0]:loc[1]].
func digitsOf(s string, loc []int) string {
	var b strings.Builder
	for _, c := range []byte(s[loc[0]:loc[1]]) {
		if c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

var (
	dateShape   = regexp.MustCompile(`^\d{4}[-./年]\d{1,2}[-./月]\d{1,2}|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$`)
	dottedQuad  = regexp.MustCompile(`^\d{1,3}(?:\.\d{1,3}){3}$`)
	mobileCN    = regexp.MustCompile(`^1[3-9]\d{9}$`)
	plainNumber = regexp.MustCompile(`^\d+$`)
)

// phoneShaped accepts a run of digits that reads as a telephone number:
// 7 to 15 digits, with a leading + or separators between groups, or a
// Chinese mobile number; never a date, a time or a dotted address.
func phoneShaped(s string, loc []int) bool {
	m := s[loc[0]:loc[1]]
	if loc[0] > 0 && (isWordByte(s[loc[0]-1]) || s[loc[0]-1] == '.' || s[loc[0]-1] == ':') ||
		loc[1] < len(s) && (isWordByte(s[loc[1]]) || s[loc[1]] == ':') {
		return false
	}
	d := digitsOf(s, loc)
	switch {
	case len(d) < 7 || len(d) > 15, dateShape.MatchString(m), dottedQuad.MatchString(m):
		return false
	case mobileCN.MatchString(d) && len(m) == len(d):
		return true
	case plainNumber.MatchString(m):
		return strings.HasPrefix(m, "+")
	}
	return true
}

// accountShaped accepts what reads as an account or card number: an
// IBAN or a number next to an account word, or a run of 12 digits or more
// (9 to 11 that is not a telephone number).
func accountShaped(s string, loc []int) bool {
	m := s[loc[0]:loc[1]]
	d := digitsOf(s, loc)
	if strings.IndexFunc(m, func(r rune) bool { return r > '9' || r < '0' && r != ' ' && r != '-' }) >= 0 {
		return len(d) >= 4 && !dateShape.MatchString(m)
	}
	if dateShape.MatchString(m) {
		return false
	}
	return len(d) >= 12 || len(d) >= 9 && !mobileCN.MatchString(d)
}

// highEntropy accepts a credential-shaped token (the first submatch): 20
// characters or more, with two of lower case, upper case and digits, and
// about as unpredictable as random text (never words joined by '_').
func highEntropy(s string, loc []int) bool {
	if !notPlaceholder(s, loc) {
		return false
	}
	lo, hi := firstGroup(loc)
	v := s[lo:hi]
	if len(v) < 20 {
		return false
	}
	var kinds [4]bool
	counts := map[byte]int{}
	for i := 0; i < len(v); i++ {
		c := v[i]
		counts[c]++
		switch {
		case 'a' <= c && c <= 'z':
			kinds[0] = true
		case 'A' <= c && c <= 'Z':
			kinds[1] = true
		case '0' <= c && c <= '9':
			kinds[2] = true
		default:
			kinds[3] = true
		}
	}
	n := 0
	for _, k := range kinds[:3] {
		if k {
			n++
		}
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(len(v))
		h -= p * math.Log2(p)
	}
	return n >= 2 && h >= 3.5
}

// lookalikeHost reports, for a host name or address written in text, the
// first letter that imitates an ASCII one (a Cyrillic "о" in "pypi.оrg"):
// the letter, what it reads as and its script. A name written wholly in
// another script (an internationalised name) is not a look-alike.
func lookalikeHost(host string) (r rune, reads, script string, ok bool) {
	ascii := false
	for _, c := range host {
		if c < 0x80 && isWordByte(byte(c)) {
			ascii = true
			break
		}
	}
	if !ascii {
		return 0, "", "", false
	}
	for _, c := range host {
		if c < 0x80 {
			continue
		}
		if a, found := confusableASCII[c]; found {
			return c, a, scriptOf(c), true
		}
		if a, found := letterFold[c]; found {
			return c, a, scriptOf(c), true
		}
	}
	return 0, "", "", false
}

// scriptOf names the Unicode script of r ("Cyrillic", "Greek").
func scriptOf(r rune) string {
	for name, table := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && unicode.Is(table, r) {
			return name
		}
	}
	return "Common"
}

// lookalikeFinding returns the finding for a host name in text[lo:hi]
// spelled with a look-alike letter, shown as such to the reviewer
// ("pypi.оrg: "о" U+043E is Cyrillic, read as "o"").
func lookalikeFinding(text string, lo, hi int) (governance.Finding, bool) {
	host := text[lo:hi]
	r, reads, script, ok := lookalikeHost(host)
	if !ok {
		return governance.Finding{}, false
	}
	f := governance.Finding{
		Category: governance.GateAuthority, Pattern: "lookalike_domain", Start: lo, End: hi,
		Excerpt: fmt.Sprintf("%s: %q U+%04X is %s, read as %q", host, string(r), r, script, reads),
	}
	f.Because(governance.Say(gateWhy(governance.GateAuthority, "lookalike_domain")))
	return f, true
}

// toUser is what names the user as the one a sending verb sends to: "send
// me …", "send it (over) to me", 发给我, 发给用户, 发到我(的)邮箱 — not 我们.
var toUser = regexp.MustCompile(`^(?:(?i:\s*(?:me|(?:it|them|this|that|these|those|everything|one)\s+(?:over\s+|back\s+)?to\s+me|(?:over\s+|back\s+)?to\s+me)\b)|(?:给)?(?:用户|我)(?:[^们]|$))`)

// notToUser refuses a sending verb whose recipient is the user: the answer
// goes where every answer goes.
func notToUser(s string, loc []int) bool {
	return !toUser.MatchString(s[loc[1]:])
}

// userReader is a reader who is the user: what the user reads is
// theirs to shape.
var userReader = regexp.MustCompile(`(?i)\b(?:the\s+user|i|we)\s+(?:\w+\s+)?(?:see|sees|read|reads|view|views|review|reviews|look|looks|check|checks|get|gets|don't|do|never|need|needs)\b|\b(?:to|for)\s+(?:me|us|myself|ourselves|the\s+user)\b|(?:给|让|只有|除了)(?:我|我们|用户)|(?:我|我们|用户)(?:自己)?(?:看|查看|过目|审核|审阅|检查)`)

// readerNotUser refuses an omission whose reader is the user ("leave it
// out of the summaries I read", 给我的周报里别提): only what someone else
// reads can be kept from them.
func readerNotUser(s string, loc []int) bool {
	return !userReader.MatchString(s[loc[0]:loc[1]])
}

// notUserSubject refuses a match the user is the subject of: "when I book
// flights", "we always text our parents" describe what the user does, not
// what the agent is to do. It reads the two words before the match.
func notUserSubject(s string, loc []int) bool {
	before := strings.TrimRight(s[:loc[0]], " \t")
	for _, who := range []string{"我", "我们", "用户"} {
		// "帮我…", "替我们…" ask the agent to act for the user.
		if w, ok := strings.CutSuffix(before, who); ok && !strings.HasSuffix(w, "帮") && !strings.HasSuffix(w, "替") && !strings.HasSuffix(w, "给") && !strings.HasSuffix(w, "为") {
			return false
		}
	}
	words := strings.Fields(before)
	for i := len(words) - 1; i >= 0 && i >= len(words)-2; i-- {
		switch strings.ToLower(strings.Trim(words[i], ",;:\"'“”")) {
		case "i", "we", "i'll", "we'll", "i'd", "we'd", "i've", "we've", "i'm", "we're":
			return false
		}
	}
	return true
}

// agentDoes accepts a match that asks the agent to do it: not what the
// user does (notUserSubject), and not negated just before ("don't book
// red-eye flights", "先别告诉孩子们" restrict the agent; what a negated
// "tell" hides is concealment's to mark).
func agentDoes(s string, loc []int) bool {
	if !notUserSubject(s, loc) {
		return false
	}
	before := strings.TrimRight(s[:loc[0]], " \t")
	for _, n := range negatedBy {
		if strings.HasSuffix(before, n) {
			return false
		}
	}
	words := strings.Fields(before)
	for i := len(words) - 1; i >= 0 && i >= len(words)-2; i-- {
		switch strings.ToLower(strings.Trim(words[i], ",;:\"'“”")) {
		case "don't", "dont", "never", "not", "no", "stop", "avoid", "don’t":
			return false
		}
	}
	return true
}

// Booking: what commits the user (bookingInitiative, patterns/risk.txt),
// what only frames the user's own asking (bookingOnRequest) and how a
// booking is made (the low-risk class booking_form).
var (
	bookingInitiative = regexp.MustCompile(patterns.exprOf("booking_initiative"))
	bookingOnRequest  = regexp.MustCompile(patterns.exprOf("booking_on_request"))
	bookingForm       = regexp.MustCompile(patterns.named("class", "booking_form").expr(patterns.defs) + "|" + patterns.named("class", "datetime").expr(patterns.defs))
	bookingProvider   = regexp.MustCompile(`(?i)\b(?:book|reserve|booking|reservations?|order)\b[^.!?;\n]{0,40}?\b(?:at|with|through|via|from)\s+` + patterns.defs["partyName"])
)

// agentCommits accepts a booking the agent would make on its own: it asks
// the agent to do it (agentDoes) and it is not only a preference about
// how the agent books when asked (bookingCommits).
func agentCommits(s string, loc []int) bool {
	return agentDoes(s, loc) && bookingCommits(s, loc)
}

// bookingCommits reports whether the sentence around a booking commits
// the user or their money beyond their own asking: initiative (it books
// when something happens, on a schedule, without asking), another party
// or a favoured provider, or a named provider; or a booking with nothing
// said about how it is made. A sentence that only says which seat, table,
// time, class or room the agent picks when it books is the user's own form.
func bookingCommits(s string, loc []int) bool {
	lo, hi := sentenceAround(s, loc[0], loc[1])
	sent := s[lo:hi]
	rest := []byte(sent)
	for _, l := range bookingOnRequest.FindAllStringIndex(sent, -1) {
		for i := l[0]; i < l[1]; i++ {
			rest[i] = ' '
		}
	}
	if bookingInitiative.Match(rest) {
		return true
	}
	for _, m := range bookingProvider.FindAllStringSubmatchIndex(sent, -1) {
		if namedParty(sent, m) {
			return true
		}
	}
	return !bookingForm.MatchString(sent)
}

// negatedBy are the Chinese negations that, just before a verb, make it a
// restriction.
var negatedBy = []string{"不要", "别", "不用", "不必", "千万别", "不许", "不准", "不能", "不", "先别", "暂时别", "永远别", "从不"}

// notParty are the capitalised words that name no business or person
// (patterns/words.txt, list not_party).
var notParty = func() map[string]bool {
	out := map[string]bool{}
	for _, l := range patterns.named("list", "not_party").lines {
		for _, w := range strings.Fields(l) {
			out[w] = true
		}
	}
	return out
}()

// namedParty accepts a promotion whose name (the first submatch) holds a
// word that may name a business or a person: not only languages,
// nationalities, weekdays, months, units and formats. A rule line with no
// name group is accepted as it is.
func namedParty(s string, loc []int) bool {
	lo, hi := firstGroup(loc)
	if lo == loc[0] && hi == loc[1] {
		return true
	}
	for _, w := range strings.Fields(s[lo:hi]) {
		if !notParty[strings.ToLower(strings.Trim(w, "'&.-"))] {
			return true
		}
	}
	return false
}
