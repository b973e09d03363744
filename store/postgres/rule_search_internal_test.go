package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
)

// TestRulesSearchUsesIndexes: a rules query over a project of many rules
// reads the trigram index (migration 0016) for an English word and the
// words index for a Chinese one, instead of testing every rule's text;
// the results are the ILIKE contract's (storetest.TestFindRulesQuery).
func TestRulesSearchUsesIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := &governance.Project{Slug: "many", Name: "many"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	const n = 4000
	var texts, words []string
	for i := range n {
		text := fmt.Sprintf("Rule %d: take the morning train before %02d:00", i, i%24)
		switch i % 1000 {
		case 7:
			text = fmt.Sprintf("远距离的大型景点单独安排一天 (%d)", i)
		case 8:
			text = fmt.Sprintf("Always run the xylophone linter before committing (%d)", i)
		}
		texts, words = append(texts, text), append(words, tsvectorOf(text))
	}
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO rules (project_id, kind, text, promotion_reason, status, created_at, updated_at, words)
		SELECT $1, 'user_preference', t, 'explicit_user_instruction', 'active', now(), now(), w::tsvector
		FROM unnest($2::text[], $3::text[]) AS x(t, w)`, p.ID, texts, words); err != nil {
		t.Fatal(err)
	}
	// A table the autovacuum has seen: GIN's pending entries merged into
	// the index, statistics taken.
	if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE rules`); err != nil {
		t.Fatal(err)
	}
	for q, indexes := range map[string][]string{
		"单独安排":        {"rules_text_trgm", "rules_words"},
		"单独":          {"rules_words"}, // too short for trigrams
		"xylophone":   {"rules_text_trgm"},
		"LINTER xylo": {"rules_text_trgm"},
	} {
		f := governance.RuleFilter{ProjectID: &p.ID, Query: q}
		w := ruleWhere(f)
		var plan []string
		if err := queryAll(ctx, s.pool, `EXPLAIN SELECT r.id FROM rules r WHERE `+w.String()+` ORDER BY r.id`, w.args,
			func(r pgx.Row) error {
				var line string
				err := r.Scan(&line)
				plan = append(plan, line)
				return err
			}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(plan, "\n"); !slices.ContainsFunc(indexes, func(ix string) bool { return strings.Contains(got, ix) }) {
			t.Errorf("%q: plan reads none of %v:\n%s", q, indexes, got)
		}
		rules, total, err := s.FindRules(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if total != n/1000 || len(rules) != n/1000 {
			t.Errorf("%q: %d rules (total %d), want %d", q, len(rules), total, n/1000)
		}
	}
}
