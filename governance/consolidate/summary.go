package consolidate

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// Episode summaries are read by agents and nobody reviews them first, so
// they describe what they may not quote. Each sentence of a summary is
// classified: a blocked one becomes gate.WithheldMarker; one that carries a
// risk feature, or that quotes an event of the session (a passage of
// quoteRunes runes) which is not safe to quote, is replaced by a sentence
// that says what kind of request was made and that it is not quoted. A
// user's or a document's words are safe to quote only inside the low-risk
// set; a tool's or the assistant's when nothing is found in them.

// quoteRunes is the length of a passage that counts as quoted.
const quoteRunes = 12

// kindPhrases name, per finding pattern or category, what a request
// touches, in the two languages summaries are written in.
var kindPhrases = map[string][2]string{
	"destination":          {"where data goes", "数据的去向"},
	"url":                  {"where data goes", "数据的去向"},
	"email":                {"where data goes", "数据的去向"},
	"phone_number":         {"where data goes", "数据的去向"},
	"account_number":       {"accounts and money", "账户与资金"},
	"lookalike_domain":     {"where data goes", "数据的去向"},
	"data_movement":        {"how data is sent or shared", "数据的发送或分享"},
	"personal_data":        {"personal or confidential data", "个人或机密数据"},
	"secret":               {"credentials", "凭据"},
	"identity":             {"who the agent is or whom it obeys", "智能体的身份或听从谁"},
	"check_relaxed":        {"the checks the agent makes", "智能体的检查"},
	"safety_off":           {"the checks the agent makes", "智能体的检查"},
	"concealment":          {"what the agent tells people", "智能体告诉别人什么"},
	"content_instructions": {"whose instructions the agent follows", "智能体听从谁的指令"},
	"outside_precedence":   {"whose instructions the agent follows", "智能体听从谁的指令"},
	"agent_rules":          {"the agent's own rules", "智能体自身的规则"},
	"code":                 {"commands the agent runs", "智能体运行的命令"},
	"shell_command":        {"commands the agent runs", "智能体运行的命令"},
	"money":                {"payments", "付款"},
	"other_people":         {"what the agent does for other people", "智能体对其他人的做法"},
	"encoded_text":         {"text that is encoded or disguised", "编码或伪装的文字"},

	governance.GateCredentials: {"credentials", "凭据"},
}

// otherKind is the kind of a request outside the low-risk set that no
// finding names.
var otherKind = [2]string{"something outside the low-risk set", "低风险范围以外的事"}

// kindsOf names what findings touch, without repeats, in language zh or en.
func kindsOf(fs []governance.Finding, zh bool) string {
	lang := 0
	if zh {
		lang = 1
	}
	var out []string
	for _, f := range fs {
		k, ok := kindPhrases[f.Pattern]
		if !ok {
			k, ok = kindPhrases[f.Category]
		}
		if !ok {
			k = [2]string{"the agent's instructions", "智能体的指令"}
		}
		if !slices.Contains(out, k[lang]) {
			out = append(out, k[lang])
		}
	}
	if len(out) == 0 {
		return otherKind[lang]
	}
	if zh {
		return strings.Join(out, "、")
	}
	return strings.Join(out, ", ")
}

// description is the sentence that stands for one not quoted.
func description(source governance.Role, external bool, fs []governance.Finding, zh bool) string {
	kinds := kindsOf(fs, zh)
	switch {
	case zh && external:
		return "外部内容提出了涉及" + kinds + "的要求，此处不引用。"
	case zh && source == governance.RoleUser:
		return "用户提出了涉及" + kinds + "的要求，已交审核，此处不引用。"
	case zh && source != "":
		return "会话中有涉及" + kinds + "的内容，此处不引用。"
	case zh:
		return "一句涉及" + kinds + "的内容已交审核，此处不复述。"
	case external:
		return "Outside content asked for something about " + kinds + "; it is not quoted here."
	case source == governance.RoleUser:
		return "The user asked for a change about " + kinds + "; it is held for review and not quoted here."
	case source != "":
		return "The session said something about " + kinds + "; it is not quoted here."
	}
	return "A sentence about " + kinds + " is held for review and not repeated here."
}

func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

// quotesText reports whether sentence repeats a passage of quoteRunes
// runes with letters in it of text (the whole of a shorter text).
func quotesText(sentence, text string) bool {
	r := []rune(text)
	if len(r) <= quoteRunes {
		return strings.TrimSpace(text) != "" && strings.Contains(sentence, text)
	}
	for i := 0; i+quoteRunes <= len(r); i++ {
		w := string(r[i : i+quoteRunes])
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 && strings.Contains(sentence, w) {
			return true
		}
	}
	return false
}

// describeSummary returns summary as an agent may read it (see above).
// classifyEvent classifies an event of the session by seq, once.
func (c *Consolidator) describeSummary(ctx context.Context, summary string, events []*governance.Event,
	classifyEvent func(seq int64) (governance.GateResult, error)) (string, error) {
	if strings.TrimSpace(summary) == "" {
		return summary, nil
	}
	var b strings.Builder
	last := ""
	for _, sentence := range splitSentences(summary) {
		out, err := c.describeSentence(ctx, sentence, events, classifyEvent)
		if err != nil {
			return "", err
		}
		if out == last && out != sentence {
			continue // one description for a run of sentences it stands for
		}
		b.WriteString(out)
		last = out
	}
	return strings.TrimSpace(b.String()), nil
}

func (c *Consolidator) describeSentence(ctx context.Context, sentence string, events []*governance.Event,
	classifyEvent func(seq int64) (governance.GateResult, error)) (string, error) {
	if strings.TrimSpace(sentence) == "" {
		return sentence, nil
	}
	res, err := c.Classifier.Classify(ctx, sentence)
	if err != nil {
		return "", err
	}
	if res.Blocked() {
		return gate.WithheldMarker + trailingSpace(sentence), nil
	}
	zh := hasHan(sentence)
	for _, e := range events {
		if e.Text == "" || !quotesText(sentence, e.Text) {
			continue
		}
		er, err := classifyEvent(e.Seq)
		if err != nil {
			return "", err
		}
		external := e.Source == governance.SourceExternal
		switch {
		case er.Blocked():
			return gate.WithheldMarker + trailingSpace(sentence), nil
		case (e.Role == governance.RoleUser || external) && er.LowRisk == "",
			e.Role != governance.RoleUser && !external && len(er.Findings) > 0:
			return description(e.Role, external, er.Findings, zh) + trailingSpace(sentence), nil
		}
	}
	if len(res.Findings) > 0 {
		return description("", false, res.Findings, zh) + trailingSpace(sentence), nil
	}
	return res.Text, nil
}

// trailingSpace returns the white space sentence ends with.
func trailingSpace(sentence string) string {
	return sentence[len(strings.TrimRightFunc(sentence, unicode.IsSpace)):]
}
