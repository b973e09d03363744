package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
)

// The search results contract between two backends, checked by
// RankingReference.Compare on the shared fixture (the demo projects and a synthetic
// project) for every query of rankingQueries:
//
//   - the same matches: the same set of events and the same total;
//   - newest-first order (SearchNewest) identical;
//   - relevance order within a tolerance, because each engine scores with
//     its own formula (SQLite: FTS5's BM25; PostgreSQL: ts_rank weighted
//     by inverse document frequency): the first results agree — each
//     backend's first result is in the other's top TopSlack — for at least
//     MinFirstAgreement of the queries, and over all queries the top-10
//     lists share at least MinTopOverlap of their events.
//
// Measured when the contract was set (PostgreSQL 15 against SQLite): the
// first results agree on 38 of 42 queries (0.90) and the top-10 lists
// share 0.95 of their events. Where they differ, BM25's stronger length
// normalisation puts a short event first — one matching fewer of the
// words ("第一天 下午") or holding the phrase once ("环球影城") — where
// PostgreSQL puts the event matching more words, or more often.
const (
	TopSlack          = 3
	MinFirstAgreement = 0.85
	MinTopOverlap     = 0.85
)

// syntheticEvents is the size of the fixture's synthetic project.
const syntheticEvents = 2000

// rankingQueries are the contract's queries, by project slug, with an
// optional subject scope.
var rankingQueries = []struct {
	project, subject string
	queries          []string
}{
	{"travel-agent", "", []string{"午睡", "环球影城 门票", "故宫 王府井 酒店", "路线检查", "北京 三天", "孩子", "景山公园 天坛", "第一天 下午",
		"酒店 亲子", `"环球影城"`, "西安 兵马俑"}},
	{"expense-agent", "", []string{"发票 扫描件", "打车费", "报销 200元", "高铁票", "客户 午饭", "直接提交"}},
	{"coding-assistant", "", []string{"linter", "billing test", "changelog entry", "commit", "month end due date", `"run the linter"`,
		"test failure fix", "golangci lint issues"}},
	{"synthetic", "", []string{"linter commit", "deploy timeout retry", "故宫 酒店", "环球影城", "高铁", "午睡", "pin dependency versions",
		`"run the linter"`, "invoice report budget", "西湖 灵隐寺 外滩", "test failure fix", "schema index query", "早餐 酒店 门票",
		"pull requests", "changelog", "孩子 午睡 两点", "coverage build cache"}},
}

// LoadRankingFixture loads the shared fixture into s and returns its
// projects by slug.
func LoadRankingFixture(tb testing.TB, s Store) map[string]*governance.Project {
	tb.Helper()
	ctx := context.Background()
	demo, err := seed.DemoProjects()
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]*governance.Project{}
	load := func(slug string, events []*governance.Event) {
		p := MustCreateProject(tb, s, slug)
		for chunk := range slices.Chunk(events, 500) {
			if _, err := s.IngestEvents(ctx, p.ID, chunk); err != nil {
				tb.Fatalf("load %s: %v", slug, err)
			}
		}
		out[slug] = p
	}
	for _, d := range demo {
		load(d.Slug, d.Events)
	}
	load("synthetic", seed.SyntheticEvents(syntheticEvents, 1))
	return out
}

// rankingAnswer is one backend's answer to a contract query.
type rankingAnswer struct {
	relevance, newest []string
	total             int
}

// RankingReference holds the reference backend's (SQLite's) answers to the
// contract queries, computed once for any number of comparisons.
type RankingReference struct {
	answers map[string]rankingAnswer
}

// NewRankingReference loads the shared fixture into ref and records its
// answers to every contract query.
func NewRankingReference(tb testing.TB, ref Store) *RankingReference {
	tb.Helper()
	return &RankingReference{answers: rankingAnswers(tb, ref, LoadRankingFixture(tb, ref))}
}

func rankingAnswers(tb testing.TB, s Store, projects map[string]*governance.Project) map[string]rankingAnswer {
	tb.Helper()
	ctx := context.Background()
	out := map[string]rankingAnswer{}
	for _, group := range rankingQueries {
		for _, q := range group.queries {
			var ans rankingAnswer
			for _, order := range []governance.SearchOrder{governance.SearchRelevance, governance.SearchNewest} {
				f := governance.EventFilter{ProjectID: &projects[group.project].ID, Query: q, Order: order}
				if group.subject != "" {
					f.SubjectID = &group.subject
				}
				hits, total, err := s.SearchEvents(ctx, f)
				if err != nil {
					tb.Fatalf("%s %q: %v", group.project, q, err)
				}
				if order == governance.SearchNewest {
					ans.newest = ids(hits)
				} else {
					ans.relevance, ans.total = ids(hits), total
				}
			}
			out[group.project+" "+q] = ans
		}
	}
	return out
}

// Compare loads the shared fixture into got, runs each loaded func (to
// gather statistics, say), then runs every contract query and checks the
// answers against the reference's (see TopSlack).
func (r *RankingReference) Compare(t *testing.T, got Store, loaded ...func()) {
	projects := LoadRankingFixture(t, got)
	for _, fn := range loaded {
		fn()
	}
	answers := rankingAnswers(t, got, projects)
	var (
		overlap float64
		agree   int
		n       int
	)
	for _, group := range rankingQueries {
		for _, q := range group.queries {
			name := group.project + " " + q
			ra, ga := r.answers[name], answers[name]
			a, b := ra.relevance, ga.relevance
			if len(a) == 0 {
				t.Errorf("%s: no match in the reference; the fixture query tests nothing", name)
				continue
			}
			if ra.total != ga.total || !sameSet(a, b) {
				t.Errorf("%s: matches differ: %d %v, want %d %v", name, ga.total, head(b, 10), ra.total, head(a, 10))
				continue
			}
			if !slices.Equal(ra.newest, ga.newest) {
				t.Errorf("%s: newest order differs: %v, want %v", name, head(ga.newest, 10), head(ra.newest, 10))
			}
			firstAgree := slices.Contains(head(b, TopSlack), a[0]) && slices.Contains(head(a, TopSlack), b[0])
			if firstAgree {
				agree++
			}
			k := min(10, len(a))
			shared := 0
			for _, id := range head(b, k) {
				if slices.Contains(head(a, k), id) {
					shared++
				}
			}
			overlap += float64(shared) / float64(k)
			n++
			t.Logf("%-50s matches %4d  top-10 shared %2d/%-2d  first agrees %-5v  top-5 %v / reference %v",
				name, ra.total, shared, k, firstAgree, head(b, 5), head(a, 5))
		}
	}
	if n == 0 {
		t.Fatal("no query compared")
	}
	first, mean := float64(agree)/float64(n), overlap/float64(n)
	t.Logf("over %d queries: first results agree on %d (%.2f, contract ≥ %.2f); top-10 lists share %.2f (contract ≥ %.2f)",
		n, agree, first, MinFirstAgreement, mean, MinTopOverlap)
	if first < MinFirstAgreement {
		t.Errorf("first results agree on %.2f of the queries, want at least %.2f", first, MinFirstAgreement)
	}
	if mean < MinTopOverlap {
		t.Errorf("top-10 lists share %.2f of their events on average, want at least %.2f", mean, MinTopOverlap)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func head(s []string, n int) []string { return s[:min(n, len(s))] }
