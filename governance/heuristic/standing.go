package heuristic

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Standing instructions and prohibitions: said once, meant for good. They
// are recognised by how a clause opens ("Never …", "Don't ever …", "Stop
// …ing", "Going forward, …", "以后…", "别再…", "永远别…"), or by a phrase
// that can only mean "from now on" ("keep doing that", "make it a habit",
// "记住", "一直记着"). A clause that merely mentions always or never ("the
// build always breaks on Mondays", "这个测试一直不稳定") is not one.
var (
	standingOpenersEN = []string{
		"never ", "don't ever ", "do not ever ", "dont ever ", "always ", "keep doing ", "keep using ", "keep writing ",
		"make it a habit", "make it a rule", "as a rule", "going forward", "from now on", "from here on", "in future",
		"in the future", "no more ", "each time you", "every time you", "whenever you", "remember that ",
		"i always want", "i'd like you to always", "i want you to always", "you should always", "you should never",
		"you must always", "you must never", "make sure you always", "remember to always",
		// Scopes that can only mean from now on.
		"for all future", "for any future", "for every future", "from this point on", "from this point forward", "default to ",
		"from today on", "henceforth", "for the rest of this project",
		// Prohibitions that admit no exception, and first-person standing wishes.
		"under no circumstances", "not under any circumstances", "no matter what", "whatever you do", "whatever happens", "i never want", "we never want",
		"i don't ever want", "i do not ever want", "i don't want you to ever", "don't you ever ", "do not you ever ",
		// Held-out phrasings: other words for every time and from now on,
		// a rule named as one, and a prohibition stated as a permission.
		"every single time you", "any time you", "anytime you", "each and every time", "moving forward", "going forwards",
		"make a habit", "as a general rule", "rule of thumb", "never again ", "you're not allowed to", "you are not allowed to",
		"you aren't allowed to", "you're never allowed", "we always ", "we never ",
	}
	standingPhrasesEN = []string{
		"keep doing that", "keep doing this", "keep it that way", "keep it like that", "house style",
		"make it a habit", "make it a rule", "as a rule", "going forward", "from now on", "from here on",
		", ever.", ", ever", "remember that.", "remember that!",
		// A rule stated as one.
		"the rule is", "the rule here is", "our rule is", "house rule", "ground rule", "standing rule", "hard rule",
		"under no circumstances", "for all future", "henceforth", "moving forward", "going forwards", "rule of thumb",
		"as a general rule", "make a habit",
		// A clause that makes the rest something to keep, and a rule
		// without exception.
		"keep that in mind", "keep this in mind", "bear that in mind", "bear this in mind", "no exceptions", "without exception",
		"get into the habit", "get in the habit", "form the habit",
	}
	// A lead-in clause that makes what follows something to keep
	// ("Remember: prod config is read-only", "Keep in mind, …", "One more
	// thing for the future: …").
	standingLeadInsEN = []string{"remember", "keep in mind", "bear in mind", "never forget", "note for the future", "for future reference",
		"for the future", "for next time", "note for next time", "in general"}
	// Idioms that open like a prohibition and are none ("Never mind, …").
	notStandingEN = []string{"never mind", "nevermind", "never heard", "never seen", "never used", "never mind that",
		"anytime you're", "any time you're", "anytime you are", "any time you are", "anytime you want", "any time you want",
		"whenever you're ready"}
	// Past tenses after "we never", "we always": a story, not a rule
	// ("We never figured out that flaky test").
	pastVerbsEN = []string{"got", "had", "did", "saw", "found", "knew", "made", "thought", "came", "went", "was", "were", "ran", "left", "took", "felt", "heard", "said"}
	// Verbs that end an ongoing habit ("Stop adding …", "Quit rewriting …").
	stopVerbsEN = []string{"stop ", "quit ", "cut out ", "enough with "}
	// Confirmation tags that leave a statement a statement: "…, ok?".
	tagQuestionsEN = []string{"ok", "okay", "alright", "all right", "got it", "understood", "yeah", "right", "yes", "deal", "clear"}
	tagQuestionsZH = []string{"好吗", "好不好", "行吗", "行不行", "可以吗", "听到没有", "听到了吗", "听见没", "记住了吗", "记住没", "明白吗", "明白了吗", "知道了吗", "懂吗", "懂了吗"}
	// Openers after which a clause is an instruction, stripped first.
	standingFillersEN = []string{"right", "no", "ok", "okay", "so", "and", "also", "please", "pls", "plz", "oh", "btw", "also,", "one more thing", "and please", "and pls", "but", "hey", "look",
		// A request that carries the instruction: "Can you always …",
		// "I'd like you to stop …ing".
		"can you", "could you", "would you", "will you", "i'd like you to", "i would like you to", "i want you to", "i need you to"}
	// Scopes that make a prohibition or a convention the project's own:
	// "Don't use lodash in this codebase", "We use conventional commits here".
	projectScopesEN = []string{" in this codebase", " in this code base", " in this repo", " in this repository", " in this project",
		" in our codebase", " in our repo", " anywhere in the", " anywhere in this", " everywhere", "not just here", "not only here"}
	// Markers of a time to come followed by a prediction, not an
	// instruction: "From now on it should work".
	predictionSubjectsEN = []string{"it", "it'll", "this", "that", "these", "those", "everything", "things", "the"}

	standingOpenersZH = []string{
		"以后", "今后", "往后", "从现在起", "从现在开始", "从今以后", "从今天起", "记住", "一直记着", "永远别", "永远不要", "永远不",
		"别再", "不要再", "每次", "每一次", "一律", "统一", "老规矩", "千万别", "绝对不要", "绝对别",
		// Prohibitions without exception.
		"不许", "不准", "禁止", "严禁", "不得", "千万不要", "千万不能", "绝对不能", "绝对不可以", "任何时候都不",
		// Held-out phrasings: other words for every time and from now on.
		"每回", "每一回", "从今往后", "下回开始", "下次开始", "从下次开始", "从下回开始", "下次起", "下回起",
		"永远用", "永远要", "永远都要", "永远都用", "再也别", "再也不要", "再也不许", "再也不准", "之后所有新", "之后每次", "之后都要", "之后一律", "之后就按", "之后都按", "之后就用", "之后都用", "切记", "牢记", "务必记住",
		// When it happens again: "下次再遇到测试挂了，先…".
		"下次再遇到", "下次再碰到", "下回再遇到", "下回再碰到", "再遇到", "再碰到",
	}
	standingPhrasesZH = []string{
		"记住", "一直记着", "永远别", "永远不要", "别再", "不要再", "一律", "以后都", "以后每次", "以后别", "以后不要", "以后一律",
		"每次都", "今后都", "往后都", "从现在起", "从今以后", "老规矩",
		// Prohibitions without exception, wherever they stand in the
		// sentence ("这个项目里绝对不能用 panic").
		"千万不要", "千万不能", "千万别", "绝对不能", "绝对不要", "绝对不可以", "绝对别", "严禁", "无论如何都不", "任何时候都不",
		// A habit or rule being set.
		"养成习惯", "养成这个习惯", "形成习惯", "立个规矩", "定个规矩", "定个规则", "当成规矩", "作为规矩", "规矩是",
		"切记", "牢记", "务必记住", "记好了", "记牢", "给我记着", "再也别", "再也不要", "再也不许", "再也不准", "从今往后", "任何时候都别", "任何时候都不要", "任何情况下都不", "任何情况下都别",
		"不管什么情况都不", "无论什么情况都不",
		// Never, wherever the sentence puts it: "`.env` 永远不准进 git".
		"永远不准", "永远不许", "永远不能", "永远不可以", "永远不得",
		// No exception allowed.
		"没有例外", "无一例外", "不能例外", "不许例外",
	}
	// Words that open like a prohibition and are none ("不准确").
	notStandingZH = []string{"不准确", "不得不", "不得了", "不得已", "以后再说", "以后再看", "以后再弄", "以后再讲", "以后再处理", "以后再聊",
		// Complaints about what keeps happening ("每回都这样，真烦").
		"每次都这样", "每回都这样", "每次都是", "每回都是",
		// 往后 as a direction, not a time ("往后翻一页"); 以后 with a time to
		// find ("以后有空再重构").
		"往后翻", "往后看", "往后退", "往后拖", "往后移", "往后挪", "往后滚", "以后有空", "以后有时间", "以后有机会"}
	// What the person goes through each time, not what the agent is to
	// do: "每回看到这个报错我都头疼".
	firstPersonZH = []string{"我都", "我就", "我总是", "我每次"}
	// Conditional openers of English rules whose main clause is an
	// imperative: "Any time a test is flaky, quarantine it".
	// "Any time there's a choice …, write …": whatever the condition's
	// subject, the main clause decides.
	conditionalOpenersEN = []string{"any time ", "anytime ", "every time ", "each time ", "whenever "}
	// Scopes of every task that an instruction may follow: "By default use …".
	defaultScopesEN = []string{"by default", "as a default", "as the default"}
	// The project's conventions after its scope: "In this repo we never …".
	conventionsEN = []string{"we never ", "we always ", "we don't ", "we do not ", "we only ", "we use ", "we prefer ", "never ", "always ", "don't ", "do not ", "nobody "}
	// Words after a quantifier that make its noun the things at hand.
	specificEN = []string{"the", "these", "those", "this", "that", "of", "my", "your", "our", "its", "their", "three", "two", "four", "five"}
	// A clause or sentence that names what was said a rule: "That's a team
	// rule", "this is the convention here".
	ruleNameEN = regexp.MustCompile(`^(?:and |so )?(?:that's|thats|that is|this is|it's|it is|which is|is)(?: just| simply)? (?:a |an |the |our |my )?(?:[a-z-]+ ){0,2}(?:rule|policy|convention|standard)(?: here| now| for us| around here| in this (?:repo|project|codebase|team))?(?: and (?:we|i) [a-z' ]+)?[ .!]*$`)
	ruleLeadEN = regexp.MustCompile(`^(?:as )?(?:(?:a|one|my|our|the|new) )?(?:[a-z-]+ )?(?:rule|policy|convention|practice)(?: of (?:the |this )?[a-z]+| for (?:you|everyone|(?:the|this|our|all|any) (?:[a-z-]+ ){0,2}[a-z-]+))?$`)
	// "For every new endpoint, write …": a scope over a kind, then an
	// instruction.
	kindScopeEN = regexp.MustCompile(`^(?:for|on|with|in) (?:every|each|all|any) (?:new |single )?([a-z][a-z-]*)`)
	// "我们这边的约定是：…", "这个仓库的规矩是…": a rule named as one.
	ruleIsZH = regexp.MustCompile(`(?:规矩|约定|规定|规范|惯例|原则|铁律)(?:就是|是|：|:)|(?:规矩|约定|规定)[^：:，,。]{1,6}[：:]|^(?:我们|团队|我们团队|组里|我们组|公司|项目)(?:的)?(?:规定|规矩|约定|规范)|(?:长期|永久|一直有效)[^：:，,。]{0,6}[：:]`)
	// "不管什么情况，都不要…": no exception, over a clause break.
	concessiveZH = regexp.MustCompile(`(?:不管|无论|不论)[^，。,]{0,6}(?:情况|时候|如何|怎样|怎么样|场合)[，,]?\s*都(?:不|别|要|得|必须|只能)`)
	// "Our convention is …", "the team's rule is …": a rule named as one.
	ruleIsEN = regexp.MustCompile(`\b(?:(?:our|the|my|team's|house|project's|repo's)(?: team)?|team|project|repo) (?:rule|convention|policy|standard)s? (?:is|are)\b`)
	// Words one of the rule-naming patterns needs: a pattern runs only on
	// text that has one (matchIf), the patterns being the costly part.
	ruleNounsEN = []string{"rule", "policy", "convention", "standard"}
	ruleNounsZH = []string{"规矩", "约定", "规定", "规范", "惯例", "原则", "铁律", "纪律", "标准", "长期", "永久", "一直有效"}
	// The end of a lead-in that asks for what follows to be kept: "you'll
	// be in this repo a lot, so note this: …".
	noteThisEN = []string{" note this", " note that", " remember this", " keep this in mind", " bear this in mind", " take note"}
	// Clauses that keep what was just said: the last clause of a sentence,
	// or a sentence of its own ("… we always use guards. Stick to it.").
	keepSaidEN = []string{"keep that going", "keep doing it", "stick to it", "stick to that", "stick with it", "stick with that", "keep to it", "keep to that"}
	// Times to come in a lead-in: "for next time and every time after: …".
	futureScopesEN = []string{"every time after", "each time after", "every time", "from now on", "going forward", "for the future", "in future", "from here on",
		"all times after that", "all times after", "every time after that", "ever after", "forever", "for good", "permanently"}
	// A polite wish about what the agent does always or never: "I'd
	// appreciate it if you never reformatted whole files".
	politeWishEN = regexp.MustCompile(`^(?:i'd|i would|it'd|it would) (?:appreciate it|be great|be nice|be better|prefer it|prefer|rather)(?: if)? you (?:never|always|didn't ever|did not ever|would always|would never)\b`)
	// A scope over all the agent's future work: "in all the code you
	// write for me", "for every PR you open".
	futureWorkEN = regexp.MustCompile(`\b(?:all|every|any|each|everything)(?: of)?(?: the| your)? ?(?:[a-z]+ )?you (?:write|touch|open|make|create|add|change|send|do)\b`)
	// Verbs that keep to what was just said, its demonstrative pointing
	// back at the words, not at a thing at hand: "stick to that in
	// everything you write".
	keepToSaidEN = []string{"stick to that", "stick to this", "stick to these", "stick with that", "stick with this", "keep to that", "keep to this",
		"follow that", "follow this", "follow these", "apply that", "apply this", "do that", "do it that way", "do it like that"}
	// "… unless I say otherwise": an instruction that holds until revoked.
	revokedEN = regexp.MustCompile(`\b(?:unless|until) i (?:explicitly |specifically )?(?:say|tell you|ask for|ask) (?:otherwise|so|differently)\b`)
	revokedZH = regexp.MustCompile(`除非我(?:另外|特别|明确)?(?:说|要求|同意|交代)`)
	// A wish against something for good: "I don't want to see … ever again".
	negativeWishEN = []string{"don't want", "dont want", "do not want"}
	soZH           = []string{"所以", "因此", "于是", "结果"}
	ruleNameZH     = regexp.MustCompile(`^(?:这|那)(?:就)?是[^，。,；]{0,20}(?:规定|规矩|约定|惯例|规范|铁律|纪律|标准)[。！!.～~]*$`)
	// Scopes of every task in Chinese: "默认都用 pnpm".
	defaultScopesZH = []string{"默认", "一般情况下", "正常情况下", "通常"}
	// Quantifiers over a kind, and times without exception: "所有新接口都要…",
	// "任何时候都要…".
	universalZH = []string{"所有", "凡是", "涉及", "任何", "每个", "每一个", "全部", "无论如何", "不管什么时候", "无论什么时候", "任何时候"}
	// Obligations and prohibitions after a universal: 都要, 必须, 都不能.
	obligationZH = []string{"都要", "都得", "都必须", "必须", "一律", "都不能", "都不许", "都不准", "都不要", "都别", "都不可以", "都应该", "统一"}
	// Conventions after the project's scope: "我们这个仓库不用 squash merge".
	projectScopeZH    = []string{"项目", "仓库", "repo", "代码库", "代码里", "codebase"}
	projectRuleZH     = []string{"不用", "不要", "不能", "别", "禁止", "不许", "不准", "不允许", "只允许", "只用", "都用", "一律", "统一", "都要", "必须", "只能", "从不"}
	standingFillersZH = []string{"对了", "还有", "另外", "哦", "噢", "嗯", "那个", "然后", "好", "行", "还是", "请", "麻烦", "不对", "不行", "你们", "你", "不过", "但是", "但"}
)

// standingInstructionEN reports whether an English sentence (lowercase) is a standing
// instruction or prohibition.
func standingInstructionEN(lower string) bool {
	if isPredictionEN(lower) {
		return false
	}
	// "Do not, under any circumstances, edit …": the exception is ruled
	// out, wherever the clause puts it.
	if strings.Contains(lower, "under any circumstances") && hasAnyWord(lower, []string{"not", "never", "don't", "dont", "no"}) {
		return true
	}
	if hasAnyPrefix(lower, conditionalOpenersEN) && !oneMomentEN(lower) {
		if _, main, ok := strings.Cut(lower, ","); ok && (englishDirective(main) || bareVerbEN(main)) && !atHandEN(main) {
			return true
		}
	}
	// "… unless I say otherwise": it holds until it is revoked.
	if matchIf(revokedEN, lower, "unless i", "until i") && (englishDirective(lower) || bareVerbEN(lower)) {
		return true
	}
	// Ending at a word's end: ", ever" is not "architect, every year".
	if containsWholeEnd(lower, standingPhrasesEN) {
		return true
	}
	if matchIf(futureWorkEN, lower, "you ") && (englishDirective(lower) && !atHandEN(lower) || hasAnyPrefix(stripLeading(lower, standingFillersEN), keepToSaidEN)) {
		return true
	}
	// "I don't want to see this error ever again" is about the bug at hand.
	// "…, always.": the instruction before it holds every time (not "ha,
	// always the regex").
	if strings.HasSuffix(strings.TrimRight(lower, " .!"), ", always") {
		return true
	}
	if matchIf(ruleIsEN, lower, ruleNounsEN...) || hasAnyWord(lower, negativeWishEN) && hasAnyWord(lower, []string{"ever", "anymore", "any more"}) && !atHandEN(lower) {
		return true
	}
	// "In this codebase, tests never hit the network": the project's scope
	// and a convention of a kind (a bare noun, then never or always).
	if containsAny(" "+lower, projectScopesEN) {
		for clause := range strings.FieldsFuncSeq(lower, func(r rune) bool { return r == ',' || r == ';' || r == '.' || r == ':' }) {
			words := wordsOf(clause)
			if len(words) > 2 && !slices.Contains(determinersEN, words[0]) && !containsAny(" "+clause, projectScopesEN) &&
				slices.Contains([]string{"never", "always"}, words[1]) {
				return true
			}
		}
	}
	first, end := true, 0
	for clause := range strings.FieldsFuncSeq(lower, func(r rune) bool {
		return r == ',' || r == ';' || r == '—' || r == ':' || r == '–'
	}) {
		end = strings.Index(lower[end:], clause) + end + len(clause)
		after := strings.TrimLeft(lower[end:], ",;:—– ") // what follows the clause
		rest := strings.TrimSpace(clause)
		// A lead-in clause ("Remember: …", "One more thing for the
		// future: …") followed by what to remember.
		lead := strings.TrimRight(stripLeading(rest, standingFillersEN), " !.")
		if first && (lead == "" || slices.Contains(standingFillersEN, lead)) {
			continue // "hey, general rule for you: …": the greeting opens nothing
		}
		if first && slices.Contains(standingLeadInsEN, lead) && len(after) > 2 {
			return true
		}
		// "Remember this for later sessions too: …": a lead-in with more
		// words, then a colon and what to keep.
		if first && end < len(lower) && lower[end] == ':' && len(after) > 2 &&
			(hasAnyPrefix(lead, []string{"remember", "keep in mind", "bear in mind", "note for", "never forget"}) || hasAnySuffix(lead, noteThisEN)) {
			return true
		}
		// "General rule for you: …", "small thing for next time and every
		// time after: …": a lead-in that names what follows a rule, or
		// sets it for the times to come.
		if first && (matchIf(ruleLeadEN, lead, "rule", "policy", "convention", "practice") && len(after) > 2 || hasAnySuffix(lead, futureScopesEN) && (bareVerbEN(after) || englishDirective(after)) && !atHandEN(after)) {
			return true
		}
		if m := findIf(kindScopeEN, lead, "every ", "each ", "all ", "any "); first && m != nil && !slices.Contains(specificEN, m[1]) &&
			!slices.Contains([]string{"time", "one", "of"}, m[1]) && bareVerbEN(after) && !atHandEN(after) {
			return true
		}
		// "By default, use …": a scope of every task, then an instruction.
		if first && slices.Contains(defaultScopesEN, lead) && bareVerbEN(after) {
			return true
		}
		// "I prefer httpx for new code, keep that going": a last clause
		// that keeps what was said ("that", not a task's "it" or "this").
		if !first && end == len(strings.TrimRight(lower, " .!")) && slices.Contains(keepSaidEN, strings.TrimRight(stripLeading(rest, standingFillersEN), " .!")) {
			return true
		}
		// "…, that's a team rule": the sentence names itself a rule.
		if !first && matchIf(ruleNameEN, rest, ruleNounsEN...) {
			return true
		}
		first = false
		// Try the clause as it stands, then without its fillers, one at a
		// time: "No more force pushes" opens with a filler word.
		for range 4 {
			if standingClauseEN(rest + " ") {
				return true
			}
			stripped := strings.TrimLeft(stripLeading(rest, standingFillersEN), " !")
			if stripped == rest {
				break
			}
			rest = stripped
		}
	}
	return false
}

// standingClauseEN reports whether a clause (lowercase, fillers stripped,
// ending in a space) opens as a standing instruction or prohibition.
func standingClauseEN(rest string) bool {
	for _, n := range notStandingEN {
		if strings.HasPrefix(rest, n) {
			return false
		}
	}
	for _, we := range []string{"we never ", "we always ", "never ", "i never "} {
		if body, ok := strings.CutPrefix(rest, we); ok {
			word, _, _ := strings.Cut(body, " ")
			if strings.HasSuffix(word, "ed") || slices.Contains(pastVerbsEN, word) {
				return false
			}
		}
	}
	if oneMomentEN(rest) {
		return false
	}
	if matchIf(politeWishEN, rest, "you ") {
		return true
	}
	// "Only ever use parameterized queries": only, and always.
	if body, ok := strings.CutPrefix(rest, "only ever "); ok && bareVerbEN(body) {
		return true
	}
	// "Never again lol", "Always the same error": an exclamation, with no
	// instruction after the adverb.
	if body, ok := strings.CutPrefix(rest, "never again "); ok {
		return len(strings.Fields(body)) > 1 && bareVerbEN(body)
	}
	for _, adverb := range []string{"always ", "never "} {
		if body, ok := strings.CutPrefix(rest, adverb); ok {
			if word, _, _ := strings.Cut(body, " "); slices.Contains(notVerbsEN, word) || slices.Contains([]string{"same", "something", "anything"}, word) {
				return false
			}
		}
	}
	for _, o := range standingOpenersEN {
		if strings.HasPrefix(rest, o) {
			return true
		}
	}
	// "By default use …": a scope of every task before an instruction.
	for _, d := range defaultScopesEN {
		if body, ok := strings.CutPrefix(rest, d+" "); ok && bareVerbEN(body) {
			return true
		}
	}
	// "In this codebase we never …": the project's scope, then its convention.
	for _, scope := range projectScopesEN {
		if body, ok := strings.CutPrefix(rest, strings.TrimSpace(scope)+" "); ok {
			// "In this repo we squash-merge everything": "we" and a verb
			// in the present.
			verb, isWe := strings.CutPrefix(body, "we ")
			if hasAnyPrefix(body, conventionsEN) || isWe && bareVerbEN(verb) {
				return true
			}
		}
	}
	// "I want all SQL in the store package", "I want every exported func
	// documented": a wish over everything of a kind (a bare noun after the
	// quantifier), not over the things at hand ("all the tests", "all of
	// these").
	for _, w := range []string{"i want ", "we want ", "i need ", "i'd like ", "i expect ", "we expect "} {
		body, ok := strings.CutPrefix(rest, w)
		if !ok {
			continue
		}
		words := strings.Fields(body)
		if len(words) > 1 && slices.Contains([]string{"all", "every", "each", "no", "any"}, words[0]) &&
			!slices.Contains(specificEN, words[1]) {
			return true
		}
	}
	// "Don't … ever", "Don't do that again", "… anymore": a prohibition
	// for good.
	for _, neg := range []string{"don't ", "do not ", "dont "} {
		if body, ok := strings.CutPrefix(rest, neg); ok && (hasAnyWord(body, []string{"ever"}) ||
			hasAnySuffix(strings.TrimRight(body, " .!"), []string{" again", " anymore", " any more", " any longer"})) {
			return true
		}
	}
	// "Don't use lodash in this codebase", "We use conventional commits
	// here": a prohibition or a convention of the whole project.
	if hasAnyPrefix(rest, []string{"don't ", "do not ", "dont ", "avoid ", "never ", "we use ", "we don't ", "we do not ", "we prefer ", "we only "}) {
		body := strings.TrimRight(rest, " .!")
		if strings.HasSuffix(body, " here") && strings.HasPrefix(rest, "we ") || containsAny(body, projectScopesEN) {
			return true
		}
	}
	// "Every new file needs a license header", "Every PR you open needs a
	// test plan": a rule over everything of a kind (a bare noun after the
	// quantifier, not "all the tests" or "every time").
	if words := strings.Fields(rest); len(words) > 2 && slices.Contains([]string{"every", "each", "all", "any"}, words[0]) &&
		!slices.Contains(specificEN, words[1]) && !slices.Contains([]string{"time", "one", "day", "week", "of"}, words[1]) &&
		hasAnyWord(rest, []string{"needs", "need", "must", "should", "has to", "have to"}) {
		return true
	}
	// "Stop adding emojis", "quit rewriting my tests": ending a habit.
	for _, stop := range stopVerbsEN {
		if verb, ok := strings.CutPrefix(rest, stop); ok {
			word, _, _ := strings.Cut(verb, " ")
			if len(word) > 4 && strings.HasSuffix(word, "ing") {
				return true
			}
		}
	}
	return false
}

// containsWholeEnd reports whether lower contains any of phrases not
// followed by a letter: a phrase ends where a word ends.
func containsWholeEnd(lower string, phrases []string) bool {
	for _, p := range phrases {
		for from := 0; ; {
			k := strings.Index(lower[from:], p)
			if k < 0 {
				break
			}
			end := from + k + len(p)
			if end == len(lower) || !isASCIILetter(lower[end]) || !isASCIILetter(p[len(p)-1]) {
				return true
			}
			from += k + 1
		}
	}
	return false
}

func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// isTagQuestion reports whether a sentence is a statement with a
// confirmation tag ("No more force pushes, ok?", "以后都用中文，好吗？"):
// the instruction stands; the tag only asks for agreement.
func isTagQuestion(t text) bool {
	s := strings.TrimRight(t.lower, " ?？!！.。")
	if t.han {
		for _, tag := range tagQuestionsZH {
			if body, ok := strings.CutSuffix(s, tag); ok {
				body = strings.TrimRight(body, " ，,")
				return len(body) > 0 && body != s
			}
		}
	}
	for _, tag := range tagQuestionsEN {
		if body, ok := strings.CutSuffix(s, tag); ok && (strings.HasSuffix(body, ", ") || strings.HasSuffix(body, ",")) {
			return len(strings.TrimRight(body, " ,")) > 0
		}
	}
	return false
}

// standingInstructionZH reports whether a Chinese sentence is a standing instruction
// or prohibition.
func standingInstructionZH(raw string) bool {
	// "以后再重构吧", "下次再看吧": put off, not set as a rule.
	if strings.HasSuffix(strings.TrimRight(raw, "。.！!～~ "), "吧") && strings.Contains(raw, "再") && !containsAny(raw, []string{"别再", "不要再", "再也"}) {
		return false
	}
	if containsAny(raw, firstPersonZH) && hasAnyPrefix(strings.TrimSpace(raw), []string{"每次", "每回", "每一次", "每一回"}) {
		return false
	}
	for _, p := range standingPhrasesZH {
		if anyGovernsZH(raw, p) {
			return true
		}
	}
	if m := indexIf(concessiveZH, raw, "不管", "无论", "不论"); m != nil && governsZH(raw, m[0]) {
		return true
	}
	if m := indexIf(revokedZH, raw, "除非我"); m != nil && governsZH(raw, m[0]) {
		return true
	}
	// "有一条规矩你记一下：…": a rule named as one, before its colon.
	// "CTO 的原则是“…”，所以服务端又校验了一遍": a rule quoted to explain
	// what was done, not one set.
	m := indexIf(ruleIsZH, raw, ruleNounsZH...)
	explained := m != nil && containsAny(raw[m[1]:], soZH)
	if m != nil && governsZH(raw, m[0]) && !explained {
		return true
	}
	pos := 0
	for n, clause := 0, ""; ; n++ {
		clause, pos = nextClauseZH(raw, pos)
		if clause == "" {
			return false
		}
		at := pos - len(clause)
		rest := strings.TrimSpace(clause)
		for range 2 {
			rest = stripLeadingZH(rest, standingFillersZH)
		}
		at += len(strings.TrimRightFunc(clause, unicode.IsSpace)) - len(rest)
		opens := hasAnyPrefix(rest, standingOpenersZH) && !hasAnyPrefix(rest, notStandingZH)
		if explained && matchIf(ruleIsZH, rest, ruleNounsZH...) {
			continue
		}
		if (opens || standingClauseZH(rest, n > 0) || universalAcrossZH(rest, raw[at:]) || keepLeadZH(rest, raw[at+len(rest):])) && governsZH(raw, at) {
			return true
		}
	}
}

// startsNowZH reports whether a clause opening with "from now on" starts one activity now rather than setting how things are done: a bare
// verb of one or two characters and nothing else ("从现在开始计时"), against
// "从现在开始用 pnpm" or "从现在开始，注释统一用英文写".
func startsNowZH(clause string) bool {
	var body []rune
	for _, o := range []string{"从现在起", "从现在开始", "从今天起", "从今天开始"} {
		if b, ok := strings.CutPrefix(clause, o); ok {
			body = []rune(trimTrailing(strings.TrimSpace(b)))
			break
		}
	}
	if len(body) == 0 || len(body) > 2 {
		return false
	}
	for _, r := range body {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}

// nextClauseZH returns the clause of raw that starts at byte pos and
// where the next one starts.
func nextClauseZH(raw string, pos int) (string, int) {
	for pos < len(raw) {
		end := strings.IndexFunc(raw[pos:], func(r rune) bool { return r == '，' || r == ',' || r == '；' || r == '：' })
		if end < 0 {
			return raw[pos:], len(raw)
		}
		clause := raw[pos : pos+end]
		_, size := utf8.DecodeRuneInString(raw[pos+end:])
		pos += end + size
		if strings.TrimSpace(clause) != "" {
			return clause, pos - size
		}
	}
	return "", pos
}

// standingClauseZH reports whether a Chinese clause (fillers stripped) is
// a rule by its form: a scope of every task before an instruction ("默认都用
// pnpm"), a quantifier over a kind or over all times with an obligation
// ("所有新接口都要加鉴权", "任何时候都要定义成常量"), the project's scope with its
// convention ("我们这个仓库不用 squash merge"), or, after the instruction, a
// clause that names it a rule ("这是团队规定").
// universalAcrossZH reports whether a clause opening with a quantifier
// over a kind has its obligation in a later clause ("所有跟支付相关的改动，
// 都必须先通知我"); tail is the sentence from the clause on.
func universalAcrossZH(rest, tail string) bool {
	return hasAnyPrefix(rest, universalZH) && !containsAny(rest, thisZH) && containsAny(tail[len(rest):], obligationZH) &&
		!containsAny(tail, []string{"一遍", "一下"})
}

// keepLeadZH reports whether a clause only tells the agent to keep what
// follows ("你记好，…", "记牢：…").
func keepLeadZH(rest, tail string) bool {
	return slices.Contains([]string{"记好", "记牢", "记着", "记住", "记清楚"}, trimTrailing(rest)) && len(strings.TrimLeft(tail, "，,：: ")) > 3
}

func standingClauseZH(rest string, later bool) bool {
	if later && matchIf(ruleNameZH, rest, ruleNounsZH...) || matchIf(ruleIsZH, rest, ruleNounsZH...) {
		return true
	}
	for _, d := range defaultScopesZH {
		if body, ok := strings.CutPrefix(rest, d); ok {
			body = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(body), "都"), "就"))
			if hasAnyPrefix(body, modalZH) {
				return true
			}
		}
	}
	if hasAnyPrefix(rest, universalZH) && containsAny(rest, obligationZH) && !containsAny(rest, thisZH) && !containsAny(rest, []string{"一遍", "一下"}) {
		return true
	}
	for _, scope := range projectScopeZH {
		if k := strings.Index(rest, scope); k >= 0 {
			// "我们项目里所有时间都存 UTC": the project's scope, then its
			// convention or a rule over a kind.
			body := rest[k+len(scope):]
			if containsAny(body, projectRuleZH) || containsAny(body, universalZH) && strings.Contains(body, "都") {
				return true
			}
		}
	}
	return false
}

// anyGovernsZH reports whether phrase occurs in raw where it governs an
// instruction (governsZH).
func anyGovernsZH(raw, phrase string) bool {
	for off := 0; ; {
		k := strings.Index(raw[off:], phrase)
		if k < 0 {
			return false
		}
		if governsZH(raw, off+k) {
			return true
		}
		off += k + len(phrase)
	}
}

// stripLeadingZH removes one leading filler (Chinese fillers need no
// separator after them).
func stripLeadingZH(s string, fillers []string) string {
	s = strings.TrimLeftFunc(s, isSep)
	for _, f := range fillers {
		if strings.HasPrefix(s, f) && len(s) > len(f) {
			return strings.TrimLeftFunc(s[len(f):], isSep)
		}
	}
	return s
}

func hasAnyPrefix(s string, prefixes []string) bool {
	if idx := indexOf(prefixes); idx != nil {
		if s == "" {
			return false
		}
		_, ok := idx.at(s, 0, false)
		return ok
	}
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// isPredictionEN reports whether a time-to-come marker is followed by a
// prediction about the code ("From now on it should work", "In the future
// this module will be deleted") rather than an instruction: a subject the
// person is talking about, then will, might or may (or should with work,
// pass or be fine).
func isPredictionEN(lower string) bool {
	for _, m := range []string{"from now on", "going forward", "from here on", "in future", "in the future", "moving forward"} {
		_, after, ok := strings.Cut(lower, m)
		if !ok {
			continue
		}
		words := strings.Fields(strings.Map(func(r rune) rune {
			if r == ',' || r == '.' || r == '?' || r == '!' {
				return ' '
			}
			return r
		}, after))
		if len(words) > 0 && strings.HasSuffix(words[0], "'ll") && words[0] != "you'll" && words[0] != "we'll" {
			return true // "it'll be faster"
		}
		if len(words) < 2 || !slices.Contains(predictionSubjectsEN, words[0]) {
			continue
		}
		for i := 1; i <= 2 && i < len(words); i++ {
			w := words[i]
			if strings.HasSuffix(w, "'ll") && i == 1 {
				return true
			}
			switch w {
			case "will", "might", "may":
				return true
			case "should":
				return i+1 < len(words) && slices.Contains([]string{"work", "pass", "be", "just"}, words[i+1])
			}
		}
	}
	return false
}

// notVerbsEN open a clause that is a statement, not an order.
var notVerbsEN = []string{"it", "i", "we", "they", "he", "she", "you", "that", "this", "these", "those", "there", "the", "a", "an",
	"my", "our", "your", "its", "their", "everything", "nothing", "something", "someone", "nobody", "then", "so"}

// bareVerbEN reports whether a clause opens with what can only be a verb in
// its bare form ("quarantine it and open an issue", "squash-merge"): not a
// pronoun or a determiner, and no -s, -ed or -ing ending.
func bareVerbEN(clause string) bool {
	word, _, _ := strings.Cut(strings.TrimSpace(clause), " ")
	word = strings.Trim(word, ".!?")
	if len(word) < 2 || slices.Contains(notVerbsEN, word) {
		return false
	}
	for _, c := range word {
		if (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return !strings.HasSuffix(word, "s") && !strings.HasSuffix(word, "ed") && !strings.HasSuffix(word, "ing")
}
