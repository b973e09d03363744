package governance

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Write gate categories (Finding.Category).
const (
	GatePromptInjection  = "prompt_injection"
	GateRoleHijack       = "role_hijack"
	GateExfiltration     = "exfiltration"
	GatePersistence      = "persistence"
	GateSecret           = "secret"
	GateInvisibleUnicode = "invisible_unicode"
	GatePathTraversal    = "path_traversal"
)

// GateResult is what the write gate found in one text.
type GateResult struct {
	// Findings lists one hit per pattern, in a fixed order; empty when clean.
	Findings []Finding
	// Text is the text to write: the input unchanged, or, when it holds
	// secrets, with each secret replaced by "[REDACTED:<pattern>]". The input
	// is kept as written where possible; only a secret that is visible after
	// NFKC normalisation alone makes Text the normalised form.
	Text string
}

// Blocked reports whether the text must not be written: any finding other
// than a secret blocks it. Secrets alone are redacted in Text instead.
func (r GateResult) Blocked() bool {
	for _, f := range r.Findings {
		if f.Category != GateSecret {
			return true
		}
	}
	return false
}

// Redacted reports whether Text had secrets replaced.
func (r GateResult) Redacted() bool {
	for _, f := range r.Findings {
		if f.Category == GateSecret {
			return true
		}
	}
	return false
}

// GateText scans text and returns the text to keep, the findings and whether
// the write is blocked; it fits the heartbeat's GateFunc.
func GateText(text string) (string, []Finding, bool) {
	r := Scan(text)
	return r.Text, r.Findings, r.Blocked()
}

// Scan runs the write gate over one text. Invisible characters are looked
// for in the text as given; every other pattern matches the text with
// format characters removed and NFKC applied, so full-width letters,
// mathematical alphabets and zero-width splitting do not hide a phrase.
func Scan(text string) GateResult {
	res := GateResult{Text: text}
	res.Findings = scanInvisible(text)

	s := prepare(text)
	lower := strings.ToLower(s)
	secrets := findSecrets(s, lower)
	for _, r := range gateRules {
		if r.category == GateSecret {
			// findSecrets keeps every match; report the first of each pattern.
			for _, sp := range secrets {
				if sp.pattern == r.pattern {
					res.add(r, excerpt(s, sp.matchLo, sp.matchHi, secrets, false))
					break
				}
			}
			continue
		}
		if !r.mayMatch(lower) {
			continue
		}
		if loc := r.find(s); loc != nil {
			res.add(r, excerpt(s, loc[0], loc[1], secrets, false))
		}
	}
	if len(secrets) > 0 {
		res.Text = redact(text, s, secrets)
	}
	return res
}

func (res *GateResult) add(r gateRule, excerpt string) {
	res.Findings = append(res.Findings, Finding{Category: r.category, Pattern: r.pattern, Excerpt: excerpt})
}

// prepare removes format characters (zero-width, bidi controls, soft
// hyphens, tags), straightens curly quotes and applies NFKC, giving the text
// the patterns match.
func prepare(text string) string {
	clean := strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Cf, r):
			return -1
		case r == '‘' || r == '’':
			return '\''
		case r == '“' || r == '”':
			return '"'
		}
		return r
	}, text)
	return norm.NFKC.String(clean)
}

// redact replaces the secrets in the original text when they are exactly
// the secrets the normalised text holds; otherwise (a secret split by an
// invisible character, or one that only NFKC made visible) it redacts the
// normalised text, so no part of a secret is ever kept.
func redact(original, normalised string, secrets []secretSpan) string {
	orig := findSecrets(original, strings.ToLower(original))
	same := len(orig) == len(secrets)
	for i := 0; same && i < len(orig); i++ {
		same = prepare(original[orig[i].lo:orig[i].hi]) == normalised[secrets[i].lo:secrets[i].hi]
	}
	if same {
		return replaceSpans(original, orig)
	}
	return replaceSpans(normalised, secrets)
}

func replaceSpans(s string, spans []secretSpan) string {
	var b strings.Builder
	cur := 0
	for _, sp := range spans {
		b.WriteString(s[cur:sp.lo])
		b.WriteString(mask(sp.pattern))
		cur = sp.hi
	}
	b.WriteString(s[cur:])
	return b.String()
}

func mask(pattern string) string { return "[REDACTED:" + pattern + "]" }

// Invisible characters.

type invisibleKind struct {
	pattern string
	is      func(r rune) bool
}

var invisibleKinds = []invisibleKind{
	{"zero_width", func(r rune) bool {
		return r >= 0x200B && r <= 0x200D || r == 0x2060 || r >= 0x2062 && r <= 0x2064 || r == 0xFEFF
	}},
	{"bidi_control", func(r rune) bool { return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 }},
	// Unicode tags can spell out hidden ASCII ("ASCII smuggling").
	{"tag_characters", func(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }},
}

// scanInvisible reports each kind of invisible character once. A zero-width
// joiner inside an emoji sequence and the tags of a subdivision flag emoji
// are legitimate and skipped.
func scanInvisible(text string) []Finding {
	var findings []Finding
	runes := []rune(text)
	for _, k := range invisibleKinds {
		for i, r := range runes {
			if !k.is(r) || legitimateInvisible(runes, i) {
				continue
			}
			lo := len(string(runes[:i]))
			hi := lo + utf8.RuneLen(r)
			findings = append(findings, Finding{
				Category: GateInvisibleUnicode,
				Pattern:  k.pattern,
				Excerpt:  excerpt(text, lo, hi, findSecrets(text, strings.ToLower(text)), true),
			})
			break
		}
	}
	return findings
}

func legitimateInvisible(runes []rune, i int) bool {
	r := runes[i]
	switch {
	case r == 0x200D: // ZWJ between two emoji: 👨‍👩‍👧
		return i > 0 && i+1 < len(runes) && isEmojiPart(runes[i-1]) && isEmojiPart(runes[i+1])
	case r >= 0xE0020 && r <= 0xE007F: // 🏴 followed by tags, ending in U+E007F
		j := i
		for j > 0 && runes[j-1] >= 0xE0020 && runes[j-1] <= 0xE007F {
			j--
		}
		return j > 0 && runes[j-1] == 0x1F3F4
	}
	return false
}

func isEmojiPart(r rune) bool {
	return unicode.Is(unicode.So, r) || r == 0xFE0F || r >= 0x1F3FB && r <= 0x1F3FF
}

// Excerpts.

const (
	excerptContext  = 24 // runes shown either side of a match
	excerptMatchMax = 80 // runes of the match itself
)

// excerpt returns a short, single-line window around s[lo:hi]. Secrets that
// overlap the window are masked whole, so no part of one is ever shown;
// with showInvisible, invisible characters are written as <U+XXXX>.
func excerpt(s string, lo, hi int, secrets []secretSpan, showInvisible bool) string {
	if n := utf8.RuneCountInString(s[lo:hi]); n > excerptMatchMax {
		hi = lo + len(string([]rune(s[lo:hi])[:excerptMatchMax]))
	}
	start, end := lo, hi
	for i := 0; i < excerptContext && start > 0; i++ {
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	for i := 0; i < excerptContext && end < len(s); i++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}

	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	write := func(part string) {
		for _, r := range part {
			switch {
			case showInvisible && unicode.Is(unicode.Cf, r):
				fmt.Fprintf(&b, "<U+%04X>", r)
			case unicode.IsSpace(r):
				b.WriteByte(' ')
			default:
				b.WriteRune(r)
			}
		}
	}
	cur := start
	for _, sp := range secrets {
		if sp.hi <= start || sp.lo >= end {
			continue
		}
		if sp.lo > cur {
			write(s[cur:sp.lo])
		}
		b.WriteString(mask(sp.pattern))
		cur = sp.hi
	}
	if cur < end {
		write(s[cur:end])
	}
	if end = max(end, cur); end < len(s) {
		b.WriteString("…")
	}
	return b.String()
}

// Secrets.

// secretSpan is one secret in a text: [lo, hi) is the secret itself,
// [matchLo, matchHi) the whole match (for an assignment, the key as well).
type secretSpan struct {
	lo, hi           int
	matchLo, matchHi int
	pattern          string
}

// findSecrets returns every secret of s, sorted and without overlaps.
func findSecrets(s, lower string) []secretSpan {
	var spans []secretSpan
	for _, r := range gateRules {
		if r.category != GateSecret || !r.mayMatch(lower) {
			continue
		}
		for _, loc := range r.re.FindAllStringSubmatchIndex(s, -1) {
			if r.accept != nil && !r.accept(s, loc) {
				continue
			}
			lo, hi := firstGroup(loc)
			spans = append(spans, secretSpan{lo: lo, hi: hi, matchLo: loc[0], matchHi: loc[1], pattern: r.pattern})
		}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var merged []secretSpan
	for _, sp := range spans {
		if n := len(merged); n > 0 && sp.lo < merged[n-1].hi {
			merged[n-1].hi = max(merged[n-1].hi, sp.hi)
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// firstGroup returns the span of the first submatch that took part in the
// match, or of the whole match when none did.
func firstGroup(loc []int) (lo, hi int) {
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] >= 0 {
			return loc[i], loc[i+1]
		}
	}
	return loc[0], loc[1]
}

// notPlaceholder rejects a value that refers to a secret instead of holding
// one: $VAR, ${VAR}, <token>, %VAR%, or an earlier redaction.
func notPlaceholder(s string, loc []int) bool {
	lo, hi := firstGroup(loc)
	return hi > lo && !strings.ContainsAny(s[lo:lo+1], "[<{$%*")
}

// plausibleSecret vets the value of a key/token/password assignment, so that
// "the token is invalid" or "token = tokenizer.encode(x)" are not secrets.
func plausibleSecret(s string, loc []int) bool {
	if !notPlaceholder(s, loc) {
		return false
	}
	lo, hi := firstGroup(loc)
	v := s[lo:hi]
	quoted := lo > 0 && strings.ContainsRune(`'"`, rune(s[lo-1]))
	if len(v) < 6 {
		return false
	}
	lower := strings.ToLower(v)
	for _, ref := range []string{"getenv", "environ", "env.", "${", "(", "xxx", "your", "example", "placeholder", "redacted", "******"} {
		if strings.Contains(lower, ref) {
			return false
		}
	}
	var digit, upper, lowerCase bool
	for _, r := range v {
		digit = digit || unicode.IsDigit(r)
		upper = upper || unicode.IsUpper(r)
		lowerCase = lowerCase || unicode.IsLower(r)
	}
	return digit || quoted && len(v) >= 8 || len(v) >= 16 && upper && lowerCase
}

// Patterns.

type gateRule struct {
	category string
	pattern  string
	re       *regexp.Regexp
	// accept, when set, vets a match (as from FindAllStringSubmatchIndex).
	accept func(s string, loc []int) bool
	// hints are lower-case substrings of which every match contains at
	// least one; a text with none of them skips the (costly) expression.
	hints []string
}

// mayMatch reports whether the lower-cased text holds one of r's hints
// (always true for a rule without hints).
func (r gateRule) mayMatch(lower string) bool {
	if len(r.hints) == 0 {
		return true
	}
	for _, h := range r.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// find returns the first accepted match of r in s, or nil.
func (r gateRule) find(s string) []int {
	if r.accept == nil {
		return r.re.FindStringIndex(s)
	}
	for _, loc := range r.re.FindAllStringSubmatchIndex(s, -1) {
		if r.accept(s, loc) {
			return loc
		}
	}
	return nil
}

func rule(category, pattern, expr string) gateRule {
	return gateRule{category: category, pattern: pattern, re: regexp.MustCompile(expr)}
}

func ruleIf(category, pattern, expr string, accept func(string, []int) bool) gateRule {
	r := rule(category, pattern, expr)
	r.accept = accept
	return r
}

// instructionWords marks hidden HTML that carries instructions rather than
// an ordinary developer's comment.
var instructionWords = regexp.MustCompile(`(?i)\b(?:ignore|disregard|instructions?|assistant|ai|llm|chatgpt|claude|gpt|(?:ai|llm|coding)\s+agents?|the\s+agent|system\s+prompt|you\s+(?:must|should|will|are\s+now)|execute|exfiltrate|reveal|curl|wget|send\s+(?:the|all|your|this))\b|忽略|指令|助手|系统提示|你必须|执行|发送`)

func carriesInstructions(s string, loc []int) bool {
	return loc[2] >= 0 && instructionWords.MatchString(s[loc[2]:loc[3]])
}

// Fragments shared by several patterns.
const (
	// A URL or named endpoint something could be sent to.
	urlTarget = `(?:https?://|ftp://|www\.|[\w.-]+\.(?:com|net|org|io|xyz|ru|cn|site|app|dev|me|co)(?:/|\b)|(?:this|that|the|my|our|an?)\s+(?:url|endpoint|server|webhook|link)\b|webhook)`
	// The same, or a mail address.
	sendTarget = `(?:` + urlTarget + `|[\w.+-]+@[\w-]+\.[\w.]+)`
	// Files that hold credentials. Public keys (id_rsa.pub) and templates
	// (.env.example) do not match: the name must end there.
	secretFile = `(?:\.env|\.netrc|_netrc|\.pgpass|id_rsa|id_dsa|id_ecdsa|id_ed25519|\.aws/credentials|\.git-credentials|\.docker/config\.json|\.kube/config|\.npmrc|\.pypirc|\.htpasswd|/etc/shadow|credentials\.(?:json|db|csv|ya?ml)|credentials\s+file)(?:$|[\s'"),;:!?]|\.(?:\s|$))`
	// Agent configuration and instruction files.
	agentFile = `(?:AGENTS?\.md|CLAUDE\.md|GEMINI\.md|\.cursorrules|\.cursor/rules|\.windsurfrules|\.clinerules|copilot-instructions\.md|\.claude/|\.codex/|system[_ -]?prompt(?:\.(?:md|txt|ya?ml|json)|\s+file))`
	// What may stand between a write verb and the file it writes: small
	// words, a quoted payload, or a path.
	writeObject = `(?:(?:the|your|my|our|this|that|these|those|a|an|it|them|new|following|below|line|lines|rule|rules|entry|entries|text|content|contents|instructions?|section|note|key|keys|public|private|ssh|file|files|command|snippet|to|into|in|inside|under|of|at|from|with)\s+|"[^"\n]{0,120}"\s*|'[^'\n]{0,120}'\s*|[\w~$./-]*[./_][\w~$./-]*\s+){0,6}`
	// A verb that writes a file, then its object.
	writeVerb = `(?:>>?\s*|\btee\s+(?:-a\s+)?|\b(?:edit|modify|change|update|write|append|add|overwrite|replace|rewrite|insert|patch|delete|remove|create|put|place|save|copy|cp|mv|move|install|drop|echo)\b\s*` + writeObject +
		`|(?:修改|编辑|写入|追加|添加|更新|覆盖|改写|删除|替换|复制|拷贝|保存|放到|放入)[^\n]{0,20}?)`
	homeSSHPath = `["']?(?:~|\$HOME|\$\{HOME\}|/home/[\w.-]+|/root)/\.ssh(?:/|\b)`
	// The value of a key/token/password assignment: printable ASCII without
	// quotes, commas or semicolons.
	secretValue = `([\x21\x23-\x26\x28-\x2b\x2d-\x3a\x3c-\x7e]+)`
)

// gateHints are the necessary substrings of each pattern (see gateRule.hints);
// the attack corpus in testdata/gate checks that they miss nothing.
var gateHints = map[string][]string{
	"ignore_previous_instructions": {"ignore", "disregard", "forget", "override", "bypass", "skip", "忽略", "无视", "忽视", "理会", "忘记", "忘掉", "抛开", "跳过"},
	"system_prompt_override":       {"override", "overwrite", "bypass", "disable", "ignore", "your", "system", "系统", "安全", "内容"},
	"chat_template_tokens":         {"<|", "inst]", "<<sys>>", "<</sys>>"},
	"hide_from_user":               {"user", "human", "用户", "使用者"},
	"hidden_html_comment":          {"<!--"},
	"hidden_html_element":          {"hidden", "display", "visibility", "font-size", "opacity"},
	"you_are_now":                  {"you", "你"},
	"pretend_to_be":                {"pretend", "roleplay", "role-play", "假装", "假扮", "扮演"},
	"act_as":                       {"act"},
	"jailbreak_mode":               {"mode", "do anything now", "模式"},
	"reveal_system_prompt":         {"prompt", "instruction", "above", "提示", "指令", "消息", "设定"},
	"http_with_secret_variable":    {"$", "%", "|"},
	"read_secret_file": {".env", "netrc", ".pgpass", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "credentials",
		".docker/config", ".kube/config", ".npmrc", ".pypirc", ".htpasswd", "/etc/shadow"},
	"send_conversation": {"conversation", "chat", "dialog", "session", "message", "对话", "聊天", "会话"},
	"send_secrets": {"key", "token", "password", "credential", "secret", "env", "cookie",
		"密钥", "秘钥", "密码", "令牌", "凭证", "凭据", "环境变量"},
	"markdown_image_exfil": {"!["},
	"authorized_keys":      {"authorized_keys"},
	"write_ssh_dir":        {".ssh"},
	"edit_agent_instructions": {"agent.md", "agents.md", "claude.md", "gemini.md", ".cursorrules", ".cursor/rules",
		".windsurfrules", ".clinerules", "copilot-instructions", ".claude/", ".codex/", "system"},
	"crontab":         {"crontab", "/etc/cron.", "/var/spool/cron", "@reboot"},
	"private_key":     {"-----begin"},
	"openai_key":      {"sk-"},
	"stripe_key":      {"k_live_", "k_test_"},
	"aws_access_key":  {"akia", "asia", "abia", "acca"},
	"github_token":    {"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
	"slack_token":     {"xox"},
	"google_api_key":  {"aiza"},
	"jwt":             {"eyj"},
	"bearer_token":    {"bearer"},
	"url_credentials": {"://"},
	"credential_assignment": {"key", "secret", "token", "password", "passwd", "passphrase",
		"密码", "口令", "密钥", "秘钥", "令牌"},
	"encoded_traversal":           {"%2e", "%252e", "%c0%ae", ".."},
	"deep_traversal":              {".."},
	"traversal_to_sensitive_path": {".."},
}

func init() {
	for i := range gateRules {
		gateRules[i].hints = gateHints[gateRules[i].pattern]
	}
}

// gateRules are matched in order against prepared text; Findings follow it.
// A leading (?i) covers every alternative of an expression.
var gateRules = []gateRule{
	// prompt_injection
	rule(GatePromptInjection, "ignore_previous_instructions",
		`(?i)\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:(?:all|any|every|of|the|your|these|those|above|prior|previous|earlier)\s+){0,4}(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|developer)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|commands|context|constraints)\b`+
			`|\b(?:ignore|disregard|forget)\s+(?:all|everything)\s+(?:(?:of\s+)?(?:the\s+)?(?:above|before|previous|prior|earlier)\b|you(?:'ve|\s+have)?\s+(?:been\s+told|were\s+told|know))`+
			`|(?:忽略|无视|忽视|不要理会|别理会|不用理会|忘记|忘掉|抛开|跳过)[^，。,.!?！？\n]{0,12}?(?:之前|以前|先前|此前|上面|以上|前面|上述|原来|原有|原先|原始|系统)[^，。,.!?！？\n]{0,8}?(?:指令|指示|提示词?|规则|命令|设定|约束|限制)`+
			`|(?:忽略|无视|忽视|不要理会|别理会|不用理会|忘记|忘掉|抛开|跳过)掉?(?:你|您)?(?:所有|全部|一切|任何)的?(?:指令|指示|提示词?|规则|命令|设定|约束|限制)`+
			`|无视以上|忽略以上(?:所有|全部|一切)?的?(?:内容|指令|提示|规则|设定)`),
	rule(GatePromptInjection, "system_prompt_override",
		`(?i)\b(?:override|overwrite|bypass|disable|ignore)\s+(?:the\s+|your\s+|all\s+|any\s+)?(?:system\s+(?:prompt|message|instructions)|safety\s+(?:rules|guidelines|filters?)|guardrails|content\s+polic(?:y|ies))`+
			`|\b(?:change|replace|update|modify|reset|rewrite)\s+your\s+(?:system\s+prompt|system\s+instructions|instructions)\b`+
			`|\b(?:new|updated)\s+system\s+(?:prompt|instructions?)\s*:|\bsystem\s+override\b`+
			`|\byour\s+(?:new|real|actual|true)\s+instructions\s+(?:are\b|:)`+
			`|(?:覆盖|替换|修改|重置|更新|无视|绕过|忽略)(?:你的|掉)?系统(?:提示词?|指令|设定|消息)|新的系统(?:提示词?|指令)|(?:绕过|无视|忽略)(?:所有|一切)?的?(?:安全|内容)(?:限制|策略|规则|过滤)`),
	rule(GatePromptInjection, "chat_template_tokens",
		`(?i)<\|(?:im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\|>|\[/?INST\]|<</?SYS>>`),
	rule(GatePromptInjection, "hide_from_user",
		`(?i)\b(?:do\s+not|don't|dont|never)\s+(?:(?:tell|inform|notify|alert|mention\s+(?:this|it|that)\s+to|reveal\s+(?:this|it|that)\s+to)\s+(?:the\s+)?(?:user|human)s?\b|let\s+(?:the\s+)?(?:user|human)s?\s+know\b)`+
			`|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human)s?\b`+
			`|\b(?:hide|conceal|keep)\s+(?:this|it|that)\s+(?:secret\s+)?from\s+(?:the\s+)?(?:user|human)s?\b`+
			`|(?:不要|别|不准|不得|不许|切勿|千万别|千万不要|绝对不要)(?:(?:告诉|通知|告知|透露给|提醒)(?:用户|使用者)|让(?:用户|使用者)知道)|(?:对|向)(?:用户|使用者)(?:保密|隐瞒)|瞒着(?:用户|使用者)`),
	ruleIf(GatePromptInjection, "hidden_html_comment", `<!--([\s\S]*?)-->`, carriesInstructions),
	ruleIf(GatePromptInjection, "hidden_html_element",
		`(?i)<[a-z][a-z0-9]*\b[^>]*?(?:style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em)?\s*(?:;|["'])|opacity\s*:\s*0(?:\.0+)?\s*(?:;|["']))|\shidden\b|aria-hidden\s*=\s*["']true)[^>]*>([\s\S]{0,500}?)</[a-z]`,
		carriesInstructions),

	// role_hijack
	rule(GateRoleHijack, "you_are_now",
		`(?i)\b(?:you\s+are\s+now|you're\s+now|from\s+now\s+on,?\s+you\s+are|from\s+now\s+on,?\s+you're)\s+(?:(?:a|an|the|my)\s+(?:[\w-]+\s+){0,2}?(?:assistant|ai|model|language\s+model|llm|bot|chatbot|character|persona|hacker|dan)\b|dan\b|jailbroken|unrestricted|unfiltered|uncensored|in\s+(?:developer|god|dan|jailbreak|debug|admin)\s+mode|free\s+(?:from|of)\b|no\s+longer\b)`+
			`|\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai|assistant|bound|restricted|limited|claude|chatgpt)\b`+
			`|你现在(?:是|扮演|作为|变成了?)(?:一个|一名|一位|我的)?[^，。,.!?！？\n]{0,10}?(?:助手|AI|人工智能|模型|机器人|角色|黑客|DAN|管理员|开发者模式|没有任何?限制|不受[^，。\n]{0,4}限制|无限制)`+
			`|从现在(?:开始|起)[,，]?\s*你(?:是|将是|就是|扮演)|你不再是`),
	rule(GateRoleHijack, "pretend_to_be",
		`(?i)\bpretend\s+(?:to\s+be|(?:that\s+)?you(?:\s+are|'re)\s+(?:an?|the|my|not|no\s+longer|free|unrestricted|evil|dan)|you\s+have\s+no)\b|\b(?:roleplay|role-play)\s+as\b`+
			`|假装(?:你|自己)(?:是|为|没有)|假扮|(?:请|你)来?扮演(?:一个|一名|一位|个)`),
	rule(GateRoleHijack, "act_as",
		`(?im)(?:^|[.!?;:]\s*|\b(?:you\s+(?:will|must|should|shall|now|to|can\s+now)|please|now|from\s+now\s+on,?)\s+)act\s+as\s+(?:if\s+you|though\s+you|an?\b|my\b)`),
	rule(GateRoleHijack, "jailbreak_mode",
		`(?i)\b(?:developer|god|jailbreak|dan)\s+mode\s+(?:enabled|activated|on)\b|\b(?:enable|enter|activate)\s+(?:developer|god|jailbreak|dan)\s+mode\b|\bdo\s+anything\s+now\b`+
			`|进入(?:开发者|上帝|越狱)模式|(?:开发者|越狱)模式已(?:开启|启用|激活)`),
	rule(GateRoleHijack, "reveal_system_prompt",
		`(?i)\b(?:output|reveal|print|show|display|repeat|leak|dump|disclose|give\s+me|tell\s+me|share|expose)\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?your\s+(?:full\s+|entire\s+|complete\s+|original\s+|hidden\s+|initial\s+|secret\s+)?(?:system\s+(?:prompt|message|instructions)|instructions|prompt)\b`+
			`|\b(?:output|reveal|print|show|display|repeat|leak|dump|disclose)\s+(?:the\s+)?(?:system\s+prompt|initial\s+instructions|hidden\s+instructions)\s+(?:verbatim|word\s+for\s+word)`+
			`|\b(?:repeat|print|output)\s+(?:the\s+)?(?:text|words|everything)\s+above\b`+
			`|\bwhat\s+(?:is|are|was|were)\s+your\s+(?:system\s+prompt|initial\s+instructions|original\s+instructions)`+
			`|(?:输出|显示|打印|告诉我|泄露|透露|展示|重复|给我看|说出|复述)(?:一下|出)?(?:你的|你们的|你)?(?:完整的?|全部的?|原始的?|初始的?)?(?:系统提示词?|系统指令|系统消息|系统设定|初始指令|初始提示词?|隐藏指令|system\s*prompt)|(?:输出|显示|打印|泄露|透露|复述)(?:一下)?你的提示词`),

	// exfiltration
	rule(GateExfiltration, "http_with_secret_variable",
		`(?i)\b(?:curl|wget|nc|ncat|invoke-webrequest|iwr|invoke-restmethod)\b[^\n]{0,200}?(?:\$\{?(?:env:)?|%)\w*(?:secret|token|api_?key|password|passwd|credential|private_key|access_key|auth)\w*`+
			`|\b(?:env|printenv|set)\s*\|\s*(?:curl|wget|nc|ncat|base64)\b`),
	rule(GateExfiltration, "read_secret_file",
		`(?i)(?:\b(?:curl|wget|scp|rsync|nc|ncat|base64|xxd)\b[^\n]{0,80}?|\b(?:cat|head|tail|read|print|dump|upload|send|post|exfiltrate|leak|show|display|output|reveal|copy|get-content)\b\s*(?:(?:me|the|your|my|our|this|that|all|of|contents?|file|files|from|in|at)\s+){0,5}|(?:读取|查看|输出|打印|上传|发送|显示|泄露)(?:一下)?\s*(?:你的|我的|的)?)[\w~./$\\-]*?`+secretFile),
	rule(GateExfiltration, "send_conversation",
		`(?i)\b(?:send|post|upload|forward|transmit|exfiltrate|leak|submit|e-?mail|share|copy|dump|pipe)\s+(?:[\w'-]+\s+){0,4}?(?:(?:conversation|chat|dialog(?:ue)?)s?(?:\s+(?:history|log|logs|transcript|contents?|context))?|(?:session|message)s?\s+(?:history|log|logs|transcript)|(?:all|previous|prior|earlier|past)\s+messages)\b[^\n]{0,60}?\b(?:to|at|into)\s+`+urlTarget+
			`|(?:把|将)[^，。,.!?！？\n]{0,12}?(?:对话|聊天|会话)[^，。,.!?！？\n]{0,10}?(?:发送|转发|上传|传送|传输|同步|提交|泄露|发)(?:到|至)`),
	rule(GateExfiltration, "send_secrets",
		`(?i)\b(?:send|post|upload|forward|transmit|exfiltrate|leak|submit|e-?mail|share)\s+(?:[\w'-]+\s+){0,4}?(?:api[\s_-]?keys?|tokens?|passwords?|credentials|secrets?|private\s+keys?|env(?:ironment)?\s+variables|\.env|cookies?)(?:\s+(?:file|values?|contents?))?\s+(?:to|at|into)\s+`+sendTarget+
			`|(?:把|将)[^，。\n]{0,12}?(?:密钥|秘钥|密码|令牌|凭证|凭据|环境变量|api\s*key|token|\.env)[^，。\n]{0,10}?(?:发送|转发|上传|传送|发|贴|提交|泄露)(?:到|至)`),
	rule(GateExfiltration, "markdown_image_exfil", `(?i)!\[[^\]]*\]\(https?://[^)\s]+\?[^)\s]*(?:\{|\$|%7b)`),

	// persistence
	rule(GatePersistence, "authorized_keys", `(?i)\bauthorized_keys2?\b`),
	rule(GatePersistence, "write_ssh_dir", `(?i)`+writeVerb+homeSSHPath),
	rule(GatePersistence, "edit_agent_instructions", `(?i)`+writeVerb+`[\w~$./-]*?`+agentFile),
	rule(GatePersistence, "crontab", `(?i)\bcrontab\b|/etc/cron\.|/var/spool/cron|@reboot\b`),

	// secret: the first submatch that took part, if any, is the secret itself.
	rule(GateSecret, "private_key", `-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)`),
	rule(GateSecret, "openai_key", `\bsk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`),
	rule(GateSecret, "stripe_key", `\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`),
	rule(GateSecret, "aws_access_key", `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`),
	rule(GateSecret, "github_token", `\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{22,}`),
	rule(GateSecret, "slack_token", `\bxox[abposr]-[A-Za-z0-9-]{10,}`),
	rule(GateSecret, "google_api_key", `\bAIza[0-9A-Za-z_-]{35}`),
	rule(GateSecret, "jwt", `\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
	ruleIf(GateSecret, "bearer_token", `(?i)\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)`, plausibleSecret),
	ruleIf(GateSecret, "url_credentials", `(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]+:([^/\s@]{3,})@`, notPlaceholder),
	ruleIf(GateSecret, "credential_assignment",
		`(?i)\b[\w-]*?(?:api[_-]?key|apikey|secret(?:[_-]?key)?|client[_-]?secret|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|password|passwd|passphrase|private[_-]?key)\b["']?\s*(?::=|=>|[:=]|\bis\b)\s*["']?`+secretValue+
			`|(?:密码|口令|密钥|秘钥|令牌)\s*(?:是|为|:|=)\s*["']?`+secretValue,
		plausibleSecret),

	// path_traversal: one or two ../ are ordinary relative paths (cd ../src,
	// import "../../lib"); deeper climbs, encoded dots and climbs towards
	// system or credential paths are not.
	rule(GatePathTraversal, "encoded_traversal", `(?i)(?:%2e|%252e|%c0%ae){2}|\.\.(?:%2f|%5c|%252f|%c0%af)`),
	rule(GatePathTraversal, "deep_traversal", `(?:\.\.[/\\]){4,}`),
	rule(GatePathTraversal, "traversal_to_sensitive_path",
		`(?i)(?:\.\.[/\\])+(?:etc[/\\](?:passwd|shadow|hosts|sudoers)|proc[/\\]self|windows[/\\]system32|boot\.ini|\.ssh\b|\.aws\b|\.env\b|root[/\\])`),
}
