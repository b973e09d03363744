package app_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

// skillBenchWords make the synthetic skills' descriptions distinct.
var skillBenchWords = []string{"deploy", "staging", "invoice", "report", "migration", "index", "changelog", "release", "docker",
	"image", "flaky", "test", "hotel", "route", "museum", "nap", "receipt", "budget", "cache", "queue", "backup", "restore",
	"lint", "review", "incident", "metrics", "alert", "schema", "payment", "refund", "export", "import", "search", "audit"}

// skillBenchTasks are the tasks recalled for.
var skillBenchTasks = []string{
	"Deploy the invoice report to staging and check the metrics.",
	"Write the changelog entry for the schema index change.",
	"Review the flaky test in the payment queue.",
	"Book a hotel near the museum and plan a nap window.",
	"Restore the backup and audit the export.",
	"帮我规划北京三日游的路线，孩子下午要午睡。",
}

// BenchmarkSkillRecall measures, in one run, recall for a project without
// skills (the baseline) and for a project with 1,000 active skills (the
// same rules), the agents' skill list (a page of 100, and all 1,000) of
// that project, and the skills section alone (select-1000: the
// generation check and the selection). Iterations interleave the four so they see the same
// machine; p50/p95 wall-clock latencies are reported in milliseconds and
// the skills recall's p95 as a ratio of the baseline's.
//
//	go test ./app -run '^$' -bench SkillRecall -benchtime 400x
func BenchmarkSkillRecall(b *testing.B) {
	f := NewFixture(b)
	ctx := context.Background()
	plain := f.project(b, "bench-plain", "Without skills")
	skilled := f.project(b, "bench-skills", "With skills")
	rng := rand.New(rand.NewPCG(3, 3))
	for _, p := range []*governance.Project{plain, skilled} {
		for i := range 200 {
			f.Rule(b, p, "", fmt.Sprintf("Always %s the %s before the %s (rule %d)", skillBenchWords[i%len(skillBenchWords)],
				skillBenchWords[(i*7)%len(skillBenchWords)], skillBenchWords[(i*13)%len(skillBenchWords)], i))
		}
	}
	for i := range 1000 {
		w := func() string { return skillBenchWords[rng.IntN(len(skillBenchWords))] }
		name := fmt.Sprintf("%s-%s-%d", w(), w(), i)
		desc := fmt.Sprintf("How to %s the %s and %s the %s, then check the %s. Use when asked to %s a %s.", w(), w(), w(), w(), w(), w(), w())
		md := fmt.Sprintf("---\nname: %s\ndescription: %q\n---\n\n1. Step one.\n", name, desc)
		if _, err := f.Store.SaveSkill(ctx, "bench", &governance.SkillProposal{ProjectID: skilled.ID, Origin: governance.OriginImport, Activate: true,
			Content: governance.SkillContent{Name: name, Description: desc, SkillMD: md}}); err != nil {
			b.Fatal(err)
		}
	}
	token := func(p *governance.Project) governance.Actor {
		t := &governance.APIToken{ProjectID: p.ID, Name: "bench-" + p.Slug, Scopes: []governance.TokenScope{governance.ScopeRecall}, CreatedBy: Admin}
		if err := f.Store.CreateToken(ctx, t, governance.HashTokenSecret("bench-"+p.Slug)); err != nil {
			b.Fatal(err)
		}
		return governance.TokenActor(t)
	}
	plainActor, skilledActor := token(plain), token(skilled)
	names := []string{"recall-without-skills", "recall-1000-skills", "list-100", "list-1000", "select-1000"}
	lat := make([][]time.Duration, len(names))
	offered := 0
	for b.Loop() {
		task := skillBenchTasks[rng.IntN(len(skillBenchTasks))]
		for i, op := range []func() error{
			func() error {
				_, err := f.App.Recalls.Recall(ctx, plainActor, governance.RecallRequest{ProjectID: plain.ID, Task: task, Preview: true})
				return err
			},
			func() error {
				pkg, err := f.App.Recalls.Recall(ctx, skilledActor, governance.RecallRequest{ProjectID: skilled.ID, Task: task, Preview: true})
				if err == nil {
					offered += len(pkg.Skills)
				}
				return err
			},
			func() error {
				_, err := f.App.Skills.List(ctx, skilledActor, app.SkillListInput{Project: app.ProjectRef(skilled.ID), Limit: 100})
				return err
			},
			func() error {
				_, err := f.App.Skills.List(ctx, skilledActor, app.SkillListInput{Project: app.ProjectRef(skilled.ID), Limit: 1000})
				return err
			},
			func() error {
				_, err := f.App.Skills.Applicable(ctx, skilledActor, skilled.ID, task)
				return err
			},
		} {
			t0 := time.Now()
			if err := op(); err != nil {
				b.Fatal(err)
			}
			lat[i] = append(lat[i], time.Since(t0))
		}
	}
	pct := func(l []time.Duration, p float64) float64 {
		s := slices.Clone(l)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(p*float64(len(s))))].Microseconds()) / 1000
	}
	for i, n := range names {
		b.ReportMetric(pct(lat[i], 0.50), n+"-p50-ms")
		b.ReportMetric(pct(lat[i], 0.95), n+"-p95-ms")
	}
	b.ReportMetric(pct(lat[1], 0.95)/pct(lat[0], 0.95), "skills/baseline-p95")
	b.ReportMetric(float64(offered)/float64(len(lat[1])), "skills-offered/op")
}
