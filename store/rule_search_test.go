package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

func TestFindRulesQuery(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	now := time.Now().UTC().Format(time.RFC3339)
	for _, text := range []string{
		"孩子每天14:00–16:00要午睡，行程都空出来",
		"远距离的大型景点单独安排一天",
		"Always run the Linter before committing",
	} {
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO rules (project_id, kind, text, promotion_reason, status, created_at, updated_at)
			VALUES (?, 'user_preference', ?, 'explicit_user_instruction', 'active', ?, ?)`, p.ID, text, now, now); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(q string) string {
		rules, total, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID, Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, r := range rules {
			out = append(out, r.ID)
		}
		return fmt.Sprintf("%v/%d", out, total)
	}
	for q, want := range map[string]string{
		"单独安排":          "[2]/1",
		"午睡":            "[1]/1", // two characters: the CJK pair index
		"linter":        "[3]/1", // case-insensitive word
		"linter commit": "[3]/1",
		"linter 午睡":     "[]/0",
		"14":            "[1]/1", // short, not CJK: LIKE
	} {
		if got := ids(q); got != want {
			t.Errorf("%q: got %s, want %s", q, got, want)
		}
	}
	if _, err := s.ForgetRule(ctx, "test", 2, false); err != nil {
		t.Fatal(err)
	}
	if got := ids("单独安排"); got != "[]/0" {
		t.Errorf("forgotten rule still found: %s", got)
	}
}
