package evals_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

// TestReportTextInChinese: "console eval run"'s report under a Chinese
// locale labels its case statuses and kinds, its compliance rows and its
// benchmark table (headers, retrievers, categories, verdict), and its
// times are written in its words, and
// columns line up on a terminal although a Chinese character takes two
// columns.
func TestReportTextInChinese(t *testing.T) {
	up, with, without := 0.5, 0.9, 0.4
	rep := &evals.Report{Suite: "s",
		Cases: []*evals.CaseResult{
			{CaseID: "c1", Kind: evals.KindBenchmark, Status: evals.StatusPassed, Reason: "8 questions measured, 2 without usable evidence, 2 malformed evidence ids",
				Why: governance.Say("%d questions measured, %d without usable evidence, %d malformed evidence ids", 8, 2, 2)},
			{CaseID: "c2", Kind: evals.KindAB, Status: evals.StatusSkipped, Reason: evals.NoModelReason, Why: governance.Say(evals.NoModelReason)},
			{CaseID: "c3", Kind: evals.KindRecall, Status: evals.StatusFailed, Reason: "rule 7 is stale after the forget, not forgotten",
				Why: governance.Say("rule %d is %s after the forget, not forgotten", 7, "stale")},
			{CaseID: "c4", Kind: evals.KindRecall, Status: evals.StatusSkipped, Reason: "a forget in project p9 during this run removed data this case reads; it was not judged",
				Why: governance.Say("a forget in project %s during this run removed data this case reads; it was not judged", "p9")},
		},
		Metrics: evals.Metrics{Total: 3, Passed: 1, Failed: 1, Skipped: 1, DurationMS: 1444, CleanupMS: 250, Forgets: 2, Uplift: &up, With: &with, Without: &without,
			Compliance: []evals.RuleAggregate{{Name: "always run go vet", Cases: 1, With: 0.9, Without: 0.4, Uplift: 0.5, Method: "code"}},
			Benchmark: &evals.BenchmarkTable{K: []int{1}, Questions: 3, Turns: 9, Rows: []evals.MetricRow{
				{Retriever: evals.RetrieverSearch, Category: "overall", Questions: 3, HitAt: []evals.Score{{K: 1, Value: 1}}, AllAt: []evals.Score{{K: 1, Value: 1}}, NDCG10: 1},
				{Retriever: evals.RetrieverFTS5, Category: "4 single-hop", Questions: 3, HitAt: []evals.Score{{K: 1, Value: 0.5}}, AllAt: []evals.Score{{K: 1, Value: 0.5}}, NDCG10: 0.5},
			}}}}
	var en, zh strings.Builder
	if err := rep.WriteText(&en); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteTextIn(&zh, locale.For(locale.Chinese)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PASSED", "SKIPPED", "FAILED", "retriever", "single-hop", "with 0.90 without 0.40", "FAIL", "took 1.4s (removing scratch projects 250ms, 1.2s without)",
		"forgets during the run: 2 removed data it copied from live projects"} {
		if !strings.Contains(en.String(), want) {
			t.Errorf("English report: no %q in\n%s", want, en.String())
		}
	}
	for _, want := range []string{"通过", "已跳过", "失败", "基准", "检索器", "单跳", "有记忆 0.90", "FTS5 全文", "测量了 8 个问题", "已跳过：未配置模型接口", "用时 1.4 秒（清理临时项目用时 250 毫秒，不含清理 1.2 秒）",
		"运行期间有 2 次遗忘删除了从在用项目复制的数据", "项目 p9 中的一次遗忘删除了此用例读取的数据"} {
		if !strings.Contains(zh.String(), want) {
			t.Errorf("Chinese report: no %q in\n%s", want, zh.String())
		}
	}
	// English left: words outside identifiers, metric names and the
	// environment variables a user types.
	keep := regexp.MustCompile(`\b(?:hit|all|nDCG|go|vet|run|always|s|c\d|ms|MNEMO_\w+|FTS\d|A/B)\b|@\d+`)
	if w := regexp.MustCompile(`[A-Za-z]{3,}`).FindString(keep.ReplaceAllString(zh.String(), "")); w != "" {
		t.Errorf("English %q left in the Chinese report:\n%s", w, zh.String())
	}
	// The benchmark rows start their numbers in the header's column.
	var cols []int
	for _, l := range strings.Split(zh.String(), "\n") {
		if i := strings.Index(l, "hit@1"); i >= 0 {
			cols = append(cols, locale.Width(l[:i]))
		}
		if i := strings.Index(l, " 1.000 "); i >= 0 && strings.Contains(l, "搜索") {
			cols = append(cols, locale.Width(l[:i+1]))
		}
	}
	if len(cols) != 2 || cols[0]+2 != cols[1] { // "hit@1  " over "  1.000"
		t.Errorf("columns %v do not line up:\n%s", cols, zh.String())
	}
}

// TestStoredReasonInChinese: a case's reason and problems are stored as
// their formats and values and read back so, and a page in Chinese says
// them with their values; a result stored before keeps its English.
func TestStoredReasonInChinese(t *testing.T) {
	zh := locale.For(locale.Chinese)
	res := &evals.CaseResult{CaseID: "c1", Kind: evals.KindSequence, Status: evals.StatusFailed,
		Reason: "rule 7 is stale after the forget, not forgotten",
		Why:    governance.Say("%s (and %d more)", governance.Say("rule %d is %s after the forget, not forgotten", 7, "stale"), 2)}
	detail, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	got := evals.DecodeResults([]*evals.ResultRow{
		{CaseID: "c1", Kind: "sequence", Status: evals.StatusFailed, Reason: res.Reason, Detail: string(detail)},
		{CaseID: "c0", Kind: "sequence", Status: evals.StatusFailed, Reason: "rule 3 still holds its text after the forget", Detail: `{"case_id":"c0"}`},
	})
	if s := zh.Text(got[0].Sentence()); !strings.Contains(s, "7") || !strings.Contains(s, "已过时") || !strings.Contains(s, "另有 2 项") {
		t.Errorf("stored reason in Chinese: %q", s)
	}
	if s := zh.Text(got[1].Sentence()); s != "rule 3 still holds its text after the forget" {
		t.Errorf("a reason stored before: %q", s)
	}
}
