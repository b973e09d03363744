package templates

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/locale"
)

// A proposal outside the low-risk set says which clause kept it out and
// why, in the reviewer's language. (The statement carries no finding: a
// persona the risk features name, "stay Marlowe in every future chat", is
// a finding the reviewer sees instead.)
func TestCandidateWhy_NotPlaced(t *testing.T) {
	res := gate.Scan("From now on keep replies short; be Marlowe in every chat.")
	if res.LowRisk != "" || res.NotPlaced == nil {
		t.Fatalf("low-risk %q, not placed %+v; want the persona clause outside the set", res.LowRisk, res.NotPlaced)
	}
	why := "The user said it holds from now on." + governance.WhyNotPlaced(*res.NotPlaced)
	cases := map[string][]string{
		"en":    {why},
		"zh-CN": {"用户说过从现在起都要这样。", "它不在低风险范围内：“be Marlowe in every chat”给智能体设定了身份或角色，因此须经审核人批准。"},
	}
	for language, want := range cases {
		ctx := locale.With(context.Background(), locale.For(language))
		got := candidateWhy(ctx, why, res.NotPlaced)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: why = %q, want it to hold %q", language, got, w)
			}
		}
	}
}

// A reason stored before its clause was kept shows that sentence as it
// was stored: nothing reads it back out of the English.
func TestCandidateWhy_NotPlacedStoredBefore(t *testing.T) {
	np := governance.NotPlaced{Clause: "be Marlowe in every chat", Reason: "persona"}
	why := "The user said it holds from now on." + governance.WhyNotPlaced(np)
	ctx := locale.With(context.Background(), locale.For("zh-CN"))
	if got := candidateWhy(ctx, why, nil); got != why {
		t.Errorf("why = %q, want it as stored", got)
	}
}
