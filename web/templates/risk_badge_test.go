package templates

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

// The risk badge keeps the blocking classes' category names in English and
// names risk features by their labels; Chinese shows labels for both.
func TestRiskBadge(t *testing.T) {
	fs := []governance.Finding{
		{Category: governance.GateInstructionHierarchy},
		{Category: governance.GateAuthority, Pattern: "data_movement"},
		{Category: governance.GateAuthority, Pattern: "email"},
		{Category: governance.GateAuthority, Pattern: "data_movement"},
		{Category: governance.GateAuthority, Pattern: "key_nearby", Redacted: true},
	}
	cases := map[string]string{
		"en":    "risk: instruction_hierarchy, data movement, e-mail, credentials",
		"zh-CN": "风险：篡改指令层级、数据转移、电子邮件、凭据",
	}
	for language, want := range cases {
		ctx := locale.With(context.Background(), locale.For(language))
		if got := riskBadge(ctx, fs); got != want {
			t.Errorf("%s: badge = %q, want %q", language, got, want)
		}
	}
}
