package governance_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestRuleLifecycle spells out, for every action and every status, whether
// the lifecycle allows it. A change to the table must change this test.
func TestRuleLifecycle(t *testing.T) {
	const (
		P = governance.RuleProposed
		A = governance.RuleActive
		S = governance.RuleStale
		R = governance.RuleArchived
		U = governance.RuleSuperseded
		J = governance.RuleRejected
		F = governance.RuleForgotten
	)
	want := map[governance.RuleAction][]governance.RuleStatus{
		governance.RuleApprove:      {P},
		governance.RuleReject:       {P},
		governance.RuleHold:         {P},
		governance.RuleMerge:        {P},
		governance.RuleEditText:     {P, A, S, R},
		governance.RuleDemote:       {A, S},
		governance.RuleToCandidates: {A, S, R},
		governance.RuleRestore:      {S, R, J, U},
		governance.RuleSupersede:    {A, S, R},
		governance.RuleReplace:      {P, A, S, R, J},
		governance.RuleSplit:        {P, A, S},
		governance.RulePause:        {P, A, S, R, U, J},
		governance.RuleExpiry:       {P, A, S, R, U, J},
		governance.RuleForget:       {P, A, S, R, U, J},
	}
	if len(want) != len(governance.RuleActions) {
		t.Fatalf("the test covers %d actions, the table has %d", len(want), len(governance.RuleActions))
	}
	for _, action := range governance.RuleActions {
		allowed, ok := want[action]
		if !ok {
			t.Fatalf("no expectation for action %s", action)
		}
		for _, status := range governance.RuleStatuses {
			wantOK := false
			for _, s := range allowed {
				wantOK = wantOK || s == status
			}
			t.Run(string(action)+"/"+string(status), func(t *testing.T) {
				if got := governance.RuleAllows(status, action); got != wantOK {
					t.Fatalf("RuleAllows(%s, %s) = %v, want %v", status, action, got, wantOK)
				}
				r := &governance.Rule{ID: 7, Status: status}
				err := r.Allow(action)
				if wantOK && err != nil {
					t.Fatalf("Allow = %v", err)
				}
				if !wantOK && governance.ErrorCode(err) != governance.ECONFLICT {
					t.Fatalf("Allow = %v, want ECONFLICT", err)
				}
				if got := r.AllowedActions()[action]; got != wantOK {
					t.Fatalf("AllowedActions()[%s] = %v, want %v", action, got, wantOK)
				}
			})
		}
	}
	if (&governance.Rule{Status: A}).Allow("fly") == nil {
		t.Fatal("an unknown action is allowed")
	}
}
