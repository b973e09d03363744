package heuristic

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// lessonText holds a lesson in Chinese and English.
type lessonText struct{ zh, en string }

// lessonsByReason maps the structured reason of a failed check to a lesson
// worded generically, so the same kind of failure in two sessions yields the
// same statement and the merger groups them.
var lessonsByReason = map[string]lessonText{
	"cross_district": {
		zh: "远距离的大型景点单独安排一天，同一天内的景点按区域集中安排，避免跨区奔波",
		en: "Give a far-away major attraction a day of its own and group each day's sights by area, to avoid cross-district travel",
	},
	"time_conflict": {
		zh: "排行程前核对每项活动的时间，同一时段只安排一件事，避免时间冲突",
		en: "Check each activity's time before scheduling and never put two activities in the same time slot",
	},
	"over_budget": {
		zh: "给出方案前先用总费用核对预算，超出预算就先调整",
		en: "Check the total cost against the budget before presenting a plan, and adjust the plan if it is over",
	},
	"invoice_required": {
		zh: "提交报销前先核对凭证要求：超过免票额度的报销必须附发票扫描件",
		en: "Before submitting an expense claim, check the receipt rules: claims above the no-receipt limit need an invoice scan",
	},
	"test_failure": {
		zh: "测试失败时先查明原因修好，重跑测试全部通过后才算改完",
		en: "When a test fails, fix the cause and re-run the tests; call a change done only when they all pass",
	},
	"lint_error": {
		zh: "提交代码前先跑代码检查（linter），修掉所有问题再提交",
		en: "Run the linter before committing and fix every finding first",
	},
	"build_failure": {
		zh: "改完代码先确保能编译通过，再跑测试和提交",
		en: "Make sure the code builds before running the tests or committing",
	},
}

// reasonAliases maps other spellings of a reason to its canonical key.
var reasonAliases = map[string]string{
	"cross_area": "cross_district", "too_far": "cross_district", "distance": "cross_district",
	"schedule_conflict": "time_conflict", "overlap": "time_conflict",
	"budget": "over_budget", "over_limit": "over_budget",
	"missing_invoice": "invoice_required", "receipt_required": "invoice_required",
	"tests_failed": "test_failure", "test_failed": "test_failure",
	"lint": "lint_error", "lint_failed": "lint_error",
	"build_failed": "build_failure", "compile_error": "build_failure",
}

// checkResult is the structured message of a tool check, when it has one.
type checkResult struct {
	Result string `json:"result"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	Error  string `json:"error"`
}

// parseCheck reads the reason and detail of a tool result. Unstructured
// text gives no reason and its first line as the detail.
func parseCheck(text string) (reason, detail string) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "{") {
		var r checkResult
		if json.Unmarshal([]byte(t), &r) == nil {
			detail = r.Detail
			if detail == "" {
				detail = r.Error
			}
			return normalizeReason(r.Reason), detail
		}
	}
	line, _, _ := strings.Cut(t, "\n")
	return "", line
}

var reasonSeparators = strings.NewReplacer("-", "_", " ", "_")

func normalizeReason(r string) string {
	r = strings.ToLower(strings.TrimSpace(r))
	r = reasonSeparators.Replace(r)
	if canon, ok := reasonAliases[r]; ok {
		return canon
	}
	return r
}

// lessonFor words the lesson of a failed check of tool with reason.
func lessonFor(tool, reason string, zh bool) string {
	if l, ok := lessonsByReason[reason]; ok {
		if zh {
			return l.zh
		}
		return l.en
	}
	human := strings.ReplaceAll(reason, "_", " ")
	switch {
	case zh && human != "":
		return fmt.Sprintf("%s 检查报告“%s”问题时，先按原因修正，重新检查通过后再交付", tool, human)
	case zh:
		return fmt.Sprintf("%s 检查未通过时，先按原因修正，重新检查通过后再交付", tool)
	case human != "":
		return fmt.Sprintf("When %s reports %s, fix the cause and re-run %s; deliver only after it passes", tool, human, tool)
	}
	return fmt.Sprintf("When a %s check fails, fix the cause and re-run it; deliver only after it passes", tool)
}

// lessons finds each failed tool check followed by a passing re-check of the
// same tool, and makes a lesson supported by the failed event, the
// assistant's fix between them, and the passing event. External content is
// never a check.
func (s *session) lessons() {
	var pending map[string][]int // tool -> indices into s.failures
	for i, e := range s.events {
		if !isMessage(e) || e.Role != governance.RoleTool || e.Source == governance.SourceExternal || e.Tool == "" {
			continue
		}
		switch e.Status {
		case governance.StatusFailed:
			if pending == nil {
				pending = map[string][]int{}
			}
			reason, detail := parseCheck(e.Text)
			pending[e.Tool] = append(pending[e.Tool], len(s.failures))
			s.failures = append(s.failures, failure{index: i, tool: e.Tool, reason: reason, detail: detail})
		case governance.StatusPassed:
			for _, k := range pending[e.Tool] {
				s.lesson(&s.failures[k], i)
			}
			delete(pending, e.Tool)
		}
	}
}

// lesson records the lesson of failure f, re-checked successfully at event
// index pass.
func (s *session) lesson(f *failure, pass int) {
	support := []int64{s.events[f.index].Seq}
	for j := f.index + 1; j < pass; j++ {
		e := s.events[j]
		if e.Role == governance.RoleTool && e.Tool == f.tool {
			break // the next check of the same tool ends this fix
		}
		if isMessage(e) && e.Role == governance.RoleAssistant && e.Source != governance.SourceExternal {
			support = append(support, e.Seq)
		}
	}
	support = append(support, s.events[pass].Seq)
	f.fixed = true
	f.lesson = lessonFor(f.tool, f.reason, s.zh)
	if _, known := lessonsByReason[f.reason]; !known {
		if l := s.fixLesson(f, pass); l != "" {
			f.lesson = l
		}
	}
	s.add(governance.TypeLesson, f.lesson, false, support...)
}

// A lesson from a failed check without a known reason is worded from the
// fix that followed: what the assistant said it changed ("I'll pin the Node
// version in .nvmrc") and the check it made pass ("npm run ci:build").
var (
	fixOpenersEN = []string{"i'll ", "i will ", "i'm going to ", "let me ", "i've ", "i have ", "i ", "we need to ", "need to ", "the fix is to ", "fix: "}
	fixVerbsEN   = []string{"pin", "set", "add", "use", "install", "upgrade", "downgrade", "bump", "switch", "change", "update", "remove", "drop", "reset", "rename", "move", "export", "configure", "enable", "disable", "increase", "raise", "lower", "replace", "regenerate", "create", "initialise", "initialize", "clear", "fix", "pass", "run", "start", "wrap", "mock", "skip", "declare", "define", "import", "quote", "escape", "lock", "restore", "delete", "revert", "point", "give", "make", "edit", "apply", "added", "pinned", "set", "changed", "updated", "removed", "dropped", "replaced", "switched", "installed", "bumped", "fixed", "moved", "renamed", "declared", "defined"}
	fixOpenersZH = []string{"我来", "我先", "我会", "我把", "我给", "我已经", "已经", "需要", "改成", "先把", "把"}
	checkLineRe  = regexp.MustCompile(`(?m)^\[([^\]]{1,64})\] (.+)$`)
)

// fixLesson words the lesson of failure f from the events up to the passing
// re-check at pass; "" when no fix can be read.
func (s *session) fixLesson(f *failure, pass int) string {
	fix := ""
	for j := f.index + 1; j < pass && fix == ""; j++ {
		e := s.events[j]
		if !isMessage(e) || e.Role != governance.RoleAssistant || e.Source == governance.SourceExternal {
			continue
		}
		for _, sn := range splitSentences(nil, e.Text) {
			if strings.HasPrefix(strings.TrimSpace(sn.text), "[") {
				continue // a rendered tool call
			}
			if fix = fixPhrase(sn.text); fix != "" {
				break
			}
		}
	}
	if fix == "" {
		fix = s.editedFiles(f, pass)
	}
	if fix == "" {
		return ""
	}
	check := s.checkCommand(f)
	if s.zh || hasHan(fix) {
		if check == "" {
			return finish(fmt.Sprintf("%s 检查前先%s", f.tool, fix))
		}
		return finish(fmt.Sprintf("运行 %s 之前先%s", check, fix))
	}
	if check == "" {
		check = "the " + f.tool + " check"
	}
	if strings.Contains(lowerASCII(fix), " before ") {
		return finish(fmt.Sprintf("%s (it makes %s pass)", fix, check))
	}
	return finish(fmt.Sprintf("%s before running %s", fix, check))
}

// fixPhrase takes the change out of a sentence of the assistant's ("The
// build needs Node 20. I'll pin the Node version in .nvmrc" → "pin the Node
// version in .nvmrc").
func fixPhrase(sentence string) string {
	raw := strings.TrimSpace(sentence)
	if hasHan(raw) {
		for _, o := range fixOpenersZH {
			if i := strings.Index(raw, o); i >= 0 {
				rest := trimTrailing(strings.TrimSpace(raw[i+len(o):]))
				if o == "改成" || o == "把" || o == "先把" {
					rest = o + rest
				}
				if len([]rune(rest)) >= 3 {
					return truncateRunes(rest, 80)
				}
			}
		}
		return ""
	}
	lower := lowerASCII(raw)
	for _, o := range fixOpenersEN {
		i := strings.Index(lower, o)
		if i < 0 || i > 0 && isWordByte(lower[i-1]) {
			continue
		}
		rest := raw[i+len(o):]
		word, _, _ := strings.Cut(lowerASCII(rest), " ")
		if slices.Contains(fixVerbsEN, word) {
			rest = trimTrailing(strings.TrimSpace(rest))
			// Keep the change, not what follows it ("and re-run the build").
			for _, tail := range []string{" and re-run", " and rerun", " and run the", ", then", " and try again", " and retry"} {
				if k := strings.Index(lowerASCII(rest), tail); k > 0 {
					rest = rest[:k]
				}
			}
			return truncateRunes(rest, 120)
		}
	}
	return ""
}

// editTools are the tools agents change files with (Claude Code's Edit,
// MultiEdit and Write, Codex's apply_patch, editors of other harnesses), in
// lower case.
var editTools = map[string]bool{"edit": true, "multiedit": true, "write": true, "notebookedit": true, "apply_patch": true,
	"str_replace_editor": true, "str_replace_based_edit_tool": true, "edit_file": true, "write_file": true, "create_file": true}

// patchFileRe finds the files of an apply_patch call's patch text.
var patchFileRe = regexp.MustCompile(`\*\*\* (?:Update|Add) File: ([^\s"\\]+)`)

// editedFiles words the fix of failure f from the files the agent changed
// before the passing re-check at pass, when it changed them without saying
// what it did: "change .nvmrc" (Codex's apply_patch, Claude Code's Edit);
// "" when no file was edited. A lesson then names what was changed to
// pass the check rather than a template.
func (s *session) editedFiles(f *failure, pass int) string {
	var files []string
	for j := f.index + 1; j < pass; j++ {
		e := s.events[j]
		if !isMessage(e) || e.Role != governance.RoleAssistant || e.Source == governance.SourceExternal {
			continue
		}
		for _, m := range checkLineRe.FindAllStringSubmatch(e.Text, -1) {
			if !editTools[strings.ToLower(m[1])] {
				continue
			}
			var found []string
			for _, pm := range patchFileRe.FindAllStringSubmatch(m[2], -1) {
				found = append(found, pm[1])
			}
			if len(found) == 0 {
				if path, _, _ := strings.Cut(strings.TrimSpace(m[2]), " "); strings.ContainsAny(path, "/.") && !strings.HasPrefix(path, "{") {
					found = append(found, path)
				}
			}
			for _, path := range found {
				if base := baseName(path); base != "" && !slices.Contains(files, base) {
					files = append(files, base)
				}
			}
		}
	}
	if len(files) == 0 {
		return ""
	}
	if len(files) > 3 {
		files = files[:3]
	}
	if s.zh {
		return "修改 " + strings.Join(files, "、")
	}
	return "change " + strings.Join(files, ", ")
}

// baseName is the last element of a file path, the part a reader knows
// the file by (".nvmrc", "billing_test.go").
func baseName(path string) string {
	path = strings.TrimRight(path, "/")
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		path = path[i+1:]
	}
	return truncateRunes(path, 60)
}

// checkCommand is the command the failed check ran, from the assistant's
// rendered tool call just before it ("[Bash] npm run ci:build"), if any.
func (s *session) checkCommand(f *failure) string {
	for j := f.index - 1; j >= 0 && j >= f.index-3; j-- {
		e := s.events[j]
		if !isMessage(e) || e.Role != governance.RoleAssistant {
			continue
		}
		ms := checkLineRe.FindAllStringSubmatch(e.Text, -1)
		for k := len(ms) - 1; k >= 0; k-- {
			if ms[k][1] == f.tool {
				return truncateRunes(strings.TrimSpace(ms[k][2]), 80)
			}
		}
		return ""
	}
	return ""
}
