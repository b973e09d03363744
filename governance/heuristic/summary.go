package heuristic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// summary writes the episode summary in at most three sentences: what was
// asked, what failed, how it was fixed (or, without a failure, what the user
// asked to keep and whether external content was read).
func (s *session) summary() string {
	messages, external, tools := 0, 0, 0
	for _, e := range s.events {
		if e != nil && e.Tool != "" {
			tools++
		}
		if isMessage(e) {
			messages++
			if e.Source == governance.SourceExternal {
				external++
			}
		}
	}
	if messages == 0 {
		return ""
	}
	request := s.request()
	var out []string
	if s.zh {
		if request != "" {
			out = append(out, "用户请求：“"+request+"”。")
		} else {
			out = append(out, fmt.Sprintf("会话共 %d 条消息。", messages))
		}
		out = append(out, s.failureSentencesZH()...)
		if len(s.failures) == 0 {
			var said []string
			if tools > 0 {
				said = append(said, "没有工具检查失败")
			}
			if s.prefs > 0 {
				said = append(said, fmt.Sprintf("用户提出了 %d 条要求，其中 %d 条长期有效", s.prefs, s.durables))
			}
			if len(said) > 0 {
				out = append(out, strings.Join(said, "；")+"。")
			}
			if external > 0 {
				out = append(out, fmt.Sprintf("会话读入了 %d 条外部来源内容，未经核实。", external))
			}
		}
		return strings.Join(out, "")
	}
	if request != "" {
		out = append(out, "The user asked: \""+request+"\".")
	} else {
		out = append(out, fmt.Sprintf("The session has %d messages.", messages))
	}
	out = append(out, s.failureSentencesEN()...)
	if len(s.failures) == 0 {
		switch {
		case tools > 0 && s.prefs > 0:
			out = append(out, "Every tool call succeeded; "+preferencesEN(s.prefs, s.durables))
		case tools > 0:
			out = append(out, "Every tool call succeeded.")
		case s.prefs > 0:
			p := preferencesEN(s.prefs, s.durables)
			out = append(out, strings.ToUpper(p[:1])+p[1:])
		}
		if external > 0 {
			out = append(out, externalEN(external))
		}
	}
	return strings.Join(out, " ")
}

// preferencesEN says, in lower case, how many preferences the user
// stated and how many of them are standing ones.
func preferencesEN(prefs, standing int) string {
	if prefs == 1 {
		if standing == 1 {
			return "the user stated a standing preference."
		}
		return "the user stated a preference."
	}
	return fmt.Sprintf("the user stated %d preferences, %d of them standing.", prefs, standing)
}

// externalEN says how many items of external content the session read.
func externalEN(n int) string {
	if n == 1 {
		return "The session read one item of external content, unverified."
	}
	return fmt.Sprintf("The session read %d items of external content, unverified.", n)
}

// request is the first sentence of substance in the user's first message.
func (s *session) request() string {
	var buf []sentence
	for i, e := range s.events {
		if !isMessage(e) || e.Role != governance.RoleUser || e.Source == governance.SourceExternal || s.dropped[i] {
			continue
		}
		for _, sn := range splitSentences(buf[:0], e.Text) {
			if isSmallTalk(lowerASCII(sn.text)) {
				continue
			}
			return truncateRunes(trimTrailing(stripLeading(sn.text, fillers)), s.quoteRunes())
		}
	}
	return ""
}

// quoteRunes is how much of the user's words or a tool's detail a summary
// quotes: Chinese says more in fewer runes.
func (s *session) quoteRunes() int {
	if s.zh {
		return 60
	}
	return 100
}

// firstSentence is the first sentence of a tool detail, shortened.
func (s *session) firstSentence(detail string) string {
	if ss := splitSentences(nil, detail); len(ss) > 0 {
		return truncateRunes(trimTrailing(ss[0].text), s.quoteRunes())
	}
	return ""
}

func (s *session) failureSentencesZH() []string {
	if len(s.failures) == 0 {
		return nil
	}
	var failed string
	if len(s.failures) == 1 {
		f := s.failures[0]
		failed = f.tool + " 检查未通过"
		if f.reason != "" {
			failed += "（" + f.reason + "）"
		}
		if d := s.firstSentence(f.detail); d != "" {
			failed += "：" + d
		}
	} else {
		failed = fmt.Sprintf("检查 %d 次未通过：%s", len(s.failures), strings.Join(s.failureNames("（", "）"), "、"))
	}
	lessons, open := s.outcome()
	var fixed string
	switch {
	case open == 0:
		fixed = "调整后复查通过：" + strings.Join(lessons, "；") + "。"
	case len(lessons) > 0:
		fixed = fmt.Sprintf("部分调整后复查通过，仍有 %d 项未通过复查。", open)
	default:
		fixed = "尚未通过复查。"
	}
	return []string{failed + "。", fixed}
}

func (s *session) failureSentencesEN() []string {
	if len(s.failures) == 0 {
		return nil
	}
	var failed string
	if len(s.failures) == 1 {
		f := s.failures[0]
		failed = f.tool + " failed"
		if f.reason != "" {
			failed += " (" + f.reason + ")"
		}
		if d := s.firstSentence(f.detail); d != "" {
			failed += ": " + d
		}
	} else {
		failed = fmt.Sprintf("Checks failed %d times: %s", len(s.failures), strings.Join(s.failureNames(" (", ")"), ", "))
	}
	lessons, open := s.outcome()
	var fixed string
	switch {
	case open == 0:
		fixed = "After the fix the re-check passed: " + strings.Join(lessons, "; ") + "."
	case len(lessons) > 0 && open == 1:
		fixed = "Some fixes passed the re-check; one check still fails."
	case len(lessons) > 0:
		fixed = fmt.Sprintf("Some fixes passed the re-check; %d checks still fail.", open)
	case len(s.failures) == 1:
		fixed = "It has not passed since."
	default:
		fixed = "None of them has passed since."
	}
	return []string{failed + ".", fixed}
}

// failureNames lists "tool(reason)" for each distinct failure.
func (s *session) failureNames(open, close string) []string {
	var names []string
	for _, f := range s.failures {
		name := f.tool
		if f.reason != "" {
			name += open + f.reason + close
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// outcome returns the distinct lessons of fixed failures and the number of
// failures never re-checked successfully.
func (s *session) outcome() (lessons []string, open int) {
	for _, f := range s.failures {
		switch {
		case !f.fixed:
			open++
		case !slices.Contains(lessons, f.lesson):
			lessons = append(lessons, f.lesson)
		}
	}
	return lessons, open
}
