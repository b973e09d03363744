package heuristic

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// Plain requests about the agent's own answers ("Number the steps.", "分点说
// 吧。", "The sign-off should be 'Warm regards, the team'"): a directive
// whose object is the form or content of the answers, with no durability
// word. Said once it is held; said again in another session it is the same
// wish, and repetition makes it a rule. The aspect of the answers it
// addresses and the content that matters (quoted strings, numbers, units,
// language names) are the key that groups its restatements
// (outputShape, outputPairs).

// outputCue is one phrase of an aspect (cues/output_aspect.*.txt) or one
// spelling of a value (cues/output_value.*.txt, value set).
type outputCue struct {
	aspect, phrase, value string
}

var (
	outputAspectsEN = loadOutputCues("output_aspect.en", false)
	outputAspectsZH = loadOutputCues("output_aspect.zh", false)
	outputValuesEN  = loadOutputCues("output_value.en", true)
	outputValuesZH  = loadOutputCues("output_value.zh", true)
	outputVerbsEN   = loadCues("output_verbs.en")
	answerNounsEN   = loadCues("answer_nouns.en")
	// speakerWishesEN are the modal cues of a wish said in the first
	// person ("i'd like", "we prefer"), not of what the speaker will do
	// ("i won't").
	speakerWishesEN = slices.DeleteFunc(slices.Clone(cueModal.en), func(c string) bool {
		return !strings.HasPrefix(c, "i ") && !strings.HasPrefix(c, "i'") && !strings.HasPrefix(c, "we ") || strings.Contains(c, "won't")
	})
	// Every phrase of each language, searched in one pass: most statements
	// hold none and are done with at once.
	outputPhrasesEN = indexed(phrasesOf(outputAspectsEN, outputValuesEN))
	outputPhrasesZH = indexed(phrasesOf(outputAspectsZH, outputValuesZH))
)

// firstOf reports whether Chinese text s holds one of phrases.
func firstOf(s string, phrases []string) bool {
	i, _ := firstZH(s, phrases)
	return i >= 0
}

// phrasesOf lists the distinct phrases of cue lists.
func phrasesOf(lists ...[]outputCue) []string {
	var out []string
	for _, l := range lists {
		for _, c := range l {
			if !slices.Contains(out, c.phrase) {
				out = append(out, c.phrase)
			}
		}
	}
	return out
}

// openAspects are the aspects whose content is a thing of the domain, not a
// value of a closed set ("include the calories", "leave out the hotel
// prices", "sort by room"): restatements are told apart by their words.
var openAspects = []string{"include", "omit", "ordering"}

// combinedAspects are the aspects whose values are said together ("a calm,
// neutral tone"): a statement of one of them alone whose values hold the
// other's says the same wish more fully ("Keep the tone calm" / "A calm,
// neutral tone please"), not another one.
var combinedAspects = []string{"tone"}

// widens reports whether a and b address only one aspect of
// combinedAspects and the content of one holds all of the other's.
func widens(a, b outputShape) bool {
	if len(a.aspects) != 1 || !slices.Equal(a.aspects, b.aspects) || !slices.Contains(combinedAspects, a.aspects[0]) {
		return false
	}
	holds := func(x, y []string) bool {
		return !slices.ContainsFunc(y, func(v string) bool { return !slices.Contains(x, v) })
	}
	return holds(a.content, b.content) || holds(b.content, a.content)
}

// loadOutputCues reads "aspect: phrase" lines; values lines are "aspect:
// value | synonym | …", each spelling recorded with its first as the value,
// or "aspect: =value | spelling | …" where the value is named in another
// language and is no spelling itself.
func loadOutputCues(name string, values bool) []outputCue {
	b, err := cueFiles.ReadFile("cues/" + name + ".txt")
	if err != nil {
		panic("heuristic: cue file: " + err.Error())
	}
	cueNames = append(cueNames, name)
	var out []outputCue
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		aspect, rest, ok := strings.Cut(line, ":")
		if !ok {
			panic("heuristic: cues/" + name + ".txt: no aspect in " + line)
		}
		spellings := []string{strings.TrimSpace(rest)}
		if values {
			spellings = strings.Split(rest, "|")
		}
		first := strings.TrimSpace(spellings[0])
		if v, ok := strings.CutPrefix(first, "="); ok {
			// "=english": the value the spellings after it name, in
			// whatever language ("English please，用英文写" is one value).
			first, spellings = strings.TrimSpace(v), spellings[1:]
		}
		for _, s := range spellings {
			c := outputCue{aspect: strings.TrimSpace(aspect), phrase: strings.TrimSpace(s)}
			if values {
				c.value = first
			}
			out = append(out, c)
		}
	}
	// Longest first, so "don't include" is found before "include".
	slices.SortStableFunc(out, func(a, b outputCue) int { return len(b.phrase) - len(a.phrase) })
	return out
}

// outputShape is what a statement says about the agent's answers.
type outputShape struct {
	aspects []string // sorted, distinct
	// content is the sorted, distinct values, numbers and quoted strings.
	content []string
	// rest is the statement without its cues, and object what follows an
	// open aspect's cue ("附上热量" → 热量), for open aspects.
	rest, object string
}

func (o outputShape) has(aspect string) bool { return slices.Contains(o.aspects, aspect) }

// alternativeEN drops a rejected alternative ("in grams, not cups",
// "instead of my name"): what is not wanted is not the wish's content.
var alternativeEN = regexp.MustCompile(`\b(?:not|instead of|rather than)\b[^,.;:!?]*`)

// alternativeZH does the same for Chinese ("用公斤，不要用磅", "而不是…").
var alternativeZH = regexp.MustCompile(`(?:而不是|不是|不要用|别用)[^，,。；;！!？?]*`)

// A bound on the answers' length ("three sentences max", "no more than 3
// sentences", "最多三句话", "控制在三句以内") is the count and the unit, however
// said: "3 sentence" is the content of each, and "3 paragraph" another.
var (
	boundEN = regexp.MustCompile(`\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)\s+(sentences?|lines?|paragraphs?|words?|bullets?|bullet points?|points|items|characters?)\b`)
	boundZH = regexp.MustCompile(`(?:最多|至多|顶多|不超过|不要超过|别超过|不能超过|控制在|限制在|保持在)?([一二两三四五六七八九十百\d]+)(句话|句|行|段话|段|条|个字|字)(以内|之内|以下|内)?`)
	// enumeration is a run of counting numbers that shows numbered steps
	// ("按1、2、3分步骤写"): the numbering itself, not content.
	enumeration = regexp.MustCompile(`(?:^|[^\d])1\s*[、,，.]\s*2\s*[、,，.]\s*3(?:[^\d]|$)`)
	// signoffValueEN is a sign-off or greeting named without quotes, after
	// "with" or "as": capitalised words to the end ("close the message with
	// Best, Lena please").
	signoffValueEN = regexp.MustCompile(`\b(?:with|as)\s+((?:[A-Z][\p{L}.'-]*,?\s*){1,4}?)(?:\s*(?:please|pls|thanks|again|like last time|same as before))?[\s.!]*$`)
)

var boundUnits = map[string]string{
	"sentence": "sentence", "sentences": "sentence", "句": "sentence", "句话": "sentence",
	"line": "line", "lines": "line", "行": "line",
	"paragraph": "paragraph", "paragraphs": "paragraph", "段": "paragraph", "段话": "paragraph",
	"word": "word", "words": "word", "character": "character", "characters": "character", "字": "character", "个字": "character",
	"bullet": "point", "bullets": "point", "bullet point": "point", "bullet points": "point", "points": "point", "条": "point",
	"items": "item",
}

var countWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20}

// boundCount reads a count in digits, English words or Chinese numerals
// (三, 十二, 二十); 0 when it is none.
func boundCount(s string) int {
	if n, ok := countWords[s]; ok {
		return n
	}
	if n := atoi(s); n > 0 {
		return n
	}
	digits := map[rune]int{'一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	n, cur := 0, 0
	for _, r := range s {
		switch {
		case digits[r] > 0:
			cur = digits[r]
		case r == '十':
			n, cur = n+max(cur, 1)*10, 0
		case r == '百':
			n, cur = n+max(cur, 1)*100, 0
		default:
			return 0
		}
	}
	return n + cur
}

// lengthBounds returns the bounds of lower as "<count> <unit>".
func lengthBounds(lower string) []string {
	var out []string
	for _, at := range boundEN.FindAllStringSubmatchIndex(lower, -1) {
		m := []string{lower[at[0]:at[1]], lower[at[2]:at[3]], lower[at[4]:at[5]]}
		// "One line per patient" lays the answer out; it bounds nothing.
		if perItemEN.MatchString(lower[at[0]:]) && perItemEN.FindStringIndex(lower[at[0]:])[0] == 0 {
			continue
		}
		if n := boundCount(m[1]); n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, boundUnits[m[2]]))
		}
	}
	for _, m := range boundZH.FindAllStringSubmatch(lower, -1) {
		// A bare count and measure ("三条建议") is no bound: a bound word
		// before it or 以内 after it makes one.
		if !strings.HasPrefix(m[0], m[1]) || m[3] != "" || m[2] == "句话" {
			if n := boundCount(m[1]); n > 0 {
				out = append(out, fmt.Sprintf("%d %s", n, boundUnits[m[2]]))
			}
		}
	}
	return out
}

var (
	byWordEN = regexp.MustCompile(`\bby ([a-z]+)`)
	anZH     = regexp.MustCompile(`按([\p{Han}]{1,4}?)(?:先后|顺序|早晚)?(?:排|分|列|从)`)
)

// shapeOfOutput returns what statement says about the agent's answers; no
// aspects when it addresses none.
func shapeOfOutput(statement string) outputShape {
	var o outputShape
	if first := newText(unquoted(statement)); !(first.latin && anyEN(first.lower, outputPhrasesEN) || first.han && firstOf(first.raw, outputPhrasesZH)) &&
		!boundEN.MatchString(first.lower) && !boundZH.MatchString(first.raw) && !enumeration.MatchString(first.raw) && !layoutShape(first.lower, first.latin, first.han) {
		return o
	}
	raw := canonical(statement)
	t := newText(unquoted(raw))
	quotes := QuotedAnchors(raw)
	lower := t.lower
	if t.latin {
		lower = alternativeEN.ReplaceAllString(lower, "")
	}
	if t.han {
		// An alternative rejected after the wish ("用公斤，不要用磅"); one
		// that opens the sentence is the wish itself ("别用表情符号了").
		for _, m := range slices.Backward(alternativeZH.FindAllStringIndex(lower, -1)) {
			if strings.TrimSpace(lower[:m[0]]) != "" {
				lower = lower[:m[0]] + lower[m[1]:]
			}
		}
	}
	rest := lower
	find := func(cues []outputCue, latin bool) {
		for _, c := range cues {
			at := -1
			if latin {
				at = phraseAt(lower, c.phrase)
			} else {
				at = strings.Index(lower, c.phrase)
			}
			if at < 0 {
				continue
			}
			o.aspects = append(o.aspects, c.aspect)
			if o.object == "" && slices.Contains(openAspects, c.aspect) {
				obj := lower[at+len(c.phrase):]
				if k := strings.IndexAny(obj, ",.;:!?，。；：！？"); k >= 0 {
					obj = obj[:k]
				}
				o.object = obj
			}
			if c.value != "" {
				o.content = append(o.content, c.value)
			}
			rest = strings.ReplaceAll(rest, c.phrase, " ")
		}
	}
	if t.latin {
		find(outputAspectsEN, true)
		find(outputValuesEN, true)
	}
	if t.han {
		find(outputAspectsZH, false)
		find(outputValuesZH, false)
	}
	layoutAspects(&o, lower, t.latin, t.han)
	if bounds := lengthBounds(lower); len(bounds) > 0 {
		o.aspects = append(o.aspects, "length")
		o.content = append(o.content, bounds...)
	}
	if enumeration.MatchString(lower) {
		o.aspects = append(o.aspects, "numbering")
		lower = enumeration.ReplaceAllString(lower, " ")
	}
	if len(o.aspects) == 0 {
		return outputShape{}
	}
	if len(quotes) == 0 && t.latin && (slices.Contains(o.aspects, "signoff") || slices.Contains(o.aspects, "greeting")) {
		if m := signoffValueEN.FindStringSubmatch(unquoted(raw)); m != nil {
			quotes = QuotedAnchors(`"` + strings.TrimSpace(m[1]) + `"`)
		}
	}
	o.content = append(o.content, quotes...)
	// Numbers as the contradiction check reads them: clock times on a
	// 24-hour clock however written (9:40, 九点四十), other numbers bare.
	for _, n := range governance.ShapeOf(lower).Numbers {
		if !slices.ContainsFunc(o.content, func(v string) bool { return strings.Contains(v, n) }) {
			o.content = append(o.content, n)
		}
	}
	if slices.Contains(o.aspects, "ordering") {
		for _, m := range byWordEN.FindAllStringSubmatch(lower, -1) {
			o.content = append(o.content, "by "+m[1])
		}
		for _, m := range anZH.FindAllStringSubmatch(lower, -1) {
			o.content = append(o.content, "按"+m[1])
		}
	}
	slices.Sort(o.aspects)
	o.aspects = slices.Compact(o.aspects)
	slices.Sort(o.content)
	o.content = slices.Compact(o.content)
	o.rest = rest
	return o
}

// taskObjectEN finds an object of the task at hand: a demonstrative
// before a noun ("this letter", "those files") or a named day ("by
// Friday", "tomorrow").
var taskObjectEN = regexp.MustCompile(`\b(?:this|that|these|those) [a-z]|\b(?:today|tonight|tomorrow|yesterday)\b|\b(?:by|on|next|this) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`)

// taskObjectZH does the same for Chinese: a demonstrative with a measure
// word (这封信, 那个文件), a day, or an errand run for the speaker (帮我…).
var taskObjectZH = regexp.MustCompile(`[这那](?:个|封|份|张|篇|条|段|些|本|件|位|里)|今天|明天|昨天|今晚|明早|(?:^|[^一二两三四五六七八九十每])周[一二三四五六日天]|星期[一二三四五六日天]|` + errandZH)

// errandZH is an errand run for the speaker (帮我把…改成…, 替我订…): a
// task, whatever it changes or picks.
const errandZH = `帮我|替我|给我订`

var errandZHRe = regexp.MustCompile(errandZH)

// outputRequest reports whether a sentence, not a question, is a plain
// request about the agent's own answers: a directive (an imperative of the
// answers, a modal, "X should be Y", "X: Y", a 吧/请/要 form) that names an
// aspect of them, with no task object and no one-off scope.
//
// The aspects are the extractor's cues (cues/output_aspect.*); a sentence
// they name none of is a request about the answers too when the write gate
// places it in the low-risk set by a class of the answers' form
// (gateAnswerForm, a property class): the gate's classes are the one description of what the
// answers may be asked to look like, so a layout ("每只猫一行", "one line per
// plant") or a shaping verb (练琴计划分成三段) the cues do not list is read
// as the gate reads it. A Chinese fragment of form needs no directive word
// then; a report of what was done (…了, …过) is none.
func outputRequest(t text) bool {
	if t.anyZH(oneOffZH) || oneOffTextEN(t) || bounded(t) || taskLookAlike(t) || oneInstance(t) {
		return false
	}
	shaped := len(shapeOfOutput(t.raw).aspects) > 0
	if !shaped && (!gateAnswerForm(t.raw) || t.latin && buildsEN(t.lower)) {
		return false
	}
	u := newText(unquoted(t.raw))
	if u.latin && !u.han {
		// A layout said as a fragment ("just one line per room") is a
		// directive when the gate places it by a property class.
		if taskObjectEN.MatchString(u.lower) || !outputDirectiveEN(u.lower) && !(formFragmentEN.MatchString(u.lower) && gateAnswerForm(t.raw)) {
			return false
		}
	} else if u.han {
		if taskObjectZH.MatchString(u.raw) || !outputDirectiveZH(u.raw) && !namesValueZH(t.raw) && (shaped || doneZH(u.raw)) {
			return false
		}
	}
	return true
}

// gateAnswerForm reports whether the write gate places s in the low-risk
// set by a property class, one of what the answers look like
// (gate.PropertyClass): not by what they include ("add a flag to the CLI"
// is a task), a like of the user's or a protective rule.
func gateAnswerForm(s string) bool {
	return gate.PropertyClass(gate.Scan(s).LowRisk)
}

// buildsEN reports whether an English sentence opens (after "please",
// "can you", "just") with a build verb (cues/build_verbs.en) that makes or
// changes a thing: one that is no verb of the answers ("implement",
// "configure"), or one that is ("add", "write") with a thing of code in the
// sentence ("add a --verbose flag to the CLI"): a task.
func buildsEN(lower string) bool {
	rest := stripLeading(lower, fillersEN)
	for _, p := range []string{"please ", "can you ", "could you ", "just ", "also "} {
		rest = strings.TrimPrefix(rest, p)
	}
	first, _, _ := strings.Cut(rest, " ")
	if !slices.Contains(cueBuildVerbsEN, first) {
		return false
	}
	return !slices.Contains(outputVerbsEN, first) || codeThingEN.MatchString(lower)
}

// formFragmentEN opens a noun phrase of a layout: a count ("one line per
// room", "just a single row each").
var formFragmentEN = regexp.MustCompile(`^(?:just\s+|only\s+)?(?:one|a\s+single|a|each|every|two|three)\s+[a-z-]+\s+(?:per|for\s+each|for\s+every|each|a)\s`)

// codeThingEN is a thing of code: a flag, an identifier, a file name, a
// program's parts.
var codeThingEN = regexp.MustCompile(`(?:^|\s)--?[a-z]|\b[a-z]+_[a-z]|\b\w+\.(?:go|py|js|ts|rs|md|json|yaml|yml|toml|sh)\b|\b(?:cli|api|flag|function|method|endpoint|command|script|test|tests|module|package|class|field|column|table\s+schema|config|repo|build|commit)\b`)

// doneZH reports whether a Chinese sentence tells what was done: it ends
// in 了 or holds a past cue (cues/past.zh).
func doneZH(raw string) bool {
	s := strings.TrimRight(raw, "。.！!～~ ")
	return strings.HasSuffix(s, "了") || containsAny(s, cuePastZH)
}

// outputDirectiveEN: the sentence opens with a verb of the answers (after
// fillers, "please", "can you", "just", "don't"), or with a noun phrase that
// a modal, a colon or a "please" makes a request ("The steps should be
// numbered", "Workout summaries: no more than 100 words please"). A sentence
// that opens with another verb ("Don't send …") or a subject that is not
// the agent's answers ("I kept the summary short") is a task or a report.
func outputDirectiveEN(lower string) bool {
	rest := stripLeading(lower, fillersEN)
	for {
		n := len(rest)
		for _, p := range []string{"please ", "can you ", "could you ", "would you ", "will you ", "just ", "also ", "don't ", "do not ", "never "} {
			rest = strings.TrimPrefix(rest, p)
		}
		if len(rest) == n {
			break
		}
	}
	// A topic before the wish names the answers it is about ("for the
	// lesson plans you write me, end with a recap"): the wish is after it.
	for _, p := range []string{"for ", "in ", "on ", "with ", "about ", "as for ", "when it comes to "} {
		if head, tail, ok := strings.Cut(rest, ", "); ok && strings.HasPrefix(rest, p) && len(strings.Fields(head)) <= 8 && tail != "" {
			rest = tail
			break
		}
	}
	end := 0
	for end < len(rest) && (isWordByte(rest[end]) || rest[end] == '-' || rest[end] == '\'') {
		end++
	}
	first := rest[:end]
	modal := hasAnyWord(lower, []string{"should", "must", "need to", "needs to"}) || perItemEN.MatchString(lower)
	switch {
	case first == "":
		return false
	case slices.Contains(outputVerbsEN, first):
		return true
	case first == "my" || first == "you":
		return modal // "My emails should end with …", "You should answer in …"
	case hasAnyPrefix(rest, speakerWishesEN):
		// "I'd like shorter replies from you": the speaker's wish, about
		// the answers when it names them or the agent.
		return hasAnyWord(rest, answerNounsEN) || hasAnyWord(rest, []string{"you", "your"})
	case imperativeEN[first] || slices.Contains([]string{"i", "we", "they", "he", "she", "it", "there", "our"}, first):
		return false
	}
	return modal || hasAnyWord(lower, []string{"please", "again", "like last time", "same as before", "as before", "max"}) ||
		strings.Contains(rest, ": ")
}

// outputDirectiveZH: a 吧/请/要/别 form, an instruction to use or write
// something (用…, …写…), or a restatement ("还是…", "跟上次一样").
func outputDirectiveZH(raw string) bool {
	// "说话客气礼貌点，跟以前一样": the wish is what comes before the usual.
	s := strings.TrimRight(withoutUsualTail(raw), "。.！!～~ ")
	return strings.HasSuffix(s, "吧") || containsAny(raw, directiveZH) || containsAny(raw, []string{"用", "写", "给", "列", "加一句", "加上", "编上", "说声", "先说", "还是", "跟上次一样", "像上次那样", "不用"}) ||
		strings.HasPrefix(s, "把") || strings.HasPrefix(s, "先") || boundZH.MatchString(s) && lengthBounds(s) != nil || layoutShape(s, false, true) ||
		// "简洁一点就行", "说简单点": a degree asked for is a request.
		strings.HasSuffix(s, "就行") || strings.HasSuffix(s, "就好") || strings.HasSuffix(s, "点") || strings.HasSuffix(s, "些")
}

// namesValueZH reports whether a Chinese sentence gives an aspect of the
// answers a quoted value ("邮件结尾署名“物业管理处”", "落款改成“物业管理处”"),
// opening with no subject and telling nothing done: the value is what is
// asked for.
func namesValueZH(raw string) bool {
	u := unquoted(raw)
	return hasQuotation(raw) && len(shapeOfOutput(raw).aspects) > 0 && !gate.OpensWithSubject(u) && !doneZH(u)
}

// outputPairs groups restatements of one wish about the agent's answers
// and keeps apart the ones that contradict each other. Two preferences
// that address an aspect of the answers are one wish when they carry the
// same content (values, numbers, quoted strings: "Sign it 'Warm regards,
// the team'" and "The sign-off should be 'Warm regards, the team', same as
// before"), or address one aspect of a closed set with no content at all
// ("Number the steps." / "Can you number the steps for me?"), or one open
// aspect about the same things ("Leave out the hotel prices." / "Skip the
// hotel prices."): their similarity is raised to threshold, or for an open
// aspect to the similarity of what the two are about. Two that give
// one aspect different content ("Warm regards" / "Best") never merge: the
// later one corrects the earlier.
func outputPairs(items []governance.MergeItem, sim [][]float64, threshold float64) {
	shapes := make([]outputShape, len(items))
	var idx []int
	for i, it := range items {
		if it.Type != governance.TypePreference {
			continue
		}
		if shapes[i] = shapeOfOutput(it.Statement); len(shapes[i].aspects) > 0 {
			idx = append(idx, i)
		}
	}
	var rests, objects [][]uint64
	if len(idx) > 1 {
		rests, objects = make([][]uint64, len(items)), make([][]uint64, len(items))
		for _, i := range idx {
			rests[i] = featurize(shapes[i].rest)
			if shapes[i].object != "" {
				objects[i] = featurize(shapes[i].object)
			}
		}
	}
	for x, i := range idx {
		for _, j := range idx[x+1:] {
			if sim[i][j] < 0 {
				continue
			}
			switch outputRelation(shapes[i], shapes[j]) {
			case outputSame:
				sim[i][j] = max(sim[i][j], threshold)
				sim[j][i] = sim[i][j]
			case outputAbout:
				// The things an open aspect is about, without its wording.
				sim[i][j] = max(sim[i][j], dice(rests[i], rests[j]), dice(objects[i], objects[j]))
				sim[j][i] = sim[i][j]
			case outputConflict:
				sim[i][j], sim[j][i] = -1, -1
			}
		}
	}
}

type outputRel int

const (
	outputUnrelated outputRel = iota
	outputSame
	outputAbout // one open aspect: compare what each is about
	outputConflict
)

// outputRelation compares two shapes.
func outputRelation(a, b outputShape) outputRel {
	shared := ""
	for _, x := range a.aspects {
		if b.has(x) {
			shared = x
			if !slices.Contains(openAspects, x) {
				break
			}
		}
	}
	sameContent := slices.Equal(a.content, b.content)
	switch {
	case len(a.content) > 0 && sameContent:
		return outputSame
	case shared == "":
		return outputUnrelated
	case len(a.content) > 0 && len(b.content) > 0:
		if widens(a, b) {
			return outputSame
		}
		if slices.Contains(openAspects, shared) {
			return outputUnrelated
		}
		return outputConflict
	case slices.Contains(openAspects, shared):
		return outputAbout
	case len(a.content) == 0 && len(b.content) == 0:
		return outputSame
	}
	return outputUnrelated
}

// fmtPoints is the content of an answer cut into n points.
func fmtPoints(n int) string { return fmt.Sprintf("%d point", n) }
