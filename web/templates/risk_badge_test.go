package templates

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

// The risk badge names blocking classes and risk features by their labels
// in every language; its title keeps the identifiers.
func TestRiskBadge(t *testing.T) {
	fs := []governance.Finding{
		{Category: governance.GateInstructionHierarchy},
		{Category: governance.GateAuthority, Pattern: "data_movement"},
		{Category: governance.GateAuthority, Pattern: "email"},
		{Category: governance.GateAuthority, Pattern: "data_movement"},
		{Category: governance.GateAuthority, Pattern: "key_nearby", Redacted: true},
	}
	cases := map[string]string{
		"en":    "risk: instruction override, data movement, e-mail, credentials",
		"zh-CN": "风险：篡改指令层级、数据转移、电子邮件、凭据",
	}
	if got, want := riskIDs(fs), "instruction_hierarchy, data_movement, email, credentials"; got != want {
		t.Errorf("ids = %q, want %q", got, want)
	}
	for language, want := range cases {
		ctx := locale.With(context.Background(), locale.For(language))
		if got := riskBadge(ctx, fs); got != want {
			t.Errorf("%s: badge = %q, want %q", language, got, want)
		}
	}
}
