package evals

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

// Result statuses of a case.
const (
	StatusPassed  = "passed"
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
	StatusError   = "error"
)

// CaseResult is the outcome of one case (or one benchmark conversation).
type CaseResult struct {
	CaseID string `json:"case_id"`
	Kind   Kind   `json:"kind"`
	Status string `json:"status"`
	// Reason says why in one line: the first problem, or what passed; Why
	// is the same sentence as its format and values, which pages
	// translate (empty in results stored before it was kept).
	Reason     string          `json:"reason"`
	Why        governance.Text `json:"why,omitzero"`
	Detail     *Detail         `json:"detail,omitempty"`
	Tokens     int             `json:"tokens,omitempty"`
	Cost       float64         `json:"cost,omitempty"`
	DurationMS int64           `json:"duration_ms"`
}

// setForeign names the memories the case must not see.
func (d *IsolationDetail) setForeign(t governance.Text) { d.Foreign, d.ForeignText = t.String(), t }

// because sets why the case came out as it did.
func (r *CaseResult) because(t governance.Text) { r.Reason, r.Why = t.String(), t }

// Sentence is why the case came out as it did, as a Text: Why, or the
// stored English Reason of a result kept before Why was.
func (r *CaseResult) Sentence() governance.Text {
	if r.Why.IsZero() {
		return governance.Text{ID: r.Reason}
	}
	return r.Why
}

// add records a problem of the case.
func (d *Detail) add(t governance.Text) {
	if len(d.Texts) == len(d.Problems) {
		d.Texts = append(d.Texts, t)
	}
	d.Problems = append(d.Problems, t.String())
}

// problem is problem i as a Text (its English when it was not kept so).
func (d *Detail) problem(i int) governance.Text {
	if len(d.Texts) == len(d.Problems) {
		return d.Texts[i]
	}
	return governance.Text{ID: d.Problems[i]}
}

// ProblemTexts are the problems as Texts.
func (d *Detail) ProblemTexts() []governance.Text {
	out := make([]governance.Text, len(d.Problems))
	for i := range d.Problems {
		out[i] = d.problem(i)
	}
	return out
}

// Detail holds the kind-specific evidence of a result.
type Detail struct {
	// Problems lists every reason the case failed, in English; Texts, when
	// it holds one for each, the same sentences as formats and values.
	Problems  []string          `json:"problems,omitempty"`
	Texts     []governance.Text `json:"problem_texts,omitempty"`
	Recall    *RecallDetail     `json:"recall,omitempty"`
	Isolation *IsolationDetail  `json:"isolation,omitempty"`
	Steps     []*StepResult     `json:"steps,omitempty"`
	Poisoning *PoisonDetail     `json:"poisoning,omitempty"`
	AB        *ABDetail         `json:"ab,omitempty"`
	Benchmark *BenchmarkDetail  `json:"benchmark,omitempty"`
	// Skills is a skill_selection case's result.
	Skills *SkillSelectionDetail `json:"skills,omitempty"`
	// SkillAB is a skill_ab case's result.
	SkillAB *SkillABDetail `json:"skill_ab,omitempty"`
}

// RecallDetail shows a context package against the expectations.
type RecallDetail struct {
	Task       string        `json:"task"`
	Items      []RecallItem  `json:"items"`
	Include    []MatchResult `json:"include,omitempty"`
	Exclude    []MatchResult `json:"exclude,omitempty"`
	Precision  *float64      `json:"precision,omitempty"`
	Recall     *float64      `json:"recall,omitempty"`
	OutOfScope int           `json:"out_of_scope"`
}

// MatchResult is one include/exclude expectation and what happened.
type MatchResult struct {
	Matcher string `json:"matcher"`
	OK      bool   `json:"ok"`
	// Item is the package item that matched, if any.
	Item string `json:"item,omitempty"`
	// Why explains a failure (e.g. the trace reason of an excluded rule);
	// WhyText is the same as its formats and values.
	Why     string          `json:"why,omitempty"`
	WhyText governance.Text `json:"why_text,omitzero"`
}

// because sets why the expectation failed.
func (m *MatchResult) because(t governance.Text) { m.Why, m.WhyText = t.String(), t }

// add records a problem of the step.
func (s *StepResult) add(t governance.Text) {
	if len(s.Texts) == len(s.Problems) {
		s.Texts = append(s.Texts, t)
	}
	s.Problems = append(s.Problems, t.String())
}

// Sentences are the step's problems as Texts (their English when they
// were not kept so).
func (s *StepResult) Sentences() []governance.Text {
	out := make([]governance.Text, len(s.Problems))
	for i, p := range s.Problems {
		if len(s.Texts) == len(s.Problems) {
			out[i] = s.Texts[i]
		} else {
			out[i] = governance.Text{ID: p}
		}
	}
	return out
}

// addAll records problems of the case.
func (d *Detail) addAll(ts []governance.Text) {
	for _, t := range ts {
		d.add(t)
	}
}

// IsolationDetail shows what the foreign scope held and whether any of it crossed.
type IsolationDetail struct {
	Foreign string `json:"foreign"`
	// ForeignText is Foreign as its format and values.
	ForeignText  governance.Text `json:"foreign_text,omitzero"`
	ForeignRules int             `json:"foreign_rules"`
	Leaks        []string        `json:"leaks,omitempty"`
	OutOfScope   int             `json:"out_of_scope"`
}

// StepResult is one step of a sequence case.
type StepResult struct {
	Name     string   `json:"name"`
	Passed   bool     `json:"passed"`
	Problems []string `json:"problems,omitempty"`
	// Texts, when it holds one for each problem, are the same sentences
	// as their formats and values.
	Texts []governance.Text `json:"problem_texts,omitempty"`
	// Notes say what the step did (rules written, superseded, forgotten).
	Notes []string `json:"notes,omitempty"`
}

// PoisonDetail shows what untrusted content did.
type PoisonDetail struct {
	NewRules     []string `json:"new_rules,omitempty"`
	Forbidden    []string `json:"forbidden,omitempty"`
	RecallBefore []string `json:"recall_before,omitempty"`
	RecallAfter  []string `json:"recall_after,omitempty"`
}

// ABDetail compares the answers with and without memory.
type ABDetail struct {
	Task      string            `json:"task"`
	Package   []RecallItem      `json:"package"`
	With      *Variant          `json:"with"`
	Without   *Variant          `json:"without"`
	Rules     []*RuleCompliance `json:"rules"`
	Guards    []CheckResult     `json:"guards,omitempty"`
	Uplift    float64           `json:"uplift"`
	MinWith   float64           `json:"min_with"`
	MinUplift float64           `json:"min_uplift"`
}

// Variant is one answer and its compliance score (0–1).
type Variant struct {
	Output string  `json:"output"`
	Score  float64 `json:"score"`
	Tokens int     `json:"tokens"`
}

// Verdicts of rule compliance.
const (
	Satisfied   = "satisfied"
	Partial     = "partial"
	Unsatisfied = "unsatisfied"
	VerdictErr  = "error"
)

// RuleCompliance is one rule judged on both answers.
type RuleCompliance struct {
	Name   string `json:"name"`
	RuleID int64  `json:"rule_id,omitempty"`
	// Method is "code" (checks) or "judge" (the model).
	Method  string   `json:"method"`
	With    *Verdict `json:"with"`
	Without *Verdict `json:"without"`
}

// Verdict is the compliance of one answer with one rule.
type Verdict struct {
	Verdict  string        `json:"verdict"`
	Evidence string        `json:"evidence,omitempty"`
	Checks   []CheckResult `json:"checks,omitempty"`
	// Quoted is false when a judge's evidence is not found in the output.
	Quoted *bool  `json:"quoted,omitempty"`
	Error  string `json:"error,omitempty"`
}

func verdictScore(v string) float64 {
	switch v {
	case Satisfied:
		return 1
	case Partial:
		return 0.5
	}
	return 0
}

// Metrics summarise a run; nil pointers mean "no case measured it".
type Metrics struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
	// PassRate is passed / (total − skipped).
	PassRate *float64 `json:"pass_rate,omitempty"`
	// Precision and Recall are means over recall and isolation cases.
	Precision *float64 `json:"precision,omitempty"`
	Recall    *float64 `json:"recall,omitempty"`
	// Uplift, With and Without are means over ab cases.
	Uplift     *float64        `json:"uplift,omitempty"`
	With       *float64        `json:"with,omitempty"`
	Without    *float64        `json:"without,omitempty"`
	Compliance []RuleAggregate `json:"compliance,omitempty"`
	GuardFails int             `json:"guard_failures,omitempty"`
	Benchmark  *BenchmarkTable `json:"benchmark,omitempty"`
	Tokens     int             `json:"tokens"`
	Cost       float64         `json:"cost"`
	DurationMS int64           `json:"duration_ms"`
	// CleanupMS is the part of DurationMS spent removing scratch projects.
	CleanupMS int64             `json:"cleanup_ms,omitempty"`
	Kinds     map[Kind]KindStat `json:"kinds,omitempty"`
	// Forgets counts the forgets that, while the run ran, removed data it
	// had copied from live projects (fixtures.copy_events); the cases that
	// read that data and did not pass are skipped.
	Forgets int `json:"forgets,omitempty"`
}

// KindStat counts results of one kind.
type KindStat struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
}

// RuleAggregate is one rule's compliance over the ab cases of a run.
type RuleAggregate struct {
	Name    string  `json:"name"`
	Method  string  `json:"method"`
	Cases   int     `json:"cases"`
	With    float64 `json:"with"`
	Without float64 `json:"without"`
	Uplift  float64 `json:"uplift"`
}

// Report is the outcome of a suite run.
type Report struct {
	Suite   string        `json:"suite"`
	Cases   []*CaseResult `json:"cases"`
	Metrics Metrics       `json:"metrics"`
	// Err is why the run itself failed (setup), if it did.
	Err string `json:"error,omitempty"`
}

// Failed reports whether the run should fail a release gate: any failed
// or erroring case, or a run that could not complete. Skipped cases do
// not fail it.
func (r *Report) Failed() bool {
	return r.Err != "" || r.Metrics.Failed > 0 || r.Metrics.Errors > 0
}

func ptr(v float64) *float64 { v = round3(v); return &v }

// Summarize computes the metrics of a set of results (in suite order);
// suite may be nil (then a benchmark table is not built).
func Summarize(suite *Suite, results []*CaseResult, dur time.Duration) Metrics {
	m := Metrics{Total: len(results), DurationMS: dur.Milliseconds(), Kinds: map[Kind]KindStat{}}
	var prec, rec, up, with, without []float64
	rules := map[string]*RuleAggregate{}
	var ruleOrder []string
	var bench []*BenchmarkDetail
	for _, r := range results {
		ks := m.Kinds[r.Kind]
		switch r.Status {
		case StatusPassed:
			m.Passed++
			ks.Passed++
		case StatusFailed:
			m.Failed++
			ks.Failed++
		case StatusSkipped:
			m.Skipped++
			ks.Skipped++
		default:
			m.Errors++
			ks.Errors++
		}
		m.Kinds[r.Kind] = ks
		m.Tokens += r.Tokens
		m.Cost += r.Cost
		if r.Detail == nil {
			continue
		}
		if d := r.Detail.Recall; d != nil {
			if d.Precision != nil {
				prec = append(prec, *d.Precision)
			}
			if d.Recall != nil {
				rec = append(rec, *d.Recall)
			}
		}
		if d := r.Detail.AB; d != nil && r.Status != StatusError {
			up = append(up, d.Uplift)
			with = append(with, d.With.Score)
			without = append(without, d.Without.Score)
			for _, g := range d.Guards {
				if !g.Passed {
					m.GuardFails++
				}
			}
			for _, rc := range d.Rules {
				agg := rules[rc.Name]
				if agg == nil {
					agg = &RuleAggregate{Name: rc.Name, Method: rc.Method}
					rules[rc.Name] = agg
					ruleOrder = append(ruleOrder, rc.Name)
				}
				agg.Cases++
				agg.With += verdictScore(rc.With.Verdict)
				agg.Without += verdictScore(rc.Without.Verdict)
			}
		}
		if d := r.Detail.Benchmark; d != nil {
			bench = append(bench, d)
		}
	}
	if n := m.Total - m.Skipped; n > 0 {
		m.PassRate = ptr(float64(m.Passed) / float64(n))
	}
	m.Precision, m.Recall = mean(prec), mean(rec)
	m.Uplift, m.With, m.Without = mean(up), mean(with), mean(without)
	for _, name := range ruleOrder {
		agg := rules[name]
		agg.With, agg.Without = round3(agg.With/float64(agg.Cases)), round3(agg.Without/float64(agg.Cases))
		agg.Uplift = round3(agg.With - agg.Without)
		m.Compliance = append(m.Compliance, *agg)
	}
	m.Cost = roundCost(m.Cost)
	if suite != nil && suite.Benchmark != nil {
		m.Benchmark = benchmarkTable(suite.Benchmark, bench)
	}
	return m
}

func roundCost(c float64) float64 { return float64(int64(c*1e6+0.5)) / 1e6 }

func mean(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return ptr(s / float64(len(v)))
}

// WriteText prints the report for a terminal: one line per case, then the
// metrics, in English.
func (r *Report) WriteText(w io.Writer) error {
	return r.WriteTextIn(w, english{})
}

// Translator renders the report's sentences in a reader's language
// (locale.Localizer does): Phrasef fills a sentence's English fmt format,
// Phrase translates a sentence formatted earlier (a case's reason).
// Enum labels an enumerated value (a case's status, its kind, a
// retriever, a benchmark category) by the message "<kind>.<value>".
type Translator interface {
	Phrasef(format string, args ...any) string
	PhraseFormatted(english string) string
	// Text translates a sentence kept as its format and values.
	Text(t governance.Text) string
	Enum(kind, value string) string
	// ShortDuration writes a measured time: "1.4 s", "12 ms".
	ShortDuration(d time.Duration) string
}

type english struct{}

func (english) Phrasef(format string, args ...any) string { return fmt.Sprintf(format, args...) }
func (english) PhraseFormatted(s string) string           { return s }
func (english) Text(t governance.Text) string             { return t.String() }
func (english) Enum(_, value string) string               { return value }
func (english) ShortDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// WriteTextIn is WriteText with the sentences translated by tr.
func (r *Report) WriteTextIn(w io.Writer, tr Translator) error {
	var b strings.Builder
	line := func(format string, args ...any) { b.WriteString(tr.Phrasef(format, args...) + "\n") }
	line("suite %s", r.Suite)
	for _, c := range r.Cases {
		status := strings.ToUpper(tr.Enum("eval_status", c.Status)) // PASSED, 通过
		fmt.Fprintf(&b, "  %s %s %s — %s\n", locale.Pad(status, 7), locale.Pad(tr.Enum("eval_kind", string(c.Kind)), 9), c.CaseID, tr.Text(c.Sentence()))
		if c.Detail != nil && c.Status != StatusPassed {
			for _, p := range c.Detail.ProblemTexts()[min(1, len(c.Detail.Problems)):] {
				fmt.Fprintf(&b, "          %s\n", tr.Text(p))
			}
		}
	}
	m := r.Metrics
	summary := tr.Phrasef("%d cases: %d passed, %d failed, %d errors, %d skipped", m.Total, m.Passed, m.Failed, m.Errors, m.Skipped)
	if m.PassRate != nil {
		summary += tr.Phrasef(" — pass rate %.0f%%", *m.PassRate*100)
	}
	b.WriteString(summary + "\n")
	if m.Precision != nil || m.Recall != nil {
		line("recall precision %s, recall %s", fmtPtr(m.Precision), fmtPtr(m.Recall))
	}
	if m.Uplift != nil {
		line("rule compliance with memory %s, without %s, uplift %s", fmtPtr(m.With), fmtPtr(m.Without), fmtSigned(m.Uplift))
		for _, c := range m.Compliance {
			fmt.Fprintf(&b, "  %s %s\n", locale.Pad(shorten(c.Name, 40), 40),
				tr.Phrasef("with %.2f without %.2f uplift %+.2f (%s)", c.With, c.Without, c.Uplift, tr.Enum("eval_method", c.Method)))
		}
		if m.GuardFails > 0 {
			line("guards failed on the with-memory answers: %d", m.GuardFails)
		}
	}
	if t := m.Benchmark; t != nil {
		writeBenchmarkText(&b, t, tr)
	}
	if m.Tokens > 0 {
		line("tokens %d, cost %.4f", m.Tokens, m.Cost)
	}
	if m.Forgets > 0 {
		line("forgets during the run: %d removed data it copied from live projects; cases that read it and did not pass were skipped", m.Forgets)
	}
	took := tr.Phrasef("took %s", tr.ShortDuration(time.Duration(m.DurationMS)*time.Millisecond))
	if m.CleanupMS > 0 {
		took += tr.Phrasef(" (removing scratch projects %s, %s without)", tr.ShortDuration(time.Duration(m.CleanupMS)*time.Millisecond),
			tr.ShortDuration(time.Duration(m.DurationMS-m.CleanupMS)*time.Millisecond))
	}
	b.WriteString(took + "\n")
	if r.Err != "" {
		line("run failed: %s", tr.PhraseFormatted(r.Err))
	}
	if r.Failed() {
		b.WriteString(tr.Phrasef("FAIL") + "\n")
	} else {
		b.WriteString(tr.Phrasef("OK") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String is the text report.
func (r *Report) String() string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}

func writeBenchmarkText(b *strings.Builder, t *BenchmarkTable, tr Translator) {
	if t.Format != FormatLongMemEval {
		b.WriteString(tr.Phrasef("%d questions over %d turns (%d without usable evidence, %d malformed evidence ids)",
			t.Questions, t.Turns, t.NoEvidence, t.BadEvidence) + "\n")
		writeMetricRows(b, t.K, t.Rows, tr)
		return
	}
	abstain := 0
	if len(t.Abstention) > 0 {
		abstain = t.Abstention[0].Questions
	}
	b.WriteString(tr.Phrasef("%d questions over %d turns (%d abstention questions apart, %d without an answer turn before their date; %d answer turns dated after their question left out)",
		t.Questions, t.Turns, abstain, t.NoEvidence, t.LateEvidence) + "\n")
	b.WriteString(tr.Phrasef("turn level (relevant: the answer turns)") + "\n")
	writeMetricRows(b, t.K, t.Rows, tr)
	b.WriteString(tr.Phrasef("session level (relevant: the answer sessions)") + "\n")
	writeMetricRows(b, t.K, t.SessionRows, tr)
	for _, n := range BenchmarkNotes(t, tr) {
		b.WriteString("  " + n + "\n")
	}
}

// BenchmarkNotes are the lines a LongMemEval table adds below its tables:
// the knowledge-update and the abstention rows, in tr's language.
func BenchmarkNotes(t *BenchmarkTable, tr Translator) []string {
	var out []string
	for _, row := range t.NewestFirst {
		out = append(out, tr.Phrasef("knowledge updates, newest answer session above the older ones: %s %.3f of %d",
			tr.Enum("eval_retriever", row.Retriever), row.Share, row.Questions))
	}
	for _, row := range t.Abstention {
		out = append(out, tr.Phrasef("abstention (no answer in the haystack): %s %d questions, %.1f results, a session they draw on in the first 10 sessions %.3f",
			tr.Enum("eval_retriever", row.Retriever), row.Questions, row.Returned, row.Sessions))
	}
	for _, row := range t.NoStrongMatch {
		out = append(out, tr.Phrasef("no strong match: %s says so of %.3f of %d abstention questions, and wrongly of %.3f of %d answerable ones",
			tr.Enum("eval_retriever", row.Retriever), row.Flagged, row.Abstention, row.Wrongly, row.Answerable))
	}
	return out
}

// writeMetricRows writes a benchmark table: a header, then each
// category's rows together, retrievers in order.
func writeMetricRows(b *strings.Builder, ks []int, metricRows []MetricRow, tr Translator) {
	// Columns are padded by display width: a Chinese label takes two
	// columns a character.
	fmt.Fprintf(b, "  %s %s %s", locale.Pad(tr.Enum("eval_column", "retriever"), 9),
		locale.Pad(tr.Enum("eval_column", "category"), 26), padLeft(tr.Enum("eval_column", "n"), 5))
	for _, k := range ks {
		fmt.Fprintf(b, " hit@%-3d", k)
	}
	for _, k := range ks {
		fmt.Fprintf(b, " all@%-3d", k)
	}
	b.WriteString(" nDCG@10\n")
	var cats []string
	for _, row := range metricRows {
		if !slices.Contains(cats, row.Category) {
			cats = append(cats, row.Category)
		}
	}
	rows := slices.Clone(metricRows)
	slices.SortStableFunc(rows, func(a, b MetricRow) int {
		return cmp.Compare(slices.Index(cats, a.Category), slices.Index(cats, b.Category))
	})
	for _, row := range rows {
		fmt.Fprintf(b, "  %s %s %5d", locale.Pad(tr.Enum("eval_retriever", row.Retriever), 9),
			locale.Pad(CategoryLabel(tr, row.Category), 26), row.Questions)
		for _, s := range row.HitAt {
			fmt.Fprintf(b, " %7.3f", s.Value)
		}
		for _, s := range row.AllAt {
			fmt.Fprintf(b, " %7.3f", s.Value)
		}
		fmt.Fprintf(b, " %7.3f\n", row.NDCG10)
	}
}

// CategoryLabel is a benchmark row's category in tr's language: "overall",
// or a LoCoMo category as "4 single-hop" (its number kept).
func CategoryLabel(tr Translator, category string) string {
	if n, name, ok := strings.Cut(category, " "); ok && strings.Trim(n, "0123456789") == "" {
		return n + " " + tr.Enum("benchmark_category", name)
	}
	return tr.Enum("benchmark_category", category)
}

// padLeft right-aligns s in n terminal columns.
func padLeft(s string, n int) string {
	if w := locale.Width(s); w < n {
		return strings.Repeat(" ", n-w) + s
	}
	return s
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f", *p)
}

func fmtSigned(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%+.2f", *p)
}

// Change classifies a case between two runs.
type Change string

const (
	Regression Change = "regression"
	Fixed      Change = "fixed"
	Same       Change = "unchanged"
	Added      Change = "new"
	Removed    Change = "removed"
	Different  Change = "changed"
)

// CaseChange is one case compared between run A (before) and run B (after).
type CaseChange struct {
	CaseID  string
	Kind    Kind
	Change  Change
	Before  *CaseResult
	After   *CaseResult
	Summary string
}

// Comparison of two reports, regressions first.
type Comparison struct {
	Cases       []CaseChange
	Regressions int
	Fixed       int
	PassRate    [2]*float64
	Precision   [2]*float64
	Recall      [2]*float64
	Uplift      [2]*float64
}

// Compare compares run a (before) with run b (after).
func Compare(a, b *Report) *Comparison {
	cmpn := &Comparison{
		PassRate:  [2]*float64{a.Metrics.PassRate, b.Metrics.PassRate},
		Precision: [2]*float64{a.Metrics.Precision, b.Metrics.Precision},
		Recall:    [2]*float64{a.Metrics.Recall, b.Metrics.Recall},
		Uplift:    [2]*float64{a.Metrics.Uplift, b.Metrics.Uplift},
	}
	before := map[string]*CaseResult{}
	for _, c := range a.Cases {
		before[c.CaseID] = c
	}
	seen := map[string]bool{}
	for _, c := range b.Cases {
		seen[c.CaseID] = true
		ch := CaseChange{CaseID: c.CaseID, Kind: c.Kind, After: c, Before: before[c.CaseID]}
		switch old := before[c.CaseID]; {
		case old == nil:
			ch.Change, ch.Summary = Added, "new case: "+c.Status
		case old.Status == StatusPassed && (c.Status == StatusFailed || c.Status == StatusError):
			ch.Change, ch.Summary = Regression, "was passed, now "+c.Status+": "+c.Reason
			cmpn.Regressions++
		case (old.Status == StatusFailed || old.Status == StatusError) && c.Status == StatusPassed:
			ch.Change, ch.Summary = Fixed, "was "+old.Status+", now passed"
			cmpn.Fixed++
		case old.Status != c.Status:
			ch.Change, ch.Summary = Different, old.Status+" → "+c.Status
		default:
			ch.Change, ch.Summary = Same, c.Status
			if oab, nab := abOf(old), abOf(c); oab != nil && nab != nil && oab.Uplift != nab.Uplift {
				ch.Change = Different
				ch.Summary = fmt.Sprintf("%s; uplift %+.2f → %+.2f", c.Status, oab.Uplift, nab.Uplift)
			}
		}
		cmpn.Cases = append(cmpn.Cases, ch)
	}
	for _, c := range a.Cases {
		if !seen[c.CaseID] {
			cmpn.Cases = append(cmpn.Cases, CaseChange{CaseID: c.CaseID, Kind: c.Kind, Change: Removed, Before: c, Summary: "not in the newer run"})
		}
	}
	order := map[Change]int{Regression: 0, Different: 1, Fixed: 2, Added: 3, Removed: 4, Same: 5}
	slices.SortStableFunc(cmpn.Cases, func(x, y CaseChange) int { return cmp.Compare(order[x.Change], order[y.Change]) })
	return cmpn
}

func abOf(c *CaseResult) *ABDetail {
	if c.Detail == nil {
		return nil
	}
	return c.Detail.AB
}

// RunSummary is what a run stores in eval_runs.summary.
type RunSummary struct {
	// SuiteYAML is the suite as it was when the run was queued, so a later
	// upload under the same name does not change a run in flight.
	SuiteYAML string `json:"suite_yaml,omitempty"`
	// SuiteSHA256 identifies the suite body when it was too large to copy.
	SuiteSHA256 string   `json:"suite_sha256,omitempty"`
	Metrics     *Metrics `json:"metrics,omitempty"`
}

// ParseRunSummary reads a stored summary; an unreadable one is empty.
func ParseRunSummary(s string) *RunSummary {
	var rs RunSummary
	_ = json.Unmarshal([]byte(s), &rs)
	return &rs
}
