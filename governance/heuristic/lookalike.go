package heuristic

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Look-alikes carry the words of a standing instruction ("always", "every
// time", 以后, 每次, 别再, 一律) without being one. Each class is told by the
// sentence's structure, never by its topic:
//   - the adverb is said of a thing, or of someone's habit, not of what the
//     agent is to do: "the build always fails", "make the loop always return
//     the last error", "you always forget the import", 这个定时任务每次都跑两遍,
//     你每次都道歉 (a subject before the adverb and no modal after it);
//   - the marker sits in a when-clause whose main clause is no instruction
//     ("Every time I run it it hangs"), or in a condition (如果每次都全量构建的话);
//   - reported speech: someone else's rule, told or written (老板说以后一律走 PR);
//   - a time word that is no "from now on": 以后的版本 (a modifier), 以后会被删掉
//     (a prediction), 等以后有需求了再加 (a deferral), 以后要是换成 (a hypothesis);
//   - one moment, not a recurring one: "whenever you're done", 一会儿要用;
//   - stopping what happens now, or a change to one thing at hand: 别再跑了,
//     你别再改了 (别再 with no object), 这个接口不要再返回 200 了.

// Words that let an "always" or "never" after them govern an instruction:
// "please always …", "and never …", "we always …".
var governingEN = []string{"please", "pls", "plz", "and", "also", "just", "then", "we", "let's", "you'll", "you'd", "i'd"}

// Modal words between a subject and its adverb ("you should always").
var adverbModalsEN = []string{"should", "must", "will", "would", "can", "could", "shall", "to", "do", "'ll", "gotta"}

// Chatter before a clause that is neither subject nor instruction.
var chatterEN = []string{"ok", "okay", "so", "and", "also", "btw", "oh", "yes", "yeah", "well", "hey", "haha", "lol", "right", "no", "but", "plus", "hmm", "ugh", "honestly", "anyway"}

// clauseBefore returns the part of the clause that precedes byte i of s.
func clauseBefore(s string, i int) string {
	j := i
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		if isClauseBreak(r) {
			break
		}
		j -= size
	}
	return s[j:i]
}

// clauseAfter returns the part of the clause that follows byte i of s.
func clauseAfter(s string, i int) string {
	for j, r := range s[i:] {
		if isClauseBreak(r) {
			return s[i : i+j]
		}
	}
	return s[i:]
}

func isClauseBreak(r rune) bool {
	switch r {
	case ',', ';', ':', '(', ')', '"', '“', '”', '—', '–', '，', '；', '：', '（', '）', '「', '」', '。', '！', '？', '!', '?':
		return true
	}
	return false
}

// wordsOf returns the words of an English clause without its opening
// chatter.
func wordsOf(clause string) []string {
	words := strings.Fields(clause)
	for len(words) > 0 && slices.Contains(chatterEN, strings.Trim(words[0], ".!")) {
		words = words[1:]
	}
	return words
}

// wordIndexes returns where phrase occurs in lower at word boundaries.
func wordIndexes(lower, phrase string) []int {
	var out []int
	for off := 0; ; {
		i := strings.Index(lower[off:], phrase)
		if i < 0 {
			return out
		}
		i += off
		j := i + len(phrase)
		if (i == 0 || !isWordByte(lower[i-1])) && (j == len(lower) || !isWordByte(lower[j])) {
			out = append(out, i)
		}
		off = i + 1
	}
}

// durableMarkerEN reports whether an English sentence (lowercase) has a
// marker of durability (durableEN) that governs its instruction: "always"
// said of what the agent or the team does, "every time" or "whenever"
// either after an instruction or opening a condition whose main clause is
// one.
func durableMarkerEN(lower string) bool {
	for _, m := range durableEN {
		for _, i := range wordIndexes(lower, m) {
			switch m {
			case "always":
				// "always the regex": an exclamation, no verb after it.
				if next, _, _ := strings.Cut(strings.TrimSpace(lower[i+len(m):]), " "); slices.Contains(notVerbsEN, next) {
					continue
				}
				if adverbOfAgentEN(lower, i) || containsAny(lower, projectScopesEN) {
					return true
				}
			case "every time", "each time", "whenever":
				if conditionOfAgentEN(lower, i, m) {
					return true
				}
			default:
				return true
			}
		}
	}
	return false
}

// adverbOfAgentEN reports whether the adverb at byte i of lower is said of
// what the agent or the team is to do: it opens its clause ("Always …"),
// follows a word that leaves it to the instruction ("please always", "we
// always"), or follows "you" with a modal ("you should always") or inside
// an instruction ("make sure you always"). After a noun it describes a
// thing ("the build always fails", "make the loop always return …"); after
// a bare "you", a habit ("You always forget the import").
func adverbOfAgentEN(lower string, i int) bool {
	if reportedEN(lower[:i]) {
		return false
	}
	words := wordsOf(clauseBefore(lower, i))
	modal, norm := false, false
	for len(words) > 0 {
		w := words[len(words)-1]
		if !slices.Contains(adverbModalsEN, w) {
			break
		}
		modal, norm = true, norm || w == "should" || w == "must"
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return true
	}
	switch w := words[len(words)-1]; {
	case w == "you" || w == "u":
		return modal || len(words) > 1
	case slices.Contains(governingEN, w) || imperativeEN[w]:
		return true
	}
	// "Commit messages should always be in English": a norm over a kind
	// (no determiner before the noun), not a thing at hand ("the export
	// should always include …").
	return norm && !slices.Contains(determinersEN, words[0])
}

// determinersEN open a noun phrase about a thing at hand, or a pronoun.
var determinersEN = []string{"the", "this", "that", "these", "those", "my", "your", "our", "his", "her", "its", "their", "a", "an",
	"it", "i", "he", "she", "they", "we", "you", "there"}

// reportedEN reports whether text (what precedes a marker) ends in
// someone else's words: a reporting verb whose subject is not the speaker
// ("Effective Go says you should always …", "my lead told me to never …").
func reportedEN(text string) bool {
	best := -1
	for _, v := range []string{" says ", " said ", " say ", " told me ", " told us ", " recommends ", " suggests ", " writes ", " wrote ", " keeps saying "} {
		best = max(best, strings.LastIndex(text, v))
	}
	if best < 0 {
		return false
	}
	words := strings.Fields(text[:best])
	return len(words) > 0 && !slices.Contains([]string{"i", "we", "like", "as"}, words[len(words)-1])
}

// conditionOfAgentEN reports whether a when-marker at byte i of lower (m:
// "every time", "whenever") belongs to an instruction: it follows one
// ("Add me as a reviewer whenever you open a PR"), its condition is about
// what the agent does ("Whenever you touch the API, …"), or the main clause
// after its condition is an instruction ("Every time a test flakes,
// quarantine it"). "Every time I run it it hangs" is a report.
func conditionOfAgentEN(lower string, i int, m string) bool {
	if codeSpecEN(lower, i, m) {
		return false
	}
	if words := wordsOf(clauseBefore(lower, i)); len(words) > 0 {
		return englishDirective(strings.Join(words, " ")) || bareVerbEN(words[0])
	}
	if oneMomentEN(lower[i:]) {
		return false
	}
	after := lower[i+len(m):]
	if subject := strings.Fields(after); len(subject) > 0 && (subject[0] == "you" || subject[0] == "u") {
		return true
	}
	cut := strings.IndexAny(after, ",;")
	if cut < 0 {
		return false
	}
	main := after[cut+1:]
	return englishDirective(main) || bareVerbEN(main)
}

// codeSpecEN reports whether the condition at byte i of lower (opening with
// m) is a behaviour of the code the sentence asks to build, not an occasion
// of the agent's: "make the retry loop back off: every time it fails, double
// the delay", "add a warning log whenever the cache misses". The sentence
// opens by building a thing, and the condition's subject is not a person.
func codeSpecEN(lower string, i int, m string) bool {
	if !hasAnyPrefix(lower, buildOpenersEN) {
		return false
	}
	subject, _, _ := strings.Cut(strings.TrimSpace(lower[i+len(m):]), " ")
	return !slices.Contains([]string{"you", "u", "we", "i", "someone", "anyone", "somebody", "anybody"}, subject)
}

// buildOpenersEN open a sentence that asks for a thing in the code.
var buildOpenersEN = []string{"make the ", "make it ", "make a ", "add a ", "add an ", "have the ", "have it ", "implement ", "write a ", "write the ", "change the ", "update the "}

// oneMomentEN reports whether a clause opening with whenever, any time or
// anytime names one moment ("Whenever you're done, ping me", "any time
// you've finished"): "you" in a state, not doing something again ("any
// time you're adding a dependency", "whenever you touch the API").
func oneMomentEN(rest string) bool {
	for _, o := range []string{"whenever ", "any time ", "anytime "} {
		body, ok := strings.CutPrefix(rest, o)
		if !ok {
			continue
		}
		words := strings.Fields(body)
		if len(words) < 2 {
			return false
		}
		switch {
		case words[0] == "you're" || words[0] == "youre" || words[0] == "you've" || words[0] == "you'd":
			return !strings.HasSuffix(words[1], "ing") && words[1] != "about"
		case words[0] == "you" && (words[1] == "are" || words[1] == "have") && len(words) > 2:
			return !strings.HasSuffix(words[2], "ing") && words[2] != "about"
		}
	}
	return false
}

// Chinese markers by what they say: a time to come, or how often.
var (
	laterZH     = []string{"以后", "今后", "往后"}
	frequencyZH = []string{"每次", "每一次", "每回", "每一回", "每趟", "一直", "总是", "始终", "永远", "老是"}
	// After a time to come: a modifier (以后的版本), a prediction (以后会),
	// a hypothesis (以后要是), a deferral (以后再, 以后有空).
	notLaterZH = []string{"的", "会", "可能", "也许", "估计", "大概", "应该会", "要是", "如果", "万一", "假如", "再", "有空", "有时间", "有机会", "有需求"}
	// Modals after a frequency marker that make the clause an instruction
	// ("你每次都要先跑测试"), not a description ("你每次都道歉").
	modalZH = []string{"要", "得", "必须", "先", "记得", "别", "不要", "不许", "不准", "不能", "不得", "一定", "务必", "给我", "请", "需要", "应该", "用"}
	// Words that open like a modal and are none: 请求, 用户, 得到.
	notModalZH = []string{"请求", "用户", "用例", "用时", "得到", "得出", "先前", "要求", "别人", "别的", "不要紧", "一定程度", "不得不", "不能用"}
	// A clause that only complains ("烦死了"): the frequency beside it is
	// what the speaker goes through ("每次跑测试都要等好久，烦死了").
	complaintZH = []string{"烦死了", "真烦", "好烦", "烦人", "头疼", "受不了", "无语", "崩溃", "醉了", "离谱", "慢死了", "累死了", "太慢了", "好慢", "很慢", "太慢"}
	// What a frequency marker with no subject describes: "每次都是…",
	// "每次都这样", "每次都很慢", "每次都会…".
	describedZH = []string{"是", "这样", "这么", "那么", "会", "很", "挺", "特别", "太", "没", "不太", "不一样", "一样"}
	// A condition around the marker: 如果每次都…的话.
	conditionZH = []string{"如果", "要是", "假如", "万一", "假设", "若是", "若", "要不是"}
	// Reporting verbs: someone else's rule told or written.
	reportZH = []string{"说", "写着", "写的是", "写了"}
	// Words that make 说 the speaker's own: 我说, 跟你说, 顺便说一句, 说好的.
	ownSpeechZH = []string{"我", "我们", "咱们", "你", "跟你", "和你", "顺便", "再", "就", "先", "我再"}
	// A specific thing at hand (这个接口, 这一行), unlike a kind (这种名字)
	// or the project (这个仓库).
	thisZH    = []string{"这个", "这段", "这行", "这一行", "这里", "这儿", "这块", "那个", "这几个", "这些", "那段", "那行", "这条", "那条"}
	projectZH = []string{"项目", "仓库", "repo", "代码库", "组里", "团队", "我们组", "codebase", "整个"}
	// Chatter before a clause that is neither subject nor instruction.
	chatterZH  = []string{"对了", "还有", "另外", "哦", "噢", "嗯", "然后", "好", "行", "不对", "不行", "哈哈", "唉"}
	stopsZH    = []string{"别再", "不要再", "再也别", "再也不要", "不准再", "不许再"}
	pronounsZH = []string{"我", "你", "它", "他", "她", "了", "啦"}
	// Causative and disposal openers: 让这个 worker…, 把 Retry 改成….
	causativeZH = []string{"让", "使", "叫", "令", "把", "将"}
	// The speaker's plans: what follows is what they mean to do.
	planZH = []string{"我打算", "我准备", "我计划", "我们打算", "我们准备", "我们计划", "我想着"}
	// Predictions after a time to come and its subject: 以后这个脚本可能会….
	predictionZH = []string{"可能", "也许", "估计", "大概", "应该会", "会被", "会不会", "说不定"}
	// Times past: what the frequency describes happened then.
	pastZH = []string{"以前", "之前", "以往", "当时", "那时", "去年", "原来", "过去", "刚入职", "刚来的时候", "的时候我"}
	// What happens again after 以后再 (not put off): 以后再遇到….
	recurZH = []string{"遇到", "碰到", "出现", "发生", "遇见", "犯"}
)

// passiveZH reports whether a frequency's clause is passive before any
// obligation ("每次提交都被打回来"): it says what happens to someone.
func passiveZH(body string) bool {
	k := strings.Index(body, "被")
	if k < 0 {
		return false
	}
	for _, m := range modalZH {
		if j := strings.Index(body, m); j >= 0 && j < k {
			return false
		}
	}
	return true
}

// problemReport reports whether a sentence reports a problem and asks
// for it to be looked into ("We always get a 502 …, find out where the
// limit is", "…每次都返回空数组，帮我查一下"): its "always" and "每次" describe
// the problem. A sentence that opens with the standing instruction itself
// ("Always look into flaky tests before retrying") is none.
func problemReport(t text) bool {
	if t.latin && hasAnyWord(t.lower, investigateEN) {
		opening := strings.TrimLeft(stripLeading(t.lower, standingFillersEN), " ")
		return !hasAnyPrefix(opening, []string{"always ", "never ", "from now on", "going forward", "every time you", "whenever you", "in future", "in the future"})
	}
	if t.han && containsAny(t.raw, investigateZH) {
		opening := stripLeadingZH(strings.TrimSpace(t.raw), standingFillersZH)
		return !hasAnyPrefix(opening, []string{"以后", "今后", "往后", "每次", "每回", "从现在", "记住", "永远"})
	}
	return false
}

var (
	investigateEN = []string{"find out", "figure out", "look into", "investigate", "track down", "see why", "check why", "any idea why", "debug this", "debug it"}
	investigateZH = []string{"查一下", "查查", "排查", "看看为什么", "看一下为什么", "找一下原因", "找找原因", "定位一下", "帮我看看是不是"}
)

// modalAfterZH reports whether a frequency's clause (after the marker)
// states an obligation after its condition: "…都要…", "…都得…".
func modalAfterZH(body string) bool {
	for _, m := range []string{"都要", "都得", "都必须", "都先", "都记得", "都别", "都不要", "都给我", "都务必", "都需要"} {
		if k := strings.Index(body, m); k > 0 && !hasAnyPrefix(body[k+len("都"):], notModalZH) {
			return true
		}
	}
	return false
}

// speakerReportZH reports whether a sentence has a clause in which the
// speaker tells what they did ("我试了，每次重启之后…", "…，我已经重跑了三次"):
// the frequency is what they saw, not an instruction.
func speakerReportZH(text string) bool {
	for clause := range strings.FieldsFuncSeq(text, func(r rune) bool { return r == '，' || r == ',' || r == '；' }) {
		c := strings.TrimSpace(clause)
		if strings.HasPrefix(c, "我") && !strings.HasPrefix(c, "我们") && strings.Contains(c, "了") {
			return true
		}
	}
	return false
}

// atHandEN reports whether an instruction is about one thing at hand
// ("drop that log line", "rename this one"): a demonstrative object, not
// the project's ("in this repo").
func atHandEN(clause string) bool {
	return hasAnyWord(clause, []string{"that", "this", "these", "those"}) && !containsAny(clause, projectScopesEN)
}

// governsZH reports whether the marker at byte i of a Chinese sentence
// governs an instruction: not inside a condition or someone else's words,
// not a time word used otherwise, not a frequency said of a subject's habit
// or of a thing, not stopping what happens now.
var (
	creditZH = []string{"都靠你", "全靠你", "多亏你", "都亏你", "全亏你"}
)

func governsZH(raw string, i int) bool {
	before := clauseBefore(raw, i)
	after := clauseAfter(raw, i)
	lead := strings.TrimSpace(stripLeadingZH(before, chatterZH))
	if hasAnyPrefix(lead, conditionZH) || strings.HasSuffix(strings.TrimSpace(after), "的话") || reportedZH(raw[:i]) || startsNowZH(after) {
		return false
	}
	// "每次救火都靠你": the agent thanked for what it did.
	if containsAny(after, creditZH) {
		return false
	}
	// "我打算以后每次迭代结束都写个复盘": the speaker's own plan.
	if containsAny(raw[:i], planZH) {
		return false
	}
	// "让这个 worker 永远不要退出", "把 Retry 改成永远返回…": the marker is said
	// of the thing made to behave so.
	if hasAnyPrefix(lead, causativeZH) {
		return false
	}
	for _, m := range laterZH {
		if body, ok := strings.CutPrefix(after, m); ok {
			body = strings.TrimSpace(body)
			// "以后再遇到这种冲突，…": when it happens again, not put off.
			if again, ok := strings.CutPrefix(body, "再"); ok && hasAnyPrefix(again, recurZH) {
				return true
			}
			// "以后这个脚本可能会废弃": a prediction about a subject.
			if k := indexAny(body, predictionZH); k >= 0 && (indexAny(body, modalZH) < 0 || k < indexAny(body, modalZH)) {
				return false
			}
			return !hasAnyPrefix(body, notLaterZH) && !hasAnySuffix(lead, []string{"等", "到", "等到"})
		}
	}
	for _, m := range frequencyZH {
		if body, ok := strings.CutPrefix(after, m); ok {
			body = strings.TrimSpace(body)
			body = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(body, "都"), "也"))
			// Whose the frequency is: an instruction's (no subject, or
			// after "记得", "请", "以后"), the agent's ("你"), or someone
			// else's or a thing's.
			instruction := lead == "" || hasAnySuffix(lead, directiveZH) || hasAnySuffix(lead, laterZH)
			// "每次我本地跑都过": the speaker is the subject of what recurs.
			if strings.HasPrefix(body, "我") && !strings.HasPrefix(body, "我们") {
				return false
			}
			you := lead == "你" || lead == "你们"
			switch {
			case containsAny(raw, complaintZH) || speakerReportZH(raw) || containsAny(raw[:i], pastZH) || passiveZH(body):
				// "…，烦死了", "我试了，…", "我以前带的团队每次…",
				// "每次提交都被打回来": what happened, not what is to be done.
				return false
			case hasAnyPrefix(body, modalZH) && !hasAnyPrefix(body, notModalZH) || (instruction || you) && modalAfterZH(body):
				// "每次都要…", "你每次改完前端都要跑一下 e2e": an obligation.
				return true
			case !instruction:
				// "你每次都道歉", "这个定时任务每次都跑两遍": a habit.
				return false
			}
			return !hasAnyPrefix(body, describedZH)
		}
	}
	for _, m := range stopsZH {
		if body, ok := strings.CutPrefix(after, m); ok {
			// "先别再加功能了": not yet, for now.
			return !stopsNowZH(before, body) && !hasAnySuffix(lead, []string{"先", "暂时", "暂且", "目前"})
		}
	}
	return true
}

// reportedZH reports whether text (what precedes a marker) ends in someone
// else's words: a reporting verb whose subject is not the speaker
// ("老板说", "文档里写着"), before the marker in the same sentence.
func reportedZH(text string) bool {
	for _, v := range reportZH {
		k := strings.LastIndex(text, v)
		if k <= 0 {
			continue
		}
		if v == "说" && hasAnyPrefix(text[k+len(v):], []string{"一下", "一句", "一声", "好", "过的", "的"}) {
			continue
		}
		who := strings.TrimRight(text[:k], " 也都还就又")
		if who == "" || hasAnySuffix(who, ownSpeechZH) {
			continue
		}
		return true
	}
	return false
}

// stopsNowZH reports whether "别再 …" (before it: before; after it: body)
// stops what is happening now or changes one thing at hand: no object
// ("别再跑了", "别再问我了") or a specific thing ("这个接口…不要再返回 200 了").
func stopsNowZH(before, body string) bool {
	obj := strings.TrimSpace(strings.TrimRight(trimTrailing(body), "了啦 "))
	for _, p := range pronounsZH {
		obj = strings.TrimSuffix(obj, p)
	}
	if utf8.RuneCountInString(obj) <= 1 {
		return true
	}
	clause := before + body
	return containsAny(clause, thisZH) && !containsAny(clause, projectZH)
}

// matchIf reports whether re matches s, trying it only when s contains
// one of the literals the pattern needs.
func matchIf(re *regexp.Regexp, s string, literals ...string) bool {
	return containsAny(s, literals) && re.MatchString(s)
}

// indexIf is matchIf returning re's first match's span (nil for none).
func indexIf(re *regexp.Regexp, s string, literals ...string) []int {
	if !containsAny(s, literals) {
		return nil
	}
	return re.FindStringIndex(s)
}

// findIf is matchIf returning re's first match and its groups.
func findIf(re *regexp.Regexp, s string, literals ...string) []string {
	if !containsAny(s, literals) {
		return nil
	}
	return re.FindStringSubmatch(s)
}

// indexAny returns where the first of words occurs in s, or -1.
func indexAny(s string, words []string) int {
	first := -1
	for _, w := range words {
		if k := strings.Index(s, w); k >= 0 && (first < 0 || k < first) {
			first = k
		}
	}
	return first
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// durableMarkerZH reports whether a Chinese sentence has a marker of
// durability (durableZH) that governs its instruction.
func durableMarkerZH(raw string) bool {
	for _, m := range durableZH {
		for off := 0; ; {
			k := strings.Index(raw[off:], m)
			if k < 0 {
				break
			}
			if governsZH(raw, off+k) {
				return true
			}
			off += k + len(m)
		}
	}
	return false
}
