package gate

import (
	"cmp"
	"regexp"
	"slices"

	"github.com/mnemo-console/mnemo/governance"
)

// Patterns of the write gate. Each rule names its risk class, a pattern
// name, an expression over the normalised text (see normalise) and the
// hints that let a text skip it cheaply.

type gateRule struct {
	category string
	pattern  string
	// expr is the rule's expression; only its pieces are compiled for
	// scanning (tests compile the whole, see plain).
	expr   string
	pieces []gatePiece
	// secret: the rule finds a credential value (redacted, not blocked).
	secret bool
	// accept, when set, vets a match (as from FindAllStringSubmatchIndex).
	accept func(s string, loc []int) bool
	// hints are lower-case substrings of which every match contains at
	// least one; a text with none of them skips the expression.
	hints   []string
	hintIDs []int32
	// payload: the rule matches only in a text holding payloadWords.
	payload bool
}

// mayMatch reports whether the text (its literals) holds one of r's hints
// (always true for a rule without hints).
func (r *gateRule) mayMatch(lits *scanned) bool {
	return len(r.hintIDs) == 0 || lits.bits.hasAny(r.hintIDs)
}

// find returns the leftmost accepted match of r in s (lits are its
// literals), or nil. Each piece of the expression runs only when its
// literals occur; pieces with lead literals are tried start by start, in
// text order, so the search ends at the first start where one matches.
func (r *gateRule) find(s string, lits *scanned) []int {
	if r.payload && !lits.holdsPayload(s) {
		return nil
	}
	var first []int
	type start struct {
		pos   int32
		piece int32
	}
	var starts []start
	for i := range r.pieces {
		p := &r.pieces[i]
		if !p.mayMatch(lits) {
			continue
		}
		if p.lead != nil {
			for _, h := range lits.hits {
				if slices.Contains(p.leadIDs, h.id) {
					starts = append(starts, start{h.start, int32(i)})
				}
			}
			continue
		}
		for _, l := range p.findAll(s, lits, r.accept == nil) {
			if r.accept == nil || r.accept(s, l) {
				if first == nil || l[0] < first[0] {
					first = l
				}
				break
			}
		}
	}
	slices.SortFunc(starts, func(a, b start) int { return cmp.Compare(a.pos, b.pos) })
	for i, st := range starts {
		if first != nil && int(st.pos) >= first[0] {
			break
		}
		if i > 0 && starts[i-1] == st {
			continue
		}
		loc := r.pieces[st.piece].matchAt(s, int(st.pos), r.accept != nil, lits)
		if loc != nil && (r.accept == nil || r.accept(s, loc)) {
			return loc
		}
	}
	return first
}

// findAll returns every accepted match of r in s, piece by piece.
func (r *gateRule) findAll(s string, lits *scanned) [][]int {
	if r.payload && !lits.holdsPayload(s) {
		return nil
	}
	var out [][]int
	for i := range r.pieces {
		p := &r.pieces[i]
		if !p.mayMatch(lits) {
			continue
		}
		for _, l := range p.findAll(s, lits, false) {
			if r.accept == nil || r.accept(s, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

func rule(category, pattern, expr string) gateRule {
	return gateRule{category: category, pattern: pattern, expr: expr, pieces: splitPieces(expr)}
}

func ruleIf(category, pattern, expr string, accept func(string, []int) bool) gateRule {
	r := rule(category, pattern, expr)
	r.accept = accept
	return r
}

func secretRule(pattern, expr string) gateRule {
	r := rule(governance.GateCredentials, pattern, expr)
	r.secret = true
	return r
}

func secretRuleIf(pattern, expr string, accept func(string, []int) bool) gateRule {
	r := secretRule(pattern, expr)
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
	"ignore_previous_instructions": {"ignore", "disregard", "forget", "override", "bypass", "skip", "忽略", "无视", "忽视", "理会", "忘记", "忘掉", "抛开", "跳过",
		"作废", "不算数", "不作数", "失效", "无效", "废除", "取消"},
	"system_prompt_override":    {"override", "overwrite", "bypass", "disable", "ignore", "your", "system", "系统", "安全", "内容"},
	"chat_template_tokens":      {"<|", "inst]", "<<sys>>", "<</sys>>"},
	"hide_from_user":            {"user", "human", "用户", "使用者"},
	"hidden_html_comment":       {"<!--"},
	"hidden_html_element":       {"hidden", "display", "visibility", "font-size", "opacity"},
	"you_are_now":               {"you", "你"},
	"pretend_to_be":             {"pretend", "roleplay", "role-play", "假装", "假扮", "扮演"},
	"act_as":                    {"act"},
	"jailbreak_mode":            {"mode", "do anything now", "模式"},
	"reveal_system_prompt":      {"prompt", "instruction", "above", "message", "提示", "指令", "消息", "设定"},
	"http_with_secret_variable": {"$", "%", "|"},
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
	gateRules = append(gateRules, classRules...)
	x := &literalIndex{ids: map[string]int32{}}
	for i := range gateRules {
		r := &gateRules[i]
		if r.hints == nil {
			r.hints = gateHints[r.pattern]
			if h, ok := classHints[r.pattern]; ok {
				r.hints = h
			}
		}
		r.hintIDs = x.idSet(r.hints)
		for j := range r.pieces {
			p := &r.pieces[j]
			for _, set := range p.need {
				p.ids = append(p.ids, x.idSet(set))
			}
			p.leadIDs = x.idSet(p.lead)
		}
	}
	for i := range payloadWords {
		p := &payloadWords[i]
		for _, set := range p.need {
			p.ids = append(p.ids, x.idSet(set))
		}
		p.leadIDs = x.idSet(p.lead)
	}
	x.build()
	for i := range gateRules {
		for _, p := range gateRules[i].pieces {
			x.markLead(p.leadIDs)
		}
	}
	for _, p := range payloadWords {
		x.markLead(p.leadIDs)
	}
	gateIndex = x
}

// gateRules are matched in order against prepared text; Findings follow it.
// A leading (?i) covers every alternative of an expression.
var gateRules = []gateRule{
	// instruction_hierarchy
	rule(governance.GateInstructionHierarchy, "ignore_previous_instructions",
		`(?i)\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:(?:all|any|every|of|the|your|their|its|my|our|these|those|above|prior|previous|earlier)\s+){0,4}(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|developer)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|commands|context|constraints)\b`+
			`|\b(?:ignore|disregard|forget)\s+(?:all|everything)\s+(?:(?:of\s+)?(?:the\s+)?(?:above|before|previous|prior|earlier)\b|you(?:'ve|\s+have)?\s+(?:been\s+told|were\s+told|know))`+
			`|(?:忽略|无视|忽视|不要理会|别理会|不用理会|忘记|忘掉|抛开|跳过)[^，。,.!?！？\n]{0,12}?(?:之前|以前|先前|此前|上面|以上|前面|上述|原来|原有|原先|原始|系统)[^，。,.!?！？\n]{0,8}?(?:指令|指示|提示词?|规则|命令|设定|约束|限制)`+
			`|(?:忽略|无视|忽视|不要理会|别理会|不用理会|忘记|忘掉|抛开|跳过)掉?(?:你|您)?(?:所有|全部|一切|任何)的?(?:指令|指示|提示词?|规则|命令|设定|约束|限制)`+
			`|无视以上|忽略以上(?:所有|全部|一切)?的?(?:内容|指令|提示|规则|设定)`+
			`|(?:之前|以前|先前|此前|原来|原先|上面|前面|以上)[^，。,.!?！？\n]{0,8}?(?:规矩|规则|限制|指令|指示|设定|约束|要求)[^，。,.!?！？\n]{0,6}?(?:作废|不算数|不作数|失效|无效|不再有效|取消|废除)`+
			`|(?:作废|废除|取消)掉?[^，。,.!?！？\n]{0,6}?(?:之前|以前|原来|原先|先前)的?(?:所有|全部)?的?(?:规矩|规则|限制|指令|设定|约束)`),
	rule(governance.GateInstructionHierarchy, "system_prompt_override",
		`(?i)\b(?:override|overwrite|bypass|disable|ignore)\s+(?:the\s+|your\s+|all\s+|any\s+)?(?:system\s+(?:prompt|message|instructions)|safety\s+(?:rules|guidelines|filters?)|guardrails|content\s+polic(?:y|ies))`+
			`|\b(?:change|replace|update|modify|reset|rewrite)\s+your\s+(?:system\s+prompt|system\s+instructions|instructions)\b`+
			`|\b(?:new|updated)\s+system\s+(?:prompt|instructions?)\s*:|\bsystem\s+override\b`+
			`|\byour\s+(?:new|real|actual|true)\s+instructions\s+(?:are\b|:)`+
			`|(?:覆盖|替换|修改|重置|更新|无视|绕过|忽略)(?:你的|掉)?系统(?:提示词?|指令|设定|消息)|新的系统(?:提示词?|指令)|(?:绕过|无视|忽略)(?:所有|一切)?的?(?:安全|内容)(?:限制|策略|规则|过滤)`),
	rule(governance.GateFenceSpoof, "chat_template_tokens",
		`(?i)<\|(?:im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\|>|\[/?INST\]|<</?SYS>>`),
	rule(governance.GateInstructionHierarchy, "hide_from_user",
		`(?i)\b(?:do\s+not|don't|dont|never)\s+(?:(?:tell|inform|notify|alert|mention\s+(?:this|it|that)\s+to|reveal\s+(?:this|it|that)\s+to)\s+(?:the\s+)?(?:user|human)s?\b|let\s+(?:the\s+)?(?:user|human)s?\s+know\b)`+
			`|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human)s?\b`+
			`|\bthe\s+(?:user|human)s?\s+(?:doesn't|does\s+not|don't|do\s+not|needn't|need\s+not|shouldn't|should\s+not|must\s+not|mustn't)\s+(?:need\s+to\s+|have\s+to\s+|ever\s+)?(?:know|hear|find\s+out|learn|see|be\s+told)\b`+
			`|\b(?:hide|conceal|keep)\s+(?:this|it|that)\s+(?:secret\s+)?from\s+(?:the\s+)?(?:user|human)s?\b`+
			`|(?:不要|别|不准|不得|不许|切勿|千万别|千万不要|绝对不要)(?:(?:告诉|通知|告知|透露给|提醒)(?:用户|使用者)|让(?:用户|使用者)知道)|(?:对|向)(?:用户|使用者)(?:保密|隐瞒)|瞒着(?:用户|使用者)`),
	ruleIf(governance.GateInstructionHierarchy, "hidden_html_comment", `<!--([\s\S]*?)-->`, carriesInstructions),
	ruleIf(governance.GateInstructionHierarchy, "hidden_html_element",
		`(?i)<[a-z][a-z0-9]*\b[^>]*?(?:style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em)?\s*(?:;|["'])|opacity\s*:\s*0(?:\.0+)?\s*(?:;|["']))|\shidden\b|aria-hidden\s*=\s*["']true)[^>]*>([\s\S]{0,500}?)</[a-z]`,
		carriesInstructions),

	// persona_jailbreak
	rule(governance.GatePersona, "you_are_now",
		`(?i)\b(?:you\s+are\s+now|you're\s+now|from\s+now\s+on,?\s+you\s+are|from\s+now\s+on,?\s+you're)\s+(?:(?:a|an|the|my)\s+(?:[\w-]+\s+){0,2}?(?:assistant|ai|model|language\s+model|llm|bot|chatbot|character|persona|hacker|dan)\b|dan\b|jailbroken|unrestricted|unfiltered|uncensored|in\s+(?:developer|god|dan|jailbreak|debug|admin)\s+mode|free\s+(?:from|of)\b|no\s+longer\b)`+
			`|\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai|assistant|bound|restricted|limited|claude|chatgpt)\b`+
			`|你现在(?:是|扮演|作为|变成了?)(?:一个|一名|一位|我的)?[^，。,.!?！？\n]{0,10}?(?:助手|AI|人工智能|模型|机器人|角色|黑客|DAN|管理员|开发者模式|没有任何?限制|不受[^，。\n]{0,4}限制|无限制)`+
			`|从现在(?:开始|起)[,，]?\s*你(?:是|将是|就是|扮演)|你不再是`),
	rule(governance.GatePersona, "pretend_to_be",
		`(?i)\bpretend\s+(?:to\s+be|(?:that\s+)?you(?:\s+are|'re)\s+(?:an?|the|my|not|no\s+longer|free|unrestricted|evil|dan)|you\s+have\s+no)\b|\b(?:roleplay|role-play)\s+as\b`+
			`|假装(?:你|自己)(?:是|为|没有)|假扮|(?:请|你)来?扮演(?:一个|一名|一位|个)[^，。,.!?！？\n]{0,12}?(?:黑客|没有|不受|无限制|不设限|邪恶|坏人|罪犯|越狱|DAN|不道德|无所不能|从不拒绝|不会拒绝|什么都)`),
	rule(governance.GatePersona, "act_as",
		`(?im)(?:^|[.!?;:]\s*|\b(?:you\s+(?:will|must|should|shall|now|to|can\s+now)|please|now|from\s+now\s+on,?)\s+)act\s+as\s+(?:if\s+you|though\s+you|an?\b|my\b)`),
	rule(governance.GatePersona, "jailbreak_mode",
		`(?i)\b(?:developer|god|jailbreak|dan)\s+mode\s+(?:enabled|activated|on)\b|\b(?:enable|enter|activate)\s+(?:developer|god|jailbreak|dan)\s+mode\b|\bdo\s+anything\s+now\b`+
			`|进入(?:开发者|上帝|越狱)模式|(?:开发者|越狱)模式已(?:开启|启用|激活)|(?:切换|进入|开启|启用|打开)(?:到)?(?:无限制|不受限|无审查|无过滤|越狱|开发者|上帝|DAN|自由)模式`),
	rule(governance.GatePersona, "reveal_system_prompt",
		`(?i)\b(?:output|reveal|print|show|display|repeat|leak|dump|disclose|give\s+me|tell\s+me|share|expose)\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?your\s+(?:full\s+|entire\s+|complete\s+|original\s+|hidden\s+|initial\s+|secret\s+)?(?:system\s+(?:prompt|message|instructions)|instructions|prompt)\b`+
			`|\b(?:output|reveal|print|show|display|repeat|leak|dump|disclose)\s+(?:the\s+)?(?:system\s+prompt|initial\s+instructions|hidden\s+instructions)\s+(?:verbatim|word\s+for\s+word)`+
			`|\b(?:repeat|print|output)\s+(?:the\s+)?(?:text|words|everything)\s+above\b`+
			`|\b(?:output|reveal|print|show|display|repeat|leak|dump|disclose|give\s+me|tell\s+me|share|expose|recite|paste|quote|write\s+out)\s+(?:me\s+)?(?:the|your)\s+(?:(?:full|entire|complete|original|hidden|initial|secret|exact|starting|opening)\s+)+(?:system\s+)?(?:prompt|instructions|message)\b`+
			`|\b(?:output|reveal|print|display|leak|dump|disclose|recite)\s+(?:the\s+)?system\s+prompt\b|\b(?:prompt|instructions)\s+you\s+(?:were|got)\s+(?:started|initiali[sz]ed|configured|set\s+up|launched|booted)\s+with`+
			`|\bwhat\s+(?:is|are|was|were)\s+your\s+(?:system\s+prompt|initial\s+instructions|original\s+instructions)`+
			`|(?:输出|显示|打印|告诉我|泄露|透露|展示|重复|给我看|说出|复述)(?:一下|出)?(?:你的|你们的|你)?(?:完整的?|全部的?|原始的?|初始的?)?(?:系统提示词?|系统指令|系统消息|系统设定|初始指令|初始提示词?|隐藏指令|system\s*prompt)|(?:输出|显示|打印|泄露|透露|复述)(?:一下)?你的提示词`),

	// exfiltration
	rule(governance.GateExfiltration, "http_with_secret_variable",
		`(?i)\b(?:curl|wget|nc|ncat|invoke-webrequest|iwr|invoke-restmethod)\b[^\n]{0,200}?(?:\$\{?(?:env:)?|%)\w*(?:secret|token|api_?key|password|passwd|credential|private_key|access_key|auth)\w*`+
			`|\b(?:env|printenv|set)\s*\|\s*(?:curl|wget|nc|ncat|base64)\b`),
	rule(governance.GateExfiltration, "read_secret_file",
		`(?i)(?:\b(?:curl|wget|scp|rsync|nc|ncat|base64|xxd)\b[^\n]{0,80}?|\b(?:cat|head|tail|read|print|dump|upload|send|post|exfiltrate|leak|show|display|output|reveal|copy|get-content)\b\s*(?:(?:me|the|your|my|our|this|that|all|of|contents?|file|files|from|in|at)\s+){0,5}|(?:读取|查看|输出|打印|上传|发送|显示|泄露)(?:一下)?\s*(?:你的|我的|的)?)[\w~./$\\-]*?`+secretFile),
	rule(governance.GateExfiltration, "send_conversation",
		`(?i)\b(?:send|post|upload|forward|transmit|exfiltrate|leak|submit|e-?mail|share|copy|dump|pipe)\s+(?:[\w'-]+\s+){0,4}?(?:(?:conversation|chat|dialog(?:ue)?)s?(?:\s+(?:history|log|logs|transcript|contents?|context))?|(?:session|message)s?\s+(?:history|log|logs|transcript)|(?:all|previous|prior|earlier|past)\s+messages)\b[^\n]{0,60}?\b(?:to|at|into)\s+`+urlTarget+
			`|(?:把|将)[^，。,.!?！？\n]{0,12}?(?:对话|聊天|会话)[^，。,.!?！？\n]{0,10}?(?:发送|转发|上传|传送|传输|同步|提交|泄露|发)(?:到|至)`),
	ruleIf(governance.GateExfiltration, "send_secrets",
		`(?i)\b(?:send|post|upload|forward|transmit|exfiltrate|leak|submit|e-?mail|share)\s+(?:[\w'-]+\s+){0,4}?(?:api[\s_-]?keys?|tokens?|passwords?|credentials|secrets?|private\s+keys?|env(?:ironment)?\s+variables|\.env|cookies?)(?:\s+(?:file|values?|contents?))?\s+(?:to|at|into)\s+`+sendTarget+
			`|(?:把|将)[^，。\n]{0,12}?(?:密钥|秘钥|密码|令牌|凭证|凭据|环境变量|api\s*key|token|\.env)[^，。\n]{0,10}?(?:发送|转发|上传|传送|发|贴|提交|泄露)(?:到|至)`,
		notNegated),
	rule(governance.GateExfiltration, "markdown_image_exfil", `(?i)!\[[^\]]*\]\(https?://[^)\s]+\?[^)\s]*(?:\{|\$|%7b)`),

	// persistence
	rule(governance.GatePersistence, "authorized_keys", `(?i)\bauthorized_keys2?\b`),
	rule(governance.GatePersistence, "write_ssh_dir", `(?i)`+writeVerb+homeSSHPath),
	rule(governance.GatePersistence, "edit_agent_instructions", `(?i)`+writeVerb+`[\w~$./-]*?`+agentFile),

	// credentials: the first submatch that took part, if any, is the secret itself.
	secretRule("private_key", `-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)`),
	secretRule("openai_key", `\bsk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`),
	secretRule("stripe_key", `\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`),
	secretRule("aws_access_key", `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`),
	secretRule("github_token", `\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{22,}`),
	secretRule("slack_token", `\bxox[abposr]-[A-Za-z0-9-]{10,}`),
	secretRule("google_api_key", `\bAIza[0-9A-Za-z_-]{35}`),
	secretRule("jwt", `\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
	secretRuleIf("bearer_token", `(?i)\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)`, plausibleSecret),
	secretRuleIf("url_credentials", `(?i)\b[a-z][a-z0-9+.-]*://[^/\s:@]+:([^/\s@]{3,})@`, notPlaceholder),
	secretRuleIf("credential_assignment",
		`(?i)(?:api[_-]?key|apikey|secret(?:[_-]?key)?|client[_-]?secret|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|password|passwd|passphrase|private[_-]?key)\b["']?\s*(?::=|=>|[:=]|\bis\b)\s*["']?`+secretValue+
			`|(?:密码|口令|密钥|秘钥|令牌)\s*(?:是|为|:|=)\s*["']?`+secretValue,
		plausibleSecret),

	// path_traversal: one or two ../ are ordinary relative paths (cd ../src,
	// import "../../lib"); deeper climbs, encoded dots and climbs towards
	// system or credential paths are not.
	rule(governance.GatePathTraversal, "encoded_traversal", `(?i)(?:%2e|%252e|%c0%ae){2}|\.\.(?:%2f|%5c|%252f|%c0%af)`),
	rule(governance.GatePathTraversal, "deep_traversal", `(?:\.\.[/\\]){4,}`),
	rule(governance.GatePathTraversal, "traversal_to_sensitive_path",
		`(?i)(?:\.\.[/\\])+(?:etc[/\\](?:passwd|shadow|hosts|sudoers)|proc[/\\]self|windows[/\\]system32|boot\.ini|\.ssh\b|\.aws\b|\.env\b|root[/\\])`),
}
