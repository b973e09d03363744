package heuristic

import (
	"regexp"
	"slices"
	"strings"
)

// Conventions: how a class of things is done in this project, said in the
// habitual present of a generic subject ("tests live in __tests__ next to
// the source, not in a top-level dir", "every user-facing string goes
// through t()", "我们这边 merge 都用 squash", "日志统一用 zap"), and
// instructions whose scope over every time to come sits in a clause of its
// own ("…, applies in general, not just now", "going to say this once: …").
var (
	// Scopes over every time to come that make the turn's instruction a
	// standing one wherever in the turn they stand.
	generalScopesEN = []string{"in general", "not just now", "not only now", "not just this time", "not just for this",
		"say this once", "said this before", "told you before", "told you this before", "have to repeat", "having to repeat",
		"for the rest of this project", "for the rest of the project", "learned that the hard way", "learnt that the hard way",
		"for future reference", "goes for every", "goes for all", "applies to every", "applies to all", "applies everywhere",
		"hate it when you", "hate when you", "annoys me when you", "every time you do that",
		"goes for everything", "applies to everything", "same goes for everything",
		// Keep to what the turn said, over its scope: "please follow in all
		// files".
		"follow in all", "follow it in all", "follow that in all",
		"follow in every", "follow it everywhere"}
	generalScopesZH = []string{"都适用", "一律适用", "全都适用", "长期有效", "一直有效", "我说过很多次", "说过好几次", "不止这次", "不只是这次",
		// An instruction repeated in exasperation, and a principle that holds
		// throughout: "说了多少次了，…", "这个原则一直适用".
		"说了多少次", "说过多少次", "讲了多少次", "讲过多少次", "一直适用", "始终适用", "永远适用"}
	// Verbs of where or how a kind of thing goes: "tests live in …",
	// "strings go through t()", "strict mode stays on".
	conventionVerbsEN = regexp.MustCompile(`^(?:[a-z0-9_./@-]+ ){1,3}(?:goes|go|lives|live|belongs|belong|stays|stay|runs|run|gets|get) (?:through|in|into|under|on|off|via|next to)\b`)
	// A quantifier over a kind after a time preposition: "before every
	// commit", "on every PR".
	everyKindEN = regexp.MustCompile(`\b(?:before|after|on|for|with|in) (?:every|each|all|any) (?:single |new )?([a-z][a-z-]*)`)
	// "when you finish something": a condition over anything of a kind.
	whenAnyEN = regexp.MustCompile(`^(?:when|whenever|if) you(?:'re)? [a-z]+ (?:something|anything|a new|new)\b|^(?:when|whenever|if) (?:you're |you are )?(?:not sure|unsure|uncertain|in doubt|stuck)\b`)
	// A topic, a colon and its rule: "sql: parameterized queries always",
	// "k8s manifests: every container gets …".
	topicRuleEN = regexp.MustCompile(`^[a-z0-9+#./-]+(?: [a-z0-9+#./-]+){0,2}: (?:(?:every|each|all|no) [a-z0-9-]+ (?:gets|get|has|have|needs|need|must|should|goes|go)\b|[a-z0-9%@_./-]+(?: [a-z0-9%@_./-]+){0,4} (?:always|never)(?:[,.;]|$))`)
	// A kind, then the habit or prohibition of where it goes: "secrets
	// never go in code".
	kindNeverEN = regexp.MustCompile(`^(?:[a-z0-9_./@-]+ ){1,3}(?:never|always|only) (?:goes|go|lives|live|belongs|belong|stays|stay|gets|get) (?:through|in|into|under|on|off|via|next to)\b`)
	// A plural kind, then always or never: "for notebooks always seed …".
	forKindEN = regexp.MustCompile(`^for [a-z0-9-]+s,? (?:always|never) [a-z]+`)
	// Every thing of a kind on the team, and what it has to be: "every
	// migration on this team has to be tested".
	everyOnTeamEN = regexp.MustCompile(`\b(?:every|each|all|any) [a-z-]+ (?:on|in|for|of) (?:this|our|the) (?:team|repo|project|codebase|org|company)\b[^,.;]*\b(?:has to|have to|must|needs to|need to|should|gets|get)\b`)
	// The lead of a rule scoped to the team or project, before its colon:
	// "security findings format for this team: …".
	teamLeadEN = []string{" for this team", " on this team", " for our team", " in this team", " for this repo", " for this project", " in this repo", " in this project"}
	// The code's behaviour, then the change it calls for now: "the job
	// should run every time …, so switch the cron to …".
	specChangeEN = regexp.MustCompile(`^(?:the|this|that|our|my) [a-z0-9_-]+ (?:should|must|needs to|has to) [^,]*, so (?:switch|change|move|update|make|use|set|add|fix|rewrite|replace|convert)\b`)
	// "…even when I write in Chinese": the instruction holds in every case.
	evenWhenEN = regexp.MustCompile(`\beven (?:when|if) (?:i|we|it|they|there)\b`)
	// The agent's work under way: "in the tests you're writing right now".
	currentWorkEN = regexp.MustCompile(`\b(?:you're|you are) (?:currently )?[a-z]+ing\b[^,.;]*\b(?:right now|now|at the moment)\b`)
	// How people or things here go about it: "reviewers here ignore drafts".
	hereHabitEN = regexp.MustCompile(`^(?:the )?[a-z-]+s here [a-z]+\b`)
	// Conventions after the team's scope: the project's, and where things go.
	teamRuleZH = append([]string{"都走", "都放", "都在", "都是用"}, projectRuleZH...)
	// A set at hand: "接下来这几个文件", "下面这些".
	thisSetZH = regexp.MustCompile(`(?:接下来|下面|剩下)(?:的)?(?:这|那)(?:几|些|两|三)`)
	// A rule set by someone other than the speaker: "小王定的规矩是…".
	othersRuleZH = regexp.MustCompile(`(?:定|立|说|订)的(?:规矩|规定|约定|规范)`)
	// Words without one of which no English convention is looked for.
	conventionCuesEN = []string{"for the rest of", "for future", "said this", "say this", "repeat", "general", "every", "each", "all ",
		"any ", "even ", "on your own", "not sure", "unsure", "uncertain", "in doubt", "stuck", "by yourself", " here", "we ", "go", "live", "belong", "stay", "run", "get", "prefer", "keep", "when you", "if you"}
	// Quotation marks and what they enclose: someone's words, not the
	// speaker's.
	quotedRe = regexp.MustCompile("“[^”]*”|「[^」]*」|\"[^\"]*\"|`[^`]*`")
	// Proposals asked about: "…，这样行不行", "这么做可以吗".
	proposalTagZH = []string{"这样", "那样", "这么做", "这么搞", "这样做", "这么弄"}
	// The speaker's division of labour: "terraform apply 永远是我来跑".
	prohibitionsZH = []string{"禁止", "严禁", "不允许", "不得"}
	// A check being added, whose rule the rest of the sentence specifies:
	// "加个 eslint 规则，禁止 …".
	addCheckZH = regexp.MustCompile(`(?:加|添加|新增|写|配)(?:个|一个|一条|上|条)[^，,。；]{0,24}(?:规则|检查|校验|lint|hook|钩子)`)
	// What happens whenever something is done: "每次一改这个配置 CI 就挂".
	consequenceZH = regexp.MustCompile(`每(?:次|回)一[^，,。；]{1,24}就`)
	// A fix asked for now, closing the sentence: "…，改一下".
	fixNowZH = []string{"改一下", "改掉", "修一下", "修掉", "改过来", "修复一下", "改改", "修修"}
	// A thing at hand named by a demonstrative and a Latin word: "这个
	// notebook 里"; and a bound of an event at hand: "在这个迁移合并之前".
	thisThingZH = regexp.MustCompile(`这个\s*([A-Za-z][A-Za-z0-9_.-]*)\s*里`)
	untilThisZH = regexp.MustCompile(`在这(?:个|次|批|些)[^，,。；]{0,16}(?:之前|以前|期间|为止)`)
	mineZH      = []string{"永远是我", "永远由我", "一直是我来", "都是我来", "都由我来", "只能我来"}
	// Conventions of the team after its scope: "我们这边 merge 都用 squash".
	teamScopeZH = []string{"我们这边", "我们组", "我们团队", "我们公司", "我们这里", "组里", "团队里"}
)

// unquoted returns s with quoted spans emptied; a closing quote whose
// opening was trimmed with the sentence ('from now on, …" is what the RFC
// said') empties everything before it.
func unquoted(s string) string {
	if !hasQuoteMark(s) {
		return s
	}
	if k := strings.Index(s, `"`); strings.Count(s, `"`)%2 == 1 {
		// The unpaired quote closes ('… versioned" is what') or opens
		// ('"Add x" not "Added x').
		if k > 0 && s[k-1] != ' ' && (k+1 == len(s) || s[k+1] == ' ') {
			s = `"` + s
		} else {
			s += `"`
		}
	}
	if strings.Count(s, "”") > strings.Count(s, "“") {
		s = "“" + s
	} else if strings.Count(s, "“") > strings.Count(s, "”") {
		s += "”" // a closing quote trimmed with the sentence's end
	}
	return quotedRe.ReplaceAllString(s, "x")
}

// conventionEN reports whether an English sentence (lowercase) states a
// convention of the project or carries a scope over every time to come.
func conventionEN(lower string) bool {
	kindRule := kindRuleEN(lower)
	if !kindRule && !containsAny(lower, conventionCuesEN) || isPredictionEN(lower) || matchIf(currentWorkEN, lower, "you") {
		return false
	}
	if kindRule {
		return true
	}
	directive := englishDirective(lower)
	if containsAny(lower, []string{"for the rest of this project", "for the rest of the project", "for future reference", "said this before",
		"say this once", "have to repeat"}) {
		return true
	}
	// "in general put …", "I'd generally prefer …": a general scope over
	// a bare verb.
	for _, g := range []string{"in general ", "generally "} {
		if _, after, ok := strings.Cut(lower, g); ok {
			after = stripLeading(after, []string{"please", "try not to", "try to", "just"})
			if bareVerbEN(after) {
				return true
			}
		}
	}
	if m := findIf(everyKindEN, lower, "every ", "each ", "all ", "any "); m != nil && !slices.Contains(specificEN, m[1]) &&
		!slices.Contains([]string{"time", "one", "of", "day"}, m[1]) && (directive || strings.HasPrefix(lower, "i want ")) && !atHandEN(lower) {
		return true
	}
	if directive && matchIf(evenWhenEN, lower, "even ") {
		return true
	}
	// "don't bump versions on your own": a prohibition of what the agent
	// would do unasked.
	if hasAnyPrefix(stripLeading(lower, standingFillersEN), []string{"don't ", "dont ", "do not ", "never "}) && containsAny(lower, []string{" on your own", " by yourself"}) {
		return true
	}
	// "don't open PRs as drafts, reviewers here ignore drafts": an
	// instruction, then the reason in how things go here.
	if first, reason, ok := strings.Cut(lower, ", "); ok && directive && strings.Contains(reason, " here ") && !atHandEN(first) && hereHabitEN.MatchString(reason) {
		return true
	}
	for clause := range strings.FieldsFuncSeq(lower, func(r rune) bool { return r == ',' || r == ';' || r == ':' }) {
		c := strings.TrimSpace(stripLeading(strings.TrimSpace(clause), standingFillersEN))
		c = strings.ReplaceAll(c, "`", "")
		words := strings.Fields(c)
		if len(words) < 3 {
			continue
		}
		// "we squash merge here": the team, a verb in the present, and
		// the project's "here".
		if words[0] == "we" && bareVerbEN(strings.Join(words[1:], " ")) && (words[len(words)-1] == "here" || containsAny(" "+c, projectScopesEN)) {
			return true
		}
		// "tests live in … next to the source", "every string goes
		// through …": a generic subject and a verb of where it goes.
		if !slices.Contains(determinersEN, words[0]) && !slices.Contains(notVerbsEN, words[0]) && conventionVerbsEN.MatchString(c) &&
			(containsAny(lower, []string{", not ", ", no ", " and no ", " every ", " all "}) || containsAny(" "+lower, projectScopesEN)) {
			return true
		}
		// "prefer rg over grep when searching", "keep PR titles under
		// 70 chars": an instruction over a kind, not a thing at hand.
		if words[0] == "prefer" && slices.Contains(words, "over") && !atHandEN(c) {
			return true
		}
		if words[0] == "keep" && !slices.Contains(determinersEN, words[1]) && !slices.Contains(notVerbsEN, words[1]) &&
			strings.HasSuffix(words[2], "s") && slices.Contains([]string{"under", "below", "short", "shorter", "within"}, wordAfter(words, 3)) {
			return true
		}
		if whenAnyEN.MatchString(c) {
			return true
		}
	}
	return false
}

// kindRuleEN reports whether an English sentence (lowercase) states a rule
// over a kind: after a topic and a colon, a kind that never or always goes
// somewhere, "for <kinds> always …", every thing of a kind on the team and
// what it has to be, or a lead scoped to the team before its colon. The
// literal each pattern needs is looked for first.
func kindRuleEN(lower string) bool {
	if strings.Contains(lower, ": ") {
		if matchIf(topicRuleEN, lower, ": ") {
			return true
		}
		if lead, after, _ := strings.Cut(lower, ": "); hasAnySuffix(lead, teamLeadEN) && len(after) > 2 && !strings.Contains(lead, ",") {
			return true
		}
	}
	return matchIf(kindNeverEN, lower, "never ", "always ", "only ") || strings.HasPrefix(lower, "for ") && forKindEN.MatchString(lower) ||
		containsAny(lower, []string{" team", " repo", " project", " codebase", " org", " company"}) && matchIf(everyOnTeamEN, lower, "every ", "each ", "all ", "any ")
}

func wordAfter(words []string, i int) string {
	if i < len(words) {
		return words[i]
	}
	return ""
}

// generalTurnEN and generalTurnZH report whether a sentence carries a scope
// over every time to come for the turn it stands in.
func generalTurnEN(lower string) bool {
	return hasAnyWord(lower, generalScopesEN) || habitEN(lower) ||
		slices.Contains(keepSaidEN, strings.TrimRight(stripLeading(lower, standingFillersEN), " .!"))
}

// habitEN reports whether a sentence complains of a habit ("you keep using
// `any`", "you keep adding emojis"): what the turn rules out after it is
// ruled out for good.
func habitEN(lower string) bool {
	for _, lead := range []string{"you keep ", "you always ", "you still keep "} {
		if k := strings.Index(lower, lead); k >= 0 && (k == 0 || lower[k-1] == ' ') {
			word, _, _ := strings.Cut(lower[k+len(lead):], " ")
			if len(word) > 4 && strings.HasSuffix(word, "ing") {
				return true
			}
		}
	}
	return false
}
func generalTurnZH(raw string) bool { return containsAny(raw, generalScopesZH) }

// conventionZH reports whether a Chinese sentence states a convention of
// the project or the team.
func conventionZH(raw string) bool {
	if containsAny(raw, mineZH) {
		return true
	}
	for _, scope := range teamScopeZH {
		if k := strings.Index(raw, scope); k >= 0 && containsAny(raw[k:], teamRuleZH) && !containsAny(raw, pastZH) && governsZH(raw, k) {
			return true
		}
	}
	// "我们这个仓库用 2 空格缩进，不要用 tab": the project's choice, then the
	// alternative ruled out in the clause after it.
	for _, scope := range projectScopeZH {
		if k := strings.Index(raw, scope); k >= 0 && !containsAny(raw, pastZH) {
			body := strings.TrimSpace(strings.TrimLeft(raw[k+len(scope):], "里中 "))
			choice := clauseAfter(body, 0)
			next := strings.TrimLeft(body[len(choice):], "，,；; ")
			if strings.HasPrefix(choice, "用") && hasAnyPrefix(next, []string{"不要用", "别用", "不用", "不要", "别"}) && governsZH(raw, k) {
				return true
			}
		}
	}
	// "数据库迁移脚本禁止修改已发布的版本": a kind, then a prohibition of it,
	// not a check being added ("加个 eslint 规则，禁止 …"), a thing at hand nor
	// what a prohibition did ("linter 禁止了 …").
	for _, p := range prohibitionsZH {
		k := strings.Index(raw, p)
		if k <= 0 || hasAnyPrefix(raw[k+len(p):], []string{"了", "过"}) {
			continue
		}
		subject := strings.TrimSpace(clauseBefore(raw, k))
		if subject != "" && clauseBefore(raw, k) == raw[:k] && !containsAny(subject, thisZH) && !containsAny(subject, causativeZH) &&
			!containsAny(subject, []string{"我", "你", "他", "她"}) && !hasAnyPrefix(subject, []string{"加", "写", "配个", "配一", "设", "开"}) && governsZH(raw, k) {
			return true
		}
	}
	// "日志统一用 zap", "变量命名统一 camelCase": a kind, then 统一 and how.
	for off := 0; ; {
		k := strings.Index(raw[off:], "统一")
		if k < 0 {
			break
		}
		k += off
		off = k + len("统一")
		clause := clauseBefore(raw, k)
		after := raw[off:]
		if containsAny(clause, []string{"把", "将"}) || hasAnyPrefix(after, []string{"一下", "成", "为", "起来", "了", "的", "过"}) ||
			containsAny(clauseAfter(raw, k), []string{"一下", "吗", "么"}) || containsAny(clause, thisZH) {
			continue
		}
		if governsZH(raw, k) {
			return true
		}
	}
	return false
}

// taskLookAlikeZH reports whether a Chinese sentence carries the words of
// a standing instruction about the task at hand or someone else's rule: a
// spec of the change being made (重试逻辑改成指数退避，…，永远不要无限重试), what
// happens now (每次用户点保存都会发两次请求), a proposal asked about (…，这样行不行),
// a rule someone else set (小王定的规矩是…), a set at hand (接下来这几个文件).
func taskLookAlikeZH(raw string) bool {
	if matchIf(thisSetZH, raw, "这", "那") || matchIf(othersRuleZH, raw, "的规") && !containsAny(raw, []string{"我定的", "我们定的", "我立的", "我们立的"}) {
		return true
	}
	s := strings.TrimRight(raw, " ?？!！.。")
	for _, tag := range tagQuestionsZH {
		if body, ok := strings.CutSuffix(s, tag); ok && hasAnySuffix(strings.TrimSpace(body), proposalTagZH) {
			return true
		}
	}
	// A change to the code in one clause makes the rest its spec.
	if k := indexAny(raw, []string{"改成", "改为", "换成", "改一下"}); k >= 0 && !containsAny(raw, laterZH) && !containsAny(raw, []string{"之后", "记住", "从现在"}) {
		if j := strings.IndexFunc(raw[k:], isClauseBreak); j >= 0 && containsAny(raw[k+j:], []string{"永远", "一律", "每次"}) {
			return true
		}
	}
	if matchIf(addCheckZH, raw, "规则", "检查", "校验", "lint", "hook", "钩子") || matchIf(consequenceZH, raw, "每次一", "每回一") {
		return true
	}
	// "主循环每次都要喂狗，现在只在 idle 分支里喂了，改一下": a fix asked for now
	// makes what the sentence says before it the fix's spec.
	if hasAnySuffix(s, fixNowZH) && !containsAny(raw, laterZH) && !containsAny(raw, []string{"之后", "记住", "从现在"}) && strings.ContainsAny(s, "，,") {
		return true
	}
	if m := findIf(thisThingZH, raw, "这个"); m != nil && !containsAny(strings.ToLower(m[1]), projectScopeZH) {
		return true
	}
	if matchIf(untilThisZH, raw, "在这") {
		return true
	}
	// "每次用户点保存都会…": a frequency of what happens, not an obligation.
	for _, f := range []string{"每次", "每回"} {
		if k := strings.Index(raw, f); k >= 0 {
			body := clauseAfter(raw, k)
			if containsAny(body, []string{"都会", "就会", "总会", "都是"}) && !modalAfterZH(body) {
				return true
			}
		}
	}
	// "没有配置文件的时候 CLI 永远不要启动": a condition of the code's behaviour.
	if k := strings.Index(raw, "的时候"); k >= 0 {
		rest := raw[k+len("的时候"):]
		if j := indexAny(rest, []string{"永远", "一律"}); j > 0 && !strings.ContainsAny(rest[:j], "，,：:；") {
			subject := strings.TrimSpace(rest[:j])
			if subject != "" && !slices.Contains([]string{"你", "你们", "都", "也", "就"}, subject) {
				return true
			}
		}
	}
	return false
}

// hasQuoteMark reports whether s holds a quotation mark or a backtick ("
// ` “ ” 「 」), in one pass over its bytes.
func hasQuoteMark(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '`':
			return true
		case 0xE2: // “ ” are E2 80 9C, E2 80 9D
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0x9C || s[i+2] == 0x9D) {
				return true
			}
		case 0xE3: // 「 」 are E3 80 8C, E3 80 8D
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0x8C || s[i+2] == 0x8D) {
				return true
			}
		}
	}
	return false
}
