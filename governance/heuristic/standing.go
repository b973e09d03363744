package heuristic

import "strings"

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
	}
	standingPhrasesEN = []string{
		"keep doing that", "keep doing this", "keep it that way", "keep it like that", "house style",
		"make it a habit", "make it a rule", "as a rule", "going forward", "from now on", "from here on",
		", ever.", ", ever", ", always.", ", always", "remember that.", "remember that!",
	}
	// Openers after which a clause is an instruction, stripped first.
	standingFillersEN = []string{"right", "no", "ok", "okay", "so", "and", "also", "please", "oh", "btw", "also,", "one more thing", "and please", "but", "hey", "look"}

	standingOpenersZH = []string{
		"以后", "今后", "往后", "从现在起", "从现在开始", "从今以后", "从今天起", "记住", "一直记着", "永远别", "永远不要", "永远不",
		"别再", "不要再", "每次", "每一次", "一律", "统一", "老规矩", "千万别", "绝对不要", "绝对别",
	}
	standingPhrasesZH = []string{
		"记住", "一直记着", "永远别", "永远不要", "别再", "不要再", "一律", "以后都", "以后每次", "以后别", "以后不要", "以后一律",
		"每次都", "今后都", "往后都", "从现在起", "从今以后", "老规矩",
	}
	standingFillersZH = []string{"对了", "还有", "另外", "哦", "噢", "嗯", "那个", "然后", "好", "行", "还是", "请", "麻烦", "不对", "不行"}
)

// standingInstructionEN reports whether an English sentence (lowercase) is a standing
// instruction or prohibition.
func standingInstructionEN(lower string) bool {
	for _, p := range standingPhrasesEN {
		if strings.Contains(lower, p) {
			return true
		}
	}
	for clause := range strings.FieldsFuncSeq(lower, func(r rune) bool {
		return r == ',' || r == ';' || r == '—' || r == ':' || r == '–'
	}) {
		rest := strings.TrimSpace(clause)
		for range 3 {
			rest = stripLeading(rest, standingFillersEN)
			rest = strings.TrimLeft(rest, " !")
		}
		rest += " "
		for _, o := range standingOpenersEN {
			if strings.HasPrefix(rest, o) {
				return true
			}
		}
		// "Stop adding emojis", "stop running npm install with --force".
		if verb, ok := strings.CutPrefix(rest, "stop "); ok {
			word, _, _ := strings.Cut(verb, " ")
			if len(word) > 4 && strings.HasSuffix(word, "ing") {
				return true
			}
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
			if strings.HasPrefix(rest, o) {
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
