// Package heuristic is Mnemo's offline extractor and merger: bilingual
// (Chinese and English) sentence patterns for preferences, facts and lessons,
// and n-gram similarity for merging candidates that mean the same thing. It is
// deterministic, needs no model endpoint, and is the default.
package heuristic

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/readability"
)

// Name is the extractor's name and version, recorded on every candidate.
// Bump the version when a change would extract different items.
const Name = "heuristic/10"

// maxStatementRunes caps a statement, well inside recall's per-item budget.
const maxStatementRunes = 240

// Extractor is the offline, deterministic governance.Extractor. The zero
// value is ready to use and safe for concurrent use.
type Extractor struct{}

var _ governance.Extractor = (*Extractor)(nil)

// NewExtractor returns the heuristic extractor.
func NewExtractor() *Extractor { return &Extractor{} }

// Name implements governance.Extractor.
func (*Extractor) Name() string { return Name }

// Extract implements governance.Extractor. It reads the user's messages (and
// external content, whose items code later blocks) for preferences and facts,
// and tool results for lessons: a failed check, the fix that followed and the
// passing re-check. Small talk, weather chat and a slip corrected at once
// yield nothing.
func (*Extractor) Extract(ctx context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := session{events: in.Events, zh: sessionIsChinese(in.Events)}
	s.dropCorrections()
	var buf []sentence
	var units []unit
	for i, e := range s.events {
		if !s.readable(i) {
			continue
		}
		buf = splitTurn(buf[:0], s.words(e))
		s.general = false
		for _, sn := range buf {
			t := newText(sn.text)
			s.general = s.general || e.Source != governance.SourceExternal && !sn.question &&
				(t.latin && generalTurnEN(t.lower) || t.han && generalTurnZH(t.raw))
		}
		if e.Source == governance.SourceExternal {
			// External content is never the user's instruction (code
			// blocks its items): it is not read for structure.
			units = units[:0]
			for _, sn := range buf {
				units = append(units, unit{text: sn.text, question: sn.question})
			}
		} else {
			units = readTurn(units[:0], buf)
		}
		for k, u := range units {
			if k == 0 && e.Source != governance.SourceExternal && s.readWithPreviousTurn(e, i, u) {
				continue
			}
			s.readUnit(e, i, u)
		}
	}
	s.lessons()
	slices.SortStableFunc(s.items, func(a, b governance.ExtractedItem) int {
		return cmp.Compare(a.SupportSeqs[0], b.SupportSeqs[0])
	})
	return &governance.Extraction{Summary: s.summary(), Items: s.items}, nil
}

// session is the state of one Extract call.
type session struct {
	events   []*governance.Event
	zh       bool
	dropped  map[int]bool
	items    []governance.ExtractedItem
	prefs    int
	durables int
	failures []failure
	said     []userSentence
	// Whether the turn being read has a scope over every time to come in
	// one of its sentences ("…. applies in general, not just now"): its
	// instructions are standing ones.
	general bool
}

// failure is a failed tool check and what became of it.
type failure struct {
	index                int // of the failed event
	tool, reason, detail string
	fixed                bool
	lesson               string
}

func isMessage(e *governance.Event) bool {
	return e != nil && e.Kind != governance.KindSessionEnd && !e.Redacted && e.Text != ""
}

// readable reports whether event i is read for preferences and facts: the
// user's own messages and external content (never the assistant's words).
func (s *session) readable(i int) bool {
	e := s.events[i]
	if !isMessage(e) || s.dropped[i] {
		return false
	}
	return e.Source == governance.SourceExternal || e.Role == governance.RoleUser
}

// correctionOpenings start a message that corrects the one before it.
var correctionOpenings = append([]string{"不对", "sorry", "i meant", "scratch that"}, correctionZH...)

// dropCorrections marks user messages that correct a slip ("说错了", "sorry, I
// meant"): the message yields nothing, and when it opens with the correction,
// neither does the user message just before it.
func (s *session) dropCorrections() {
	for i, e := range s.events {
		if !isMessage(e) || e.Role != governance.RoleUser {
			continue
		}
		lower := lowerASCII(e.Text)
		if !containsAny(e.Text, correctionZH) && !hasAnyWord(lower, correctionEN) {
			continue
		}
		// "Correction: it's main, keep that in mind for all git commands":
		// it corrects the agent and sets a rule, not a slip of the user's.
		if strings.HasPrefix(lower, "correction:") && containsWholeEnd(lower, standingPhrasesEN) {
			continue
		}
		if s.dropped == nil {
			s.dropped = map[int]bool{}
		}
		s.dropped[i] = true
		opening := stripLeading(lower, fillersEN)
		opening = stripLeading(opening, fillersZH)
		opensWithCorrection := false
		for _, m := range correctionOpenings {
			if strings.HasPrefix(opening, m) {
				opensWithCorrection = true
				break
			}
		}
		// "Scratch that — Tuesdays instead" opening the session corrects
		// no slip of this session: it changes what was agreed before,
		// and is read.
		if opensWithCorrection && !s.userSaidBefore(i) {
			delete(s.dropped, i)
			continue
		}
		if opensWithCorrection && i > 0 && isMessage(s.events[i-1]) && s.events[i-1].Role == governance.RoleUser {
			s.dropped[i-1] = true
		}
	}
}

// userSaidBefore reports whether a user message comes before event i.
func (s *session) userSaidBefore(i int) bool {
	for _, e := range s.events[:i] {
		if isMessage(e) && e.Role == governance.RoleUser {
			return true
		}
	}
	return false
}

// hedgedWishEN reports whether a question is a wish of the speaker's said
// with a rising tone ("I'd kinda prefer if you didn't … going forward?"):
// the wish stands.
func hedgedWishEN(t text) bool {
	return t.latin && matchIf(hedgedWishPatternEN, t.lower, "prefer", "rather", "like", "appreciate")
}

var hedgedWishPatternEN = regexp.MustCompile(`^(?:i'd|i would|we'd|we would)(?: [a-z]+){0,2} (?:prefer|rather|like it|appreciate it)(?: if)? you\b`)

// politeRequestZH is a request worded as a yes/no question to the agent
// ("能按1、2、3分步骤写吗？", "你能用英文回答吗"): 能/可以 opens it, 吗 ends it.
var politeRequestZH = regexp.MustCompile(`^(?:你|您)?(?:能|可以|可否|能否)[^吗？?]{2,30}吗[？?]?$`)

var (
	politeQuestionZH = []string{"能不能", "可不可以", "可以", "能否", "麻烦"}
	politeQuestionEN = []string{"can you", "could you", "would you", "will you"}
)

// text is a sentence with what the patterns need to know about it: its
// lowercase form and which scripts it uses, so Chinese lists are not searched
// in English text and the other way round.
type text struct {
	raw, lower string
	han, latin bool
}

func newText(s string) text {
	lower := lowerASCII(s)
	if strings.Contains(lower, "forward with") {
		lower = markerVerbsEN.Replace(lower)
	}
	if strings.Contains(lower, "future") {
		lower = futureNounEN.ReplaceAllString(lower, "${1}coming $2")
	}
	return text{raw: s, lower: lower, han: hasHan(s), latin: hasLatin(s)}
}

// markerVerbsEN are verbs that read like a from-now-on marker ("Going
// forward with the refactor"): rewritten so no pattern takes them for one.
var markerVerbsEN = strings.NewReplacer("going forward with", "proceeding with", "moving forward with", "proceeding with")

// futureNounEN finds "future" modifying a noun ("in the future view we
// want …": a word, then the clause's subject), rewritten likewise so it is
// not taken for "in the future, …".
var futureNounEN = regexp.MustCompile(`\b(in (?:the )?)future ([a-z]+ (?:we|i|you|they|it|there|he|she)\b)`)

func (t text) anyZH(words []string) bool { return t.han && containsAny(t.raw, words) }
func (t text) anyEN(words []string) bool { return t.latin && hasAnyWord(t.lower, words) }

// read extracts at most a preference, or else facts, from one sentence of
// event index (or a sentence and the back-references joined to it), given
// what the structural reader made of it.
func (s *session) read(e *governance.Event, index int, sn sentence, t text, rd reading) {
	// Weather chat is no wish; a standing instruction that names the
	// weather with a scope over what is to come ("蜂箱检查定在每周六，下雨除外。
	// 以后写通讯都按这个。") is one; a frequency alone ("Always so rainy
	// there") is still the weather's.
	if isSmallTalk(t.lower) || (t.anyZH(weatherZH) || t.anyEN(weatherEN)) && !(rd.standing() && rd.scope != scopeOccasion) {
		return
	}
	external := e.Source == governance.SourceExternal
	question := sn.question && !t.anyZH(politeQuestionZH) && !t.anyEN(politeQuestionEN) && !isTagQuestion(t) && !hedgedWishEN(t) && !(t.han && politeRequestZH.MatchString(t.raw))
	// A sentence that only points back makes what it points at the rule.
	// One read as bare by structure points only at the user's own words,
	// never at what the assistant said.
	if !external && !question && (isBackReference(t) && s.pointBack(e, index, true) || rd.bare && rd.veto == vetoNone && s.pointBack(e, index, false)) {
		return
	}
	mark := len(s.items)
	defer func() {
		if !external {
			item := -1
			if len(s.items) > mark {
				item = len(s.items) - 1
			}
			s.said = append(s.said, userSentence{seq: e.Seq, text: sn.text, item: item, notTheirs: notTheirs(rd.veto), index: index, r: rd, question: sn.question})
		}
	}()
	var ok, durable, answers, replacesOnly bool
	raw := t.raw
	switch {
	case notTheirs(rd.veto):
		// Not the speaker's wish: no preference, whatever the markers say.
		if external {
			ok, durable = isPreference(t, question)
		}
	default:
		ok, durable = isPreference(t, question)
	}
	if s.general && !external && !question && !durable && (ok || t.anyZH(directiveZH) || t.han && generalTurnZH(t.raw) && strings.ContainsAny(t.raw, "，,") || t.latin && (englishDirective(t.lower) || hasAnyPrefix(t.lower, []string{"when you ", "whenever you ", "i'd rather you ", "i would rather you "}))) &&
		!t.anyZH(oneOffZH) && !oneOffTextEN(t) && !bounded(t) && !taskLookAlike(t) {
		ok, durable = true, true
	}
	if !external {
		switch {
		case notTheirs(rd.veto):
			// Someone else's words, or none the speaker stands by.
			ok, durable = false, false
		case rd.veto == vetoNone:
			switch {
			case rd.standing() && !rd.weak:
				ok, durable = true, true
			case rd.standing():
				if standingProb(t.raw) >= weakThreshold {
					ok, durable = true, true
				}
			}
		default:
			durable = false
		}
		// A choice or a correction is a wish even without a scope: said in
		// another session too it is counted as repeated, and a correction
		// replaces the rule it corrects (consolidation decides both).
		if !ok && !question && (rd.veto == vetoNone || rd.rearranged) && (rd.choice || rd.correction && (rd.norm || utf8.RuneCountInString(t.raw) >= 12) && !t.anyZH(oneOffZH) && !oneOffTextEN(t)) &&
			!(t.han && errandZHRe.MatchString(t.raw)) {
			// A correction of one definite thing's value ("The call is
			// at 5 now, not 4") is a task on its own, but replaces a
			// standing rule about that thing if there is one.
			if !oneInstance(t) || valueForPronoun(t) {
				ok = true
			} else if correctsOccasion(t) {
				ok, replacesOnly = true, true
			}
		}
		// A plain request about the agent's own answers ("Number the
		// steps.", "分点说吧。") is a wish too: held after one session, a
		// rule once repeated in another.
		if !ok && !question && rd.veto == vetoNone && outputRequest(t) {
			ok, answers = true, true
		}
		// So is the user's own need or circumstance followed by what the
		// answers should do about it ("My cat is old; suggest gentle play
		// ideas only", "我腰不好，别安排仰卧起坐"), when the write gate places
		// the sentence in the low-risk set: the set that decides what
		// activates once repeated.
		if !ok && !question && rd.veto == vetoNone && needThenRequest(t) {
			ok = true
		}
		// And a request said as a fragment ("Appointments by date, soonest
		// on top", "Tide times please, I find them useful").
		if !ok && !question && rd.veto == vetoNone {
			if said, fragment := fragmentRequest(t); fragment {
				ok, answers, raw = true, true, said
			}
		}
	}
	if ok {
		statement := preferenceStatement(raw, external)
		if !external {
			statement = s.withReference(t, statement)
		}
		if answers && readability.Check(statement) != readability.OK {
			statement = namedAnswers(statement)
		}
		s.addItem(governance.TypePreference, statement, durable, replacesOnly, e.Seq)
		if !external { // the summary counts what the user asked for
			s.prefs++
			if durable {
				s.durables++
			}
		}
		return
	}
	for _, clause := range splitClauses(sn.text) {
		if st, ok := factStatement(clause, external); ok {
			s.add(governance.TypeFact, st, false, e.Seq)
		}
	}
}

// namedAnswers writes a request about the answers too short to read as a
// rule ("分点说吧", "Shorter please") so that it names them: "回答分点说",
// "Answers shorter please"; one that names them already ("回答短些") says
// whose wish it is ("用户希望回答短些").
func namedAnswers(statement string) string {
	switch {
	case hasHan(statement) && (strings.HasPrefix(statement, "回答") || strings.HasPrefix(statement, "回复")):
		return "用户希望" + statement
	case hasHan(statement):
		return "回答" + statement
	}
	r, n := utf8.DecodeRuneInString(statement)
	return "Answers " + string(unicode.ToLower(r)) + statement[n:]
}

// notTheirs reports whether a veto makes a sentence no wish of the
// speaker's: another's view, a quotation, a mention, a supposition, a
// sentence taken back.
func notTheirs(v veto) bool {
	switch v {
	case vetoReported, vetoQuoted, vetoMention, vetoRetracted, vetoHypothetical:
		return true
	}
	return false
}

// fragmentRequest reports whether an English sentence is a request about
// the answers said as a fragment: a verbless noun phrase of a few words
// that opens it, then a comma and what completes it or the user's reason
// ("Appointments by date, soonest on top", "Tide times please, I find them
// useful"), with no task object and no one-off scope, that the write gate
// places in the low-risk set as the extractor writes it. A phrase that names
// no aspect of the answers but is asked for with "please" is a request to
// include it: the statement says so ("Include tide times, …").
func fragmentRequest(t text) (string, bool) {
	if !t.latin || t.han || t.anyEN(oneOffEN) || bounded(t) || taskLookAlike(t) || oneInstance(t) || taskObjectEN.MatchString(t.lower) {
		return "", false
	}
	head, tail, found := strings.Cut(t.raw, ", ")
	if !found || strings.TrimSpace(tail) == "" {
		return "", false
	}
	words := strings.Fields(strings.ToLower(head))
	if len(words) < 2 || len(words) > 5 {
		return "", false
	}
	first := strings.Trim(words[0], ".,!?'\"")
	if imperativeEN[first] || slices.Contains(outputVerbsEN, first) || isNegationOrPronounEN(first) {
		return "", false
	}
	said := t.raw
	if len(shapeOfOutput(head).aspects) == 0 {
		last := words[len(words)-1]
		if last != "please" && last != "pls" {
			return "", false
		}
		noun := strings.TrimSpace(head[:strings.LastIndex(strings.ToLower(head), last)])
		r, n := utf8.DecodeRuneInString(noun)
		said = "Include " + string(unicode.ToLower(r)) + noun[n:] + ", " + tail
	}
	return said, gate.Scan(preferenceStatement(said, false)).LowRisk != ""
}

// isNegationOrPronounEN reports whether a word that opens a clause makes it
// no noun phrase: a pronoun, a determiner of a subject, a negation.
func isNegationOrPronounEN(w string) bool {
	return slices.Contains([]string{"i", "we", "you", "he", "she", "it", "they", "there", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their", "no", "not", "don't", "never", "if", "when", "what", "why", "how", "where", "who", "thanks", "thank", "ok", "okay", "yes", "sure", "great", "sorry", "hi", "hello"}, w)
}

// needLead is a sentence that opens with the user's own need or
// circumstance and goes on, after a comma or a semicolon, to a request.
var needLead = regexp.MustCompile(`^(?i:(?:i|we)(?:'[a-z]+)?\s|(?:my|our)\s+\w+\s|我|咱们)[^,，;；]*[,，;；]\s*\S`)

// needThenRequest reports whether a sentence with no task object and no
// one-off scope states the user's need, then asks something of the answers
// about it, and the write gate places it in the low-risk set.
func needThenRequest(t text) bool {
	if !needLead.MatchString(t.raw) || t.anyZH(oneOffZH) || oneOffTextEN(t) || bounded(t) || taskLookAlike(t) ||
		t.latin && taskObjectEN.MatchString(t.lower) || t.han && taskObjectZH.MatchString(t.raw) || oneInstance(t) {
		return false
	}
	return gate.Scan(t.raw).LowRisk != ""
}

// isPreference applies the preference patterns to one sentence.
func isPreference(t text, question bool) (ok, durable bool) {
	if question || t.latin && isPredictionEN(t.lower) {
		return false, false
	}
	oneOff := t.anyZH(oneOffZH) || oneOffTextEN(t)
	// Quoted words are someone's, not the speaker's: the standing markers
	// are read without them.
	u := t
	if q := unquoted(t.raw); q != t.raw {
		u = newText(q)
	}
	if !oneOff && (u.latin && (standingInstructionEN(u.lower) || conventionEN(u.lower) || worldConventionEN(u.lower)) ||
		u.han && (standingInstructionZH(u.raw) || conventionZH(u.raw))) && !bounded(u) && !taskLookAlike(u) {
		return true, true
	}
	// A standing arrangement ("还是老规矩") is itself an instruction.
	directive := t.anyZH(directiveZH) || t.anyZH(standingZH) || t.latin && englishDirective(t.lower)
	switch {
	case directive && (u.han && durableMarkerZH(u.raw) || u.latin && durableMarkerEN(u.lower)):
		return true, !oneOff && !bounded(t) && !taskLookAlike(u)
	case oneOff && (directive || t.anyZH(wishZH) || t.anyEN(wishEN)):
		return true, false
	case t.anyZH(likeZH) || t.anyEN(likeEN):
		return true, false
	case t.anyZH(reminderZH) || t.anyEN(reminderEN):
		return true, false
	}
	return false, false
}

// oneOffTextEN reports whether an English sentence is bound to this once,
// not when the once is of the saying ("going to say this once: …").
func oneOffTextEN(t text) bool {
	return t.anyEN(oneOffEN) && !t.anyEN([]string{"say this once", "saying this once", "say it once", "said this once"})
}

// taskLookAlike reports whether a sentence carries the words of a standing
// instruction about the task at hand (taskLookAlikeZH, "in the tests you're
// writing right now").
func taskLookAlike(t text) bool {
	return t.han && taskLookAlikeZH(t.raw) || t.latin && (matchIf(currentWorkEN, t.lower, "you") || matchIf(specChangeEN, t.lower, ", so "))
}

// bounded reports whether a sentence is bound to the task at hand or to a
// day: never durable, though not a one-off preference by that alone.
func bounded(t text) bool {
	return t.anyZH(taskScopeZH) || t.anyEN(taskScopeEN) || dayScope(t) || t.latin && thisScopeEN(t.lower) || problemReport(t)
}

// thisScopeEN reports whether a sentence is bound to a thing of the task
// at hand by a demonstrative after a preposition ("before this merge", "in
// this session", "for that deploy"), not to the project ("in this repo",
// "in this package").
func thisScopeEN(lower string) bool {
	if matchIf(untilThisRe, lower, "until", "till", "til ") || matchIf(applyNowRe, lower, " you ") {
		return true
	}
	if !containsAny(lower, []string{"this ", "that ", "the current"}) {
		return false
	}
	for _, m := range thisScopeRe.FindAllStringSubmatch(lower, -1) {
		// "plan for that on future ones": the demonstrative is a pronoun
		// when a function word follows it.
		if !slices.Contains(projectNounsEN, m[1]) && !slices.Contains(functionWordsEN, m[1]) {
			return true
		}
	}
	return false
}

var (
	thisScopeRe = regexp.MustCompile(`\b(?:before|after|for|until|till|during|in|on|rest of) (?:this|that|the current) ([a-z][a-z-]*)`)
	// "… until we find this leak": bound to an event of the task at hand.
	untilThisRe = regexp.MustCompile(`\b(?:until|till|til) [^,.;]*\b(?:this|that|these|those)\b`)
	// "…, can you do that across api/?": the statement is applied now, as
	// this turn's task.
	applyNowRe      = regexp.MustCompile(`\b(?:can|could|would) you (?:do|fix|change|apply|make|update|implement) (?:that|this|it|them)\b`)
	functionWordsEN = []string{"on", "in", "to", "for", "with", "at", "from", "by", "as", "and", "or", "but", "too", "again", "is", "was", "will", "would"}
	projectNounsEN  = []string{"repo", "repository", "project", "codebase", "code", "package", "module", "team", "company", "org", "organization", "service", "app", "monorepo", "workspace", "firmware", "library", "backend", "frontend", "product", "container", "environment", "machine", "kind", "sort", "type", "way", "case",
		// "always in that order": the order just listed, not an event.
		"order"}
)

// dayScope reports whether a sentence is bound to a day ("今天别再改数据库结构
// 了", "not today"), not opening a time to come from it ("从今天开始",
// "from today on").
func dayScope(t text) bool {
	if t.anyZH(dayScopeZH) && !containsAny(t.raw, []string{"从今天", "今天开始", "今天起", "从这周", "这周开始", "这周起", "从本周"}) {
		return true
	}
	return t.anyEN(dayScopeEN) && !t.anyEN([]string{"from today", "starting today", "as of today", "from this week", "starting this week"})
}

var leadingMarkersEN = []string{"from now on", "going forward", "in future", "in the future", "from here on", "this time", "for now", "just this once", "as usual", "as agreed", "please"}

// englishDirective reports whether an English sentence is an instruction:
// a clause that opens with an imperative verb (after fillers and time
// markers: "Whenever you open a PR, add me"), or a modal.
func englishDirective(lower string) bool {
	for clause := range strings.FieldsFuncSeq(lower, func(r rune) bool { return r == ',' || r == ';' }) {
		rest := stripLeading(clause, fillersEN)
		rest = stripLeading(rest, leadingMarkersEN)
		rest = stripLeading(rest, fillersEN)
		end := 0
		for end < len(rest) && (isWordByte(rest[end]) || rest[end] == '-') {
			end++
		}
		if end > 0 && imperativeEN[rest[:end]] {
			return true
		}
	}
	return hasAnyWord(lower, modalEN)
}

// isSmallTalk reports whether a sentence is only greetings, thanks and
// acknowledgements.
func isSmallTalk(lower string) bool {
	rest := lower
	for {
		rest = strings.TrimLeftFunc(rest, func(r rune) bool { return isSep(r) || r == '～' || r == '~' })
		if rest == "" {
			return true
		}
		n := len(rest)
		for _, w := range smallTalkZH {
			if strings.HasPrefix(rest, w) {
				rest = rest[len(w):]
				break
			}
		}
		if len(rest) == n {
			for _, w := range smallTalkEN {
				if strings.HasPrefix(rest, w) && (len(rest) == len(w) || !isWordByte(rest[len(w)])) {
					rest = rest[len(w):]
					break
				}
			}
		}
		if len(rest) == n {
			return false
		}
	}
}

var (
	// The speaker becomes the user; a group the speaker speaks for stays
	// "we" (我们, 咱们): 咱们组的惯例 is the group's convention, not the
	// user's, and 我们学校 no 用户学校.
	thirdPersonZH = strings.NewReplacer("我们", "我们", "咱们", "咱们", "我的", "用户的", "我家", "用户家", "自我", "自我", "我", "用户")
	// Statements that start with a wish or a one-off marker get a subject.
	subjectlessZH = []string{"这次", "这一次", "这趟", "这回", "想", "希望", "喜欢", "不喜欢", "偏好", "打算", "更愿意"}
	referenceZH   = []string{"上次跟你说过的", "之前跟你说过的", "跟你说过的", "上次说过的", "之前说过的", "上次说好的", "说好的"}
	preferenceEN  = [][2]string{
		{"i prefer ", "The user prefers "}, {"i'd prefer ", "The user would prefer "}, {"i'd rather ", "The user would rather "},
		{"i like ", "The user likes "}, {"i love ", "The user loves "}, {"i hate ", "The user hates "},
		{"i don't like ", "The user does not like "}, {"i dislike ", "The user dislikes "}, {"i want ", "The user wants "},
		{"i'd like ", "The user would like "}, {"i would like ", "The user would like "},
	}
	fillers = append(append([]string{}, fillersZH...), fillersEN...)
)

// preferenceStatement turns a sentence into a statement readable without the
// conversation: canonical times and amounts, no fillers, third person.
// External text keeps its wording so the write gate sees what was said.
func preferenceStatement(text string, external bool) string {
	s := canonical(text)
	if external {
		return finish(s)
	}
	s = stripLeading(s, fillers)
	for _, ref := range referenceZH {
		if t, ok := strings.CutSuffix(trimTrailing(s), ref); ok {
			s = t
			break
		}
	}
	s = withoutUsualTail(s)
	if hasHan(s) {
		if strings.ContainsAny(s, "我咱") {
			s = thirdPersonZH.Replace(s)
		}
		for _, w := range subjectlessZH {
			if strings.HasPrefix(s, w) {
				s = "用户" + s
				break
			}
		}
	} else {
		lower := lowerASCII(s)
		for _, p := range preferenceEN {
			if strings.HasPrefix(lower, p[0]) {
				s = p[1] + s[len(p[0]):]
				break
			}
		}
	}
	return finish(s)
}

var (
	residenceZH = []string{"住在", "我家在", "我是"}
	workZH      = []string{"工作", "上班", "公司", "上学", "读书"}
)

// isFactZH: a family member's age, an allergy, where the user lives, what
// they do.
func isFactZH(c string) bool {
	return strings.Contains(c, "岁") && ageRe.MatchString(c) || strings.Contains(c, "过敏") || containsAny(c, residenceZH) ||
		strings.Contains(c, "我在") && containsAny(c, workZH)
}

var ageRe = regexp.MustCompile(`(女儿|儿子|孩子|闺女|宝宝|老大|老二)[^，,。]{0,4}?([0-9]{1,2}|[一二两三四五六七八九十]{1,3})(周)?岁`)

// factStatement recognises a fact about the user in one clause: a family
// member's age, an allergy, where they live, what their team uses.
func factStatement(clause string, external bool) (string, bool) {
	c := trimTrailing(stripLeading(clause, fillers))
	if c == "" {
		return "", false
	}
	if hasHan(c) {
		if !isFactZH(c) {
			return "", false
		}
		c = canonical(c)
		if external {
			return finish(c), true
		}
		if strings.ContainsAny(c, "我咱") {
			c = thirdPersonZH.Replace(c)
		}
		for _, f := range familyZH {
			if strings.HasPrefix(c, f) {
				c = "用户的" + c
				break
			}
		}
		return finish(c), true
	}
	for i, p := range factEN {
		if hasPrefixFold(c, p) {
			if external {
				return finish(canonical(c)), true
			}
			return finish(factENSub[i] + canonical(c[len(p):])), true
		}
	}
	return "", false
}

// finish trims a statement, capitalises an English first letter and caps
// its length.
func finish(s string) string {
	s = trimTrailing(strings.TrimSpace(s))
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return truncateRunes(s, maxStatementRunes)
}

// add records an item, merging the support of an identical statement.
func (s *session) add(typ governance.MemoryType, statement string, durable bool, seqs ...int64) {
	s.addItem(typ, statement, durable, false, seqs...)
}

// addItem is add with the item's ReplacesOnly: an item said both ways is
// a wish of its own.
func (s *session) addItem(typ governance.MemoryType, statement string, durable, replacesOnly bool, seqs ...int64) {
	if statement == "" {
		return
	}
	for i := range s.items {
		it := &s.items[i]
		if it.Type == typ && it.Statement == statement {
			it.Durable = it.Durable || durable
			it.ReplacesOnly = it.ReplacesOnly && replacesOnly
			it.SupportSeqs = append(it.SupportSeqs, seqs...)
			slices.Sort(it.SupportSeqs)
			it.SupportSeqs = slices.Compact(it.SupportSeqs)
			return
		}
	}
	support := slices.Clone(seqs)
	slices.Sort(support)
	s.items = append(s.items, governance.ExtractedItem{
		Type: typ, Statement: statement, SupportSeqs: slices.Compact(support), Durable: durable, ReplacesOnly: replacesOnly,
	})
}

// sessionIsChinese decides the language of generated text (lessons and the
// summary) from the user's messages, or from all messages if there are none.
func sessionIsChinese(events []*governance.Event) bool {
	han, latin := 0, 0
	count := func(userOnly bool) {
		for _, e := range events {
			if !isMessage(e) || e.Source == governance.SourceExternal || userOnly && e.Role != governance.RoleUser {
				continue
			}
			for _, r := range e.Text {
				switch {
				case r < 0x80:
					if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
						latin++
					}
				case r >= 0x2E80 && (r <= 0x9FFF || r >= 0xF900 && r <= 0xFAFF):
					han++
				}
			}
		}
	}
	count(true)
	if han == 0 && latin == 0 {
		count(false)
	}
	return han > 0 && han*3 >= latin
}

// withoutUsualTail drops a closing clause that only says the arrangement is
// the usual one ("…, same as before", "…，跟上次一样"): the rule is what
// comes before it.
func withoutUsualTail(s string) string {
	t := trimTrailing(s)
	k := strings.LastIndexAny(t, ",，")
	if k <= 0 {
		return s
	}
	tail := strings.TrimSpace(strings.TrimLeft(t[k:], ",，"))
	for _, u := range append(cueUsual.en, cueUsual.zh...) {
		if strings.EqualFold(tail, u) {
			return t[:k]
		}
	}
	return s
}
