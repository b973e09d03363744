package templates

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/locale"
)

// An audit row's details read as label: value pairs in the page's
// language, in the order written: known fields by their catalog labels,
// unknown ones humanised, nested values flattened; never as JSON.
func TestAuditDetails(t *testing.T) {
	const details = `{"kind":"user_preference","from":"proposed","to":"active","rules":[3,4],"paused":true,` +
		`"subject":null,"rows_rewritten_later":2,"checkpoint":{"offset":12,"lines":3},"events":[]}`
	for _, tc := range []struct {
		language string
		want     []DetailPair
	}{
		{"en", []DetailPair{{"kind", "kind", "preference"}, {"from", "from", "proposed"}, {"to", "to", "active"},
			{"rules", "rules", "3, 4"}, {"paused", "paused", "Yes"}, {"subject", "subject", "—"},
			{"rows_rewritten_later", "rows rewritten later", "2"}, {"checkpoint", "checkpoint", "offset: 12; lines: 3"},
			{"events", "events", "—"}}},
		{"zh-CN", []DetailPair{{"kind", "类型", "偏好"}, {"from", "从", "已提议"}, {"to", "到", "生效中"},
			{"rules", "规则", "3, 4"}, {"paused", "已暂停", "是"}, {"subject", "主体", "—"},
			{"rows_rewritten_later", "rows rewritten later", "2"}, {"checkpoint", "检查点", "offset: 12; lines: 3"},
			{"events", "事件", "—"}}},
	} {
		ctx := locale.With(context.Background(), locale.For(tc.language))
		got := auditDetails(ctx, "rule", details)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d pairs, want %d: %+v", tc.language, len(got), len(tc.want), got)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: pair %d = %+v, want %+v", tc.language, i, got[i], tc.want[i])
			}
		}
	}
	ctx := locale.With(context.Background(), locale.For("zh-CN"))
	// Details that are no JSON object are shown as they are, unlabelled.
	for _, d := range []string{"suite web-travel", `["a"]`, `{"broken":`, `{"a":1} {"b":2}`} {
		if got := auditDetails(ctx, "eval_suite", d); len(got) != 1 || got[0].Label != "" || got[0].Value != d {
			t.Errorf("auditDetails(%q) = %+v", d, got)
		}
	}
	if got := auditDetails(ctx, "rule", ""); got != nil {
		t.Errorf("empty details = %+v", got)
	}
	// A status of another object type is labelled by that type's statuses.
	if got := auditDetails(ctx, "candidate", `{"was":"blocked"}`); len(got) != 1 || got[0].Value != "已拦截" {
		t.Errorf("candidate status = %+v", got)
	}
}

func TestExtractorLabel(t *testing.T) {
	zh := locale.With(context.Background(), locale.For("zh-CN"))
	en := locale.With(context.Background(), locale.For("en"))
	for _, tc := range []struct {
		ctx        context.Context
		name, want string
	}{
		{en, "heuristic/4", "heuristic extractor (4)"},
		{zh, "heuristic/4", "启发式提取器 (4)"},
		{zh, "model/qwen@prompt3", "模型提取器 (qwen@prompt3)"},
		{zh, "fake/1", "fake/1"},
		{zh, "", ""},
	} {
		if got := extractorLabel(tc.ctx, tc.name); got != tc.want {
			t.Errorf("extractorLabel(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
