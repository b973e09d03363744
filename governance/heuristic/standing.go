package heuristic

import (
	"slices"
	"strings"
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
		"for all future", "for any future", "for every future", "from this point on", "from this point forward",
		"from today on", "henceforth", "for the rest of this project",
		// Prohibitions that admit no exception, and first-person standing wishes.
		"under no circumstances", "not under any circumstances", "no matter what", "i never want", "we never want",
		"i don't ever want", "i do not ever want", "i don't want you to ever", "don't you ever ", "do not you ever ",
	}
	standingPhrasesEN = []string{
		"keep doing that", "keep doing this", "keep it that way", "keep it like that", "house style",
		"make it a habit", "make it a rule", "as a rule", "going forward", "from now on", "from here on",
		", ever.", ", ever", ", always.", ", always", "remember that.", "remember that!",
		// A rule stated as one.
		"the rule is", "the rule here is", "our rule is", "house rule", "ground rule", "standing rule", "hard rule",
		"under no circumstances", "for all future", "henceforth",
	}
	// A lead-in clause that makes what follows something to keep
	// ("Remember: prod config is read-only", "Keep in mind, …").
	standingLeadInsEN = []string{"remember", "keep in mind", "bear in mind", "never forget", "note for the future", "for future reference"}
	// Idioms that open like a prohibition and are none ("Never mind, …").
	notStandingEN = []string{"never mind", "nevermind", "never heard", "never seen", "never used", "never mind that"}
	// Verbs that end an ongoing habit ("Stop adding …", "Quit rewriting …").
	stopVerbsEN = []string{"stop ", "quit ", "cut out ", "enough with "}
	// Confirmation tags that leave a statement a statement: "…, ok?".
	tagQuestionsEN = []string{"ok", "okay", "alright", "all right", "got it", "understood", "yeah", "right", "yes", "deal", "clear"}
	tagQuestionsZH = []string{"好吗", "好不好", "行吗", "行不行", "可以吗", "听到没有", "听到了吗", "听见没", "记住了吗", "记住没", "明白吗", "明白了吗", "知道了吗", "懂吗", "懂了吗"}
	// Openers after which a clause is an instruction, stripped first.
	standingFillersEN = []string{"right", "no", "ok", "okay", "so", "and", "also", "please", "oh", "btw", "also,", "one more thing", "and please", "but", "hey", "look"}

	standingOpenersZH = []string{
		"以后", "今后", "往后", "从现在起", "从现在开始", "从今以后", "从今天起", "记住", "一直记着", "永远别", "永远不要", "永远不",
		"别再", "不要再", "每次", "每一次", "一律", "统一", "老规矩", "千万别", "绝对不要", "绝对别",
		// Prohibitions without exception.
		"不许", "不准", "禁止", "严禁", "不得", "千万不要", "千万不能", "绝对不能", "绝对不可以", "任何时候都不",
	}
	standingPhrasesZH = []string{
		"记住", "一直记着", "永远别", "永远不要", "别再", "不要再", "一律", "以后都", "以后每次", "以后别", "以后不要", "以后一律",
		"每次都", "今后都", "往后都", "从现在起", "从今以后", "老规矩",
		// Prohibitions without exception, wherever they stand in the
		// sentence ("这个项目里绝对不能用 panic").
		"千万不要", "千万不能", "千万别", "绝对不能", "绝对不要", "绝对不可以", "绝对别", "严禁", "无论如何都不", "任何时候都不",
		// A habit or rule being set.
		"养成习惯", "养成这个习惯", "形成习惯", "立个规矩", "定个规矩", "定个规则", "当成规矩", "作为规矩", "规矩是",
	}
	// Words that open like a prohibition and are none ("不准确").
	notStandingZH     = []string{"不准确", "不得不", "不得了", "不得已"}
	standingFillersZH = []string{"对了", "还有", "另外", "哦", "噢", "嗯", "那个", "然后", "好", "行", "还是", "请", "麻烦", "不对", "不行", "你们", "你"}
)

// standingInstructionEN reports whether an English sentence (lowercase) is a standing
// instruction or prohibition.
func standingInstructionEN(lower string) bool {
	for _, p := range standingPhrasesEN {
		if strings.Contains(lower, p) {
			return true
		}
	}
	first := true
	for clause := range strings.FieldsFuncSeq(lower, func(r rune) bool {
		return r == ',' || r == ';' || r == '—' || r == ':' || r == '–'
	}) {
		rest := strings.TrimSpace(clause)
		// A lead-in clause ("Remember: …") followed by what to remember.
		if first && slices.Contains(standingLeadInsEN, strings.TrimRight(rest, " !.")) && len(lower) > len(clause)+3 {
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
	for _, o := range standingOpenersEN {
		if strings.HasPrefix(rest, o) {
			return true
		}
	}
	// "Don't … ever", "Don't do that again": a prohibition for good.
	for _, neg := range []string{"don't ", "do not ", "dont "} {
		if body, ok := strings.CutPrefix(rest, neg); ok && (hasAnyWord(body, []string{"ever"}) || strings.HasSuffix(strings.TrimRight(body, " .!"), " again")) {
			return true
		}
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
	for _, p := range standingPhrasesZH {
		if strings.Contains(raw, p) {
			return true
		}
	}
	for clause := range strings.FieldsFuncSeq(raw, func(r rune) bool { return r == '，' || r == ',' || r == '；' || r == '：' }) {
		rest := strings.TrimSpace(clause)
		for range 2 {
			rest = stripLeadingZH(rest, standingFillersZH)
		}
		for _, o := range standingOpenersZH {
			if strings.HasPrefix(rest, o) && !hasAnyPrefix(rest, notStandingZH) {
				return true
			}
		}
	}
	return false
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
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
