//go:build unix

package store_test

import (
	"context"
	"fmt"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
)

// recallBenchTasks are the tasks the benchmark recalls for, bilingual.
var recallBenchTasks = []string{
	"我想带五岁的女儿去上海玩两天，她一直想去迪士尼。最终路线必须可执行。",
	"帮我安排北京三日游，故宫和环球影城都想去，孩子下午要午睡。",
	"下周去西安，兵马俑和回民街怎么安排比较顺？",
	"订杭州西湖边带早餐的酒店，顺便看看灵隐寺门票。",
	"Fix the failing test in the parser and commit the change.",
	"Review the branch before merge: coverage dropped and the build cache misses.",
	"Deploy the invoice report with a retry on timeout.",
	"Write the changelog entry for the schema index change.",
}

// recallBenchRules are rule statements; numbers make each one distinct.
var recallBenchRules = []string{
	"远距离的大型景点单独安排一天，同一天内的景点按区域集中安排（规则 %d）",
	"孩子每天14:00–16:00要午睡，这个时间段空出来（规则 %d）",
	"每次给出行程方案都附上路线检查结论（规则 %d）",
	"订酒店优先选带早餐的，靠近地铁站（规则 %d）",
	"出行优先坐高铁，不坐红眼航班（规则 %d）",
	"Always run the linter before committing (rule %d)",
	"Add a regression test for every bug fix (rule %d)",
	"Keep pull requests under 400 lines (rule %d)",
	"Pin dependency versions in the build (rule %d)",
	"Retry flaky deploys once, then page the on-call (rule %d)",
}

// recallBenchScale reads the scale from MNEMO_BENCH_EVENTS (default 1M
// events; rules are 1 per 100 events, projects 1 per 10k events).
func recallBenchScale() (events, projects int) {
	events = 1_000_000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_EVENTS")); err == nil && v > 0 {
		events = v
	}
	return events, max(1, events/10_000)
}

// buildRecallBench fills a store with the benchmark's data: per project
// 10k synthetic events through the ingest path, one episode per session,
// 100 rules (60 project-wide, 40 about the project's subjects; 85% active,
// the rest paused, expired or superseded), each with two candidates citing
// two events.
func buildRecallBench(b *testing.B, s *store.Store, events, projects int) {
	ctx := context.Background()
	perProject := events / projects
	now := s.Now().UTC()
	rng := rand.New(rand.NewPCG(42, 1))
	for p := range projects {
		proj := &governance.Project{Slug: fmt.Sprintf("bench-%03d", p), Name: fmt.Sprintf("Bench %d", p)}
		if err := s.CreateProject(ctx, proj); err != nil {
			b.Fatal(err)
		}
		evs := seed.SyntheticEvents(perProject, uint64(p+1))
		for i := 0; i < len(evs); i += 1000 {
			if _, err := s.IngestEvents(ctx, proj.ID, evs[i:min(i+1000, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
		tx, err := s.DB().BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		ts := now.Format(time.RFC3339)
		for i := 0; i+10 <= len(evs); i += 10 {
			first, last := evs[i], evs[i+9]
			summary := "用户请求：" + first.Text + " 检查未通过后调整，复查通过。"
			if _, err := tx.ExecContext(ctx, `INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq,
				event_count, extractor, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 10, 'bench', ?, ?)`,
				proj.ID, first.SessionID, first.SubjectID, summary, first.Seq, last.Seq, ts, ts); err != nil {
				b.Fatal(err)
			}
		}
		subjects := []string{}
		for _, e := range evs {
			if !slices.Contains(subjects, e.SubjectID) {
				subjects = append(subjects, e.SubjectID)
			}
		}
		for r := range 100 {
			subject := ""
			if r >= 60 {
				subject = subjects[r%len(subjects)]
			}
			status, paused, expires := "active", false, any(nil)
			switch x := rng.IntN(20); {
			case x == 0:
				paused = true
			case x == 1:
				expires = now.Add(-time.Hour).Format(time.RFC3339)
			case x == 2:
				status = "superseded"
			}
			created := now.Add(-time.Duration(rng.IntN(365*24)) * time.Hour).Format(time.RFC3339)
			res, err := tx.ExecContext(ctx, `INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, trust,
				paused, expires_at, use_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				proj.ID, subject, []string{"lesson", "user_preference", "fact"}[r%3],
				fmt.Sprintf(recallBenchRules[r%len(recallBenchRules)], p*100+r),
				[]string{"tool_failure_evidence", "explicit_user_instruction", "repeated_across_sessions"}[r%3],
				status, 0.5+rng.Float64()/2, paused, expires, rng.IntN(50), created, created)
			if err != nil {
				b.Fatal(err)
			}
			ruleID, _ := res.LastInsertId()
			for c := range 2 {
				e := evs[rng.IntN(len(evs))]
				res, err := tx.ExecContext(ctx, `INSERT INTO candidates (project_id, session_id, subject_id, type, statement, extractor,
					status, rule_id, created_at, updated_at) VALUES (?, ?, ?, 'lesson', ?, 'bench', 'promoted', ?, ?, ?)`,
					proj.ID, e.SessionID, e.SubjectID, fmt.Sprintf("candidate %d of rule %d", c, ruleID), ruleID, ts, ts)
				if err != nil {
					b.Fatal(err)
				}
				candID, _ := res.LastInsertId()
				for k := range 2 {
					if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO evidence (candidate_id, event_seq) VALUES (?, ?)`,
						candID, evs[rng.IntN(len(evs))].Seq+int64(k)*0); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Checkpoint(ctx); err != nil {
		b.Fatal(err)
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRecallScale measures recall latency on 1M events, 10k rules,
// 100 projects (scale with MNEMO_BENCH_EVENTS). The data is built once per
// run in a temp dir; set MNEMO_BENCH_DB to a path to keep and reuse it.
// Each iteration is one recall for a random project, subject and task;
// p50/p95/p99 wall-clock latencies are reported in milliseconds, and the
// process CPU time per recall (cpu-ms/op), which does not depend on the
// machine's load. "recall" is the full call (scope filter, gathering,
// scoring, packing, storing the trace, counting use); "preview" skips the
// use count; "with-events" is a preview that also considers raw events;
// "bare-fts5" is one FTS5 query of the task's terms in the project over the
// same events index (the reference); "search" and "search-newest" are the
// event search's first page of 20 in the project (the subject's, when one
// is drawn), most relevant and newest first.
//
//	go test ./store -run '^$' -bench RecallScale -benchtime 2000x -timeout 60m
func BenchmarkRecallScale(b *testing.B) {
	ctx := context.Background()
	events, projects := recallBenchScale()
	path := os.Getenv("MNEMO_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "db")
	}
	_, statErr := os.Stat(path)
	s, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if statErr != nil {
		start := time.Now()
		buildRecallBench(b, s, events, projects)
		b.Logf("built %d events, %d rules, %d projects in %s", events, projects*100, projects, time.Since(start).Round(time.Second))
	}
	var nEvents, nRules, nEpisodes, nProjects int
	if err := s.DB().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM events), (SELECT COUNT(*) FROM rules),
		(SELECT COUNT(*) FROM episodes), (SELECT COUNT(*) FROM projects)`).Scan(&nEvents, &nRules, &nEpisodes, &nProjects); err != nil {
		b.Fatal(err)
	}
	b.Logf("database: %d events, %d rules, %d episodes, %d projects", nEvents, nRules, nEpisodes, nProjects)

	for _, mode := range []struct {
		name    string
		preview bool
		events  bool
		bare    bool
		search  governance.SearchOrder
	}{{"recall", false, false, false, ""}, {"preview", true, false, false, ""}, {"with-events", true, true, false, ""},
		{"bare-fts5", false, false, true, ""}, {"search", false, false, false, governance.SearchRelevance},
		{"search-newest", false, false, false, governance.SearchNewest}} {
		b.Run(mode.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, 7))
			lat := make([]time.Duration, 0, b.N)
			cpu0 := processCPU()
			for b.Loop() {
				req := governance.RecallRequest{
					Task:      recallBenchTasks[rng.IntN(len(recallBenchTasks))],
					ProjectID: int64(1 + rng.IntN(nProjects)), Preview: mode.preview, IncludeEvents: mode.events,
				}
				if rng.IntN(5) > 0 {
					req.SubjectID = fmt.Sprintf("user-%d", rng.IntN(10))
				}
				t0 := time.Now()
				if strings.HasPrefix(mode.name, "search") {
					// Event search in the project (a member's subject when
					// one is drawn), first page of 20, as the search page
					// and GET /api/v1/search ask for it.
					f := governance.EventFilter{ProjectID: &req.ProjectID, Query: req.Task, Order: mode.search, Limit: 20}
					if req.SubjectID != "" {
						f.SubjectID = &req.SubjectID
					}
					if _, _, err := s.SearchEvents(ctx, f); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
					continue
				}
				if mode.bare {
					// The reference: one FTS5 query over the same events
					// index, the task's terms ORed in the project's scope,
					// best 20 by FTS5's bm25; no scoring, packing or trace.
					if err := bareFTS5(ctx, s, req); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
					continue
				}
				pkg, err := s.Recall(ctx, "bench", req)
				lat = append(lat, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				if pkg.Used > pkg.Budget.Total {
					b.Fatalf("budget exceeded: %d > %d", pkg.Used, pkg.Budget.Total)
				}
			}
			cpu := processCPU() - cpu0
			slices.Sort(lat)
			pct := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.95), "p95-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
			// CPU per recall does not depend on what else the machine runs.
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(lat)), "cpu-ms/op")
		})
	}
}

func bareFTS5(ctx context.Context, s *store.Store, req governance.RecallRequest) error {
	var terms []string
	// The index holds a project's terms as <project id>_<term>.
	tokenizer.PhraseTokens(req.Task, func(t string, _ int) { terms = append(terms, fmt.Sprintf(`"%d_%s"`, req.ProjectID, t)) })
	q := fmt.Sprintf("terms: (%s)", strings.Join(terms, " OR "))
	rows, err := s.DB().QueryContext(ctx, `SELECT rowid FROM events_words WHERE events_words MATCH ? ORDER BY rank LIMIT 20`, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}
