package locale_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/transcript"
	"github.com/mnemo-console/mnemo/web/templates"
)

func TestCatalogs(t *testing.T) {
	if err := locale.Check(); err != nil {
		t.Fatal(err)
	}
	en, err := locale.Catalog(locale.English)
	if err != nil {
		t.Fatal(err)
	}
	zh, err := locale.Catalog(locale.Chinese)
	if err != nil {
		t.Fatal(err)
	}
	for id := range en {
		if !zh[id] {
			t.Errorf("%q is in the English catalog but not in the Chinese one", id)
		}
	}
	for id := range zh {
		if !en[id] {
			t.Errorf("%q is in the Chinese catalog but not in the English one", id)
		}
	}
}

// usedIDs finds the message ids the code asks for literally: t(ctx, "id"),
// tn(ctx, "id", n), tr(c, "id"), loc.T("id"), loc.N("id", n) and
// loc.Phrase("...") in Go and templ files, and the English sentences the web
// layer passes as page titles, flashes and error messages.
func usedIDs(t *testing.T) map[string][]string {
	t.Helper()
	patterns := []*regexp.Regexp{
		regexp.MustCompile(`\b(?:t|tn|tr)\((?:ctx|c), "([^"]+)"`),
		regexp.MustCompile(`\.(?:T|N|Phrase|Phrasef)\("([^"]+)"`),
		regexp.MustCompile(`\bs\.meta\(c, "([^"]+)", `),
		regexp.MustCompile(`\bs\.flash\(c, auth\.Flash[A-Za-z]+, "([^"%]+)"\)`),
		regexp.MustCompile(`\bmsgf?\(c, "([^"]+)"`),
		// A form field's error with a value, which the page says through
		// the catalog's format (app.FieldErrors).
		regexp.MustCompile(`\berrs\["[a-z_]+"\] = fmt\.Sprintf\("([^"]+)"`),
	}
	webErrors := regexp.MustCompile(`Errorf\(governance\.E[A-Z]+,\s*"([^"%]+)"\)`)
	// A sentence kept as a governance.Text: a field error, an eval reason.
	says := regexp.MustCompile(`\b(?:governance\.)?Say\("((?:[^"\\]|\\.)+)"`)
	used := map[string][]string{}
	err := walkSources("..", func(path, src string) {
		ps := patterns
		name, dir := filepath.Base(path), filepath.Base(filepath.Dir(path))
		// Errors people read: the web layer's (not the API's, whose
		// clients are programs) and those of the packages whose errors
		// reach a page or the CLI as they are (use cases, importers, the
		// model client, the console's commands).
		switch dir {
		case "web":
			if !strings.HasPrefix(name, "api") && name != "mcp.go" {
				ps = append(ps, webErrors, says)
			}
		case "app", "transcript", "model", "console":
			ps = append(ps, webErrors, says)
		default:
			ps = append(ps, says)
		}
		for _, re := range ps {
			for _, m := range re.FindAllStringSubmatch(src, -1) {
				if strings.HasSuffix(m[1], " ") || strings.HasSuffix(m[1], "#") || strings.HasSuffix(m[1], ".") && !strings.Contains(m[1], " ") {
					continue // the start of a title that names a value
				}
				id := m[1]
				if u, err := strconv.Unquote(`"` + id + `"`); err == nil {
					id = u // "A\tB" names the id with a tab
				}
				used[id] = append(used[id], path)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return used
}

// walkSources calls visit with every hand-written Go and templ source under
// root (not tests, not generated code, not testdata or hidden directories).
// The tree may change while it is read: other packages' tests run at the
// same time and some write files under their own directory (a SQLite
// database and its -wal, a temporary directory), and an editor or a git
// merge may replace a file. An entry that is gone by the time it is read
// is skipped rather than failing the walk: it is not a source.
func walkSources(root string, visit func(path, src string)) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_templ.go") || strings.HasSuffix(name, "_test.go") ||
			!(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".templ")) {
			return nil
		}
		buf, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		visit(path, string(buf))
		return nil
	})
}

// TestWalkSourcesWhileTheTreeChanges: a directory removed after the walk
// listed its parent (as a test of another package removes its temporary
// directory) is skipped; the old walk failed the whole test with "no such
// file or directory", which is how TestEveryUsedMessageIsInBothCatalogs
// failed once in a full -race run.
func TestWalkSourcesWhileTheTreeChanges(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a.go", "b/c.go", "b/d/e.go", "z.go"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("package x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	err := walkSources(root, func(path, src string) {
		rel, _ := filepath.Rel(root, path)
		seen = append(seen, filepath.ToSlash(rel))
		if rel == "a.go" {
			// Listed already (root was read before a.go), gone before it is visited.
			if err := os.RemoveAll(filepath.Join(root, "b")); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(root, "z.go")); err != nil {
				t.Fatal(err)
			}
		}
	})
	if err != nil {
		t.Fatalf("walk failed on a vanished entry: %v", err)
	}
	if strings.Join(seen, " ") != "a.go" {
		t.Errorf("visited %v, want only a.go", seen)
	}
}

func TestEveryUsedMessageIsInBothCatalogs(t *testing.T) {
	used := usedIDs(t)
	if len(used) < 60 {
		t.Fatalf("found only %d message ids in the code; is the scan broken?", len(used))
	}
	var ids []string
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, code := range locale.Languages {
		cat, err := locale.Catalog(code)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if !cat[id] {
				t.Errorf("%s: message %q (used in %s) is missing", code, id, used[id][0])
			}
		}
	}
}

// TestEnumLabels: every value of every enumerated type shown on a page has a
// label in both languages, so no raw identifier such as
// repeated_across_sessions reaches a page.
func TestEnumLabels(t *testing.T) {
	enums := map[string][]string{
		"account_role":     {"admin", "reviewer", "member"},
		"event_role":       {string(governance.RoleUser), string(governance.RoleAssistant), string(governance.RoleTool)},
		"event_source":     {string(governance.SourceConversation), string(governance.SourceTool), string(governance.SourceExternal)},
		"event_kind":       {string(governance.KindMessage), string(governance.KindSessionEnd)},
		"event_status":     {governance.StatusPassed, governance.StatusFailed},
		"memory_type":      {string(governance.TypePreference), string(governance.TypeFact), string(governance.TypeLesson)},
		"candidate_status": strs(governance.CandidateStatuses),
		"promotion_reason": strs(governance.PromotionReasons),
		"class_reason":     strs(governance.ClassReasons),
		"rule_status":      strs(governance.RuleStatuses),
		"risk":             {governance.RiskLow, governance.RiskMedium, governance.RiskHigh},
		"recall_kind":      {string(governance.RecallKindRule), string(governance.RecallKindEpisode), string(governance.RecallKindEvent)},
		"trace":            {governance.TraceIncluded, governance.TraceOverBudget, governance.TraceLowRelevance, governance.TraceConflict, governance.TraceEmpty},
		"gate":             append(append([]string{}, governance.GateCategories...), governance.SkillCategories...),
		"risk_feature":     append(gate.RiskFeatures(), model.ModelPattern),
		"skill_status":     {"proposed", "active", "stale", "archived", "rejected"},
		"skill_version_status": {string(governance.VersionProposed), string(governance.VersionActive),
			string(governance.VersionSuperseded), string(governance.VersionRejected)},
		"skill_origin":          {string(governance.OriginImport), string(governance.OriginEvidence), string(governance.OriginReviewer)},
		"outcome_verdict":       strs(governance.OutcomeVerdicts),
		"outcome_review_status": strs(governance.OutcomeReviewStatuses),
		"receipt_state":         strs(governance.ReceiptStates),
		"rule_sort":             {"id", string(governance.RuleSortMisled), string(governance.RuleSortHelped)},
		"eval_change":           {string(evals.Regression), string(evals.Fixed), string(evals.Same), string(evals.NotRunOffline)},
		"eval_not_run":          strs(evals.NotRunReasons),
		"audit_action":          governance.AuditActions,
		// The gate's classes, risk features and low-risk classes, the
		// objects of audit rows, code checks, extractors, formats, scopes.
		"low_risk_class": gate.LowRiskClasses(),
		"object_type":    templates.AuditObjectTypes,
		"check_type":     evals.CheckTypes,
		"eval_kind":      strs(evals.Kinds),
		"extractor":      {extractorFamily(heuristic.Name), extractorFamily(model.New(model.Config{Model: "m"}, nil).Name())},
		"import_format":  append([]string{"auto"}, strs(transcript.Formats)...),
		"token_scope":    strs(governance.TokenScopes),
	}
	for _, c := range governance.GateClasses {
		if !slices.Contains(enums["gate"], c) {
			t.Errorf("gate class %q is not among the labelled gate categories", c)
		}
	}
	if len(governance.SkillStatuses) != len(enums["skill_status"]) || len(governance.SkillVersionStatuses) != 4 || len(governance.SkillOrigins) != 3 {
		t.Fatal("a skill enum grew: label its new values")
	}
	// Why the skill review flagged a file (its data file's sentences too).
	for _, why := range governance.SkillReviewSentences() {
		for _, code := range locale.Languages {
			if !locale.For(code).Has(why) {
				t.Errorf("%s: skill finding reason %q is missing", code, why)
			}
		}
	}
	for _, code := range locale.Languages {
		l := locale.For(code)
		for kind, values := range enums {
			for _, v := range values {
				if !l.Has(kind + "." + v) {
					t.Errorf("%s: no label for %s %q", code, kind, v)
				}
			}
		}
	}
}

func TestPlurals(t *testing.T) {
	en, zh := locale.For(locale.English), locale.For(locale.Chinese)
	for _, tc := range []struct {
		got, want string
	}{
		{en.N("duration.days", 1), "1 day"},
		{en.N("duration.days", 2), "2 days"},
		{zh.N("duration.days", 2), "2 天"},
		{en.Number(12345), "12,345"},
		{en.Date(time.Date(2026, 11, 30, 14, 5, 0, 0, time.UTC)), "30 Nov 2026"},
		{zh.DateTime(time.Date(2026, 11, 30, 14, 5, 0, 0, time.UTC)), "2026年11月30日 14:05 UTC"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct{ saved, accept, want string }{
		{"", "", locale.English},
		{"", "zh-CN,zh;q=0.9,en;q=0.8", locale.Chinese},
		{"", "zh", locale.Chinese},
		{"", "fr-FR, de", locale.English},
		{"en", "zh-CN", locale.English},
		{"zh-CN", "en-US", locale.Chinese},
		{"xx", "zh-Hans", locale.Chinese},
	} {
		if got := locale.Match(tc.saved, tc.accept); got != tc.want {
			t.Errorf("Match(%q, %q) = %q, want %q", tc.saved, tc.accept, got, tc.want)
		}
	}
}

func TestPhrase(t *testing.T) {
	zh := locale.For(locale.Chinese)
	if got := zh.Phrase("Rule not found."); got != "未找到该规则。" {
		t.Errorf("got %q", got)
	}
	if got := zh.Phrase("Rule #12 was approved."); got != "Rule #12 was approved." {
		t.Errorf("a sentence with no entry changed: %q", got)
	}
}

// TestValueSentences: a translated format uses the same values as its
// English one (so Phrasef never prints %!d(MISSING)); a page translates an
// error's format, or a Text kept or stored, with its values.
func TestValueSentences(t *testing.T) {
	en, err := locale.Catalog(locale.English)
	if err != nil {
		t.Fatal(err)
	}
	zh := locale.For(locale.Chinese)
	n := 0
	for id := range en {
		if !locale.HasVerbs(id) || !zh.Has(id) {
			continue
		}
		n++
		if got, want := strings.Join(locale.Verbs(zh.T(id)), " "), strings.Join(locale.Verbs(id), " "); got != want {
			t.Errorf("%q: the translation uses %s, the English %s", id, got, want)
		}
	}
	if n < 50 {
		t.Fatalf("only %d sentences with values; is the scan broken?", n)
	}
	ge := governance.Errorf(governance.EFORBIDDEN, "Rule %d is not in project %s.", 12, "atlas")
	if got, want := ge.Message, "Rule 12 is not in project atlas."; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	for _, tc := range []struct{ got, want string }{
		{zh.ErrorMessage(fmt.Errorf("wrapped: %w", ge)), "规则 12 不属于项目 atlas。"},
		{locale.For(locale.English).ErrorMessage(ge), "Rule 12 is not in project atlas."},
		{zh.Phrasef("rule %d matching %s disappeared", 7, `"go vet"`), `匹配 "go vet" 的规则 7 消失了`},
		// Kept as a format and values (a governance.Text): translated with
		// them, reordered, values that are sentences translated in turn.
		{zh.Text(governance.Say("rule %d matching %s disappeared", 7, `"go vet"`)), `匹配 "go vet" 的规则 7 消失了`},
		{zh.Text(governance.Say("leak: %s", governance.Say("rule %d matching %s disappeared", 7, "x"))), "泄漏：匹配 x 的规则 7 消失了"},
		{zh.Text(governance.Say("id duplicates line %d", 3)), "id 与第 3 行重复"},
		{zh.Text(governance.Say("Rule %d is not in project %s.", 12, "a b")), "规则 12 不属于项目 a b。"},
		{zh.Text(governance.Lines(governance.Say("id duplicates line %d", 2), governance.Say("id duplicates line %d", 3))), "id 与第 2 行重复\nid 与第 3 行重复"},
		// Through JSON, as a stored reason or a flash is kept.
		{zh.Text(governance.ParseText(governance.StoreText(governance.Say("leak: %s", governance.Say("rule %d matching %s disappeared", int64(7), "x"))))), "泄漏：匹配 x 的规则 7 消失了"},
		// An English sentence stored before sentences were kept so is shown as it is.
		{zh.Text(governance.ParseText("rule 7 matching x disappeared")), "rule 7 matching x disappeared"},
		{zh.Text(governance.ParseText("Rule not found.")), "未找到该规则。"},
		{zh.Phrase("rule 7 matching x disappeared"), "rule 7 matching x disappeared"},
		// Words and noun phrases as values get their labels: a status, an action, a role, a scope.
		{zh.ErrorMessage((&governance.Rule{ID: 5, Status: governance.RuleArchived}).Allow(governance.RuleDemote)),
			"规则 5 的状态是“已归档”；只有状态为“生效中或已过时”的规则才能变为“已降级”。"},
		{zh.Text(governance.Say("The run has already finished (%s).", "cancelled")), "该运行已经结束（已取消）。"},
		{zh.ErrorMessage(governance.Errorf(governance.ENOTFOUND, "%s not found.", "Rule")), "未找到该规则。"},
		{zh.ErrorMessage(governance.Errorf(governance.ECONFLICT, "A %s suite named %q already exists; choose another name.", "builtin", "x")),
			`已有名为 "x" 的内置评测套件，请换一个名称。`},
		{zh.Text(governance.Say("none of the %d active rules of %s crossed (%d memories filtered by scope)", 2, governance.Say("subject %s of project %s", "x", "travel"), 4)),
			"项目 travel 的主体 x 的 2 条生效规则均未越界（4 条记忆被范围过滤）"},
		{zh.Text(governance.Say("rule %d: %s v%d → %s v%d", 3, governance.RuleProposed, 1, governance.RuleActive, 2)), "规则 3：已提议 v1 → 生效中 v2"},
		{zh.ShortDuration(12 * time.Millisecond), "12 毫秒"},
		{locale.For(locale.English).ShortDuration(1400 * time.Millisecond), "1.4 s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// extractorFamily is what an extractor's name is labelled by: the part
// before its version ("heuristic" of "heuristic/4").
func extractorFamily(name string) string {
	family, _, _ := strings.Cut(name, "/")
	return family
}

func strs[S ~string](list []S) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}
