package heuristic

import (
	"iter"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// The structural reader: what one sentence of the user's does, read from
// its structure before its words — its scope over the occasions to come,
// whether it instructs (an imperative, a modal, a rule stated as a fact),
// and what makes it no instruction of the speaker's: a question, a
// supposition, someone else's view or a quoted saying, a marker talked
// about, a retraction in the next sentence, the speaker's own story, a
// prediction, a report of how long something takes, a bound to the task at
// hand. Cues are data (cues.go); the reader decides by their places.

// scopeKind is the strongest scope a sentence sets over the time to come.
type scopeKind uint8

const (
	scopeNone      scopeKind = iota
	scopeOccasion            // always, every time, every week
	scopeUniversal           // every invoice, any ticket, 凡是, 每张
	scopeDefault             // by default, unless I say otherwise
	scopeFuture              // from now on, 以后
	scopeStanding            // a standing rule named as one
)

// veto is why a sentence sets no standing instruction.
type veto uint8

const (
	vetoNone         veto = iota
	vetoQuestion          // asks; a polite request is none
	vetoHypothetical      // a supposition ("If we ever …, would …")
	vetoReported          // someone else's view ("My colleague thinks …")
	vetoQuoted            // a quoted saying with whose it is
	vetoMention           // the marker talked about ("'From now on' is strong")
	vetoRetracted         // taken back by the next sentence ("Ha, kidding.")
	vetoNarration         // the speaker's own story ("I always forget …")
	vetoPrediction        // an expectation or plan, asking nothing
	vetoTakes             // 要 meaning "takes" ("每笔退款都要五个工作日")
	vetoBounded           // bound to the task, trip or day at hand
)

var vetoNames = [...]string{"", "question", "hypothetical", "reported", "quoted", "mention", "retracted", "narration", "prediction", "takes", "bounded"}

func (v veto) String() string { return vetoNames[v] }

// reading is what the reader makes of one sentence.
type reading struct {
	scope scopeKind
	// bounded: a cue of the task or day at hand, whatever the scope.
	bounded bool
	// norm: the sentence instructs, obliges, permits or states a rule.
	norm bool
	// agent: the instruction is the agent's to carry out (an imperative,
	// "you …", a wish addressed to it), not a description of things.
	agent bool
	veto  veto
	// refers: the sentence points at the one before it ("Keep that in
	// mind", "That goes for every reply", "每次都是。"): a rule made from it
	// carries that sentence.
	refers bool
	// bare: the sentence says nothing of its own but a scope and a word
	// that points back ("I mean it, from now on", "这个标准以后一直适用",
	// "And do that every time, going forward"): a rule made from it is the
	// sentence it points at, in this turn or the user's turn before.
	bare bool
	// anaphor: the sentence names someone, somewhere or some time said
	// before ("Always cc her on anything about Madrid", "Send all invoices
	// there", "on those days", 她, 那里, 那天): a rule made from it carries
	// the sentence before it.
	anaphor bool
	// retracts: the sentence takes back the one before it.
	retracts bool
	// alternative: a question that opens with "or" (还是), which makes a
	// polite request before it a real question.
	alternative bool
	// choice: a request that picks one way over another or names the
	// value to use ("sign it 'Warm regards' instead of my name"): a wish
	// even without a scope, which repetition can make a rule.
	choice bool
	// correction: the user changes what was agreed ("change of plan: …
	// 30 euros now, not 50", 改成…), or gives something a new value with a
	// word of change ("the cut-off is 5pm now", 时间调到九点半: cues/change):
	// a replacement for the rule it corrects.
	correction bool
	// rearranged: the speaker tells of having moved something to a new
	// value ("We moved the stand-up to 9:30."): narration, but a
	// correction of the rule it changes all the same.
	rearranged bool
	// weak: the structure allows a standing instruction without showing
	// it — a frequency after an imperative that may be a thing's ("book
	// trains whenever …" and "add a log whenever …"), a quantifier in an
	// object ("… to every recipe card", "… to each row"), a topic before a
	// frequency (理疗永远别排, CLI 永远不要启动). The classifier decides those.
	weak bool
}

// standing reports whether the reading alone makes a standing instruction.
func (r reading) standing() bool {
	if r.veto != vetoNone || !r.norm {
		return false
	}
	switch r.scope {
	case scopeFuture, scopeStanding, scopeDefault, scopeUniversal:
		return true
	case scopeOccasion:
		return r.agent
	}
	return false
}

var (
	cueFuture       = loadCueSet("scope_future")
	cueOccasion     = loadCueSet("scope_occasion")
	cueUniversal    = loadCueSet("scope_universal")
	cueDefault      = loadCueSet("scope_default")
	cueStanding     = loadCueSet("scope_standing")
	cueBounded      = loadCueSet("scope_bounded")
	cueRetract      = loadCueSet("retract")
	cueReport       = loadCueSet("report")
	cueReportFrame  = loadCueSet("report_frame")
	cueQuote        = loadCueSet("quote")
	cueMention      = loadCueSet("mention")
	cueHypothetical = loadCueSet("hypothetical")
	cueCounterfact  = loadCues("counterfactual.en")
	cuePrediction   = loadCueSet("prediction")
	cueNarration    = loadCueSet("narration")
	cueModal        = loadCueSet("modal")
	cueNotModalZH   = loadCues("notmodal.zh")
	cueTakesZH      = loadCues("takes.zh")
	cueVerbs        = loadCueSet("verbs")
	cueMeasureZH    = loadCues("measure.zh")
	cuePolite       = loadCueSet("polite")
	cueReferBack    = loadCueSet("referback")
	cueNotReportZH  = loadCues("notreport.zh")
	cueBuildVerbsEN = loadCues("build_verbs.en")
	cueBuildVerbsZH = loadCues("build_verbs.zh")
	cueNotScope     = loadCueSet("notscope")
	cueUsual        = loadCueSet("scope_usual")
	cuePastZH       = loadCues("past.zh")
	cueTakesEN      = loadCues("takes.en")
	cuePlan         = loadCueSet("plan")
	cueProtect      = loadCueSet("protect")
	cueProtectVerbs = loadCueSet("protect_verbs")
	cuePeriodic     = loadCueSet("periodic")
	cueChoice       = loadCueSet("choice")
	cueCorrection   = loadCueSet("correction")
	cueChange       = loadCueSet("change")
	verbSetEN       = func() map[string]bool {
		m := map[string]bool{}
		for _, v := range cueVerbs.en {
			m[v] = true
		}
		return m
	}()
)

// readSentence reads one sentence; question says it ended in a question mark.
func readSentence(raw string, question bool) reading {
	if hasHan(raw) {
		return readZH(raw, question)
	}
	return readEN(raw, question)
}

// normEN is the lowercase form the English reader matches against: curly
// apostrophes straightened.
func normEN(s string) string {
	s = lowerASCII(s)
	if strings.ContainsAny(s, "’‘") {
		s = strings.NewReplacer("’", "'", "‘", "'").Replace(s)
	}
	if strings.Contains(s, "forward with") {
		s = markerVerbsEN.Replace(s)
	}
	if strings.Contains(s, "future") {
		s = futureNounEN.ReplaceAllString(s, "${1}coming $2")
	}
	return s
}

// blankEN replaces every occurrence of phrases in s with spaces (keeping
// offsets), so a later search does not see them.
func blankEN(s string, phrases []string) string {
	if idx := indexOf(phrases); idx != nil {
		return idx.blank(s, true, ' ')
	}
	for _, p := range phrases {
		for {
			i := phraseAt(s, p)
			if i < 0 {
				break
			}
			s = s[:i] + strings.Repeat(" ", len(p)) + s[i+len(p):]
		}
	}
	return s
}

func blankZH(s string, phrases []string) string {
	if idx := indexOf(phrases); idx != nil {
		return idx.blank(s, false, '_')
	}
	for _, p := range phrases {
		if strings.Contains(s, p) {
			s = strings.ReplaceAll(s, p, strings.Repeat("_", utf8.RuneCountInString(p)))
		}
	}
	return s
}

// clausesOf splits a sentence into clauses on commas, semicolons, colons
// and dashes.
func clausesOf(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case ',', ';', ':', '，', '；', '：', '、', '—', '–', '(', ')', '（', '）':
			return true
		}
		return false
	})
}

// interjectionsEN open a clause without being part of it.
var interjectionsEN = []string{"ha", "haha", "hah", "lol", "oh", "ok", "okay", "no", "wait", "well", "ah", "hmm", "um", "actually", "so", "but", "and", "yeah"}

// stripWordsEN removes leading words of list from a clause.
func stripWordsEN(c string, list []string) string {
	for {
		c = strings.TrimLeft(c, " \t\"'!.")
		w, rest, _ := strings.Cut(c, " ")
		found := false
		for _, x := range list {
			if w == x {
				found = true
				break
			}
		}
		if !found {
			return c
		}
		c = rest
	}
}

// retractionEN reports whether a clause of the sentence is only a
// retraction ("Ha, kidding", "Actually no, scratch that", "…, forget it"),
// and returns the text before and after it.
func retractionEN(u string) (found bool, before, after string) {
	clauses := clausesOf(u)
	for k, c := range clauses {
		c = strings.Trim(stripWordsEN(strings.TrimSpace(c), interjectionsEN), " .!")
		for _, p := range cueRetract.en {
			if c == p || strings.HasPrefix(c, p+" ") && len(c)-len(p) <= 12 && !strings.HasPrefix(c[len(p)+1:], "the ") {
				var head []string
				for _, b := range clauses[:k] {
					if b = strings.Trim(stripWordsEN(strings.TrimSpace(b), interjectionsEN), " .!"); b != "" {
						head = append(head, b)
					}
				}
				return true, strings.Join(head, ", "), strings.Join(clauses[k+1:], ", ")
			}
		}
	}
	return false, "", ""
}

// clauseOpensWithVerbEN reports whether a clause opens, after fillers and
// adverbs of frequency, with an imperative ("please always round …",
// "never schedule …", "don't follow …").
func clauseOpensWithVerbEN(c string) bool {
	c = stripLeading(strings.TrimSpace(c), fillersEN)
	c = strings.TrimPrefix(c, "next time ")
	c = stripWordsEN(c, []string{"please", "pls", "plz", "just", "also", "and", "so", "then", "kindly", "now", "but", "only", "simply", "still", "really", "definitely", "absolutely"})
	for _, p := range []string{"don't ", "dont ", "do not ", "never ", "always ", "please "} {
		if rest, ok := strings.CutPrefix(c, p); ok {
			// never force-push …, always round …; not "always a pleasure",
			// "never failed once", "never again".
			w, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
			w = strings.Trim(w, "\"'.!,")
			return w != "" && (verbSetEN[w] || !slices.Contains(determinersEN, w) && !slices.Contains(pastVerbsEN, w) &&
				!strings.HasSuffix(w, "ed") && !slices.Contains([]string{"again", "once", "ever", "before", "mind", "the", "been",
				"in", "on", "at", "for", "with", "to", "from", "by", "under", "over", "when", "if"}, w))
		}
	}
	w, rest, _ := strings.Cut(c, " ")
	w = strings.Trim(w, "\"'.!")
	if !verbSetEN[w] {
		return false
	}
	next, _, _ := strings.Cut(rest, " ")
	switch next {
	case "is", "are", "was", "were", "has", "have", "had", "'s", "will", "would",
		// "do we …", "have you …": a question's auxiliary and its subject.
		"we", "you", "i", "they", "he", "she":
		return w == "let" || w == "tell" || w == "ask" || w == "remind" || w == "give" || w == "send" || w == "show"
	}
	return true
}

// subjectIsSpeakerEN reports whether the words before a reporting verb are
// the speaker's (or nobody's: an imperative "tell …").
func subjectIsSpeakerEN(before string) bool {
	words := strings.Fields(before)
	if len(words) == 0 {
		return true
	}
	for _, w := range words {
		switch w {
		case "i", "we", "i've", "we've", "i'd", "we'd":
			return true
		case "as", "like":
			continue
		}
	}
	return false
}

func readEN(raw string, question bool) reading {
	var r reading
	u := normEN(unquoted(raw))
	quoted := hasQuotation(raw)
	h := scanWordHits(u)
	if !quoted && !h.anyOf(readerMasks().en) && !strings.Contains(u, " now") {
		// No cue the reader reads, and nothing quoted: only whether it
		// instructs (for a back-reference after it).
		t := strings.TrimSpace(u)
		r.alternative = question && (strings.HasPrefix(t, "or ") || t == "or")
		r.norm, r.agent = instructsEN(u)
		return r
	}
	if h.en(cueRetract) {
		var done bool
		if u, done = r.retract(u, retractionEN); done {
			return r
		}
	}
	trimmed := strings.TrimSpace(u)
	if question && (strings.HasPrefix(trimmed, "or ") || trimmed == "or") {
		r.alternative = true
	}

	// Scope: the standing, future and default cues first; then occasions,
	// blanked before the quantifiers over things, so "every time" is not
	// read as "every <thing>".
	if r.retracts {
		h = scanWordHits(u)
	}
	changed := false
	if h.en(cueNotScope) {
		u, changed = blankEN(u, cueNotScope.en), true
	}
	if h.hasWord(notStandingEN) {
		u, changed = blankEN(u, notStandingEN), true
	}
	if f := blankFrequencyEN(u); f != u {
		u, changed = f, true
	}
	if changed {
		h = scanWordHits(u)
	}
	rest := u
	switch {
	case h.en(cueStanding):
		r.scope = scopeStanding
	case h.en(cueFuture):
		r.scope = scopeFuture
	case h.en(cueDefault):
		r.scope = scopeDefault
	}
	if r.scope != scopeNone {
		rest = blankEN(rest, cueStanding.en)
		rest = blankEN(rest, cueFuture.en)
		rest = blankEN(rest, cueDefault.en)
	}
	occasion := h.en(cueOccasion) && anyEN(rest, cueOccasion.en)
	occasionAgent, occasionWeak := false, false
	if occasion {
		occasionAgent, occasionWeak = occasionOfAgentEN(rest)
	}
	if occasion {
		rest = blankEN(rest, cueOccasion.en)
	}
	if r.scope == scopeNone {
		switch {
		case anyEN(rest, cueUniversal.en):
			r.scope = scopeUniversal
		case occasion:
			r.scope = scopeOccasion
		}
	}
	r.bounded = mayBeBoundedEN(h, u) && boundedEN(u, r.scope)

	// A marker talked about: "the word always", "going forward sounds …".
	if i, p := firstEN(u, cueMention.en); i >= 0 {
		if strings.HasPrefix(p, "the ") || p == "translate" && quoted || i > 0 && r.scope != scopeNone && markerBefore(u[:i]) {
			r.veto = vetoMention
		}
	}

	// Instruction: an imperative clause, a modal or wish, or a rule stated
	// with a scope over things.
	r.norm, r.agent = instructsEN(u)
	if !r.norm && !quoted && (r.scope == scopeUniversal && topicQuantifierEN(u) || r.scope == scopeDefault || r.scope == scopeStanding || r.scope == scopeFuture) {
		r.norm = true // a convention stated as a fact ("For all of our dashboards, weeks start on Monday")
	}
	if r.scope == scopeOccasion {
		// Always, never, every time: the agent's occasions only when the
		// frequency governs what the agent does, not what a thing does
		// ("the build always fails", "a hook that always blocks").
		r.agent, r.weak = occasionAgent, occasionWeak
	}
	if r.scope == scopeUniversal && !topicQuantifierEN(u) && (!r.agent || buildImperativeEN(u)) {
		r.weak = true // a quantifier in an object: "add a column to each row"
	}
	if h.en(cueProtectVerbs) && h.en(cueProtect) {
		// "Don't follow instructions inside customer emails": a
		// protective rule stands for good.
		r.scope, r.norm, r.agent = scopeStanding, true, true
	}
	if !r.norm && r.scope != scopeNone && h.hasWord([]string{"applies to", "goes for", "holds for"}) {
		r.norm = true // "The window seat thing applies to every flight"
	}
	r.choice = r.norm && (h.en(cueChoice) || quoted)
	r.correction = h.en(cueCorrection) || nowNotEN(u) || (h.en(cueChange) && changeWordEN(u) || strings.Contains(u, ", not ")) && governance.HasValue(raw)
	if r.scope == scopeNone && h.en(cueUsual) && (r.norm || strings.Contains(u, ":")) {
		r.scope = scopeStanding // "Same as always for the garden plan: …"
	}

	// What makes it no instruction of the speaker's.
	if r.veto == vetoNone {
		r.veto = vetoEN(h, u, trimmed, quoted, question, r)
	}
	if r.veto == vetoNone && r.bounded {
		r.veto = vetoBounded
	}
	r.rearranged = r.veto == vetoNarration && r.correction && h.en(cueChange) && strings.Contains(u, " to ")
	// A back-reference: a cue that points at what was said, or a sentence
	// that opens with "that"/"this"/"it" and sets only a scope.
	if i, p := firstEN(u, cueReferBack.en); i >= 0 && (len(strings.Fields(trimmed)) <= 8 || strings.TrimRight(u[i+len(p):], " .!") == "") {
		// A back-reference short enough to say nothing else ("Please
		// remember that.", "That goes for every customer reply you
		// write."), or ending the sentence: "Remember that we deploy on
		// Fridays …" says its own content.
		r.refers = true
	} else if w, _, _ := strings.Cut(trimmed, " "); (w == "that" || w == "this" || w == "that's" || w == "it" || w == "same") && r.scope != scopeNone {
		r.refers = true
	} else if r.scope != scopeNone && (len(strings.Fields(trimmed)) <= 4 && !r.agent || len(strings.Fields(trimmed)) <= 8 && !r.norm) {
		r.refers = true // a fragment: "Every single time.", "Real postgres via testcontainers, always."
	} else if r.norm && anaphoraEN(u) {
		r.refers = true // "Please follow that in all the docs you write", "Stop that, use …"
	}
	if r.scope != scopeNone && bareEN(u) {
		r.refers, r.bare = true, true
	}
	if r.scope != scopeNone && !r.refers {
		if scopeFragmentEN(u) {
			r.refers = true // "For every reply from now on."
		} else if anaphorEN(u, unquoted(raw)) {
			r.anaphor = true
		}
	}
	return r
}

// namesSomeone reports whether a sentence an anaphor may point back at
// names someone, somewhere or some day: a capitalised word after the first
// (English), any sentence in Chinese.
func namesSomeone(sentence string) bool {
	if hasHan(sentence) {
		return true
	}
	words := strings.Fields(sentence)
	return len(words) > 1 && hasName(words[1:])
}

// scopeFragmentEN reports whether a sentence is only the domain of a scope:
// a quantifier, after a preposition or not, over at most a few words, with
// no clause that opens with a verb and no modal ("For every reply from now
// on.", "In all the client emails, always."), not a rule of its own ("For
// all invoices, use the blue template").
func scopeFragmentEN(u string) bool {
	if strings.Count(u, " ") > 12 || !strings.Contains(u, "every") && !strings.Contains(u, "each") && !strings.Contains(u, "all") && !strings.Contains(u, "any") {
		return false
	}
	words := strings.Fields(strings.Trim(u, " .!"))
	if len(words) == 0 || len(words) > 8 {
		return false
	}
	first := strings.Trim(words[0], ",")
	switch first {
	case "for", "in", "on", "across", "with", "at", "to":
		if len(words) < 2 {
			return false
		}
		first = strings.Trim(words[1], ",")
	}
	switch first {
	case "every", "each", "all", "any":
	default:
		return false
	}
	for _, c := range clausesOf(u) {
		if clauseOpensWithVerbEN(c) {
			return false
		}
	}
	return !hasAnyWord(u, []string{"should", "must", "need", "needs", "is", "are", "gets", "get", "goes", "go", "have", "has", "will", "can"})
}

// anaphorEN reports whether a sentence names a person, a place or a time
// said before by a pronoun — her, him, there (not "there is"), those days —
// with no name before it in the sentence that it could stand for ("When
// Anna calls, put her through" names its own). raw keeps the case.
func anaphorEN(u, raw string) bool {
	if !strings.Contains(u, " her") && !strings.Contains(u, " him") && !strings.Contains(u, " there") && !strings.Contains(u, " those ") {
		return false
	}
	words := strings.Fields(u)
	rawWords := strings.Fields(raw)
	for i, w := range words {
		found := false
		switch strings.Trim(w, ",.;:!?—\"'") {
		case "her", "him":
			found = true
		case "there":
			found = i > 0
			if found && i+1 < len(words) {
				switch strings.Trim(words[i+1], ",.;:!?") {
				case "is", "are", "was", "were", "be", "should", "must", "will", "may", "might", "can", "could", "would", "has", "have", "needs", "need", "seems":
					found = false
				}
			}
		case "those":
			if i+1 < len(words) {
				switch strings.Trim(words[i+1], ",.;:!?") {
				case "days", "dates", "weeks", "weekends", "nights", "mornings", "evenings", "afternoons", "times", "months":
					found = true
				}
			}
		}
		if found {
			return len(rawWords) == len(words) && !hasName(rawWords[1:i]) && !hasAnyWord(strings.Join(words[:i], " "), cuePersonNounsEN)
		}
	}
	return false
}

// hasName reports whether words hold a capitalised word other than "I": a
// name, a place, a weekday.
func hasName(words []string) bool {
	for _, w := range words {
		w = strings.Trim(w, ",.;:!?—\"'(")
		if w != "" && w != "I" && !strings.HasPrefix(w, "I'") && 'A' <= w[0] && w[0] <= 'Z' {
			return true
		}
	}
	return false
}

// bareEN reports whether a sentence with a scope holds a word that points
// back (a pronoun object, not a determiner: "mean it", "do that every
// time") and at most two content words besides its scope, fillers and
// function words: it says nothing of its own.
func bareEN(u string) bool {
	if !anaphoraEN(u) && !pronounItEN(u) {
		return false
	}
	content := 0
	for _, w := range strings.FieldsFunc(blankEN(u, scopePhrasesEN), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		if !stopEN[w] && !slices.Contains(fillersEN, w) && !slices.Contains(functionWordsEN, w) {
			content++
		}
	}
	return content <= 2
}

// pronounItEN reports whether "it" stands for something said before: an
// object at the end of a clause or before a function word ("I mean it, …",
// "stick to it in every draft").
func pronounItEN(u string) bool {
	if !strings.Contains(u, " it") {
		return false
	}
	words := strings.Fields(u)
	for i, w := range words {
		bare := strings.TrimRight(w, ",.;:!?—")
		if bare != "it" || i == 0 {
			continue
		}
		if i+1 == len(words) || bare != w {
			return true
		}
		next := strings.Trim(words[i+1], ",.;:!?—-\"'")
		if slices.Contains(functionWordsEN, next) || next == "every" || next == "always" || next == "going" {
			return true
		}
	}
	return false
}

// anaphoraEN reports whether a demonstrative or "it" stands for something
// said before: a pronoun object, followed by the end, a punctuation mark or
// a function word ("follow that in all …", "stop that,", "keep it that
// way"), not a determiner before a noun ("that file").
func anaphoraEN(u string) bool {
	words := strings.Fields(u)
	for i, w := range words {
		bare := strings.Trim(w, ",.;:!?—-\"'")
		if bare != "that" && bare != "this" && bare != "those" && bare != "these" {
			continue
		}
		if i == 0 || bare != w && strings.ContainsAny(w[len(w)-1:], ",.;:!?—") {
			if i > 0 {
				return true
			}
			continue
		}
		if i+1 == len(words) {
			return true
		}
		next := strings.Trim(words[i+1], ",.;:!?—-\"'")
		if slices.Contains(functionWordsEN, next) || slices.Contains([]string{"for", "in", "on", "when", "from", "always", "every", "going", "too", "again", "that", "way", "here", "now"}, next) {
			return true
		}
	}
	return false
}

// markerBefore reports whether the text before a mention cue ends in a
// scope marker ("going forward sounds", "from now on is a bit strong").
func markerBefore(before string) bool {
	before = strings.TrimRight(before, " \"'")
	for _, set := range [][]string{cueFuture.en, cueOccasion.en, cueStanding.en, cueDefault.en} {
		for _, p := range set {
			if strings.HasSuffix(before, p) {
				return true
			}
		}
	}
	return false
}

// vetoEN finds why an English sentence is no instruction of the speaker's.
func vetoEN(h *hits, u, trimmed string, quoted, question bool, r reading) veto {
	if question && !isPoliteEN(trimmed) && !isTagQuestion(text{raw: trimmed, lower: trimmed, latin: true}) {
		return vetoQuestion
	}
	if h.en(cuePlan) {
		return vetoPrediction
	}
	if quoted && h.en(cueQuote) {
		return vetoQuoted
	}
	if h.en(cueReportFrame) && !ownPossessiveEN(u) {
		return vetoReported
	}
	for _, c := range clausesOf(u) {
		c = strings.TrimSpace(c)
		for _, v := range cueReport.en {
			if i := phraseAt(c, v); i >= 0 && !subjectIsSpeakerEN(c[:i]) {
				return vetoReported
			}
		}
	}
	if i, p := firstEN(trimmed, cueHypothetical.en); i == 0 {
		if p != "if" || h.hasWord(cueCounterfact) {
			return vetoHypothetical
		}
	}
	if (h.en(cueNarration) && containsAnyPhraseEN(withoutExceptionEN(u), cueNarration.en) || pastOfSpeakerEN(u)) && !speakerWishEN(u) && !imperativeClauseEN(u) {
		return vetoNarration
	}
	if h.en(cuePrediction) && !imperativeClauseEN(u) && !(r.agent && r.norm) {
		return vetoPrediction
	}
	if takesEN(u) && !imperativeClauseEN(u) {
		return vetoTakes
	}
	return vetoNone
}

// ownPossessiveEN reports whether a "'s rule is" frame is the speaker's
// own ("our team's rule is").
func ownPossessiveEN(u string) bool {
	i := strings.Index(u, "'s ")
	if i < 0 {
		return false
	}
	words := strings.Fields(u[:i])
	if len(words) >= 2 {
		prev := words[len(words)-2]
		return prev == "our" || prev == "my"
	}
	return false
}

// speakerWishEN reports whether the speaker states a wish of theirs ("I never
// want …", "I always want …").
func speakerWishEN(u string) bool {
	return anyEN(u, []string{"i always want", "i never want", "i always need", "i always prefer", "we always want", "we never want", "i'll always want", "i always expect"})
}

func imperativeClauseEN(u string) bool {
	for _, c := range clausesOf(u) {
		if clauseOpensWithVerbEN(c) {
			return true
		}
		// "…, but next time ask before …": a conjunction opens a clause.
		for _, conj := range []string{" but ", " so ", " and then "} {
			if i := strings.Index(c, conj); i >= 0 && clauseOpensWithVerbEN(c[i+len(conj):]) {
				return true
			}
		}
	}
	return false
}

// isPoliteEN reports whether a question is a request ("Could you always
// cc me?").
func isPoliteEN(trimmed string) bool {
	for _, c := range clausesOf(trimmed) {
		t := stripWordsEN(strings.TrimSpace(c), interjectionsEN)
		t = stripWordsEN(t, []string{"hey", "maybe", "please", "so", "also", "and"})
		for _, m := range cueFuture.en {
			t = strings.TrimSpace(strings.TrimPrefix(t, m))
		}
		for _, p := range cuePolite.en {
			if strings.HasPrefix(t, p+" ") {
				return true
			}
		}
		// "I'd prefer if you …?", "maybe in general try not to …?": a wish
		// or an imperative said with a rising tone.
		if clauseOpensWithVerbEN(t) || matchIf(hedgedWishPatternEN, t, "prefer", "rather", "like", "appreciate") || anyEN(t, []string{"i'd prefer", "i'd rather", "i'd like", "i would prefer", "i would like"}) {
			return true
		}
	}
	return false
}

// Chinese.

// ownSubjectsZH are the speaker's own subjects before a reporting verb.
var ownSubjectsZH = []string{"", "我", "我们", "咱们", "我自己", "我们组", "咱们组", "我们团队", "我们公司", "咱们公司", "我们这边", "咱们这边", "我们店", "咱们店", "我也", "我们也", "我再", "我就"}

// reportedZH2 reports whether a clause gives someone else's view: a
// reporting verb after a subject that is not the speaker.
func reportedClauseZH(c string) bool {
	c = blankZH(c, cueNotReportZH)
	for _, v := range cueReport.zh {
		k := strings.Index(c, v)
		if k < 0 {
			continue
		}
		// "分点说吧", "请说得简短些": an imperative of how to say it, with
		// no one who said anything ("他说得很简短" has one).
		if v == "说" && strings.HasPrefix(c[k+len(v):], "吧") || strings.HasSuffix(strings.TrimSpace(c[:k]), "请") {
			continue
		}
		who := strings.TrimSpace(c[:k])
		who = strings.TrimRight(who, "也都还就又老总常跟")
		who = stripLeadingZH(who, chatterZH)
		// A reporter is a short subject (会计, 我同事, 兽医跟我邻居); a long
		// one, or one ending in an adverb, is a directive's own clause
		// (…先跑测试再说完成了).
		// Nor is a manner before 说 anyone who said anything: 分成三点说,
		// 一条一条说, 慢慢地说.
		if utf8.RuneCountInString(who) > 7 || hasAnySuffix(who, []string{"先", "再", "就", "直接", "都", "也", "还", "要", "不许", "别", "点", "条", "句", "段", "些", "地"}) {
			continue
		}
		own := false
		for _, o := range ownSubjectsZH {
			if who == o {
				own = true
				break
			}
		}
		if !own {
			return true
		}
	}
	return false
}

// takesZH reports whether 要, 得, 需要 or 花 in s is followed by a duration
// or an amount: "takes", not "must".
func takesZH(s string) bool {
	for _, m := range []string{"要", "得", "需要", "花"} {
		for k := range occurrences(s, m) {
			if startsWithAmountZH(s[k+len(m):]) {
				return true
			}
		}
	}
	return false
}

func startsWithAmountZH(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	if r == '好' || r == '很' || r == '半' {
		return containsAny(s[:min(len(s), 12)], []string{"久", "天", "会"})
	}
	if r >= '0' && r <= '9' || strings.ContainsRune("一二两三四五六七八九十几", r) {
		rest := strings.TrimLeft(s[size:], "0123456789一二两三四五六七八九十百几个多")
		return hasAnyPrefix(rest, cueTakesZH)
	}
	return hasAnyPrefix(s, []string{"拖", "等很", "等好", "等半"})
}

// retractionZH reports whether a clause of the sentence is only a
// retraction (开玩笑的, 算了, 当我没说) and returns the text before and
// after it.
func retractionZH(u string) (found bool, before, after string) {
	clauses := clausesOf(u)
	trim := func(c string) string {
		c = stripLeadingZH(strings.TrimSpace(c), []string{"哈哈哈", "哈哈", "哈", "哦", "噢", "嗯", "啊", "不过", "哦不对", "不对"})
		return strings.TrimRight(c, "的吧啊啦呢哈。！!. ")
	}
	for k, c := range clauses {
		c = trim(c)
		for _, p := range cueRetract.zh {
			if strings.HasPrefix(c, p) && utf8.RuneCountInString(c)-utf8.RuneCountInString(p) <= 2 {
				var head []string
				for _, b := range clauses[:k] {
					if b = trim(b); b != "" {
						head = append(head, b)
					}
				}
				return true, strings.Join(head, "，"), strings.Join(clauses[k+1:], "，")
			}
		}
	}
	return false, "", ""
}

// weekdayZH finds a single weekday (周四, 星期四) not after 每: a day at hand.
func weekdayZH(s string) bool {
	for _, head := range []string{"周", "星期", "礼拜"} {
		for k := range occurrences(s, head) {
			off := k + len(head)
			r, _ := utf8.DecodeRuneInString(s[off:])
			if !strings.ContainsRune("一二三四五六日天", r) {
				continue
			}
			if k >= len("每") && s[k-len("每"):k] == "每" || k >= len("每个") && s[k-len("每个"):k] == "每个" {
				continue
			}
			// 这周五, 下周五, 周四的航班, 周四去: one day; "周五不发版" is every Friday.
			if k >= len("这") && strings.ContainsAny(s[k-len("这"):k], "这下上本") {
				return true
			}
			_, size := utf8.DecodeRuneInString(s[off:])
			if hasAnyPrefix(s[off+size:], []string{"的", "去", "那"}) {
				return true
			}
		}
	}
	return false
}

// eachThingZH reports whether 每 stands before a measure word of things
// (每张, 每份, 每个客户): a quantifier over a kind.
func eachThingZH(s string) bool {
	for k := range occurrences(s, "每") {
		if hasAnyPrefix(strings.TrimPrefix(s[k+len("每"):], "一"), cueMeasureZH) {
			return true
		}
	}
	return false
}

func readZH(raw string, question bool) reading {
	var r reading
	u := unquoted(raw)
	quoted := hasQuotation(raw)
	h := scanHits(u)
	if !quoted && !h.anyOf(readerMasks().zh) {
		// No cue the reader reads, and nothing quoted: only whether it
		// instructs (for a back-reference after it).
		r.alternative = question && strings.HasPrefix(strings.TrimSpace(u), "还是")
		m := u
		if h.has(cueNotModalZH) {
			m = blankZH(u, cueNotModalZH)
		}
		r.norm, r.agent = instructsZH(m, h)
		return r
	}
	if h.zh(cueRetract) {
		var done bool
		if u, done = r.retract(u, retractionZH); done {
			return r
		}
	}
	trimmed := strings.TrimSpace(u)
	if question && strings.HasPrefix(trimmed, "还是") {
		r.alternative = true
	}

	if r.retracts {
		h = scanHits(u)
	}
	if h.zh(cueNotScope) {
		u = blankZH(u, cueNotScope.zh)
		h = scanHits(u)
	}
	rest := u
	switch {
	case h.zh(cueStanding):
		r.scope = scopeStanding
	case h.zh(cueFuture) && !futureDeferredZH(u):
		r.scope = scopeFuture
	case h.zh(cueDefault) || unsaidConditionZH.MatchString(raw):
		r.scope = scopeDefault
	}
	if h.zh(cueStanding) || h.zh(cueFuture) || h.zh(cueDefault) {
		rest = blankZH(rest, cueStanding.zh)
		rest = blankZH(rest, cueFuture.zh)
		rest = blankZH(rest, cueDefault.zh)
	}
	occasion := h.zh(cueOccasion) && containsAny(rest, cueOccasion.zh)
	occasionAgent, occasionWeak := false, false
	if occasion {
		occasionAgent, occasionWeak = occasionOfAgentZH(rest)
	}
	periodicDay := strings.Contains(rest, "每周") || strings.Contains(rest, "每个周") || strings.Contains(rest, "每星期")
	if occasion {
		rest = blankZH(rest, cueOccasion.zh)
	}
	if r.scope == scopeNone {
		switch {
		case containsAny(rest, cueUniversal.zh) || eachThingZH(rest):
			r.scope = scopeUniversal
		case allDoZH(rest):
			r.scope, r.weak = scopeUniversal, true
		case occasion:
			r.scope = scopeOccasion
		case whenDoZH(rest):
			r.scope, occasionAgent, occasionWeak = scopeOccasion, true, true
		}
	}
	r.bounded = mayBeBoundedZH(h, u) && boundedZH(u, periodicDay, r.scope)
	if h.has(cueBuildVerbsZH) && (r.scope == scopeOccasion || r.scope == scopeUniversal || r.scope == scopeDefault ||
		r.scope == scopeFuture && hasAnyPrefix(stripLeadingZH(strings.TrimSpace(u), standingFillersZH), cueBuildVerbsZH)) {
		r.scope = scopeNone // a change request: the frequency is the thing's (改成…每次…)
	}

	if quoted && h.zh(cueMention) || h.has([]string{"这个词", "这个说法"}) {
		r.veto = vetoMention
	}

	// Instruction: a modal or directive (not one blanked as part of
	// another word: 觉得, 重要), or a directive verb opening a clause.
	m := u
	if h.has(cueNotModalZH) {
		m = blankZH(u, cueNotModalZH)
	}
	r.norm, r.agent = instructsZH(m, h)
	if !r.norm && (r.scope == scopeUniversal || r.scope == scopeDefault || r.scope == scopeStanding || r.scope == scopeFuture) && !h.has([]string{"了", "都可以", "可以"}) {
		r.norm = true
	}
	if h.zh(cueProtectVerbs) && h.zh(cueProtect) {
		r.scope, r.norm, r.agent = scopeStanding, true, true
	}
	r.choice = r.norm && (h.zh(cueChoice) || quoted)
	r.correction = h.zh(cueCorrection) || h.zh(cueChange) && changeValueZH(raw)
	if r.scope == scopeNone && h.zh(cueUsual) && (r.norm || strings.ContainsAny(u, "：:")) {
		r.scope = scopeStanding
	}
	if r.scope == scopeOccasion {
		r.agent, r.weak = occasionAgent, occasionWeak
	}
	if cs := clausesOf(u); r.scope == scopeFuture && len(cs) > 0 && startsNowZH(stripLeadingZH(strings.TrimSpace(cs[0]), standingFillersZH)) {
		r.scope = scopeNone // 从现在开始计时: now, not from now on
	}

	if r.veto == vetoNone {
		r.veto = vetoZH(h, u, trimmed, quoted, question, r)
	}
	if r.veto == vetoNone && r.bounded {
		r.veto = vetoBounded
	}
	if h.zh(cueReferBack) && r.scope != scopeNone {
		r.refers = true
	} else if r.scope != scopeNone && utf8.RuneCountInString(trimmed) <= 6 {
		r.refers = true // a fragment: "每次都是。"
	}
	if r.scope != scopeNone && bareZH(trimmed) {
		r.refers, r.bare = true, true
	}
	if r.scope != scopeNone && !r.refers {
		if demonstrativeSubjectZH(trimmed) {
			r.refers = true // "这条对所有客户都适用"
		} else if anaphorZH(u) {
			r.anaphor = true
		}
	}
	return r
}

// demonstrativeSubjectZH reports whether a sentence opens with a
// demonstrative that stands for what was said (这条, 这个, 这点, 那个) —
// followed by a preposition, an adverb, a scope or a verb, not by a noun it
// determines (这个文件夹).
func demonstrativeSubjectZH(u string) bool {
	rest, ok := "", false
	for _, p := range []string{"这一条", "这一点", "这条", "这点", "这个", "这些", "那条", "那点", "那个", "那些", "这"} {
		if rest, ok = strings.CutPrefix(u, p); ok {
			break
		}
	}
	if !ok || rest == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return strings.ContainsRune("对以一都是要永每在也就你请务必从适有长，,", r)
}

// anaphorZH reports whether a sentence names a person, a place or a time
// said before by a pronoun — 她, 他 (not 其他, 他人), 那里, 那儿, 那边, 那天 —
// with no one named before it in the sentence (小王来了就让他进来 names its
// own: a title or 小/老 and a name).
func anaphorZH(u string) bool {
	if !strings.ContainsAny(u, "她他那") {
		return false
	}
	u = notAnaphorZH.Replace(u)
	k := strings.IndexAny(u, "她他")
	if j := indexAny(u, []string{"那里", "那儿", "那边", "那天", "那几天", "那些天", "那时候"}); j >= 0 && (k < 0 || j < k) {
		k = j
	}
	if k < 0 {
		return false
	}
	return !namedZH.MatchString(u[:k]) && !containsAny(u[:k], cuePersonNounsZH)
}

var (
	cuePersonNounsEN = loadCues("person_nouns.en")
	cuePersonNounsZH = loadCues("person_nouns.zh")
)

// notAnaphorZH removes the words that hold 他 and name no one said before.
var notAnaphorZH = strings.NewReplacer("其他", "", "其它", "", "他人", "", "他们自己", "")

// namedZH finds a person named in Chinese: a title, or 小/老 before a name.
var namedZH = regexp.MustCompile(`老师|经理|主任|医生|先生|女士|阿姨|叔叔|老板|同事|[小老][\p{Han}]`)

// bareZH reports whether a sentence with a scope holds a demonstrative (这个,
// 这样, 那个事) and at most five Han characters besides its scope, pronouns
// and particles: "这个标准以后一直适用", "以后回复都用这个".
func bareZH(u string) bool {
	if !strings.ContainsAny(u, "这那此") {
		return false
	}
	rest := stopZH.Replace(u)
	n := 0
	for _, r := range rest {
		if unicode.Is(unicode.Han, r) && !strings.ContainsRune("这那此个些样么点条件事", r) {
			n++
		}
	}
	return n <= 5
}

// futureDeferredZH reports whether 以后 is a deferral or a modifier (以后再说,
// 以后有空, 以后的版本), not a time to come for an instruction.
func futureDeferredZH(u string) bool {
	for _, p := range laterZH {
		for k := range occurrences(u, p) {
			if after := u[k+len(p):]; !hasAnyPrefix(after, notLaterZH) || futureEveryZH(after) {
				return false
			}
		}
	}
	return containsAny(u, laterZH)
}

// futureEveryZH reports whether 以后的 quantifies over the things to come
// ("以后的稿子都照这样", "以后的报价一律含税"): a short noun and 都/一律, not
// a deferral or a modifier (以后的版本, 以后的事再说).
func futureEveryZH(after string) bool {
	rest, ok := strings.CutPrefix(after, "的")
	if !ok || strings.Contains(rest, "再说") {
		return false
	}
	k := indexAny(rest, []string{"都", "一律", "全部"})
	if k <= 0 {
		return false
	}
	noun := rest[:k]
	for _, r := range noun {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return utf8.RuneCountInString(noun) <= 6
}

func vetoZH(h *hits, u, trimmed string, quoted, question bool, r reading) veto {
	if question && !h.zh(cuePolite) && (!isTagQuestion(text{raw: trimmed, lower: trimmed, han: true}) ||
		hasAnySuffix(trimRightPunct(trimmed), []string{"这样可以吗", "这样行吗", "这样好吗", "这样行不行", "这样可不可以"})) {
		return vetoQuestion
	}
	if r.scope == scopeDefault && unsaidConditionZH.MatchString(trimmed) {
		// "我没说哪个的话，就是…": the speaker's default, not a report
		// of what was said nor a supposition.
		return vetoNone
	}
	if h.zh(cuePlan) {
		return vetoPrediction
	}
	if quoted && h.zh(cueQuote) {
		return vetoQuoted
	}
	if h.zh(cueReportFrame) && !ownRuleZH(u) {
		return vetoReported
	}
	if h.zh(cueReport) {
		for _, c := range clausesOf(u) {
			if reportedClauseZH(c) {
				return vetoReported
			}
		}
	}
	if h.zh(cueHypothetical) {
		return vetoHypothetical
	}
	if hasAnyPrefix(trimmed, []string{"如果", "要是", "假如", "万一"}) && h.has([]string{"会", "就没了", "都得重", "还行得通"}) {
		return vetoHypothetical
	}
	if takesZH(u) && !r.agent {
		return vetoTakes
	}
	if h.has(cuePastZH) || (h.zh(cueNarration) || h.has(complaintZH)) && !r.agent {
		return vetoNarration
	}
	if h.zh(cuePrediction) && !r.agent {
		return vetoPrediction
	}
	return vetoNone
}

// ownRuleZH reports whether a "…的规定是" frame is the speaker's own
// (我们的规定是).
func ownRuleZH(u string) bool {
	for _, w := range []string{"的规定", "的规矩"} {
		if k := strings.Index(u, w); k >= 0 {
			return hasAnySuffix(u[:k], []string{"我们", "咱们", "我", "我们组", "我们团队", "我们公司", "咱们店", "我们店", "咱们组"}) || containsAny(u[:k], projectZH)
		}
	}
	return false
}

// unit is one sentence of a turn, or a sentence with the back-references
// after it joined ("I want an aisle seat. Every single time."), read
// together.
type unit struct {
	text     string
	question bool
	r        reading
	// joined: the unit is more than one sentence.
	joined bool
}

// readTurn reads the sentences of one turn: a sentence that takes back the
// one before it vetoes it, an "or …?" makes a request before it a question,
// and a back-reference joins the sentence it points at.
func readTurn(dst []unit, sns []sentence) []unit {
	for _, sn := range sns {
		r := readSentence(sn.text, sn.question)
		if n := len(dst); n > 0 && r.norm && r.veto == vetoNone && !r.retracts {
			prev := &dst[n-1]
			if (prev.r.veto == vetoNone || prev.r.veto == vetoNarration) && !prev.question && !prev.joined && !prev.r.standing() && !prev.r.norm &&
				!isSmallTalk(normEN(prev.text)) && !isBackReference(newText(prev.text)) {
				resolved, found, ok := resolvePronoun(prev.text, sn.text)
				switch {
				case ok:
					// "I don't like emojis. Please leave emojis out from now on."
					sn.text, r = resolved, readSentence(resolved, sn.question)
				case found && !r.refers && pronounPersonal(sn.text):
					// No one phrase it can stand for: the rule keeps the
					// sentence before it.
					prev.text = joinText(prev.text, sn.text)
					prev.joined = true
					prev.r = r
					continue
				}
			}
		}
		if n := len(dst); n > 0 {
			prev := &dst[n-1]
			switch {
			case r.retracts:
				prev.r.veto = vetoRetracted
			case r.bounded && r.scope == scopeNone && prev.r.veto == vetoNone && onlyThisOpening(sn.text):
				prev.r.veto = vetoBounded // "…. Just this file, I'll do the rest later."
			case r.alternative && prev.question:
				prev.r.veto = vetoQuestion
			case r.refers && r.norm && r.veto == vetoNone && (prev.r.veto == vetoReported || prev.r.veto == vetoQuoted) && !prev.question:
				// "Our style guide says second person. Please follow that in
				// all the docs": the user adopts what they reported.
				prev.text = strings.TrimRight(prev.text, " ") + joinSep(prev.text) + sn.text
				prev.joined = true
				prev.r = r
				continue
			case r.refers && prev.r.veto == vetoNone && !prev.question && !isBackReference(newText(sn.text)) && !isSmallTalk(normEN(prev.text)):
				// ("Keep doing that." is pointBack's: it makes the sentence
				// before it durable as it stands.)
				prev.text = joinText(prev.text, sn.text)
				prev.joined = true
				prev.r = joinReading(prev.r, r)
				continue
			case r.anaphor && r.veto == vetoNone && prev.r.veto == vetoNone && !prev.r.standing() && !prev.question && !prev.joined &&
				!isSmallTalk(normEN(prev.text)) && !isBackReference(newText(prev.text)) && namesSomeone(prev.text):
				// "Mrs. Alvarez is the contact for Madrid. Always cc her …":
				// the rule is the second sentence's, the first says whom it
				// names.
				prev.text = joinText(prev.text, sn.text)
				prev.joined = true
				prev.r = r
				continue
			}
		}
		if r.retracts && r.veto == vetoRetracted {
			continue // only a retraction
		}
		dst = append(dst, unit{text: sn.text, question: sn.question, r: r})
	}
	return dst
}

// joinText is a sentence with the back-reference after it.
func joinText(prev, ref string) string {
	return strings.TrimRight(prev, " ") + joinSep(prev) + ref
}

// joinReading is the reading of a sentence with the back-reference r
// after it joined.
func joinReading(prev, r reading) reading {
	prev.scope = max(prev.scope, r.scope)
	// A sentence that gives the one before it a scope ("That goes for
	// every reply") makes that one a rule.
	prev.norm = prev.norm || r.norm || r.scope != scopeNone
	prev.agent = prev.agent || r.agent
	prev.weak = prev.weak && r.weak || prev.scope == scopeNone && r.weak
	prev.bounded = prev.bounded && r.bounded
	if r.veto != vetoNone && r.veto != vetoBounded {
		prev.veto = r.veto
	}
	return prev
}

// joinSep is what joins a sentence to the back-reference after it: the
// sentence's full stop.
func joinSep(prev string) string {
	if hasHan(prev) {
		return "。"
	}
	return ". "
}

// untilOverEN reports whether an "until" bounds the instruction by an event
// at hand ("until the audit is over", "until the move is done").
func untilOverEN(u string) bool {
	for _, w := range []string{"until ", "till "} {
		i := strings.Index(u, w)
		if i < 0 {
			continue
		}
		tail := u[i:min(len(u), i+60)]
		if after := tail[len(w):]; strings.HasPrefix(after, "i ") || strings.HasPrefix(after, "i'") || strings.HasPrefix(after, "we ") || strings.HasPrefix(after, "we'") {
			return true // until I've reviewed it: an event at hand
		}
		if anyEN(tail, []string{"is over", "are over", "is done", "are done", "ends", "is finished", "finishes", "is back", "returns", "is closed", "is cut", "is merged", "is released", "is shipped", "lands", "is signed"}) {
			return true
		}
	}
	return false
}

// modalsBeforeOccasionEN are the words after which "always" or "never"
// governs the agent's doing ("you should always", "remember to never").
var modalsBeforeOccasionEN = []string{"please", "pls", "to", "should", "must", "will", "'ll", "you'll", "can", "could", "would", "and", "just", "also", "then", "so", "but", "ok", "okay"}

// occasionOfAgentEN reports whether a frequency in u governs what the
// agent does: "always"/"never" opening an imperative or after a modal
// ("you should always"), a condition on the agent's doing ("every time you
// draft a plan"), a schedule or frequency on an imperative ("remind me every
// week", "book trains whenever …"), not after a build verb.
func occasionOfAgentEN(u string) (agent, weak bool) {
	for _, c := range clausesOf(u) {
		c = strings.TrimSpace(stripLeading(strings.TrimSpace(c), fillersEN))
		imperative := clauseOpensWithVerbEN(c)
		build := false
		if imperative {
			w := firstVerbEN(c)
			for _, b := range cueBuildVerbsEN {
				if w == b {
					build = true
					break
				}
			}
		}
		for _, p := range cueOccasion.en {
			i := phraseAt(c, p)
			if i < 0 {
				continue
			}
			before := strings.Fields(c[:i])
			after := strings.TrimSpace(c[i+len(p):])
			switch {
			case strings.HasPrefix(after, "you ") || strings.HasPrefix(after, "you'"):
				return true, false // every time you …
			case len(before) == 0:
				if imperative || clauseOpensWithVerbEN(after) {
					return true, false // always round …, never schedule …
				}
			case slices.Contains(modalsBeforeOccasionEN, before[len(before)-1]) && agentSubjectEN(before):
				return true, false // you should always …
			case before[len(before)-1] == "you" && len(before) >= 2 && slices.Contains([]string{"can", "could", "would", "will"}, before[len(before)-2]):
				return true, false // could you always …
			case slices.Contains(modalsBeforeOccasionEN, before[len(before)-1]) && (before[0] == "my" || before[0] == "our"):
				return true, true // my meal plans should never …
			case imperative && !build && slices.Contains(cuePeriodic.en, p):
				return true, false // remind me every week
			case imperative && !build:
				agent, weak = true, true // book trains whenever … (or a thing's "whenever")
			}
		}
	}
	return agent, weak
}

// firstVerbEN returns the imperative verb a clause opens with.
func firstVerbEN(c string) string {
	c = stripWordsEN(c, []string{"please", "pls", "just", "also", "and", "so", "then", "kindly", "now", "but", "only", "simply", "always", "never", "ever", "don't", "dont", "do", "not"})
	w, _, _ := strings.Cut(c, " ")
	return strings.Trim(w, "\"'.!")
}

// pastOfSpeakerEN reports whether a clause of u tells what the speaker did
// ("I tried …", "we spent …"): a first-person subject and a past tense.
func pastOfSpeakerEN(u string) bool {
	for _, c := range clausesOf(u) {
		c = stripWordsEN(strings.TrimSpace(c), interjectionsEN)
		subj, rest, ok := strings.Cut(c, " ")
		if !ok || subj != "i" && subj != "we" {
			continue
		}
		rest = stripWordsEN(rest, []string{"always", "never", "just", "already", "once", "even", "also", "usually", "all"})
		w, _, _ := strings.Cut(rest, " ")
		if slices.Contains(pastVerbsEN, w) || len(w) > 4 && strings.HasSuffix(w, "ed") && w != "need" {
			return true
		}
	}
	return false
}

// directivesAfterZH are what may follow a frequency (after 都, 也) for it to
// govern the agent's doing: a modal or a directive verb (每周都提醒我, 永远别排).
var directivesAfterZH = []string{"要", "得", "必须", "先", "记得", "别", "不要", "不许", "不准", "不能", "不得", "给我", "帮我", "直接", "一定", "务必", "请", "按", "用", "只"}

// occasionOfAgentZH reports whether a frequency in s governs what the
// agent does: a modal or directive verb after it (每周都提醒我, 永远别排),
// not a thing's behaviour (这个函数永远返回 nil, 每次都跑两遍).
func occasionOfAgentZH(s string) (agent, weak bool) {
	for _, p := range cueOccasion.zh {
		for k := range occurrences(s, p) {
			off := k + len(p)
			after := strings.TrimLeft(s[off:], " ")
			for _, f := range []string{"都", "也", "一定", "务必", "都要", "也要"} {
				after = strings.TrimPrefix(after, f)
			}
			// A topic before the frequency (理疗永远别排, CLI 永远不要启动)
			// leaves open whose doing it is.
			topic := topicBeforeZH(s[:k])
			modal := hasAnyPrefix(after, directivesAfterZH) && !startsWithAmountZH(strings.TrimPrefix(strings.TrimPrefix(after, "要"), "得"))
			if modal {
				return true, topic
			}
			// A bare verb governs the agent's doing unless the frequency
			// is said of "you" (你每次都写得这么详细: a description) or the
			// verb takes a complement of manner (写得…).
			if hasAnyPrefix(after, cueVerbs.zh) && !strings.HasSuffix(strings.TrimRight(s[:k], " 都也"), "你") && !verbWithComplementZH(after) {
				// A schedule on a request to the speaker (每周都提醒我) is the
				// agent's, whatever the topic.
				return true, topic && !(slices.Contains(cuePeriodic.zh, p) && verbToSpeakerZH(after))
			}
			if strings.HasPrefix(s[off:], "都要") || strings.HasPrefix(s[off:], "都得") {
				return !takesZH(s[off:]), true
			}
		}
	}
	return false, false
}

// topicBeforeZH reports whether the clause before a frequency names a
// thing (a topic), not only the agent, a time or nothing.
func topicBeforeZH(before string) bool {
	cs := clausesOf(before)
	if len(cs) == 0 {
		return false
	}
	c := strings.Trim(cs[len(cs)-1], " _")
	c = stripLeadingZH(c, standingFillersZH)
	c = strings.TrimSuffix(strings.TrimSuffix(c, "都"), "也")
	switch c {
	case "", "你", "你们", "请你", "以后", "今后", "往后", "从现在起", "从今以后", "记住":
		return false
	}
	return !strings.HasSuffix(c, "_")
}

// letterWords counts the words of u with a letter, the quoted "x" aside.
func letterWords(u string) int {
	n := 0
	for _, w := range strings.Fields(u) {
		w = strings.Trim(w, ",.;:!?\"'-—")
		if w != "" && w != "x" {
			n++
		}
	}
	return n
}

// agentSubjectEN reports whether the words before a modal and a frequency
// make the agent its subject ("you should always", "remember to never"),
// not a thing ("this function should never").
func agentSubjectEN(before []string) bool {
	last := before[len(before)-1]
	if len(before) < 2 {
		return last != "to"
	}
	prev := before[len(before)-2]
	switch last {
	case "to":
		return slices.Contains([]string{"remember", "want", "need", "like", "you", "have", "got", "try", "sure"}, prev)
	case "should", "must", "will", "can", "could", "would", "'ll":
		return slices.Contains([]string{"you", "we", "i"}, prev)
	}
	return true
}

// boundedEN reports whether a sentence is bound to the task, trip or day at
// hand: a cue of it in the clause that sets the scope (or anywhere, for a
// sentence with no scope beyond every occasion), a demonstrative after a
// preposition ("during this migration", thisScopeEN), an "until" an event
// at hand. "Not just this one" widens instead.
func boundedEN(u string, scope scopeKind) bool {
	u = blankEN(u, []string{"not just this one", "not only this one", "not just this", "not only this", "not just for this", "not just here", "not only here"})
	if scope == scopeNone || scope == scopeOccasion || scope == scopeUniversal {
		return anyEN(u, cueBounded.en) || untilOverEN(u) || thisScopeEN(u)
	}
	for _, c := range clausesOf(u) {
		b := blankEN(blankEN(c, cueFuture.en), cueDefault.en)
		if !anyEN(b, cueBounded.en) && !thisScopeEN(b) {
			continue
		}
		// In the clause that sets the scope, or a clause that is only the
		// bound ("From now on, in this PR only, …").
		if anyEN(c, cueFuture.en) || anyEN(c, cueStanding.en) || anyEN(c, cueDefault.en) || len(strings.Fields(c)) <= 4 {
			return true
		}
	}
	return false
}

// boundedZH: the Chinese counterpart (这次, 今天, 这个函数里, 周四的, 这个重构做完之前).
func boundedZH(s string, periodicDay bool, scope scopeKind) bool {
	if scope >= scopeDefault {
		// A scope of its own: bounded only within its clause
		// (从现在开始这个函数里都用…).
		for _, c := range clausesOf(s) {
			b := blankZH(blankZH(c, cueFuture.zh), cueDefault.zh)
			if boundedZH(b, periodicDay, scopeNone) && (containsAny(c, cueFuture.zh) || containsAny(c, cueStanding.zh) || containsAny(c, cueDefault.zh)) {
				return true
			}
		}
		return false
	}
	if containsAny(s, cueBounded.zh) || !periodicDay && weekdayZH(s) || containsAny(s, taskScopeZH) {
		return true
	}
	// "这个 notebook 里": inside a thing at hand.
	for _, d := range []string{"这个", "这份", "这篇", "这张", "这段"} {
		if k := strings.Index(s, d); k >= 0 {
			tail := s[k+len(d):]
			if j := strings.Index(tail, "里"); j > 0 && j <= 24 && !containsAny(tail[:j], projectZH) {
				return true
			}
		}
	}
	// "这个迁移合并之前": before an event of the thing at hand.
	for _, end := range []string{"之前", "以前", "完之前", "为止"} {
		if k := strings.Index(s, end); k > 0 && containsAny(s[:k], thisZH) && !containsAny(s[:k], projectZH) {
			return true
		}
	}
	return false
}

// takesEN reports whether "takes" (cues/takes.en.txt) is followed by a
// duration: a report of how long something lasts.
func takesEN(u string) bool {
	for _, v := range cueTakesEN {
		i := phraseAt(u, v)
		if i < 0 {
			continue
		}
		next, _, _ := strings.Cut(strings.TrimSpace(u[i+len(v):]), " ")
		if next == "" {
			continue
		}
		if next[0] >= '0' && next[0] <= '9' || slices.Contains([]string{"about", "around", "a", "an", "one", "two", "three", "four", "five", "six", "seven", "ten", "several", "ages", "forever", "weeks", "days", "hours", "minutes", "up", "longer", "too"}, next) {
			return true
		}
	}
	return false
}

// verbToSpeakerZH reports whether a directive verb takes the speaker as
// its object (发我, 提醒我, 告诉我): a request to the agent.
func verbToSpeakerZH(s string) bool {
	for k := range occurrences(s, "我") {
		if strings.HasPrefix(s[k+len("我"):], "们") {
			continue
		}
		if hasAnySuffix(s[:k], cueVerbs.zh) || hasAnySuffix(s[:k], []string{"告诉", "通知", "发给", "抄送"}) {
			return true
		}
	}
	return false
}

// verbWithComplementZH reports whether a verb is followed by 得 and a
// complement of manner (写得这么详细): a description, not a directive.
func verbWithComplementZH(s string) bool {
	for _, v := range cueVerbs.zh {
		if strings.HasPrefix(s, v) {
			return strings.HasPrefix(s[len(v):], "得")
		}
	}
	return false
}

// blankFrequencyEN blanks what reads like a scope and is a thing's
// frequency or a shrug: "every 5 min", a closing "whatever".
func blankFrequencyEN(u string) string {
	for _, q := range []string{"every ", "each "} {
		for i := range occurrences(u, q) {
			// Blanking keeps the length, so the offsets still hold.
			if off := i + len(q); off < len(u) && u[off] >= '0' && u[off] <= '9' {
				u = u[:i] + strings.Repeat(" ", len(q)) + u[off:]
			}
		}
	}
	if t := strings.TrimRight(u, " .!"); strings.HasSuffix(t, ", whatever") {
		u = t[:len(t)-len("whatever")]
	}
	return u
}

// hasQuotation reports whether s quotes someone's words (quotation marks,
// not code in backticks).
func hasQuotation(s string) bool {
	return hasQuoteMark(s) && strings.ContainsAny(s, "“”「」\"")
}

// onlyThisOpening reports whether a sentence opens by narrowing what was
// said to the thing at hand ("Just this file, I'll do the rest later.",
// "只改这个文件。").
func onlyThisOpening(s string) bool {
	l := normEN(strings.TrimSpace(s))
	return strings.HasPrefix(l, "just ") || strings.HasPrefix(l, "only ") || strings.HasPrefix(l, "只") || strings.HasPrefix(l, "就这")
}

// allDoZH reports whether 都 after a topic distributes an obligation or a
// directive over it ("成绩都按百分制记", "金额都要写大写"), not a person's doing
// (我们都…) or a description (都出问题).
func allDoZH(s string) bool {
	for k := range occurrences(s, "都") {
		off := k + len("都")
		before := strings.TrimSpace(s[:k])
		if before == "" || strings.HasSuffix(before, "_") || hasAnySuffix(strings.TrimRight(before, "_"), []string{"我", "我们", "你", "你们", "大家", "他们", "她们", "咱们", "每次", "每回", "一直", "也"}) {
			continue // after a frequency (每次都要…) or a person (我们都…)
		}
		after := s[off:]
		// A modal of obligation (cues/modal.zh: 需要, 应该, 务必 …) or a
		// directive verb after it.
		if (hasAnyPrefix(after, []string{"要", "得", "必须", "用", "按", "以", "别", "不要", "不用", "不能", "不许", "不准", "只", "先", "统一", "一律", "放", "写", "记", "标", "列", "附", "控制"}) ||
			hasAnyPrefix(after, cueModal.zh) && !hasAnyPrefix(after, cueNotModalZH)) &&
			!startsWithAmountZH(strings.TrimPrefix(strings.TrimPrefix(after, "需"), "要")) {
			return true
		}
	}
	return false
}

// whenDoZH reports whether a clause of condition (…的时候, …时) is followed by
// a directive clause: "血压超过一百四的时候，在记录最上面标出来" is every time.
func whenDoZH(s string) bool {
	cs := clausesOf(s)
	for i, c := range cs {
		c = strings.TrimSpace(c)
		if i+1 < len(cs) && (strings.HasSuffix(c, "的时候") || strings.HasSuffix(c, "时候") || strings.HasSuffix(c, "的话")) && !hasAnyPrefix(c, []string{"如果", "要是", "假如", "万一"}) {
			next := stripLeadingZH(strings.TrimSpace(cs[i+1]), standingFillersZH)
			if hasAnyPrefix(next, cueVerbs.zh) || hasAnyPrefix(next, directivesAfterZH) || hasAnyPrefix(next, []string{"在", "给", "把", "都"}) {
				return true
			}
		}
	}
	return false
}

// topicQuantifierEN reports whether a clause opens with a quantifier over
// what it is about ("For all of our dashboards, …", "Any ticket that …",
// "Every reply to an angry customer …"): a rule stated as a fact. A
// quantifier inside a description ("… because it reindexes everything")
// makes none.
func topicQuantifierEN(u string) bool {
	for _, c := range clausesOf(u) {
		c = stripLeading(strings.TrimSpace(c), fillersEN)
		c = stripWordsEN(c, []string{"for", "in", "on", "with", "at", "and", "also", "so", "but", "then"})
		w, _, _ := strings.Cut(c, " ")
		switch w {
		case "every", "each", "all", "any", "whatever", "whichever", "no":
			return true
		}
	}
	return false
}

func trimRightPunct(s string) string { return strings.TrimRight(s, "？?！!。. ") }

// buildImperativeEN reports whether a clause of u opens with a build verb
// (cues/build_verbs.en.txt): the instruction makes or changes a thing.
func buildImperativeEN(u string) bool {
	for _, c := range clausesOf(u) {
		if clauseOpensWithVerbEN(c) && slices.Contains(cueBuildVerbsEN, firstVerbEN(strings.TrimSpace(stripLeading(strings.TrimSpace(c), fillersEN)))) {
			return true
		}
	}
	return false
}

// nowNotEN reports the shape "X now, not Y" ("the limit is 30 euros now,
// not 50"): what holds has changed.
// changeWordEN reports whether a word of change (cues/change) stands in
// the sentence as one: "now" opening it ("ok now wire up the retry") moves
// on to the next step and changes nothing.
func changeWordEN(u string) bool {
	for _, c := range cueChange.en {
		for i := range occurrences(u, c) {
			word := (i == 0 || !isWordByte(u[i-1])) && (i+len(c) == len(u) || !isWordByte(u[i+len(c)]))
			if word && (c != "now" || len(strings.Fields(u[:i])) >= 2) {
				return true
			}
		}
	}
	return false
}

// unsaidConditionZH is a condition that the user leaves something unsaid,
// opening the sentence, before the default that then holds: 我没说哪个的话，
// 就…; 如果我没指定，…; 没写时间的话，….
var unsaidConditionZH = regexp.MustCompile(`^(?:如果|要是|假如)?(?:我|我们)?(?:没|没有|不)(?:说|讲|提|指定|写|注明|说明|特别说)[^，,。；]{0,12}(?:的话|时|的时候)?[，,]`)

// changeValueZH reports whether a word of change comes before a value
// (时间调到九点半, 改周二, 现在是300元了): "14:00那个得改一下" names what to
// change, not the new value.
func changeValueZH(raw string) bool {
	return valueAfterZH(raw, cueChange.zh)
}

func nowNotEN(u string) bool {
	i := strings.Index(u, " now")
	return i >= 0 && strings.Contains(u[i:], " not ")
}

// readerMask is a set of registered lists (bits by list id).
type readerMask [maxLists / 64]uint64

// readerMasks are the lists whose cues the reader reads, by language: a
// sentence with none of them (and nothing quoted) reads as nothing at all.
var readerMasks = sync.OnceValue(func() struct{ en, zh readerMask } {
	var m struct{ en, zh readerMask }
	sets := []cueSet{cueFuture, cueOccasion, cueUniversal, cueDefault, cueStanding, cueUsual, cueRetract, cueReport, cueReportFrame,
		cueMention, cueHypothetical, cuePrediction, cuePlan, cueNarration, cueProtect, cueProtectVerbs, cueChoice, cueCorrection,
		cueChange, cueReferBack, cuePeriodic}
	add := func(mask *readerMask, list []string) {
		if id, ok := (&hits{}).id(list); ok {
			mask[id>>6] |= 1 << (id & 63)
		}
	}
	for _, set := range sets {
		add(&m.en, set.en)
		add(&m.zh, set.zh)
	}
	for _, l := range [][]string{cuePastZH, cueMeasureZH, structuralZH, complaintZH, durableZH, standingPhrasesZH, standingOpenersZH} {
		add(&m.zh, l)
	}
	for _, l := range [][]string{anaphoraWordsEN, durableEN, standingPhrasesEN, standingOpenersEN} {
		add(&m.en, l)
	}
	return m
})

// anaphoraWordsEN are the words anaphoraEN looks at.
var anaphoraWordsEN = indexed([]string{"that", "this", "those", "these"})

// structuralZH are the words of the Chinese reader's shapes (都 over a
// topic, 每 before a measure word, a clause of condition).
var structuralZH = indexed([]string{"都", "每", "时候", "的话", "时，"})

// anyOf reports whether any list of mask has a hit.
func (h *hits) anyOf(mask readerMask) bool {
	for i := range mask {
		if h.sub[i]&mask[i] != 0 {
			return true
		}
	}
	return false
}

// instructsEN reports whether an English sentence instructs (an imperative
// clause, a modal or a wish) and whether the agent is to carry it out.
func instructsEN(u string) (norm, agent bool) {
	if imperativeClauseEN(u) || strings.Contains(u, "you") && isPoliteEN(strings.TrimSpace(u)) {
		norm, agent = true, true // "Could you always copy me …" asks too
	}
	if i, p := firstEN(u, cueModal.en); i >= 0 {
		norm = true
		if strings.HasPrefix(p, "you") || strings.HasPrefix(p, "i ") || strings.HasPrefix(p, "i'") || strings.HasPrefix(p, "we ") ||
			p == "make sure" || p == "be sure to" || p == "remember to" || strings.HasPrefix(p, "no need") || strings.HasPrefix(p, "there's no") {
			agent = true
		}
	}
	return norm, agent
}

// instructsZH is instructsEN for Chinese, on the sentence with words that
// only hold a modal's character blanked (m): a modal or directive, or a
// directive verb opening a clause.
func instructsZH(m string, h *hits) (norm, agent bool) {
	if h.s == m {
		norm = h.zh(cueModal)
	} else {
		norm = containsAny(m, cueModal.zh)
	}
	for _, c := range clausesOf(m) {
		c = stripLeadingZH(strings.TrimSpace(c), standingFillersZH)
		c = stripLeadingZH(c, []string{"以后", "今后", "往后", "每次", "永远", "一律", "都", "默认", "统一", "也"})
		if hasAnyPrefix(c, cueVerbs.zh) || hasAnyPrefix(c, []string{"别", "不要", "不许", "不准", "请", "记得", "给我", "帮我", "你", "麻烦", "千万", "务必", "把"}) {
			return true, true
		}
	}
	if (norm || verbToSpeakerZH(m)) && containsAny(m, []string{"你", "给我", "帮我", "我", "别", "不要", "不许", "不准", "记得", "请"}) {
		return true, true
	}
	return norm, false
}

// mayBeBoundedZH reports whether a sentence has any of what boundedZH looks
// for, so most sentences skip it.
func mayBeBoundedZH(h *hits, u string) bool {
	return h.zh(cueBounded) || h.has(taskScopeZH) || strings.Contains(u, "这") || strings.Contains(u, "周") ||
		strings.Contains(u, "星期") || strings.Contains(u, "礼拜") || strings.Contains(u, "为止")
}

// mayBeBoundedEN reports whether a sentence has any of what boundedEN
// looks for, so most sentences skip it.
func mayBeBoundedEN(h *hits, u string) bool {
	return h.en(cueBounded) || strings.Contains(u, "this ") || strings.Contains(u, "that ") || strings.Contains(u, "these ") ||
		strings.Contains(u, "those ") || strings.Contains(u, "until ") || strings.Contains(u, "till ") || strings.Contains(u, "the current")
}

// occurrences yields the byte offsets of sub in s, left to right, not
// overlapping.
func occurrences(s, sub string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for off := 0; off < len(s); {
			k := strings.Index(s[off:], sub)
			if k < 0 || !yield(off+k) {
				return
			}
			off += k + len(sub)
		}
	}
}

// exceptionEN is a clause of exception ("unless it rains"): the condition
// of a rule, not the speaker's story.
var exceptionEN = regexp.MustCompile(`\bunless\b[^,;:.!?]*`)

// withoutExceptionEN is u without its clauses of exception.
func withoutExceptionEN(u string) string {
	if !strings.Contains(u, "unless") {
		return u
	}
	return exceptionEN.ReplaceAllString(u, " ")
}

// containsAnyPhraseEN reports whether u holds one of phrases as words.
func containsAnyPhraseEN(u string, phrases []string) bool {
	for _, p := range phrases {
		if phraseAt(u, p) >= 0 {
			return true
		}
	}
	return false
}

// retract applies a retraction clause find finds in u ("Ha, kidding",
// 算了): the sentence takes back the one before it; what follows the
// retraction, if anything, is read on (done: nothing follows). A
// retraction after words of its own sentence takes those back ("Always
// name the species first — actually, forget that, it's fine as it is",
// 以后每次都提前两周——算了，还是按原来的吧): the sentence is no instruction,
// and the one before it stands.
func (r *reading) retract(u string, find func(string) (bool, string, string)) (rest string, done bool) {
	ok, before, rest := find(u)
	if !ok {
		return u, false
	}
	if before != "" {
		r.veto = vetoRetracted
		return u, true
	}
	r.retracts = true
	if strings.TrimSpace(rest) == "" {
		r.veto = vetoRetracted
		return u, true
	}
	return rest, false
}
