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
	const n = 4000
	s, p := manyRules(t, n)
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

// manyRules opens a store with n active rules in one project, vacuumed
// and analysed as the autovacuum leaves a table: one in a thousand says
// 单独安排, another "xylophone linter".
func manyRules(tb testing.TB, n int) (*Store, *governance.Project) {
	tb.Helper()
	ctx := context.Background()
	s, err := Open(ctx, pgtest.NewDatabase(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	p := &governance.Project{Slug: "many", Name: "many"}
	if err := s.CreateProject(ctx, p); err != nil {
		tb.Fatal(err)
	}
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
		tb.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE rules`); err != nil {
		tb.Fatal(err)
	}
	return s, p
}

// BenchmarkRulesSearch: a rules query over 10,000 rules of one project,
// with the GIN indexes and, in the same run, with bitmap scans off (the
// plan of the unindexed ILIKE: every rule of the project tested).
//
//	go test -run '^$' -bench BenchmarkRulesSearch -benchtime 60x ./store/postgres/
func BenchmarkRulesSearch(b *testing.B) {
	ctx := context.Background()
	s, p := manyRules(b, 10000)
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	for _, q := range []string{"xylophone", "单独安排", "单独"} {
		w := ruleWhere(governance.RuleFilter{ProjectID: &p.ID, Query: q})
		for _, indexes := range []string{"on", "off"} {
			b.Run(q+"/indexes-"+indexes, func(b *testing.B) {
				if _, err := conn.Exec(ctx, `SET enable_bitmapscan = `+indexes); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := findRulesIn(ctx, conn, w); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
