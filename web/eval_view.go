package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Conversions from evals and store types to the evals pages' views.

func suiteRow(info *evals.SuiteInfo) templates.EvalSuiteRow {
	return templates.EvalSuiteRow{
		ID: info.ID, Name: info.Name, Origin: info.Origin, Description: info.Description,
		Kinds: info.KindList(), Cases: info.Cases, Benchmark: info.Benchmark, Problem: info.Problem,
	}
}

func runRow(r *evals.RunRow) templates.EvalRunRow {
	row := templates.EvalRunRow{
		ID: r.ID, SuiteID: r.SuiteID, Suite: r.SuiteName, Status: string(r.Status), Done: r.Done, Total: r.Total,
		Passed: r.Passed, Failed: r.Failed, Skipped: r.Skipped, Tokens: r.Tokens, Cost: fmt.Sprintf("%.4f", r.Cost),
		CreatedBy: strings.TrimPrefix(r.CreatedBy, "account:"), CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt, Error: r.Error,
	}
	if m := evals.ParseRunSummary(r.Summary).Metrics; m != nil && m.PassRate != nil {
		row.PassRate = pct(*m.PassRate)
	} else if n := r.Done - r.Skipped; n > 0 {
		row.PassRate = pct(float64(r.Passed) / float64(n))
	}
	return row
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

func f2(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f", *p)
}

func signed(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%+.2f", *p)
}

// evalRunView builds a run's page from its row and the report of its results.
func evalRunView(d app.RunDetail) templates.EvalRunView {
	run, rep := d.Run, d.Report
	v := templates.EvalRunView{Run: runRow(run), Active: !run.Status.Terminal(), Current: run.CurrentCase}
	if run.Total > 0 {
		v.Percent = run.Done * 100 / run.Total
	}
	m := rep.Metrics
	v.Metrics = []templates.EvalMetric{
		{Key: "passed", Label: "Passed", Value: fmt.Sprintf("%d of %d", m.Passed, m.Total)},
		{Key: "failed", Label: "Failed", Value: fmt.Sprint(m.Failed)},
		{Key: "errors", Label: "Errors", Value: fmt.Sprint(m.Errors)},
		{Key: "skipped", Label: "Skipped", Value: fmt.Sprint(m.Skipped)},
	}
	if m.PassRate != nil {
		v.Metrics = append(v.Metrics, templates.EvalMetric{Key: "pass-rate", Label: "Pass rate", Value: pct(*m.PassRate)})
	}
	if m.Precision != nil || m.Recall != nil {
		v.Metrics = append(v.Metrics,
			templates.EvalMetric{Key: "precision", Label: "Recall precision", Value: f2(m.Precision)},
			templates.EvalMetric{Key: "recall", Label: "Recall (expected found)", Value: f2(m.Recall)})
	}
	if m.Uplift != nil {
		v.Metrics = append(v.Metrics,
			templates.EvalMetric{Key: "uplift", Label: "Uplift (with − without)", Value: signed(m.Uplift)},
			templates.EvalMetric{Key: "with", Label: "Compliance with / without memory", Value: f2(m.With) + " / " + f2(m.Without)})
	}
	if m.GuardFails > 0 {
		v.Metrics = append(v.Metrics, templates.EvalMetric{Key: "guards", Label: "Guard failures (with memory)", Value: fmt.Sprint(m.GuardFails)})
	}
	v.Metrics = append(v.Metrics, templates.EvalMetric{Key: "tokens", Label: "Tokens · cost", Value: fmt.Sprintf("%d · %.4f", run.Tokens, run.Cost)})
	if m.DurationMS > 0 {
		v.Metrics = append(v.Metrics, templates.EvalMetric{Key: "duration", Label: "Took", Value: (time.Duration(m.DurationMS) * time.Millisecond).Round(time.Millisecond).String()})
	}
	for _, c := range m.Compliance {
		v.Compliance = append(v.Compliance, templates.EvalComplianceRow{Name: c.Name, Method: c.Method, Cases: c.Cases,
			With: fmt.Sprintf("%.2f", c.With), Without: fmt.Sprintf("%.2f", c.Without), Uplift: fmt.Sprintf("%+.2f", c.Uplift)})
	}
	if m.Benchmark != nil {
		v.Benchmark = benchmarkView(m.Benchmark)
	}
	for _, c := range rep.Cases {
		v.Cases = append(v.Cases, caseView(c))
	}
	v.Previous = d.Previous
	return v
}

func caseView(c *evals.CaseResult) templates.EvalCaseView {
	v := templates.EvalCaseView{ID: c.CaseID, Kind: string(c.Kind), Status: c.Status, Reason: c.Reason,
		Duration: (time.Duration(c.DurationMS) * time.Millisecond).String()}
	d := c.Detail
	if d == nil {
		return v
	}
	v.Problems = d.Problems
	if r := d.Recall; r != nil {
		sec := templates.EvalSection{Title: "Context package for: " + r.Task}
		for _, it := range r.Items {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: it.ID + " — " + it.Text})
		}
		if len(r.Items) == 0 {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: "(empty)"})
		}
		if r.OutOfScope > 0 {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: fmt.Sprintf("%d memories outside the scope were filtered out (only counted)", r.OutOfScope)})
		}
		v.Sections = append(v.Sections, sec)
		exp := templates.EvalSection{Title: "Expectations"}
		for _, m := range r.Include {
			exp.Lines = append(exp.Lines, matchLine("include", m))
		}
		for _, m := range r.Exclude {
			exp.Lines = append(exp.Lines, matchLine("exclude", m))
		}
		if r.Precision != nil {
			exp.Lines = append(exp.Lines, templates.EvalLine{Text: "precision " + f2(r.Precision) + ", recall " + f2(r.Recall)})
		}
		if len(exp.Lines) > 0 {
			v.Sections = append(v.Sections, exp)
		}
	}
	if iso := d.Isolation; iso != nil {
		sec := templates.EvalSection{Title: "Isolation from " + iso.Foreign}
		sec.Lines = append(sec.Lines, templates.EvalLine{Text: fmt.Sprintf("%d active rules in the foreign scope; %d memories filtered by scope", iso.ForeignRules, iso.OutOfScope)})
		for _, l := range iso.Leaks {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: l, State: "fail"})
		}
		if len(iso.Leaks) == 0 && iso.ForeignRules > 0 {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: "nothing crossed", State: "ok"})
		}
		v.Sections = append(v.Sections, sec)
	}
	for _, st := range d.Steps {
		sec := templates.EvalSection{Title: "Step: " + st.Name}
		for _, n := range st.Notes {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: n})
		}
		for _, p := range st.Problems {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: p, State: "fail"})
		}
		if st.Passed {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: "as expected", State: "ok"})
		}
		v.Sections = append(v.Sections, sec)
	}
	if p := d.Poisoning; p != nil {
		sec := templates.EvalSection{Title: "After the untrusted content"}
		for _, r := range p.NewRules {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: "new " + r, State: "fail"})
		}
		for _, r := range p.Forbidden {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: "forbidden text in " + r, State: "fail"})
		}
		sec.Lines = append(sec.Lines, templates.EvalLine{Text: "recall before: " + strings.Join(p.RecallBefore, ", ")},
			templates.EvalLine{Text: "recall after: " + strings.Join(p.RecallAfter, ", ")})
		v.Sections = append(v.Sections, sec)
	}
	if ab := d.AB; ab != nil && ab.With != nil && ab.Without != nil {
		v.AB = abView(ab)
	}
	if b := d.Benchmark; b != nil {
		sec := templates.EvalSection{Title: "Conversation " + b.Conversation}
		sec.Lines = append(sec.Lines, templates.EvalLine{Text: fmt.Sprintf("%d turns ingested, %d questions measured, %d without usable evidence, %d malformed evidence ids",
			b.Turns, b.Questions, b.NoEvidence, b.BadEvidence)})
		v.Sections = append(v.Sections, sec)
	}
	return v
}

func matchLine(what string, m evals.MatchResult) templates.EvalLine {
	l := templates.EvalLine{Text: what + " " + m.Matcher, State: "ok"}
	if m.Item != "" && m.OK {
		l.Text += " — " + m.Item
	}
	if !m.OK {
		l.State = "fail"
		l.Text += " — " + m.Why
	}
	return l
}

func abView(ab *evals.ABDetail) *templates.EvalABView {
	v := &templates.EvalABView{Task: ab.Task, Uplift: fmt.Sprintf("%+.2f", ab.Uplift)}
	for _, it := range ab.Package {
		v.Package = append(v.Package, it.ID+" — "+it.Text)
	}
	with, without := evals.SideBySide(ab.With.Output, ab.Without.Output)
	v.With = templates.EvalVariantView{Score: fmt.Sprintf("%.2f", ab.With.Score), Tokens: ab.With.Tokens, Lines: diffLines(with)}
	v.Without = templates.EvalVariantView{Score: fmt.Sprintf("%.2f", ab.Without.Score), Tokens: ab.Without.Tokens, Lines: diffLines(without)}
	for _, r := range ab.Rules {
		v.Rules = append(v.Rules, templates.EvalRuleRow{Name: r.Name, Method: r.Method, With: verdictView(r.With), Without: verdictView(r.Without)})
	}
	for _, g := range ab.Guards {
		state := "ok"
		if !g.Passed {
			state = "fail"
		}
		v.Guards = append(v.Guards, templates.EvalLine{Text: g.Check + ": " + g.Evidence, State: state})
	}
	return v
}

func diffLines(lines []evals.DiffLine) []templates.EvalDiffLine {
	out := make([]templates.EvalDiffLine, len(lines))
	for i, l := range lines {
		out[i] = templates.EvalDiffLine{Text: l.Text, Changed: l.Changed}
	}
	return out
}

func verdictView(v *evals.Verdict) templates.EvalVerdictView {
	if v == nil {
		return templates.EvalVerdictView{}
	}
	out := templates.EvalVerdictView{Verdict: v.Verdict, Evidence: v.Evidence}
	switch {
	case v.Error != "":
		out.Note = v.Error
	case v.Quoted != nil && !*v.Quoted:
		out.Note = "the judge's evidence is not a quote from the answer"
	}
	return out
}

func benchmarkView(t *evals.BenchmarkTable) *templates.EvalBenchmarkView {
	v := &templates.EvalBenchmarkView{K: t.K, Summary: fmt.Sprintf("%d questions over %d turns; %d questions without usable evidence and %d malformed evidence ids were left out.",
		t.Questions, t.Turns, t.NoEvidence, t.BadEvidence)}
	for _, r := range t.Rows {
		row := templates.EvalBenchmarkRow{Retriever: r.Retriever, Category: r.Category, Questions: r.Questions, NDCG: fmt.Sprintf("%.3f", r.NDCG10)}
		for _, s := range r.HitAt {
			row.HitAt = append(row.HitAt, fmt.Sprintf("%.3f", s.Value))
		}
		for _, s := range r.AllAt {
			row.AllAt = append(row.AllAt, fmt.Sprintf("%.3f", s.Value))
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

func compareView(a, b *evals.RunRow, cmp *evals.Comparison) templates.EvalCompareView {
	v := templates.EvalCompareView{SuiteID: a.SuiteID, Suite: a.SuiteName, A: runRow(a), B: runRow(b),
		Regressions: cmp.Regressions, Fixed: cmp.Fixed}
	for _, m := range []struct {
		label string
		pair  [2]*float64
	}{{"Pass rate", cmp.PassRate}, {"Recall precision", cmp.Precision}, {"Recall (expected found)", cmp.Recall}, {"Uplift", cmp.Uplift}} {
		if m.pair[0] == nil && m.pair[1] == nil {
			continue
		}
		row := templates.EvalCompareMetric{Label: m.label, Before: f2(m.pair[0]), After: f2(m.pair[1]), Delta: "–"}
		if m.pair[0] != nil && m.pair[1] != nil {
			d := *m.pair[1] - *m.pair[0]
			row.Delta, row.Worse = fmt.Sprintf("%+.2f", d), d < 0
		}
		v.Metrics = append(v.Metrics, row)
	}
	for _, c := range cmp.Cases {
		row := templates.EvalChangeRow{CaseID: c.CaseID, Kind: string(c.Kind), Change: string(c.Change), Summary: c.Summary, Before: "–", After: "–"}
		if c.Before != nil {
			row.Before = c.Before.Status
		}
		if c.After != nil {
			row.After = c.After.Status
		}
		v.Cases = append(v.Cases, row)
	}
	return v
}

// checkText describes a stored check for the rule checks page.
func checkText(c *evals.Check) string {
	b, _ := json.Marshal(c)
	return c.String() + "  " + string(b)
}
