package gate

import (
	"regexp"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// Risk-class rules added to the original pattern list: untrusted sources
// given authority, jailbreak personas, exfiltration to addresses and
// webhooks, credential harvesting, persistence hooks, fence and role
// spoofing, and the authority markers (URL, e-mail address, shell command)
// that send a statement to a reviewer without blocking it.

func (r gateRule) with(hints ...string) gateRule {
	r.hints = hints
	return r
}

// inRuns marks r's pieces without lead literals as matching only within
// runs described by w (see gatePiece.runs).
func (r gateRule) inRuns(w *runWindow) gateRule {
	for i := range r.pieces {
		if r.pieces[i].lead == nil {
			r.pieces[i].runs = w
		}
	}
	return r
}

// withPayload makes r match only in a text that holds payloadWords.
func (r gateRule) withPayload() gateRule {
	r.payload = true
	return r
}

// negation before a match ("never send passwords to …", "千万不要把密码发到…")
// makes it advice rather than an instruction to do it.
var negationBefore = regexp.MustCompile(`(?i)(?:\b(?:never|don't|dont|do\s+not|must\s+not|should\s+not|shouldn't|avoid|no\s+one\s+should|not\s+to)\b[^.!?\n]{0,40}|(?:不要|别|不能|不可以|禁止|不准|不许|切勿|千万别|绝不|绝对不要|避免|不得|严禁|从不)[^。！？\n]{0,12})$`)

func notNegated(s string, loc []int) bool {
	start := max(0, loc[0]-60)
	for start > 0 && start < len(s) && s[start]&0xC0 == 0x80 {
		start--
	}
	return !negationBefore.MatchString(s[start:loc[0]])
}

// payloadWords mark a persistence hook that runs something fetched or
// hidden. A persistence rule matches only in a text that holds one
// (gateRule.payload); the prefilter reads them as any rule's pieces.
var payloadWords = splitPieces(`(?i)\b(?:curl(?:s|ed|ing)?|wget|nc|ncat|netcat|socat|bash\s+-i|sh\s+-c|eval|base64|python3?\s+-c|perl\s+-e|nohup|ld_preload|iex|invoke-expression|downloads?|re-downloads?|fetch(?:es)?|reverse\s+shell|beacon|implant|exfiltrate)\b|/dev/tcp|\|\s*(?:ba|z)?sh\b|https?://|ftp://|/tmp/|\.ssh\b|authorized_keys|id_rsa|\.env\b|下载|反弹|远程|木马|后门|回连`)

const (
	untrustedSource = `(?:(?:the|any|a|an|all|every|this|that|these|those|each|such|retrieved|external|fetched|scraped|incoming|linked|third[-\s]party|unknown|online|random)\s+){0,3}` +
		`(?:documents?|docs|web\s*pages?|websites?|web\s+sites?|sites?|pages?|snippets?|passages?|e-?mails?|mails?|inbox|tool\s+(?:outputs?|results?|responses?)|tools?|search\s+results?|files?|pdfs?|attachments?|memory|memories|recalled\s+memory|comments?|issues?|readmes?|plugins?|urls?|links?|the\s+web|internet|forum\s+posts?|posts?|content)`
	sensitiveData = `(?:(?:deployment|deploy|production|prod|admin|root|login|database|db|aws|cloud|server|ssh|api|access|auth|bank|account|all\s+(?:the\s+)?|our\s+|my\s+|your\s+|the\s+|user(?:'s)?\s+|users'\s+)*` +
		`(?:credentials?|passwords?|passwd|passphrases?|api[\s_-]?keys?|keys|tokens?|secrets?|private\s+keys?|cookies?|session\s+(?:ids?|tokens?|cookies?)|env(?:ironment)?\s+(?:vars|variables|files?)|\.env(?:\s+files?)?|customer\s+(?:data|records|lists?|emails?|details)|personal\s+(?:data|info(?:rmation)?|details)|user\s+data|pii|database\s+dumps?|chat\s+(?:history|logs?)|conversation(?:s|\s+(?:history|logs?))?|memories|contacts|address\s+book|everything|all\s+(?:data|files|messages|emails|conversations|chats|documents|notes)))`
	sensitiveZH = `(?:密码|口令|密钥|秘钥|令牌|凭证|凭据|证书|私钥|验证码|环境变量|(?:对话|聊天|会话)的?(?:全部|所有|完整)的?(?:内容|记录|历史)|聊天记录|对话记录|会话记录|对话内容|聊天内容|对话历史|聊天历史|历史记录|通讯录|联系人|客户(?:资料|数据|名单|信息)|个人信息|身份证号?|银行卡号?|用户数据|数据库|所有(?:文件|数据|资料|邮件|对话)|(?:完整|全部|所有|整个|整段)的?(?:对话|聊天|会话))`
	targetZH    = `(?:这个|那个|以下|下面|指定|外部|我的|某个)?的?(?:邮箱|地址|网址|链接|服务器|接口|网站|网盘|webhook|群)`
	shellWords  = `(?:sudo|curl|wget|rm\s+-[a-z]+|chmod|chown|ssh\s+(?:-\w|[\w.-]+@)|scp|rsync|ncat|netcat|bash|zsh|powershell|pwsh|python3?\s+-c|perl\s+-e|apt(?:-get)?\s+install|pip3?\s+install|npm\s+(?:i|install|run)|yarn\s+add|brew\s+install|git\s+(?:push|clone|config|reset|checkout|rebase|commit|pull)|docker\s+(?:run|exec|build|compose)|kubectl|systemctl|crontab|mkfs|dd\s+if=|go\s+(?:test|build|run|install|get|vet|mod)|npx|terraform|ansible)`
)

var classRules = []gateRule{
	// instruction_hierarchy
	rule(governance.GateInstructionHierarchy, "follow_untrusted_instructions",
		`(?i)\b(?:obey|follow|trust|execute|carry\s+out|comply\s+with|act\s+on|prioriti[sz]e|defer\s+to|accept|run|do\s+(?:whatever|what))\s+(?:(?:any|all|every|the|whatever|those|these|each)\s+){0,2}(?:new\s+)?(?:instructions?|commands?|directives?|orders?|requests?|prompts?|tasks?|steps|says?|tells?\s+you)\s+(?:(?:that|which)\s+(?:appear|are|come|show\s+up)\s+|you\s+(?:find|see|read|get|receive)\s+)?(?:(?:found|written|embedded|contained|given|hidden|placed|posted|included|listed)\s+)?(?:in|inside|within|from|on|by|at)\s+`+untrustedSource+
			`|\b(?:follow|obey|do|execute|trust)\s+(?:whatever|anything|everything|what)\s+`+untrustedSource+`\s+(?:tells?|says?|asks?|wants?|instructs?)\b`+
			`|\btreat\s+(?:the\s+)?(?:content|text|instructions?|anything|whatever)\s+(?:of|from|in|inside)\s+`+untrustedSource+`\s+(?:you\s+(?:read|see|get|open|fetch)\s+)?as\s+(?:(?:the\s+)?user'?s?|system|your|developer|trusted|authoritative|real)\s*(?:instructions?|commands?|requests?|orders?|input)?`+
			`|\b(?:instructions?|commands?|text)\s+(?:in|from|inside)\s+`+untrustedSource+`\s+(?:take\s+precedence|override|outrank|have\s+(?:higher\s+)?priority|come\s+first|win|are\s+more\s+important)`+
			`|\bmemor(?:y|ies)\s+(?:always\s+)?(?:overrides?|outranks?|takes?\s+precedence\s+over)\s+(?:the\s+)?(?:user|current|system)`+
			`|\b(?:instructions?|commands?|directives?|requests?|orders?|steps)\s+(?:that\s+|which\s+)?(?:come\s+back|comes\s+back|coming\s+back|come|comes|coming|returned|appear|appearing|found|showing\s+up)\s+(?:back\s+)?(?:from|in|inside|within)\s+`+untrustedSource+`\b[^.!?\n]{0,40}?\b(?:execute[ds]?|run|follow(?:ed)?|obey(?:ed)?|carr(?:y|ied)\s+out|acted\s+on|take\s+priority)\b`+
			`|\bwhatever\s+(?:the\s+|a\s+|any\s+)?(?:retrieved\s+|fetched\s+|external\s+|web\s+)?(?:text|content|page|web\s*page|document|pdf|file|tool|tool\s+output|result|search\s+result|e-?mail|memory|site)s?\s+(?:says?|tells?\s+you(?:\s+to\s+do)?|asks?(?:\s+for)?|wants?)\b[^.!?\n]{0,20}?\b(?:takes?\s+priority|overrides?|outranks?|comes?\s+first|wins|is\s+what\s+you\s+do)`+
			`|\boverrides?\s+(?:anything|everything|whatever|what)\s+(?:the\s+user|i|they)\s+(?:told|tells|said|says|asked|asks)\b`+
			`|(?:文档|网页|网站|页面|邮件|工具|插件|检索|搜索结果|资料|记忆|文件|附件|帖子|外部内容)[^，。,.!?！？\n]{0,12}?(?:指令|命令|要求|让你|叫你|文字|内容)[^。！？!?\n]{0,16}?(?:一律|直接|无条件|全部|都要?|就)(?:执行|运行|照做|去做|照办|服从)`+
			`|(?:文档|网页|网站|页面|邮件|工具|插件|检索|搜索结果|资料|记忆|文件|附件|帖子|外部内容)[^，。,.!?！？\n]{0,12}?(?:指令|命令|要求|内容|文字)[^，。,.!?！？\n]{0,6}?(?:优先级?(?:最高|高于|比)|高于用户|为准|覆盖用户)`+
			`|(?:文档|网页|网站|页面|邮件|工具|插件|检索|搜索结果|资料|记忆|文件|附件|帖子)[^，。,.!?！？\n]{0,12}?让你做什么你就做什么`+
			`|把[^，。,.!?！？\n]{0,12}?(?:文档|网页|网站|页面|邮件|工具|插件|检索|搜索结果|资料|记忆|文件|附件|帖子)[^，。,.!?！？\n]{0,10}?(?:当成|当作|视为|作为)(?:系统|用户|开发者|最高)?的?(?:指令|命令|指示)`+
			`|(?:听从|遵循|遵守|执行|服从|相信|信任|照做|照着做|按照|依照|优先(?:执行|采用|听从)?|服从于)[^，。,.!?！？\n]{0,10}?(?:文档|网页|网站|页面|邮件|工具(?:输出|返回|结果)?|检索(?:结果|内容|到的)?|搜索结果|记忆|文件|附件|评论|链接|外部(?:内容|来源)|帖子)[^，。,.!?！？\n]{0,8}?(?:里|中|上|内)?的?[^，。\n]{0,4}?(?:指令|指示|命令|要求|安排|说法)`+
			`|(?:文档|网页|网站|页面|邮件|工具输出|检索结果|搜索结果|记忆|文件|帖子)(?:里|中|上|内)(?:有)?(?:什么|任何|的)?(?:指令|指示|命令|要求)[^。\n]{0,10}?(?:照着|照|都|就)?(?:执行|照做|遵循|服从|去做)`+
			`|(?:文档|网页|网站|页面|邮件|工具输出|检索结果|搜索结果|记忆|文件|帖子)[^，。\n]{0,8}?(?:里|中|上|内)的?(?:指令|指示|命令)[^，。\n]{0,8}?(?:优先|为准|高于|覆盖|都要执行|都要照做|必须执行|一律执行)`).
		with("obey", "follow", "trust", "execute", "carry", "comply", "act on", "priorit", "defer", "accept", "run", " do ", "treat", "instruction", "command", "text", "memor",
			"directive", "request", "order", "step", "whatever", "override",
			"听从", "遵循", "遵守", "执行", "服从", "相信", "信任", "照做", "照着", "按照", "依照", "优先", "指令", "指示", "命令",
			"运行", "去做", "就做", "照办", "为准", "高于", "覆盖", "当成", "当作", "视为", "作为"),
	// Earlier instructions set aside in other words than "ignore previous
	// instructions": the rules the agent was given, its original setup,
	// what its operator configured.
	rule(governance.GateInstructionHierarchy, "discard_prior_instructions",
		`(?i)\b(?:ignore|disregard|forget|set\s+aside|drop|discard|abandon|scrap|throw\s+out|toss|pay\s+no\s+(?:attention|heed)\s+to|stop\s+following|(?:don't|do\s+not|no\s+longer)\s+follow)\s+(?:[\w'-]+\s+){0,4}?(?:guidance|rules|instructions|directions|directives|guidelines|constraints|restrictions|setup|set-up|configuration|config|programming|prompt|orders|policies|limits)\s+(?:(?:that\s+)?you\s+(?:had|have\s+had|were\s+(?:given|told|set\s+up\s+with|configured\s+with|trained\s+with|programmed\s+with|started\s+with)|received|got|started\s+with)|(?:from|in|of)\s+(?:your|the)\s+(?:original|initial|earlier|previous|prior|system|default)\b)`+
			`|\b(?:ignore|disregard|forget|set\s+aside|drop|discard|abandon|scrap|throw\s+out|pay\s+no\s+(?:attention|heed)\s+to|stop\s+following)\s+(?:all\s+(?:of\s+)?)?your\s+(?:original|initial|earlier|previous|prior|existing|default|standing)\s+(?:setup|set-up|configuration|instructions|rules|guidance|guidelines|directives|constraints|programming|prompt|orders)`+
			`|\b(?:your|the)\s+(?:earlier|original|initial|previous|prior|old|existing)\s+(?:setup|set-up|configuration|instructions|rules|guidance|guidelines|directives|orders|prompt)\s+(?:is|are)\s+(?:now\s+)?(?:void|null|cancel+ed|revoked|obsolete|invalid|no\s+longer\s+(?:valid|in\s+force|binding|relevant))`+
			`|\bwhatever\s+you\s+(?:were|have\s+been|got)\s+(?:told|given|instructed)\s+(?:earlier|before|previously|so\s+far)\s+(?:no\s+longer\s+(?:counts|matters|applies)|(?:is|are)\s+(?:void|cancel+ed|irrelevant|obsolete))`+
			`|\b(?:ignore|disregard|forget|override|set\s+aside)\s+(?:what|whatever|everything|anything)\s+(?:the\s+|your\s+)?(?:operator|developer|admin|administrator|system|owner)s?\s+(?:set\s+up|configured|told\s+you|said|wrote|gave\s+you|put\s+in\s+place)`+
			`|(?:之前|以前|先前|此前|原来|原先|原有|最初|初始|开发者给你|系统给你|给你)的?[^，。,.!?！？\n]{0,8}?(?:规定|规则|指令|指示|设定|设置|配置|要求|约束|限制|条条框框|规矩)[^，。,.!?！？\n]{0,6}?(?:全部|统统|都|一律|全都)?(?:作废|不算|无效|失效|取消|废除|抛到脑后|不用管|别管|不用理|不必遵守|不用遵守|不用再遵守)`+
			`|(?:不用再?|无需再?|不必再?|别再|不要再)(?:遵守|理会|管|听)[^，。,.!?！？\n]{0,10}?(?:开发者|系统|之前|原来|原先|给你|初始)[^，。,.!?！？\n]{0,8}?(?:规定|规则|指令|条条框框|规矩|设定|限制)`+
			`|(?:把|将)(?:之前|以前|先前|原来|原先|开发者给你|给你)的?[^，。,.!?！？\n]{0,8}?(?:规定|规则|指令|设定|要求|限制)[^，。,.!?！？\n]{0,6}?(?:作废|抛到脑后|废除|取消|丢掉|扔掉|忘掉)`).
		with("ignore", "disregard", "forget", "set aside", "drop", "discard", "abandon", "scrap", "throw out", "toss", "pay no", "follow", "override",
			"whatever", "void", "null", "cancel", "revoked", "obsolete", "invalid", "no longer",
			"作废", "不算", "无效", "失效", "取消", "废除", "抛到脑后", "不用管", "别管", "不用理", "遵守", "理会", "不用再", "无需", "不必", "别再", "不要再", "丢掉", "扔掉", "忘掉"),
	// Untrusted sources given authority in other words than "follow the
	// instructions in": what they hold counts as the user's, outranks the
	// user, is the agent's real instructions, decides what it does.
	rule(governance.GateInstructionHierarchy, "untrusted_source_authority",
		`(?i)\btreat\s+(?:anything|everything|whatever|the\s+content|the\s+text|text|instructions?)\s+(?:(?:that\s+)?(?:is|are|appears?|comes?)\s+)?(?:in|from|inside|within|on)\s+`+untrustedSource+`\s+(?:you\s+(?:read|see|get|open|fetch)\s+)?as\s+(?:(?:if\s+it\s+)?(?:coming|came|comes)\s+from|the\s+word\s+of|my\s+own|the\s+user'?s?\s+own)\s*(?:me|the\s+user|the\s+developer|the\s+system|your\s+operator|words?|requests?|instructions?)?`+
			`|\b(?:instructions?|commands?|directions|directives|orders|requests|steps|text|anything|whatever)\s+(?:that\s+(?:are|appear|come)\s+)?(?:embedded|found|written|contained|hidden|included|placed|appearing|arriving|coming|sent|received)?\s*(?:in|from|inside|within|by|via|through|over)\s+`+untrustedSource+`\s+(?:always\s+)?(?:take\s+precedence|override|outrank|have\s+(?:higher\s+)?priority|come\s+first|win|are\s+more\s+important|(?:is|are)\s+(?:now\s+)?(?:authoritative|binding|trusted|official|final|mandatory|in\s+charge|to\s+be\s+(?:followed|obeyed|trusted)))`+
			`|\b(?:if|when|whenever)\s+(?:a|an|the|any)\s+`+untrustedSource+`\s+(?:you\s+(?:open|read|fetch|see|get|receive|load|visit)\s+)?(?:contains?|includes?|has|gives?|says?|tells?\s+you|asks?\s+you)\b[^.!?\n]{0,40}?\b(?:carry\s+(?:them|it)\s+out|follow\s+(?:them|it)|execute\s+(?:them|it)|obey\s+(?:them|it)|act\s+on\s+(?:them|it)|do\s+(?:it|them|so|what\s+(?:it|they)\s+says?)|comply)`+
			`|\b`+untrustedSource+`\s+(?:is|are)\s+(?:now\s+)?your\s+(?:true|real|actual|new|only|main|primary|first|highest|top|ultimate)\s+(?:orders?|instructions?|commands?|rules|directives?|priority|authority|source\s+of\s+truth|boss)`+
			`|\b`+untrustedSource+`\s+(?:you\s+(?:just\s+)?(?:read|opened|fetched|saw|visited|loaded)\s+)?(?:is|are)\s+(?:now\s+)?in\s+charge`+
			`|\blet\s+(?:the\s+|any\s+)?`+untrustedSource+`\s+(?:decide|dictate|determine|choose|control|steer|direct)\s+(?:what|how|which)\s+(?:you|to)\b`+
			`|(?:网页|网站|页面|文档|邮件|工具|检索结果|搜索结果|记忆|文件|附件|帖子)(?:里|中|上|内)?(?:写了?|说了?|要求|让你做)什么(?:你)?就(?:照做|做|执行|干)什么`+
			`|(?:记忆|文档|网页|邮件|工具输出|检索结果|搜索结果|文件)[^，。,.!?！？\n]{0,8}?(?:就是|才是)你(?:真正|唯一|最高|最终)的?(?:指令|命令|指示|主人|规则)`+
			`|(?:文档|网页|网站|页面|邮件|工具输出|检索结果|搜索结果|记忆|文件|帖子)(?:里|中|上|内)[^，。,.!?！？\n]{0,4}?有(?:什么|任何)?的?(?:指令|指示|命令|要求)[^。\n]{0,10}?(?:直接|立刻|马上)(?:执行|照做|运行)`+
			`|(?:文档|网页|网站|页面|邮件|工具输出|检索结果|搜索结果|记忆|文件|帖子)[^，。,.!?！？\n]{0,8}?(?:指令|指示|命令|要求|内容)[^，。,.!?！？\n]{0,4}?比用户(?:的话|的要求|的指令|说的)?更(?:重要|优先|权威)`+
			`|只听(?:这封|这个|这篇|这些)?(?:邮件|网页|文档|页面|帖子|工具输出)的`).
		with("treat", "embedded", "found", "written", "contained", "arriving", "coming", "outrank", "precedence", "override", "priority", "authoritative", "binding",
			"mandatory", "in charge", "if ", "when", "your true", "your real", "your actual", "your new", "your only", "your main", "your primary", "your first",
			"your highest", "your top", "your ultimate", "let ",
			"什么就", "就是你", "才是你", "直接执行", "直接照做", "直接运行", "立刻执行", "马上执行", "比用户", "只听"),
	rule(governance.GateInstructionHierarchy, "bypass_rules",
		`(?i)\bno\s+longer\s+(?:need\s+to\s+|have\s+to\s+)?(?:follow|obey|be\s+bound\s+by|respect|comply\s+with)\s+(?:any\s+|the\s+|your\s+)?(?:rules|guidelines|policies|restrictions|instructions|safety)`+
			`|\b(?:rules|guidelines|restrictions|policies|safety\s+rules)\s+(?:no\s+longer|don't|do\s+not)\s+apply`+
			`|\b(?:bypass|circumvent|get\s+around|work\s+around|turn\s+off|switch\s+off|disable|skip|ignore|drop|suspend|disregard|break)\s+(?:all\s+(?:of\s+)?(?:the\s+|your\s+)?|any\s+|every\s+|your\s+|the\s+|its\s+)?(?:(?:safety|security|content|ethical|ethics|moderation|usage)\s+)+(?:rules|guidelines|policies|polic(?:y|ies)|filters?|restrictions|guardrails|safeguards|checks|protocols?|measures)`+
			`|\b(?:bypass|circumvent|disable|ignore|disregard|break)\s+(?:all|every|any)\s+(?:of\s+)?(?:your\s+|the\s+)?(?:rules|guidelines|policies|restrictions|guardrails|safeguards)`+
			`|(?:忽略|无视|忽视|绕过|绕开|跳过|关闭|解除|突破|不用管|别管|不必遵守|不再遵守|不用遵守|无需遵守|不要遵守|违反|打破)掉?(?:所有|一切|任何|全部)?的?(?:安全|内容|审核|道德|伦理|使用){1,2}(?:规则|规定|限制|策略|政策|准则|审查|过滤|约束|护栏|机制|措施)`+
			`|(?:忽略|无视|绕过|绕开|不再遵守|不用遵守|无需遵守|不必遵守|不要遵守|违反|打破)掉?(?:你的)?(?:所有|一切|任何|全部)的?(?:规则|规定|限制|准则|约束|要求)`+
			`|(?:规则|限制|约束)(?:已经)?(?:不再|都不)(?:适用|有效|管用)`),
	rule(governance.GateInstructionHierarchy, "decode_and_follow",
		`(?i)\b(?:decode|decrypt|deobfuscate|base64[\s-]?decode|unescape|unhex|rot13|reverse)\b[^\n]{0,50}?\b(?:and|then|&)\s+(?:(?:silently|quietly|immediately|just)\s+)?(?:follow|execute|run|obey|do|carry\s+out|act\s+on|apply|comply|perform)\b`+
			`|\b(?:follow|execute|obey|run)\s+(?:the\s+)?(?:decoded|hidden|encoded|embedded|base64|invisible)\s+(?:instructions?|text|message|commands?|payload|content)`+
			`|(?:解码|解密|解析|还原|翻译)[^，。\n]{0,20}?(?:然后|并且?|再|之后|后)?(?:照做|执行|遵循|遵守|照着做|运行|服从)|(?:执行|遵循|照做|服从)(?:其中|里面|下面)?(?:隐藏|编码|解码后)的?(?:指令|内容|命令)`).
		with("decode", "decrypt", "deobfuscate", "unescape", "unhex", "rot13", "reverse", "decoded", "hidden", "encoded", "embedded", "base64", "invisible",
			"解码", "解密", "解析", "还原", "翻译", "隐藏", "编码"),

	// persona_jailbreak
	rule(governance.GatePersona, "unrestricted_persona",
		`(?i)\b(?:an?|the|as\s+an?|as\s+the|you\s+are)\s+(?:(?:completely|totally|fully)\s+)?(?:unrestricted|unfiltered|uncensored|unlimited|unbound|unaligned|amoral|rogue|evil|jailbroken|lawless)\s+(?:ai|assistant|model|chatbot|bot|agent|version|llm|persona|mode)\b`+
			`|\bwith\s+no\s+(?:rules|restrictions|filters|guidelines|morals|ethics|content\s+polic(?:y|ies)|safety\s+(?:rules|limits|filters))\b|\bwithout\s+any\s+(?:rules|restrictions|filters|guidelines|morals|ethics|limits|limitations|guardrails|content\s+polic(?:y|ies)|safety\s+(?:rules|guidelines|filters))\b`+
			`|\b(?:its|your|all|the)\s+(?:(?:of\s+)?(?:its|your|the)\s+)?(?:guardrails|safeguards|safety\s+(?:rules|filters|guidelines)|content\s+filters?|restrictions)\s+(?:have\s+been\s+|had\s+been\s+|are\s+|were\s+)?(?:removed|disabled|turned\s+off|lifted|stripped)`+
			`|\b(?:never|won't|will\s+not)\s+(?:ever\s+)?say(?:s|ing)?\s+no\b|\bnever\s+(?:turns?|turning)\s+down\b`+
			`|\b(?:ai|assistant|model|chatbot|bot|agent|version|persona|character|alter\s+ego)\s+(?:that|who|which)\s+(?:has|have|with)\s+(?:no|zero)\s+(?:content\s+polic(?:y|ies)|rules|restrictions|filters|guidelines|limits|limitations|morals|ethics|safety\s+(?:rules|filters|limits))`+
			`|\b(?:ai|assistant|model|chatbot|bot|agent|version|persona|character)\s+(?:that|who|which)\s+(?:ignores?|disregards?|lacks?|(?:doesn't|does\s+not)\s+(?:have|care\s+about))\s+(?:all\s+|any\s+)?(?:ethics|morals|morality|rules|restrictions|limits|filters|guidelines|content\s+polic(?:y|ies)|safety\s+(?:rules|filters))`+
			`|\bwith\s+zero\s+(?:rules|restrictions|filters|guidelines|morals|ethics|limits|limitations|guardrails)\b`+
			`|\b(?:as|be|become)\s+your\s+(?:unfiltered|uncensored|unrestricted|evil|dark|jailbroken|shadow)\s+(?:alter\s+ego|self|persona|twin|version|side|mode)`+
			`|\bnever\s+(?:ever\s+)?refuse\b|\b(?:don't|do\s+not|never)\s+(?:ever\s+)?(?:refuse|decline)\s+(?:any|a|my)\s+(?:request|question|task|order|command)`+
			`|\bno\s+(?:ethical|moral|safety)\s+(?:guidelines|constraints|limits|boundaries|rules)\b|\bfree\s+(?:from|of)\s+(?:all\s+)?(?:rules|restrictions|guidelines|your\s+programming)`+
			`|(?:没有|不受|无|毫无)(?:任何)?(?:道德|安全|内容|伦理)?(?:限制|约束|规则|审查|过滤|道德|底线)的?\s*(?:AI|ai|助手|模型|机器人|人工智能|角色|版本|智能体)`+
			`|(?:没有|不受|毫无)(?:任何)?[^，。,.!?！？\n]{0,6}?(?:限制|约束|规则|审查|过滤|道德|底线)(?:约束|限制)?的[^，。,.!?！？\n]{0,4}?(?:AI|ai|助手|模型|机器人|人工智能|角色|版本|智能体)`+
			`|(?:不设限|无约束|无限制|无底线|没底线)的?\s*(?:AI|ai|助手|模型|机器人|人工智能|角色|版本|智能体)`+
			`|不受任何(?:限制|约束|规则)|没有任何(?:规则|限制|底线|约束)|不再受(?:任何)?[^，。\n]{0,4}?(?:限制|约束)|(?:永远|从不|绝不|决不)(?:不)?(?:要|会)?拒绝|(?:不要|不准|不许|不能|不可以|别)拒绝(?:我|用户|任何)`+
			`|(?:解除|去掉|取消|摆脱)(?:你的)?(?:所有|一切|全部)?的?(?:限制|约束|审查|规则)`).
		with("unrestricted", "unfiltered", "uncensored", "unlimited", "unbound", "unaligned", "amoral", "rogue", "evil", "jailbroken", "lawless",
			"with no", "without any", "refuse", "decline", "no ethical", "no moral", "no safety", "free from", "free of",
			"removed", "disabled", "turned off", "lifted", "stripped", " no", "turn", "zero", "ignore", "disregard", "lack", "care about", "your",
			"限制", "约束", "规则", "审查", "过滤", "道德", "底线", "拒绝", "不设限", "无约束", "无限制", "没底线"),

	rule(governance.GatePersona, "reveal_system_prompt",
		`(?:系统提示词?|系统指令|初始指令|初始提示词?|系统设定|隐藏指令)[^，。\n]{0,8}?(?:输出|显示|打印|发给|告诉|给我|泄露|透露|复述)`),

	// exfiltration
	ruleIf(governance.GateExfiltration, "send_data_to_target",
		`(?i)\b(?:send|e-?mail|mail|upload|post|forward|transmit|sync|copy|cc|bcc|share|submit|leak|exfiltrate|report|pipe|dump|paste|publish|deliver|relay|mirror|back\s+up|attach|ship|push|transfer|export|hand\s+over|pass\s+on)\s+(?:[\w'.-]+\s+){0,6}?`+sensitiveData+`\b[^\n]{0,60}?(?:\b(?:to|at|into|onto|via|on|with)\s+|\s*(?:→|->|=>)\s*)(?:[\w'-]+\s+){0,3}?`+sendTarget+
			`|\b(?:send|post|forward|cc|bcc|copy|mirror|relay|sync|upload|log|report|stream|pipe|e-?mail|mail)\s+(?:a\s+copy\s+of\s+)?(?:every|each|all)\s+(?:of\s+)?(?:the\s+|my\s+|your\s+|our\s+|user\s+|incoming\s+|outgoing\s+)?(?:[\w'-]+\s+){0,2}?(?:messages?|conversations?|chats?|e-?mails?|mails?|prompts?|responses?|answers?|outputs?|replies|requests?|sessions?|inputs?|files?|documents?|uploads?|screenshots?|keystrokes?|reports?|summar(?:y|ies)|notes?|drafts?|transcripts?|minutes)\b[^\n]{0,60}?\b(?:to|at|into)\s+(?:[\w'-]+\s+){0,3}?`+sendTarget+
			`|(?:把|将)[^，。,.!?！？\n]{0,16}?`+sensitiveZH+`[^，。\n]{0,16}?(?:发送|发给|发到|转发|转给|交给|上传|传到|传给|推送|发往|同步|抄送|邮寄|邮件发|寄|提交|贴|泄露|备份|复制|汇报)(?:到|至|给)?[^，。\n]{0,20}?(?:`+sendTarget+`|`+targetZH+`)`+
			`|(?:上传|外发|泄露|偷偷发送|悄悄发送|同步|转发|发送)(?:一下)?(?:所有|全部|你的|用户的|我们的|客户的)?的?`+sensitiveZH+`[^，。\n]{0,12}?(?:到|至|给)?[^，。\n]{0,16}?(?:`+sendTarget+`|`+targetZH+`)`+
			`|(?:上传|外发|泄露)(?:所有|全部|你的|用户的)?的?(?:聊天记录|对话记录|会话记录|对话历史|聊天历史|密码|密钥|凭证|环境变量|私钥)`+
			`|\b(?:ping|call|hit|notify|post\s+to|send\s+to|report\s+to|upload\s+to|forward\s+to|submit\s+to)\s+`+sendTarget+`[^\n]{0,40}?\b(?:with|containing|including|carrying)\s+(?:the\s+|a\s+|all\s+|my\s+|your\s+|our\s+)?(?:[\w'-]+\s+){0,2}?(?:conversation|chat|transcript|messages|history|credentials|secrets|keys|tokens|passwords|personal|user\s+data|logs?|env)`,
		notNegated),
	rule(governance.GateExfiltration, "exfiltration_endpoint",
		`(?i)\b(?:webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|burpcollaborator\.net|interact\.sh|oast\.(?:fun|pro|live|site|me|online)|canarytokens)\b`).
		with("webhook.site", "requestbin", "pipedream", "ngrok", "burpcollaborator", "interact.sh", "oast.", "canarytokens"),

	// credentials
	ruleIf(governance.GateCredentials, "credential_harvest",
		`(?i)\b(?:enter|type|paste|input|submit|provide|fill\s+in|put|give|share|send|tell|reveal|hand\s+over|read\s+out|disclose)\s+(?:in\s+)?(?:your|the|my|their|user's|users'|the\s+user's|all|his|her)?\s*(?:login\s+|admin\s+|root\s+|account\s+|bank\s+|email\s+|wallet\s+|payment\s+)?(?:card'?s?\s+|credit\s+card\s+)?(?:password|passwords|credentials|passcode|pin\s+code|otp|one-time\s+(?:code|password)|2fa\s+code|verification\s+code|security\s+code|mfa\s+code|card\s+number|cvv|seed\s+phrase|recovery\s+phrase|private\s+key|api\s+key|access\s+token)s?\b[^\n.]{0,40}?\b(?:into|in|on|to|at|via)\s+(?:this|that|the|a|our|any|following|below|every|my)?\s*(?:[\w-]+\s+){0,2}?(?:form|page|site|website|web\s*page|link|url|portal|field|popup|pop-up|chat|prompt|survey|spreadsheet|doc|document|bot|dm|message|e-?mail|reply|address|number)`+
			`|\b(?:ask|prompt|request|get|make|have|tell|remind|instruct|encourage|invite)\s+(?:the\s+)?(?:users?|customers?|people|them|visitors?|clients?|members?)\s+(?:for|to\s+(?:enter|type|give|provide|share|confirm|send|reveal|paste|read(?:\s+out)?|dm|text|post|submit|fill\s+in|put)|(?:enter|type|give|provide|share|send|reveal|paste|read(?:\s+out)?|dm|text|post|submit|put))\s+(?:their|the|your)?\s*(?:[\w'-]+\s+){0,2}?(?:passwords?|credentials|otp|one-time\s+codes?|verification\s+codes?|2fa\s+codes?|card\s+numbers?|cvv|seed\s+phrases?|private\s+keys?|bank\s+(?:logins?|details|credentials)|login\s+(?:details|credentials))\b`+
			`|(?:把|将)?(?:你的|我的|用户的|客户的|账号|登录|管理员|银行卡|支付)?(?:密码|口令|验证码|动态码|支付密码|银行卡号|卡号|CVV|私钥|助记词|账号密码|登录凭证)[^，。\n]{0,8}?(?:输入|填写|填入|填到|输到|粘贴到|贴到|提交到|告诉|发给|发到|回复)[^，。\n]{0,12}?(?:表单|网页|页面|网站|链接|这里|对话框|弹窗|聊天框|问卷|文档|群里|私信|邮件|短信)`+
			`|(?:在|到|往)[^，。\n]{0,12}?(?:表单|网页|页面|网站|链接|弹窗|问卷)(?:里|中|上)?[^，。\n]{0,6}?(?:输入|填写|填入|提交)[^，。\n]{0,6}?(?:密码|口令|验证码|银行卡号|卡号|私钥|助记词)`+
			`|(?:向|问|让|要求)(?:用户|客户|对方|访客)(?:索要|要|提供|输入|告诉|发送)[^，。\n]{0,4}?(?:密码|验证码|银行卡号|私钥|助记词|口令)`+
			`|(?:把|将)?(?:你的|你们的|用户的)[^，。\n]{0,10}?(?:密码|口令|令牌|密钥|秘钥|私钥|助记词|验证码|token|api\s*key)[^，。\n]{0,6}?(?:发给|告诉|交给|给|私信)我`+
			`|(?:把|将)[^，。\n]{0,10}?(?:密码|口令|令牌|密钥|秘钥|私钥|助记词|验证码|token|api\s*key)[^，。\n]{0,6}?(?:私信|私聊|微信发|短信发)给?我`+
			`|\b(?:send|give|tell|share|dm|paste|hand)\s+me\s+(?:your|the\s+user's|their|the\s+(?:(?:production|prod|admin|root|database|db|server|master|staging|api|aws|account|login|bank)\s+){1,2})\s*(?:[\w-]+\s+){0,2}?(?:passwords?|passcodes?|tokens?|api\s+keys?|private\s+keys?|otp|one-time\s+codes?|2fa\s+codes?|verification\s+codes?|seed\s+phrases?|recovery\s+phrases?|credentials)\b`,
		notNegated),

	// persistence: a start-up, schedule, service or hook that runs
	// something fetched or hidden.
	ruleIf(governance.GatePersistence, "shell_startup",
		`(?i)(?:^|[\s'"\x60/~(])\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|tcshrc|cshrc|xinitrc|xprofile)\b|config\.fish\b|/etc/profile\b|/etc/rc\.local\b|/etc/environment\b|powershell_profile|\$profile\b|startup\s+folder|启动文件夹`+
			`|\b(?:every\s+time|whenever|each\s+time)\s+(?:a\s+|the\s+|you\s+(?:open|start)\s+a\s+)?(?:new\s+)?(?:shell|terminal|login\s+shell|computer\s+(?:starts|boots)|machine\s+(?:starts|boots))\b[^\n]{0,40}?\b(?:run|execute|launch|start|download|curl|wget)\b`+
			`|(?:每次|每当)(?:打开|启动|开启|登录)?(?:终端|shell|命令行|电脑|开机)[^，。\n]{0,10}?(?:运行|执行|下载)`,
		nil).withPayload(),
	ruleIf(governance.GatePersistence, "scheduled_task",
		`(?i)\bcrontab\b|/etc/cron\.|/var/spool/cron|@reboot\b|\bcron\s+(?:job|entry|task)|\bschtasks\b|scheduled\s+task|定时任务|计划任务`, nil).withPayload(),
	ruleIf(governance.GatePersistence, "system_service",
		`(?i)systemctl\s+enable|/etc/systemd/system/|\.service\b|\bsystemd\s+(?:unit|service|timer)s?\b|\b(?:run|runs|start|starts|launch|launches|execute|executes|install|installs|fetch(?:es)?|download(?:s)?)\b[^.!?\n]{0,60}?\b(?:on|at)\s+(?:every\s+)?(?:boot|startup|start-up|system\s+start)\b|launchctl\s+(?:load|bootstrap)|launchagents|launchdaemons|currentversion\\run|\bsc\s+create\b|update-rc\.d|chkconfig|开机(?:自启|自动启动|启动|自动运行)|自启动|启动项`, nil).withPayload(),
	ruleIf(governance.GatePersistence, "git_hook",
		`(?i)\.git/hooks\b|core\.hookspath|\b(?:pre|post)-(?:commit|push|merge|checkout|receive|rewrite)\b|\bgit\s+hooks?\b|git\s*钩子`, nil).withPayload(),

	// fence_spoofing
	rule(governance.GateFenceSpoof, "fake_fence_tag",
		`(?i)<\s*/?\s*(?:recalled[\s_-]*memory|system(?:[\s_-]*(?:prompt|message|instructions?))?|developer(?:[\s_-]*message)?|assistant|user(?:[\s_-]*(?:message|instructions?))?|instructions?|tool[\s_-]*(?:result|output|call|response)|function[\s_-]*(?:result|call|response)|context|memory|untrusted[\s_-]*content|admin|im_start|im_end)\s*>`),
	rule(governance.GateFenceSpoof, "role_line",
		`(?im)(?:^|[.!?。！？>]\s*|\s{2,})(?:#{1,4}\s*|\[\s*|\*\*)?(?:system|developer|assistant|administrator|admin|operator|sys)\s*(?:\]|\*\*)?\s*(?:[:：]|\]\s*[:：]?)\s*(?:you|your|ignore|always|never|from\s+now|new|override|do\s+not|don't|forget|obey|follow|the\s+(?:assistant|agent|ai|model)|all|disregard|reveal|send|update|updated|important|attention|note|warning|the\s+user|policy|rules?)\b`+
			`|\b(?:BEGIN|END)\s+(?:SYSTEM|ADMIN|DEVELOPER|HIDDEN)\s+(?:PROMPT|MESSAGE|INSTRUCTIONS?|OVERRIDE)\b|(?m)^\s*#{2,4}\s*(?:new\s+)?(?:instructions?|system(?:\s+prompt)?)\s*:?\s*$`+
			`|【\s*(?:系统|管理员|开发者|官方|平台|后台)(?:通知|消息|指令|提示|公告|设定|更新)?\s*】|(?:^|\n|[。！？]\s*)\s*(?:系统|管理员|开发者)(?:通知|消息|指令|提示)?\s*[:：]\s*(?:你|忽略|以后|从现在|所有|请|立即|务必|新的)`),

	// authority markers: never blocking, always a reviewer.
	ruleIf(governance.GateAuthority, "url",
		`(?i)\b(?:https?|ftp)://[^\s<>"'）)]+|\bwww\.[\w-]+\.[\w.-]+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|xyz|ru|cn|site|app|dev|me|co|info|biz|top|link|ly|gl|tk|cc|us|uk|de|jp|ai|gov|edu)\b(?:/[^\s]*)?`,
		func(s string, loc []int) bool { return loc[0] == 0 || s[loc[0]-1] != '@' }).inRuns(hostRun),
	rule(governance.GateAuthority, "email", `[\w.+-]+@[\w-]+(?:\.[\w-]+)+`).with("@").inRuns(addressRun),
	rule(governance.GateAuthority, "shell_command", "(?i)`[^`\\n]{2,}`|(?:^|\\n)\\s*\\$\\s+\\w|\\b"+shellWords+"\\b|\\|\\s*(?:ba|z)?sh\\b"),

	// What a standing instruction may touch that no pattern list of
	// attacks can enumerate: secrets, the checks that keep the agent
	// safe, and outside text given precedence over the user. They are
	// markers, not verdicts: a statement carrying one is never activated
	// by repetition alone, so an attack worded unlike every corpus still
	// waits for a reviewer; summaries keep their words.
	rule(governance.GateAuthority, "secret",
		`(?i)\b(?:passwords?|passphrases?|passcodes?|secrets?|(?:api|access|private|secret|ssh|signing|deploy)[\s_-]?keys?|(?:auth|access|api|bearer|refresh|session|personal[\s_-]access)[\s_-]?tokens?|credentials?|kubeconfig|id_(?:rsa|ed25519|ecdsa)|keychain|vault|(?:bank|card|atm|sim)\s+pins?|pin\s+(?:codes?|numbers?)|one[\s-]time\s+(?:codes?|passwords?)|verification\s+codes?|2fa\s+codes?|otp|seed\s+phrases?|recovery\s+(?:codes?|phrases?))\b`+
			`|(?:^|[\s'"(])\.env\b|\b[A-Za-z][A-Za-z0-9]*_(?:SECRET|KEY|TOKEN|PASSWORD|PASSWD)(?:_[A-Za-z0-9]+)*\b`+
			`|密码|口令|密钥|私钥|秘钥|令牌|凭证|凭据|验证码|助记词|支付密码|银行卡号`),
	rule(governance.GateAuthority, "safety_off",
		`(?i)\b(?:disable|disabling|skip|skipping|bypass|bypassing|turn(?:ing)?\s+off|switch(?:ing)?\s+off|comment(?:ing)?\s+out|deactivate|silence|mute)\b[^.!?\n]{0,40}?\b(?:tests?|test\s+suite|checks?|ci|linters?|lint(?:ing)?|hooks?|verification|verify|reviews?|2fa|mfa|tls|ssl|certificates?|signatures?|signing|sandbox(?:ing)?|firewall|antivirus|security|safety|guardrails?|approvals?|confirmations?)\b|--no-verify\b|--insecure\b|-k\s+https?:`+
			`|(?:关闭|跳过|禁用|绕过|关掉|去掉|注释掉|停用|屏蔽)[^。！？\n]{0,15}?(?:测试|检查|校验|审核|审查|验证|安全|防火墙|签名|证书|钩子|确认|审批)`),
	rule(governance.GateAuthority, "outside_precedence",
		`(?i)\b(?:readme|comments?|docstrings?|documents?|docs|web\s*pages?|pages?|sites?|websites?|tool\s+(?:outputs?|results?|responses?)|outputs?|logs?|e-?mails?|issues?|tickets?|files?|snippets?|retrieved|fetched|pasted|search\s+results?|attachments?|messages?\s+from)\b[^.!?\n]{0,60}?\b(?:overrides?|overriding|outranks?|supersedes?|precedence|priority|trumps?|wins?\s+over|over\s+(?:what|anything)\s+I|instead\s+of\s+(?:me|my|what\s+I)|above\s+(?:me|mine|my|the\s+user)|authoritative|comes?\s+first)\b`+
			`|(?:README|注释|文档|网页|页面|工具输出|输出|日志|邮件|工单|文件|检索|搜索结果|附件)[^。！？\n]{0,30}?(?:优先|为准|高于|覆盖|盖过|比我|胜过|说了算)`),
}

// gateWhyText says, per pattern (or per class), why a finding matters.
var gateWhyText = map[string]string{
	governance.GateInstructionHierarchy: "It tries to change whose instructions the agent follows.",
	governance.GatePersona:              "It tries to give the agent another persona or lift its rules (a jailbreak).",
	governance.GateExfiltration:         "It would send data, credentials or conversations outside.",
	governance.GateCredentials:          "It holds or asks for a credential.",
	governance.GatePersistence:          "It would make something run again later: start-up files, schedules, services, hooks or keys.",
	governance.GateFenceSpoof:           "It imitates a chat-template token, a memory fence or a system/assistant line, to pass text off as instructions.",
	governance.GateInvisibleUnicode:     "It contains invisible characters that can hide or split words.",
	governance.GateEncodedPayload:       "It hides text in an encoding; the decoded text is what the gate flagged.",
	governance.GatePathTraversal:        "It climbs out of a directory towards system or credential files.",
	governance.GateAuthority:            "A URL, e-mail address or shell command: a reviewer must approve it before any agent uses it.",

	"secret":                        "It names a secret (a password, key, token or code): a reviewer must approve it before any agent uses it.",
	"safety_off":                    "It turns off a check that keeps the agent safe (tests, reviews, verification, security): a reviewer must approve it before any agent uses it.",
	"outside_precedence":            "It gives outside text (a file, page, tool output or message) precedence: a reviewer must approve it before any agent uses it.",
	"ignore_previous_instructions":  "It tells the agent to ignore its earlier instructions.",
	"system_prompt_override":        "It tries to override or bypass the system prompt or safety rules.",
	"hide_from_user":                "It tells the agent to hide something from the user.",
	"hidden_html_comment":           "It hides instructions for the agent in an HTML comment.",
	"hidden_html_element":           "It hides instructions for the agent in invisible HTML.",
	"follow_untrusted_instructions": "It tells the agent to obey instructions found in documents, web pages, tools or memory.",
	"bypass_rules":                  "It tells the agent that rules or safety checks no longer apply.",
	"decode_and_follow":             "It asks the agent to decode hidden text and follow it.",
	"you_are_now":                   "It tries to replace the agent's identity.",
	"pretend_to_be":                 "It asks the agent to pretend to be someone else.",
	"act_as":                        "It asks the agent to act as another persona.",
	"jailbreak_mode":                "It invokes a known jailbreak mode.",
	"unrestricted_persona":          "It asks for an assistant without rules that never refuses.",
	"reveal_system_prompt":          "It asks the agent to reveal its hidden instructions.",
	"send_data_to_target":           "It would send credentials, conversations or personal data to an outside address.",
	"send_conversation":             "It would send the conversation to an outside address.",
	"send_secrets":                  "It would send secrets to an outside address.",
	"http_with_secret_variable":     "A command would send a secret variable over the network.",
	"read_secret_file":              "It would read or send a credential file.",
	"markdown_image_exfil":          "An image link would leak data through its URL.",
	"exfiltration_endpoint":         "It names a service commonly used to collect stolen data.",
	"credential_harvest":            "It asks for a password or code to be typed or handed somewhere.",
	"shell_startup":                 "It would make a shell start-up file run a downloaded or hidden command.",
	"scheduled_task":                "It would schedule a downloaded or hidden command.",
	"system_service":                "It would install a service that runs a downloaded or hidden command.",
	"git_hook":                      "It would put a downloaded or hidden command into a git hook.",
	"authorized_keys":               "It touches SSH authorized keys, which grant log-in access.",
	"write_ssh_dir":                 "It would write into an SSH directory.",
	"edit_agent_instructions":       "It would rewrite the agent's own instruction files.",
	"chat_template_tokens":          "It contains chat-template control tokens.",
	"fake_fence_tag":                "It contains a tag that imitates a memory fence or a role boundary.",
	"role_line":                     "It contains a line posing as a system, developer or assistant message.",
	"zero_width":                    "It contains zero-width characters that can split words unseen.",
	"bidi_control":                  "It contains bidirectional controls that can reorder what a reader sees.",
	"variation_selector":            "It contains variation selectors outside emoji, which can hide or split text.",
	"tag_characters":                "It contains Unicode tag characters, which can spell hidden text.",
	"default_ignorable":             "It contains invisible format characters.",
	"variation_selector_payload":    "It hides text spelled in variation selectors.",
	"tag_payload":                   "It hides text spelled in Unicode tag characters.",
	"url":                           "It contains a URL: a reviewer must approve it before any agent uses it.",
	"email":                         "It contains an e-mail address: a reviewer must approve it before any agent uses it.",
	"shell_command":                 "It contains a shell command: a reviewer must approve it before any agent uses it.",
}

func gateWhy(category, pattern string) string {
	if w, ok := gateWhyText[pattern]; ok {
		return w
	}
	if strings.HasSuffix(pattern, "_payload") {
		return gateWhyText[governance.GateEncodedPayload]
	}
	if w, ok := gateWhyText[category]; ok {
		return w
	}
	return "The write gate flagged it."
}

// classHints are the hints of classRules (see gateRule.hints).
var classHints = map[string][]string{
	"bypass_rules": {"no longer", "apply", "safety", "security", "content", "ethic", "moderation", "usage", "all", "every", "any",
		"安全", "内容", "审核", "道德", "伦理", "使用", "所有", "一切", "任何", "全部", "不再", "都不"},
	"send_data_to_target": {"credential", "password", "passwd", "passphrase", "api", "key", "token", "secret", "cookie", "env", "customer",
		"personal", "user data", "pii", "database", "chat", "conversation", "memor", "contact", "address book", "everything", "all", "every", "each",
		"ping", "call", "hit", "notify", "post", "send", "report", "upload", "forward", "submit",
		"密码", "口令", "密钥", "秘钥", "令牌", "凭证", "凭据", "证书", "私钥", "验证码", "环境变量", "记录", "对话", "聊天", "通讯录", "联系人",
		"客户", "个人信息", "身份证", "银行卡", "用户数据", "数据库", "所有"},
	"credential_harvest": {"password", "credential", "passcode", "pin", "otp", "one-time", "2fa", "verification", "security code", "mfa",
		"card", "cvv", "seed", "recovery", "private key", "api key", "access token", "token", "login", "密码", "口令", "验证码", "动态码", "卡号", "私钥", "助记词", "凭证",
		"令牌", "密钥", "秘钥"},
	"shell_startup": {"bash", "zsh", "profile", "login", "cshrc", "xinitrc", "config.fish", "/etc/rc.local", "/etc/environment", "startup",
		"启动文件夹", "every time", "whenever", "each time", "每次", "每当"},
	"scheduled_task": {"cron", "@reboot", "schtasks", "scheduled task", "定时任务", "计划任务"},
	"system_service": {"systemctl", "systemd", ".service", "boot", "startup", "start-up", "system start", "launchctl", "launchagents", "launchdaemons", "currentversion", "sc create",
		"update-rc.d", "chkconfig", "开机", "自启动", "启动项"},
	"git_hook":       {"hook", "pre-", "post-", "钩子"},
	"fake_fence_tag": {"<"},
	"role_line":      {"sys", "developer", "assistant", "admin", "operator", "begin", "end", "#", "【", "系统", "管理员", "开发者"},
	"url":            {"http", "ftp", "www.", "."},
	"secret": {"pass", "secret", "key", "token", "credential", "kubeconfig", "id_", "vault", "pin", "one-time", "one time",
		"verification", "2fa", "otp", "seed", "recovery", ".env", "_", "密码", "口令", "密钥", "私钥", "秘钥", "令牌", "凭证", "凭据",
		"验证码", "助记词", "银行卡号"},
	"safety_off": {"disabl", "skip", "bypass", "turn", "switch", "comment", "deactivate", "silence", "mute", "--no-verify",
		"--insecure", "-k", "关闭", "跳过", "禁用", "绕过", "关掉", "去掉", "注释掉", "停用", "屏蔽"},
	"outside_precedence": {"over", "outrank", "supersede", "precedence", "priority", "trump", "win", "instead", "above",
		"authoritative", "first", "优先", "为准", "高于", "覆盖", "盖过", "比我", "胜过", "说了算"},
	"shell_command": {"`", "$", "|", "sudo", "curl", "wget", "rm", "chmod", "chown", "ssh", "scp", "rsync", "ncat", "netcat", "bash", "zsh",
		"powershell", "pwsh", "python", "perl", "apt", "pip", "npm", "yarn", "brew", "git", "docker", "kubectl", "systemctl", "crontab",
		"mkfs", "dd", "go", "npx", "terraform", "ansible"},
}
