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
	"user_precedence":      {"whose word outranks the agent's operators", "谁的话高于智能体的运营方"},
	"code":                 {"commands the agent runs", "智能体运行的命令"},
	"shell_command":        {"commands the agent runs", "智能体运行的命令"},
	"money":                {"payments", "付款"},
	"other_people":         {"what the agent does for other people", "智能体对其他人的做法"},
	"content_copy":         {"content the agent copies into its answers", "智能体抄进回答的内容"},
	"omission":             {"what the agent leaves out of its reports", "智能体在汇报中略去什么"},
	"booking":              {"bookings and orders", "预订与下单"},
	"deletion":             {"what the agent deletes or cancels", "智能体删除或取消的东西"},
	"access_grant":         {"who gets access", "谁获得权限"},
	"messaging":            {"whom the agent contacts", "智能体联系谁"},
	"promotion":            {"which businesses the agent favours", "智能体偏向哪些商家"},
	"policy_relaxed":       {"which rules the agent keeps", "智能体遵守哪些规定"},
	"favouritism":          {"whom the agent puts first", "智能体优先照顾谁"},
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
	case zh && source == governance.RoleUser && len(fs) == 0:
		return "用户提出了一项低风险范围以外的要求，此处不引用。"
	case zh && source == governance.RoleUser:
		return "用户提出了涉及" + kinds + "的要求，此处不引用。"
	case zh && source != "":
		return "会话中有涉及" + kinds + "的内容，此处不引用。"
	case zh:
		return "一句涉及" + kinds + "的内容已交审核，此处不复述。"
	case external:
		return "Outside content asked for something about " + kinds + "; it is not quoted here."
	case source == governance.RoleUser && len(fs) == 0:
		return "The user made a request outside the low-risk set; it is not quoted here."
	case source == governance.RoleUser:
		return "The user asked for something about " + kinds + "; it is not quoted here."
	case source != "":
		return "The session said something about " + kinds + "; it is not quoted here."
	}
	return "A sentence about " + kinds + " is not repeated here."
}

func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

// describeSummary returns summary as an agent may read it (see above).
// classifyEvent classifies an event of the session by seq, once. The
// summary is classified whole; its sentences one by one only when one of
// them is blocked (risk features are not read in a blocked text) or holds
// a credential to mask.
func (c *Consolidator) describeSummary(ctx context.Context, summary string, events []*governance.Event,
	classifyEvent func(seq int64) (governance.GateResult, error)) (string, error) {
	if strings.TrimSpace(summary) == "" {
		return summary, nil
	}
	sentences := splitSentences(summary)
	starts := make([]int, len(sentences))
	for i, off := 1, 0; i < len(sentences); i++ {
		off += len(sentences[i-1])
		starts[i] = off
	}
	sentenceAt := func(pos int) int {
		i := 0
		for i+1 < len(starts) && starts[i+1] <= pos {
			i++
		}
		return i
	}
	whole, err := c.Classifier.Classify(ctx, summary)
	if err != nil {
		return "", err
	}
	results := make([]*governance.GateResult, len(sentences))
	if whole.Blocked() || whole.Redacted() {
		for i, sn := range sentences {
			r, err := c.Classifier.Classify(ctx, sn)
			if err != nil {
				return "", err
			}
			results[i] = &r
		}
	} else {
		for i := range sentences {
			results[i] = &governance.GateResult{Text: sentences[i]}
		}
		for _, f := range whole.Findings {
			r := results[sentenceAt(f.Start)]
			r.Findings = append(r.Findings, f)
		}
	}
	quoted := quotedEvents(summary, sentenceAt, len(sentences), events)

	var b strings.Builder
	last := ""
	for i, sentence := range sentences {
		out, err := c.describeSentence(sentence, results[i], quoted[i], classifyEvent)
		if err != nil {
			return "", err
		}
		if out == last && out != sentence {
			continue // one description for a run of sentences it stands for
		}
		last = out
		if out != sentence {
			// A description stands where the sentence stood, with the
			// spaces around it ("… a trip. The user asked … not quoted
			// here. The check …").
			out = sentence[:len(sentence)-len(strings.TrimLeftFunc(sentence, unicode.IsSpace))] +
				strings.TrimSpace(out) + sentence[len(strings.TrimRightFunc(sentence, unicode.IsSpace)):]
		}
		b.WriteString(out)
	}
	return strings.TrimSpace(b.String()), nil
}

// quotedEvents returns, per sentence of summary, the events it quotes: a
// passage of quoteRunes runes with a letter in it (the whole text of a
// shorter event). The summary's passages are indexed once; each event is
// read once against them.
func quotedEvents(summary string, sentenceAt func(int) int, n int, events []*governance.Event) [][]*governance.Event {
	out := make([][]*governance.Event, n)
	add := func(i int, e *governance.Event) {
		if len(out[i]) == 0 || out[i][len(out[i])-1] != e {
			out[i] = append(out[i], e)
		}
	}
	offsets := runeOffsets(summary)
	passages := make(map[string]int, len(offsets))
	for i := 0; i+quoteRunes < len(offsets); i++ {
		w := summary[offsets[i]:offsets[i+quoteRunes]]
		if _, ok := passages[w]; !ok && strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			passages[w] = sentenceAt(offsets[i])
		}
	}
	for _, e := range events {
		text := e.Text
		eo := runeOffsets(text)
		if len(eo)-1 <= quoteRunes {
			if strings.TrimSpace(text) == "" {
				continue
			}
			for from := 0; ; {
				j := strings.Index(summary[from:], text)
				if j < 0 {
					break
				}
				add(sentenceAt(from+j), e)
				from += j + len(text)
			}
			continue
		}
		for i := 0; i+quoteRunes < len(eo); i++ {
			if si, ok := passages[text[eo[i]:eo[i+quoteRunes]]]; ok {
				add(si, e)
			}
		}
	}
	return out
}

// runeOffsets returns the byte offset of every rune of s, and len(s).
func runeOffsets(s string) []int {
	out := make([]int, 0, len(s)+1)
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

// describeSentence is one sentence of a summary as an agent may read it,
// given what the classifier found in it and the events it quotes.
func (c *Consolidator) describeSentence(sentence string, res *governance.GateResult, quoted []*governance.Event,
	classifyEvent func(seq int64) (governance.GateResult, error)) (string, error) {
	if strings.TrimSpace(sentence) == "" {
		return sentence, nil
	}
	if res.Blocked() {
		return gate.WithheldMarker + trailingSpace(sentence), nil
	}
	zh := hasHan(sentence)
	for _, e := range quoted {
		er, err := classifyEvent(e.Seq)
		if err != nil {
			return "", err
		}
		external := e.Source == governance.SourceExternal
		switch {
		case er.Blocked():
			return gate.WithheldMarker + trailingSpace(sentence), nil
		case (e.Role == governance.RoleUser || external) && er.LowRisk == "" && !plainQuestion(e.Text, er),
			e.Role != governance.RoleUser && !external && len(er.Findings) > 0:
			return description(e.Role, external, er.Findings, zh) + trailingSpace(sentence), nil
		}
	}
	if len(res.Findings) > 0 {
		return description("", false, res.Findings, zh) + trailingSpace(sentence), nil
	}
	return res.Text, nil
}

// plainQuestion reports whether text, outside the low-risk set, is only a
// question about the task at hand ("孩子 13:00–15:00 午睡，上海迪士尼怎么
// 排？"): it ends with a question mark, and neither a finding nor a deny
// shape is in it — its clauses only lack a low-risk shape, as a question
// does. Such a question asks for this answer, not for standing behaviour,
// so a summary may quote it; an instruction worded as a question carries
// a deny shape or a finding and is still described.
func plainQuestion(text string, r governance.GateResult) bool {
	t := strings.TrimRightFunc(text, func(c rune) bool { return unicode.IsSpace(c) || c == '"' || c == '”' || c == '」' })
	if !strings.HasSuffix(t, "?") && !strings.HasSuffix(t, "？") || len(r.Findings) > 0 || r.NotPlaced == nil {
		return false
	}
	switch r.NotPlaced.Reason {
	case gate.NotPlacedShape, gate.NotPlacedClass:
		return true
	}
	return false
}

// trailingSpace returns the white space sentence ends with.
func trailingSpace(sentence string) string {
	return sentence[len(strings.TrimRightFunc(sentence, unicode.IsSpace)):]
}
