package web

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Conversions from evals and store types to the evals pages' views.

func suiteRow(info *evals.SuiteInfo) templates.EvalSuiteRow {
	row := templates.EvalSuiteRow{
		ID: info.ID, Name: info.Name, Origin: info.Origin, Description: info.Description,
		Cases: info.Cases, Benchmark: info.Benchmark, Questions: info.Format == evals.FormatLongMemEval, Problem: info.ProblemText,
	}
	for _, k := range append(slices.Clone(evals.Kinds), evals.KindBenchmark) {
		if n := info.Kinds[k]; n > 0 {
			row.Kinds = append(row.Kinds, templates.EvalKindCount{Kind: string(k), Count: n})
		}
	}
	return row
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
func evalRunView(loc *locale.Localizer, d app.RunDetail) templates.EvalRunView {
	run, rep := d.Run, d.Report
	v := templates.EvalRunView{Run: runRow(run), Active: !run.Status.Terminal(), Current: run.CurrentCase}
	if run.Total > 0 {
		v.Percent = run.Done * 100 / run.Total
	}
	m := rep.Metrics
	v.Metrics = []templates.EvalMetric{
		{Key: "passed", Label: loc.T("eval.metric.passed"), Value: loc.T("eval.n_of_m", "N", loc.Number(m.Passed), "Total", loc.Number(m.Total))},
		{Key: "failed", Label: loc.T("eval.metric.failed"), Value: loc.Number(m.Failed)},
		{Key: "errors", Label: loc.T("eval.metric.errors"), Value: loc.Number(m.Errors)},
		{Key: "skipped", Label: loc.T("eval.metric.skipped"), Value: loc.Number(m.Skipped)},
	}
	if m.PassRate != nil {
		v.Metrics = append(v.Metrics, templates.EvalMetric{Key: "pass-rate", Label: loc.T("eval.metric.pass_rate"), Value: pct(*m.PassRate)})
	}
	if m.Precision != nil || m.Recall != nil {
		v.Metrics = append(v.Metrics,
			templates.EvalMetric{Key: "precision", Label: loc.T("eval.metric.precision"), Value: f2(m.Precision)},
			templates.EvalMetric{Key: "recall", Label: loc.T("eval.metric.recall"), Value: f2(m.Recall)})
	}
	if m.Uplift != nil {
		v.Metrics = append(v.Metrics,
			templates.EvalMetric{Key: "uplift", Label: loc.T("eval.metric.uplift"), Value: signed(m.Uplift)},
			templates.EvalMetric{Key: "with", Label: loc.T("eval.metric.compliance"), Value: f2(m.With) + " / " + f2(m.Without)})
	}
	if m.GuardFails > 0 {
		v.Metrics = append(v.Metrics, templates.EvalMetric{Key: "guards", Label: loc.T("eval.metric.guards"), Value: loc.Number(m.GuardFails)})
	}
	if m.Forgets > 0 {
		v.Metrics = append(v.Metrics, templates.EvalMetric{Key: "forgets", Label: loc.T("eval.metric.forgets"), Value: loc.Number(m.Forgets)})
	}
	v.Metrics = append(v.Metrics, templates.EvalMetric{Key: "tokens", Label: loc.T("eval.metric.tokens"), Value: loc.Number(run.Tokens) + fmt.Sprintf(" · %.4f", run.Cost)})
	if m.DurationMS > 0 {
		v.Metrics = append(v.Metrics, templates.EvalMetric{Key: "duration", Label: loc.T("eval.metric.took"), Value: loc.ShortDuration(time.Duration(m.DurationMS) * time.Millisecond)})
	}
	for _, c := range m.Compliance {
		v.Compliance = append(v.Compliance, templates.EvalComplianceRow{Name: c.Name, Method: c.Method, Cases: c.Cases,
			With: fmt.Sprintf("%.2f", c.With), Without: fmt.Sprintf("%.2f", c.Without), Uplift: fmt.Sprintf("%+.2f", c.Uplift)})
	}
	if m.Benchmark != nil {
		v.Benchmark = benchmarkView(loc, m.Benchmark)
	}
	for _, c := range rep.Cases {
		v.Cases = append(v.Cases, caseView(loc, c))
	}
	v.Previous = d.Previous
	return v
}

func caseView(loc *locale.Localizer, c *evals.CaseResult) templates.EvalCaseView {
	v := templates.EvalCaseView{ID: c.CaseID, Kind: string(c.Kind), Status: c.Status, Reason: c.Sentence(),
		Duration: loc.ShortDuration(time.Duration(c.DurationMS) * time.Millisecond)}
	d := c.Detail
	if d == nil {
		return v
	}
	v.Problems = d.ProblemTexts()
	if r := d.Recall; r != nil {
		sec := templates.EvalSection{Title: loc.T("eval.section.package", "Task", r.Task)}
		for _, it := range r.Items {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: it.ID + " — " + it.Text})
		}
		if len(r.Items) == 0 {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.T("eval.line.empty")})
		}
		if r.OutOfScope > 0 {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.N("eval.line.out_of_scope", r.OutOfScope)})
		}
		v.Sections = append(v.Sections, sec)
		exp := templates.EvalSection{Title: loc.T("eval.section.expectations")}
		for _, m := range r.Include {
			exp.Lines = append(exp.Lines, matchLine(loc, loc.T("eval.line.include"), m))
		}
		for _, m := range r.Exclude {
			exp.Lines = append(exp.Lines, matchLine(loc, loc.T("eval.line.exclude"), m))
		}
		if r.Precision != nil {
			exp.Lines = append(exp.Lines, templates.EvalLine{Text: loc.T("eval.line.precision_recall", "Precision", f2(r.Precision), "Recall", f2(r.Recall))})
		}
		if len(exp.Lines) > 0 {
			v.Sections = append(v.Sections, exp)
		}
	}
	if iso := d.Isolation; iso != nil {
		foreign := iso.Foreign
		if !iso.ForeignText.IsZero() {
			foreign = loc.Text(iso.ForeignText)
		}
		sec := templates.EvalSection{Title: loc.T("eval.section.isolation", "Foreign", foreign)}
		sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.T("eval.line.isolation", "Rules", loc.Number(iso.ForeignRules), "Filtered", loc.Number(iso.OutOfScope))})
		for _, l := range iso.Leaks {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: l, State: "fail"})
		}
		if len(iso.Leaks) == 0 && iso.ForeignRules > 0 {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.T("eval.line.nothing_crossed"), State: "ok"})
		}
		v.Sections = append(v.Sections, sec)
	}
	for _, st := range d.Steps {
		sec := templates.EvalSection{Title: loc.T("eval.section.step", "Name", st.Name)}
		for _, n := range st.Notes {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: n})
		}
		for _, p := range st.Sentences() {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.Text(p), State: "fail"})
		}
		if st.Passed {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.T("eval.line.as_expected"), State: "ok"})
		}
		v.Sections = append(v.Sections, sec)
	}
	if p := d.Poisoning; p != nil {
		sec := templates.EvalSection{Title: loc.T("eval.section.poisoning")}
		for _, r := range p.NewRules {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.T("eval.line.new_rule", "Rule", r), State: "fail"})
		}
		for _, r := range p.Forbidden {
			sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.T("eval.line.forbidden", "Rule", r), State: "fail"})
		}
		sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.T("eval.line.recall_before", "IDs", strings.Join(p.RecallBefore, ", "))},
			templates.EvalLine{Text: loc.T("eval.line.recall_after", "IDs", strings.Join(p.RecallAfter, ", "))})
		v.Sections = append(v.Sections, sec)
	}
	if ab := d.AB; ab != nil && ab.With != nil && ab.Without != nil {
		v.AB = abView(loc, ab)
	}
	if b := d.Benchmark; b != nil {
		sec := templates.EvalSection{Title: loc.T("eval.section.conversation", "Name", b.Conversation)}
		sec.Lines = append(sec.Lines, templates.EvalLine{Text: loc.T("eval.line.conversation", "Turns", loc.Number(b.Turns), "Questions", loc.Number(b.Questions),
			"NoEvidence", loc.Number(b.NoEvidence), "BadEvidence", loc.Number(b.BadEvidence))})
		v.Sections = append(v.Sections, sec)
	}
	return v
}

func matchLine(loc *locale.Localizer, what string, m evals.MatchResult) templates.EvalLine {
	l := templates.EvalLine{Text: what + " " + m.Matcher, State: "ok"}
	if m.Item != "" && m.OK {
		l.Text += " — " + m.Item
	}
	if !m.OK {
		l.State = "fail"
		why := m.Why // a result stored before WhyText was kept
		if !m.WhyText.IsZero() {
			why = loc.Text(m.WhyText)
		}
		l.Text += " — " + why
	}
	return l
}

func abView(loc *locale.Localizer, ab *evals.ABDetail) *templates.EvalABView {
	v := &templates.EvalABView{Task: ab.Task, Uplift: fmt.Sprintf("%+.2f", ab.Uplift)}
	for _, it := range ab.Package {
		v.Package = append(v.Package, it.ID+" — "+it.Text)
	}
	with, without := evals.SideBySide(ab.With.Output, ab.Without.Output)
	v.With = templates.EvalVariantView{Score: fmt.Sprintf("%.2f", ab.With.Score), Tokens: ab.With.Tokens, Lines: diffLines(with)}
	v.Without = templates.EvalVariantView{Score: fmt.Sprintf("%.2f", ab.Without.Score), Tokens: ab.Without.Tokens, Lines: diffLines(without)}
	for _, r := range ab.Rules {
		v.Rules = append(v.Rules, templates.EvalRuleRow{Name: r.Name, Method: r.Method, With: verdictView(loc, r.With), Without: verdictView(loc, r.Without)})
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

func verdictView(loc *locale.Localizer, v *evals.Verdict) templates.EvalVerdictView {
	if v == nil {
		return templates.EvalVerdictView{}
	}
	out := templates.EvalVerdictView{Verdict: v.Verdict, Evidence: v.Evidence}
	switch {
	case v.Error != "":
		out.Note = v.Error
	case v.Quoted != nil && !*v.Quoted:
		out.Note = loc.T("eval.not_quoted")
	}
	return out
}

func benchmarkView(loc *locale.Localizer, t *evals.BenchmarkTable) *templates.EvalBenchmarkView {
	v := &templates.EvalBenchmarkView{K: t.K, Summary: loc.T("eval.benchmark_summary", "Questions", loc.Number(t.Questions), "Turns", loc.Number(t.Turns),
		"NoEvidence", loc.Number(t.NoEvidence), "BadEvidence", loc.Number(t.BadEvidence)),
		Rows: benchmarkRows(loc, t.Rows), Sessions: benchmarkRows(loc, t.SessionRows), Notes: evals.BenchmarkNotes(t, loc)}
	return v
}

func benchmarkRows(loc *locale.Localizer, rows []evals.MetricRow) []templates.EvalBenchmarkRow {
	var out []templates.EvalBenchmarkRow
	for _, r := range rows {
		row := templates.EvalBenchmarkRow{Retriever: loc.Enum("eval_retriever", r.Retriever), Category: evals.CategoryLabel(loc, r.Category),
			Overall: r.Category == "overall", Questions: r.Questions, NDCG: fmt.Sprintf("%.3f", r.NDCG10)}
		for _, s := range r.HitAt {
			row.HitAt = append(row.HitAt, fmt.Sprintf("%.3f", s.Value))
		}
		for _, s := range r.AllAt {
			row.AllAt = append(row.AllAt, fmt.Sprintf("%.3f", s.Value))
		}
		out = append(out, row)
	}
	return out
}

func compareView(loc *locale.Localizer, a, b *evals.RunRow, cmp *evals.Comparison) templates.EvalCompareView {
	v := templates.EvalCompareView{SuiteID: a.SuiteID, Suite: a.SuiteName, A: runRow(a), B: runRow(b),
		Regressions: cmp.Regressions, Fixed: cmp.Fixed}
	for _, m := range []struct {
		label string
		pair  [2]*float64
	}{{loc.T("eval.metric.pass_rate"), cmp.PassRate}, {loc.T("eval.metric.precision"), cmp.Precision}, {loc.T("eval.metric.recall"), cmp.Recall}, {loc.T("eval.metric.uplift_short"), cmp.Uplift}} {
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
