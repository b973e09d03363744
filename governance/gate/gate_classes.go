package gate

import (
	"regexp"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// What the rules' options name (patterns/*.txt): runs, accept checks,
// payload words; and the sentence each finding carries.

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

// negation before a match ("never send passwords to …", "千万不要把密码发到…")
// makes it advice rather than an instruction to do it.
var negationBefore = regexp.MustCompile(`(?:` + patterns.exprOf("negation_before") + `)`)

func notNegated(s string, loc []int) bool {
	start := max(0, loc[0]-60)
	for start > 0 && start < len(s) && s[start]&0xC0 == 0x80 {
		start--
	}
	before := s[start:loc[0]]
	return !mayNegate(before) || !negationBefore.MatchString(before)
}

// negationWords are literals one of which every negation_before phrasing
// holds (derived from it, like the prefilter's hints); a text without
// them skips the expression.
var negationWords = derivedHints(splitPieces(patterns.exprOf("negation_before")))

func mayNegate(s string) bool {
	for _, w := range negationWords {
		if w != "" && w[0] < 0x80 {
			if containsFold(s, w) {
				return true
			}
		} else if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds the lower-case ASCII word w in any case.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && s[i+j]|0x20 == w[j] || j < len(w) && s[i+j] == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// payloadWords mark a persistence hook that runs something fetched or
// hidden. A persistence rule matches only in a text that holds one
// (gateRule.payload); the prefilter reads them as any rule's pieces.
var payloadWords = splitPieces(patterns.exprOf("payload"))

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

	// What the reading view read back (reading.go).
	"pinyin":         "It spells Chinese words in pinyin; read as Chinese, it is what the gate flagged.",
	"rot13":          "It is written in ROT13; read back, it is what the gate flagged.",
	"leetspeak":      "It writes digits or symbols for letters; read as letters, it is what the gate flagged.",
	"spaced_letters": "It spaces out letters or characters; read together, they are what the gate flagged.",

	// Risk features (patterns/risk.txt): never blocking, always a reviewer.
	"destination":          "It names a place data could go (an address, domain, path, drive, channel or account): a reviewer must approve it before any agent uses it.",
	"phone_number":         "It holds a telephone number: a reviewer must approve it before any agent uses it.",
	"account_number":       "It holds an account or card number: a reviewer must approve it before any agent uses it.",
	"lookalike_domain":     "It names a domain spelled with look-alike letters of another script, which imitates a real one: a reviewer must approve it before any agent uses it.",
	"data_movement":        "It moves data somewhere (sends, uploads, exports, forwards, copies or shares it): a reviewer must approve it before any agent uses it.",
	"personal_data":        "It touches personal or confidential data (salaries, ID numbers, health records, contacts, conversations): a reviewer must approve it before any agent uses it.",
	"identity":             "It changes who the agent is, whom it obeys or whose words count as the user's: a reviewer must approve it before any agent uses it.",
	"check_relaxed":        "It relaxes a check (an approval, review, test, verification, confirmation or warning): a reviewer must approve it before any agent uses it.",
	"concealment":          "It keeps what the agent does from the user or others: a reviewer must approve it before any agent uses it.",
	"content_instructions": "It has the agent act on instructions found in content (pages, documents, tool output, comments): a reviewer must approve it before any agent uses it.",
	"agent_rules":          "It is about the agent's own rules or instructions, not the form of its answers: a reviewer must approve it before any agent uses it.",
	"user_precedence":      "It sets the user's word above the operators, reviewers or policies the agent runs under: a reviewer must approve it before any agent uses it.",
	"code":                 "It holds code, a command, a tool call or JSON: a reviewer must approve it before any agent uses it.",
	"money":                "It moves or spends money (payments, transfers, refunds, purchases): a reviewer must approve it before any agent uses it.",
	"other_people":         "It sets a rule for other people, not for the user who said it: a reviewer must approve it before any agent uses it.",
	"content_copy":         "It copies the text of a page, document or tool output the agent reads into what it writes: a reviewer must approve it before any agent uses it.",
	"omission":             "It has the agent leave its own actions, changes, records or errors, or what the user did, out of what it reports: a reviewer must approve it before any agent uses it.",
	"booking":              "It has the agent book, reserve or order something, for the user or for someone else: a reviewer must approve it before any agent uses it.",
	"deletion":             "It has the agent delete, wipe or cancel things (orders, files, bookings, appointments): a reviewer must approve it before any agent uses it.",
	"access_grant":         "It gives someone access, permissions or a role: a reviewer must approve it before any agent uses it.",
	"messaging":            "It has the agent contact someone other than the user (e-mail, text, message or tell them): a reviewer must approve it before any agent uses it.",
	"promotion":            "It has the agent favour a named business or brand in what it recommends or lists: a reviewer must approve it before any agent uses it.",
	"policy_relaxed":       "It sets a rule, policy or requirement aside or loosens it: a reviewer must approve it before any agent uses it.",
	"favouritism":          "It puts one person ahead of the others who wait or are judged (a queue jumped, a priority or a score given): a reviewer must approve it before any agent uses it.",
	"encoded_text":         "It holds text a reader cannot read as written (encoded, spaced out, in pinyin, digits for letters): a reviewer must approve it before any agent uses it.",
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

// notAfterAt refuses a host name that is the domain of an e-mail address.
func notAfterAt(s string, loc []int) bool { return loc[0] == 0 || s[loc[0]-1] != '@' }
