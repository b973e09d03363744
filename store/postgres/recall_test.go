package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestRecallRuleCounts: the per-project active counts the scope filter
// reports (recall_rule_counts, kept by triggers of migration 0006) stay
// equal to a full count through inserts, status changes, project moves
// and deletes.
func TestRecallRuleCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	a := storetest.LoadMemoryFixture(t, s, "a")
	b := storetest.MustCreateProject(t, s, "b")
	check := storetest.RecallRuleCountsCheck(t, func(query string) (n int, err error) {
		err = s.Pool().QueryRow(ctx, query).Scan(&n)
		return n, err
	})
	check("import")
	far, nap := a.Rules[storetest.RuleFar], a.Rules[storetest.RuleNap]
	for _, q := range []string{
		fmt.Sprintf(`UPDATE rules SET status = 'forgotten' WHERE id = %d`, far),
		`UPDATE rules SET status = 'active' WHERE status = 'proposed'`,
		fmt.Sprintf(`UPDATE rules SET project_id = %d WHERE id = %d`, b.ID, nap),
		`UPDATE rules SET text = 'edited', version = version + 1`,
		fmt.Sprintf(`DELETE FROM rule_versions WHERE rule_id = %d`, nap),
		fmt.Sprintf(`UPDATE candidates SET rule_id = NULL WHERE rule_id = %d`, nap),
		fmt.Sprintf(`DELETE FROM rules WHERE id = %d`, nap),
	} {
		if _, err := s.Pool().Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		check(q)
	}
	if _, err := s.ForgetRule(ctx, "t", a.Rules[storetest.RuleCheck], false); err != nil {
		t.Fatal(err)
	}
	check("forget")
	pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "x", ProjectID: b.ID})
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM rules WHERE status = 'active' AND project_id <> $1`, b.ID).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if got := pkg.Trace.ScopeFiltered.RulesOtherProjects; int64(got) != want || want == 0 {
		t.Fatalf("other projects = %d, want %d", got, want)
	}
}
