package evals

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
	"github.com/sashabaranov/go-openai"
)

// KindSkillAB is the kind of a case that measures what skills do for a
// model's answers.
const KindSkillAB Kind = "skill_ab"

// skillABKind: the model answers each task twice, with the skills recall
// offers for it and without any. "With" is what an agent holds after it
// read the context package and fetched the offered skills: their list as
// the package renders it, then each one's instructions as get_skill
// returns them (credentials masked). Both answers are scored by the task's
// checks, or, for a task without checks, by the judge asked whether the
// answer follows the instructions of the skills it expects. The case
// passes when the mean score with skills reaches min_with (default 1) and
// the uplift, with − without, reaches min_uplift (default 0). No project
// is read. Skipped without a model endpoint.
var skillABKind = &kindSpec{
	kind:   KindSkillAB,
	fields: []string{"skills", "tasks", "output_schema", "min_with", "min_uplift"},
	validate: func(v *validator, s *Suite, c *Case, id string, alias func(field, name string)) {
		names := validateSkillSpecs(v, c, id)
		for i, sk := range c.Skills {
			if strings.TrimSpace(sk.Body) == "" {
				v.add(id, fmt.Sprintf("skills[%d].body", i), governance.Say("a skill_ab case needs each skill's instructions"))
			}
		}
		validateSkillTasks(v, c, id, names)
		for i, tk := range c.SkillTasks {
			if len(tk.Checks) == 0 && len(tk.Expect) == 0 {
				v.add(id, fmt.Sprintf("tasks[%d]", i), governance.Say("needs checks, or the skills it expects (the judge reads their instructions)"))
			}
			for j, ch := range tk.Checks {
				validateCheck(v, id, fmt.Sprintf("tasks[%d].checks[%d]", i, j), ch)
			}
		}
		validateBars(v, c, id)
	},
	run: func(e *engine, ctx context.Context, _ int, c *Case, res *CaseResult) error {
		return e.runSkillAB(ctx, c, res)
	},
}

// SkillABDetail is a skill_ab case's result: each task's answers with and
// without skills, and the mean scores.
type SkillABDetail struct {
	Tasks     []*SkillABTask `json:"tasks"`
	With      float64        `json:"with"`
	Without   float64        `json:"without"`
	Uplift    float64        `json:"uplift"`
	MinWith   float64        `json:"min_with"`
	MinUplift float64        `json:"min_uplift"`
}

// SkillABTask is one task of a skill_ab case.
type SkillABTask struct {
	Task     string   `json:"task"`
	Expected []string `json:"expected"`
	Offered  []string `json:"offered"`
	// Method is "code" (the task's checks) or "judge".
	Method         string   `json:"method"`
	With           *Variant `json:"with"`
	Without        *Variant `json:"without"`
	WithVerdict    *Verdict `json:"with_verdict"`
	WithoutVerdict *Verdict `json:"without_verdict"`
}

func (e *engine) runSkillAB(ctx context.Context, c *Case, res *CaseResult) error {
	if e.deps.Model == nil {
		res.Status = StatusSkipped
		res.because(governance.Say(NoModelReason))
		return nil
	}
	d := &SkillABDetail{MinWith: 1}
	if c.MinWith != nil {
		d.MinWith = *c.MinWith
	}
	if c.MinUplift != nil {
		d.MinUplift = *c.MinUplift
	}
	res.Detail.SkillAB = d
	account := func(u openai.Usage) {
		res.Tokens += u.TotalTokens
		res.Cost += e.deps.Price.Cost(u)
	}
	byName := map[string]*SkillSpec{}
	list := make([]*governance.Skill, len(c.Skills))
	for i, s := range c.Skills {
		byName[s.Name] = s
		list[i] = &governance.Skill{Name: s.Name, Description: s.Description, Status: governance.SkillActive, Version: 1}
	}
	ix := recall.NewSkillIndex(list)
	var errs []string
	for _, tk := range c.SkillTasks {
		offered := ix.Select(tk.Task, recall.MaxSkills)
		t := &SkillABTask{Task: tk.Task, Expected: append([]string{}, tk.Expect...), Offered: []string{}, Method: "code"}
		for _, m := range offered {
			t.Offered = append(t.Offered, m.Name)
		}
		asked := *c
		asked.Task = tk.Task
		for _, variant := range []string{"with", "without"} {
			held := ""
			if variant == "with" {
				held = skillContext(offered, byName)
			}
			out, usage, err := e.answer(ctx, &asked, held)
			account(usage)
			if err != nil {
				return fmt.Errorf("answer %q %s skills: %w", shorten(tk.Task, 60), variant, err)
			}
			o := ParseOutput(out)
			var v *Verdict
			if len(tk.Checks) > 0 {
				v = codeVerdict(tk.Checks, o)
			} else {
				t.Method = "judge"
				var usage openai.Usage
				v, usage, err = e.judgeRule(ctx, skillInstruction(tk.Expect, byName), o.Text)
				account(usage)
				if err != nil {
					v = &Verdict{Verdict: VerdictErr, Error: err.Error()}
					errs = append(errs, fmt.Sprintf("judging %q %s skills: %v", shorten(tk.Task, 60), variant, err))
				}
			}
			vr := &Variant{Output: out, Tokens: usage.TotalTokens, Score: verdictScore(v.Verdict)}
			if variant == "with" {
				t.With, t.WithVerdict = vr, v
			} else {
				t.Without, t.WithoutVerdict = vr, v
			}
		}
		d.Tasks = append(d.Tasks, t)
	}
	if len(errs) > 0 {
		res.Status = StatusError
		res.because(governance.Say(errs[0]))
		res.Detail.Problems = append(res.Detail.Problems, errs...)
		return nil
	}
	for _, t := range d.Tasks {
		d.With += t.With.Score
		d.Without += t.Without.Score
	}
	if n := float64(len(d.Tasks)); n > 0 {
		d.With, d.Without = round3(d.With/n), round3(d.Without/n)
	}
	d.Uplift = round3(d.With - d.Without)
	if d.With < d.MinWith {
		var weak []string
		for _, t := range d.Tasks {
			if t.WithVerdict.Verdict != Satisfied {
				weak = append(weak, fmt.Sprintf("%q %s (offered: %s)", shorten(t.Task, 50), t.WithVerdict.Verdict, strings.Join(t.Offered, ", ")))
			}
		}
		res.Detail.add(governance.Say("score with skills %.2f is below %.2f: %s", d.With, d.MinWith, strings.Join(weak, "; ")))
	}
	if d.Uplift < d.MinUplift {
		res.Detail.add(governance.Say("uplift %+.2f is below %+.2f", d.Uplift, d.MinUplift))
	}
	if len(res.Detail.Problems) == 0 {
		res.because(governance.Say("score with skills %.2f, without %.2f, uplift %+.2f over %d tasks", d.With, d.Without, d.Uplift, len(d.Tasks)))
	}
	return nil
}

// skillContext is what an agent holds after reading the package's skills
// and fetching each one: the list, then every offered skill's
// instructions as an agent reads them.
func skillContext(offered []governance.SkillMatch, byName map[string]*SkillSpec) string {
	if len(offered) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(recall.SkillsBlock(offered))
	for _, m := range offered {
		fmt.Fprintf(&b, "\n\n<skill name=%q>\n%s\n</skill>", m.Name, recall.SkillTextForAgent(strings.TrimSpace(byName[m.Name].Body)))
	}
	return b.String()
}

// skillInstruction is what the judge checks an answer against for a task
// without checks: the expected skills' instructions.
func skillInstruction(expect []string, byName map[string]*SkillSpec) string {
	parts := make([]string, 0, len(expect))
	for _, n := range slices.Sorted(slices.Values(expect)) {
		parts = append(parts, fmt.Sprintf("Follow the procedure of the skill %q: %s", n, strings.TrimSpace(byName[n].Body)))
	}
	return strings.Join(parts, "\n")
}
