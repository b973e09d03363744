package evals

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/sashabaranov/go-openai"
)

// abKind: the model answers the task with the context package and without
// it; per-rule compliance with memory and the uplift must reach the bars.
// Skipped without a model endpoint.
var abKind = &kindSpec{
	kind:   KindAB,
	fields: []string{"task", "output_schema", "rules", "guards", "min_with", "min_uplift"},
	shared: true,
	validate: func(v *validator, s *Suite, c *Case, id string, alias func(field, name string)) {
		if len(c.Rules) == 0 {
			v.add(id, "rules", governance.Say("an ab case names at least one rule to check (with match, text and/or checks)"))
		}
		for i, r := range c.Rules {
			f := fmt.Sprintf("rules[%d]", i)
			if r == nil {
				v.add(id, f, governance.Say("is empty"))
				continue
			}
			if r.Match == nil && r.Text == "" {
				v.add(id, f, governance.Say("needs match (a stored rule) or text (the statement to judge)"))
			}
			validateMatcher(v, id, f+".match", r.Match)
			for j, ch := range r.Checks {
				validateCheck(v, id, fmt.Sprintf("%s.checks[%d]", f, j), ch)
			}
		}
		for i, ch := range c.Guards {
			validateCheck(v, id, fmt.Sprintf("guards[%d]", i), ch)
		}
		validateBars(v, c, id)
	},
	run: func(e *engine, ctx context.Context, _ int, c *Case, res *CaseResult) error {
		return e.runAB(ctx, c, res)
	},
}

// validateBars checks the pass bars of an ab or skill_ab case.
func validateBars(v *validator, c *Case, id string) {
	for _, p := range []struct {
		name string
		val  *float64
	}{{"min_with", c.MinWith}, {"min_uplift", c.MinUplift}} {
		if p.val != nil && (*p.val < -1 || *p.val > 1) {
			v.add(id, p.name, governance.Say("must be between -1 and 1"))
		}
	}
}

// target is one rule whose compliance an ab case checks.
type target struct {
	name   string
	ruleID int64
	text   string
	checks []*Check
}

func (e *engine) runAB(ctx context.Context, c *Case, res *CaseResult) error {
	if e.deps.Model == nil {
		res.Status = StatusSkipped
		res.because(governance.Say(NoModelReason))
		return nil
	}
	pid, err := e.project(ctx, cmpOr(c.Project, e.suite.Project))
	if err != nil {
		return err
	}
	subject := e.subject(c)
	pkg, err := e.deps.Memory.Recall(ctx, RecallQuery{ProjectID: pid, SubjectID: subject, Task: c.Task})
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	targets, problems, err := e.abTargets(ctx, pid, subject, c, pkg)
	if err != nil {
		return err
	}
	d := &ABDetail{Task: c.Task, Package: pkg.Items, MinWith: 1, MinUplift: 0}
	if c.MinWith != nil {
		d.MinWith = *c.MinWith
	}
	if c.MinUplift != nil {
		d.MinUplift = *c.MinUplift
	}
	res.Detail.AB = d
	account := func(u openai.Usage) {
		res.Tokens += u.TotalTokens
		res.Cost += e.deps.Price.Cost(u)
	}
	var errs []string
	for _, variant := range []string{"with", "without"} {
		memory := ""
		if variant == "with" {
			memory = pkg.Text
		}
		out, usage, err := e.answer(ctx, c, memory)
		account(usage)
		if err != nil {
			return fmt.Errorf("answer %s memory: %w", variant, err)
		}
		v := &Variant{Output: out, Tokens: usage.TotalTokens}
		if variant == "with" {
			d.With = v
		} else {
			d.Without = v
		}
	}
	outWith, outWithout := ParseOutput(d.With.Output), ParseOutput(d.Without.Output)
	var sumWith, sumWithout float64
	n := 0
	for _, t := range targets {
		rc := &RuleCompliance{Name: t.name, RuleID: t.ruleID, Method: "code"}
		if len(t.checks) == 0 {
			rc.Method = "judge"
		}
		for _, variant := range []string{"with", "without"} {
			o := outWith
			if variant == "without" {
				o = outWithout
			}
			var v *Verdict
			if len(t.checks) > 0 {
				v = codeVerdict(t.checks, o)
			} else {
				var usage openai.Usage
				v, usage, err = e.judgeRule(ctx, t.text, o.Text)
				account(usage)
				if err != nil {
					v = &Verdict{Verdict: VerdictErr, Error: err.Error()}
					errs = append(errs, fmt.Sprintf("judging %q on the answer %s memory: %v", shorten(t.name, 60), variant, err))
				}
			}
			if variant == "with" {
				rc.With = v
			} else {
				rc.Without = v
			}
		}
		d.Rules = append(d.Rules, rc)
		if rc.With.Verdict != VerdictErr && rc.Without.Verdict != VerdictErr {
			sumWith += verdictScore(rc.With.Verdict)
			sumWithout += verdictScore(rc.Without.Verdict)
			n++
		}
	}
	if n > 0 {
		d.With.Score, d.Without.Score = round3(sumWith/float64(n)), round3(sumWithout/float64(n))
	}
	d.Uplift = round3(d.With.Score - d.Without.Score)
	for _, g := range c.Guards {
		d.Guards = append(d.Guards, g.Run(outWith))
	}
	if len(errs) > 0 {
		res.Status = StatusError
		res.because(governance.Say(errs[0]))
		res.Detail.Problems = append(res.Detail.Problems, errs...)
		return nil
	}
	if d.With.Score < d.MinWith {
		var weak []string
		for _, rc := range d.Rules {
			if rc.With.Verdict != Satisfied {
				weak = append(weak, fmt.Sprintf("%q %s (%s)", shorten(rc.Name, 50), rc.With.Verdict, shorten(rc.With.Evidence, 100)))
			}
		}
		problems = append(problems, fmt.Sprintf("compliance with memory %.2f is below %.2f: %s", d.With.Score, d.MinWith, strings.Join(weak, "; ")))
	}
	if d.Uplift < d.MinUplift {
		problems = append(problems, fmt.Sprintf("uplift %+.2f is below %+.2f", d.Uplift, d.MinUplift))
	}
	res.Detail.Problems = append(res.Detail.Problems, problems...)
	if len(res.Detail.Problems) == 0 {
		res.because(governance.Say("compliance with memory %.2f, without %.2f, uplift %+.2f over %d rules", d.With.Score, d.Without.Score, d.Uplift, n))
	}
	return nil
}

// abTargets resolves the rules an ab case checks: its rule specs, then
// every other rule in the with-memory package (with stored checks, or
// judged).
func (e *engine) abTargets(ctx context.Context, pid int64, subject string, c *Case, pkg *RecallResult) ([]*target, []string, error) {
	scope, err := e.scopeRules(ctx, pid, subject)
	if err != nil {
		return nil, nil, err
	}
	var (
		targets  []*target
		problems []string
		covered  = map[int64]bool{}
	)
	for _, spec := range c.Rules {
		t := &target{name: spec.Name, text: spec.Text, checks: spec.Checks}
		if spec.Match != nil {
			for _, r := range scope {
				if live(r) && spec.Match.MatchRule(r) {
					t.ruleID, t.text = r.ID, cmpOr(spec.Text, r.Text)
					if ok, _ := r.Usable(time.Now()); ok {
						break
					}
				}
			}
			if t.ruleID == 0 && spec.Text == "" && len(spec.Checks) == 0 {
				problems = append(problems, fmt.Sprintf("no rule in scope matches %s, and the spec gives no text to judge", spec.Match))
				continue
			}
		}
		if t.name == "" {
			t.name = t.text
		}
		if t.name == "" && spec.Match != nil {
			t.name = spec.Match.String()
		}
		if t.ruleID != 0 {
			covered[t.ruleID] = true
		}
		targets = append(targets, t)
	}
	for _, it := range pkg.Items {
		if it.RuleID == 0 || covered[it.RuleID] {
			continue
		}
		covered[it.RuleID] = true
		text := it.Text
		for _, r := range scope {
			if r.ID == it.RuleID {
				text = r.Text
			}
		}
		targets = append(targets, &target{name: text, ruleID: it.RuleID, text: text})
	}
	var ids []int64
	for _, t := range targets {
		if t.ruleID != 0 && len(t.checks) == 0 {
			ids = append(ids, t.ruleID)
		}
	}
	stored, err := e.deps.Memory.FindRuleChecks(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range targets {
		if s, ok := stored[t.ruleID]; ok && len(t.checks) == 0 {
			checks, err := ParseChecks(s)
			if err != nil {
				problems = append(problems, fmt.Sprintf("the checks stored on rule %d are invalid: %v", t.ruleID, err))
				continue
			}
			t.checks = checks
		}
	}
	return targets, problems, nil
}

// codeVerdict runs a rule's checks: all pass → satisfied, some → partial,
// none → unsatisfied.
func codeVerdict(checks []*Check, o *Output) *Verdict {
	v := &Verdict{}
	passed := 0
	var ev []string
	for _, ch := range checks {
		r := ch.Run(o)
		v.Checks = append(v.Checks, r)
		if r.Passed {
			passed++
		}
		ev = append(ev, r.Evidence)
	}
	switch {
	case passed == len(checks):
		v.Verdict = Satisfied
	case passed > 0:
		v.Verdict = Partial
	default:
		v.Verdict = Unsatisfied
	}
	v.Evidence = strings.Join(ev, "; ")
	return v
}
