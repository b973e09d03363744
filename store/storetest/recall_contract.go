package storetest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
)

// The recall results contract between two backends, checked by
// RecallReference.Compare on the shared fixture (the memory fixture, a
// copy of it in a second project, and 2,000 synthetic events in the first)
// for every task of recallTasks, with and without raw events:
//
//   - the same scope, always: the same rules considered, with the same
//     reasons, the same counts of what the scope filter removed, and
//     nothing of another project or subject in the package;
//   - the same rules and episodes in the package, in the same order: both
//     backends offer every in-scope rule and every episode holding a term
//     of the task, and one scoring code (governance.Recall) ranks them;
//   - raw events within a tolerance: each engine picks the at most 1,000
//     matching events it ranks best (SQLite: FTS5's BM25; PostgreSQL:
//     ts_rank), which governance.Recall then scores — so on a task
//     matching more, the offered events differ at the margin. The
//     best-scored considered event of each backend is in the other's
//     top RecallTopSlack for at least RecallMinFirstAgreement of the
//     tasks, and the top-10 considered events share at least
//     RecallMinTopOverlap of their events on average.
const (
	RecallTopSlack          = 3
	RecallMinFirstAgreement = 0.85
	RecallMinTopOverlap     = 0.85
)

// recallTasks are the contract's tasks, with the subject asking.
var recallTasks = []struct{ subject, task string }{
	{"family-1", "带五岁的女儿去上海玩两天，她一直想去迪士尼乐园。最终路线必须可以执行。"},
	{"family-1", "北京三日游，环球影城和故宫怎么排？"},
	{"family-2", "孩子午睡的时间怎么安排"},
	{"", "酒店订在哪里，故宫要预约吗"},
	{"user-0", "linter commit"},
	{"user-0", "deploy timeout retry"},
	{"user-1", "故宫 酒店 门票"},
	{"user-1", "pin dependency versions before the release"},
	{"user-0", "test failure fix"},
	{"user-1", "schema index query is slow"},
	{"user-0", "早餐 酒店 门票"},
	{"user-1", "西湖 灵隐寺 外滩"},
	{"user-0", "孩子 午睡 两点"},
	{"user-1", "coverage build cache"},
	{"user-0", "invoice report budget"},
	{"", "changelog entry for pull requests"},
}

// recallAnswer is one backend's answer to a contract task.
type recallAnswer struct {
	scope    governance.ScopeCounts
	rules    []string // considered rules: text and reason
	package_ []string // rules and episodes in the package, in order
	events   []string // considered events by score, best first (event ids)
	leaks    []string // package items out of scope
}

// RecallReference holds the reference backend's (SQLite's) answers to the
// contract tasks.
type RecallReference struct {
	answers map[string]recallAnswer
}

// LoadRecallFixture loads the recall contract's fixture into s and returns
// the project the tasks ask in.
func LoadRecallFixture(tb testing.TB, s MemoryStore) *governance.Project {
	tb.Helper()
	f := LoadMemoryFixture(tb, s, "travel")
	LoadMemoryFixture(tb, s, "expense")
	for chunk := range slices.Chunk(seed.SyntheticEvents(syntheticEvents, 1), 500) {
		if _, err := s.IngestEvents(context.Background(), f.Project.ID, chunk); err != nil {
			tb.Fatal(err)
		}
	}
	return f.Project
}

// NewRecallReference loads the fixture into ref and records its answers.
func NewRecallReference(tb testing.TB, ref MemoryStore) *RecallReference {
	tb.Helper()
	return &RecallReference{answers: recallAnswers(tb, ref, LoadRecallFixture(tb, ref))}
}

func recallAnswers(tb testing.TB, s MemoryStore, p *governance.Project) map[string]recallAnswer {
	tb.Helper()
	ctx := context.Background()
	out := map[string]recallAnswer{}
	for _, tc := range recallTasks {
		for _, events := range []bool{false, true} {
			req := governance.RecallRequest{Task: tc.task, ProjectID: p.ID, SubjectID: tc.subject, IncludeEvents: events, Preview: true}
			pkg, err := s.Recall(ctx, "contract", req)
			if err != nil {
				tb.Fatalf("%q: %v", tc.task, err)
			}
			ans := recallAnswer{scope: pkg.Trace.ScopeFiltered}
			texts := map[string]string{}
			for _, it := range pkg.Items {
				texts[it.ID] = it.Text
				if it.Source.SubjectID != "" && it.Source.SubjectID != tc.subject {
					ans.leaks = append(ans.leaks, it.ID)
				}
				switch it.Kind {
				case governance.RecallKindRule:
					ans.package_ = append(ans.package_, "rule "+it.Text)
				case governance.RecallKindEpisode:
					ans.package_ = append(ans.package_, "episode "+it.Text)
				}
			}
			type scored struct {
				id    string
				score float64
			}
			var evs []scored
			for _, e := range pkg.Trace.Considered {
				kind, n, _ := governance.ParseRecallID(e.ID)
				switch kind {
				case governance.RecallKindRule:
					r, err := s.FindRuleByID(ctx, n)
					if err != nil {
						tb.Fatal(err)
					}
					if r.ProjectID != p.ID {
						ans.leaks = append(ans.leaks, e.ID)
					}
					ans.rules = append(ans.rules, r.Text+" → "+e.Reason)
				case governance.RecallKindEvent:
					ev, err := s.FindEventBySeq(ctx, n)
					if err != nil {
						tb.Fatal(err)
					}
					if ev.ProjectID != p.ID || (ev.SubjectID != "" && ev.SubjectID != tc.subject) {
						ans.leaks = append(ans.leaks, e.ID)
					}
					evs = append(evs, scored{ev.ID, e.Score.Total})
				}
			}
			sort.SliceStable(evs, func(i, j int) bool {
				if evs[i].score != evs[j].score {
					return evs[i].score > evs[j].score
				}
				return evs[i].id < evs[j].id
			})
			for _, e := range evs {
				ans.events = append(ans.events, e.id)
			}
			sort.Strings(ans.rules)
			out[fmt.Sprintf("%s %q events=%v", tc.subject, tc.task, events)] = ans
		}
	}
	return out
}

// Compare loads the fixture into got and checks its answers to every
// contract task against the reference's.
func (r *RecallReference) Compare(t *testing.T, got MemoryStore) {
	answers := recallAnswers(t, got, LoadRecallFixture(t, got))
	var (
		overlap float64
		agree   int
		n       int
	)
	names := make([]string, 0, len(answers))
	for name := range answers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ra, ga := r.answers[name], answers[name]
		if len(ga.leaks) > 0 {
			t.Errorf("%s: out of scope: %v", name, ga.leaks)
		}
		if ra.scope != ga.scope {
			t.Errorf("%s: scope filtered %+v, want %+v", name, ga.scope, ra.scope)
		}
		if !slices.Equal(ra.rules, ga.rules) {
			t.Errorf("%s: rules considered\n%s\nwant\n%s", name, strings.Join(ga.rules, "\n"), strings.Join(ra.rules, "\n"))
		}
		if !slices.Equal(ra.package_, ga.package_) {
			t.Errorf("%s: package rules and episodes\n%s\nwant\n%s", name, strings.Join(ga.package_, "\n"), strings.Join(ra.package_, "\n"))
		}
		a, b := ra.events, ga.events
		if len(a) == 0 && len(b) == 0 {
			continue
		}
		if len(a) == 0 || len(b) == 0 {
			t.Errorf("%s: %d events considered, reference %d", name, len(b), len(a))
			continue
		}
		firstAgree := slices.Contains(head(b, RecallTopSlack), a[0]) && slices.Contains(head(a, RecallTopSlack), b[0])
		if firstAgree {
			agree++
		}
		k := min(10, len(a), len(b))
		shared := 0
		for _, id := range head(b, k) {
			if slices.Contains(head(a, k), id) {
				shared++
			}
		}
		overlap += float64(shared) / float64(k)
		n++
		t.Logf("%-80s considered %4d/%-4d top-10 shared %2d/%-2d first agrees %v", name, len(b), len(a), shared, k, firstAgree)
	}
	if n == 0 {
		t.Fatal("no task considered raw events; the contract tests nothing")
	}
	first, mean := float64(agree)/float64(n), overlap/float64(n)
	t.Logf("over %d tasks with events: first events agree on %d (%.2f, contract ≥ %.2f); top-10 share %.2f (contract ≥ %.2f)",
		n, agree, first, RecallMinFirstAgreement, mean, RecallMinTopOverlap)
	if first < RecallMinFirstAgreement {
		t.Errorf("first events agree on %.2f of the tasks, want at least %.2f", first, RecallMinFirstAgreement)
	}
	if mean < RecallMinTopOverlap {
		t.Errorf("top-10 considered events share %.2f on average, want at least %.2f", mean, RecallMinTopOverlap)
	}
}
