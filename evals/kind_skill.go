package evals

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
)

// KindSkillSelection: which skills the context package offers for a task,
// measured offline. The case lists skills (name and description, what an
// agent chooses by) and tasks with the skills each should get (none for
// a task no skill fits); selection (governance/recall SkillIndex) runs
// over them and the case passes when micro precision and recall over
// every (task, skill) pair reach their minimums.
const KindSkillSelection Kind = "skill_selection"

// SkillSpec is one skill of a skill_selection or skill_ab case.
type SkillSpec struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Body is the skill's instructions (skill_ab only).
	Body string `yaml:"body,omitempty"`
}

// SkillTask is one task of a skill_selection or skill_ab case and the
// skills it should be offered.
type SkillTask struct {
	Task   string   `yaml:"task"`
	Expect []string `yaml:"expect"`
	// Checks score a skill_ab answer (without them the judge does).
	Checks []*Check `yaml:"checks,omitempty"`
}

// SkillSelectionDetail is a skill_selection case's result.
type SkillSelectionDetail struct {
	Skills    int                 `json:"skills"`
	Tasks     []SkillTaskResult   `json:"tasks"`
	Precision float64             `json:"precision"`
	Recall    float64             `json:"recall"`
	Counts    SkillSelectionCount `json:"counts"`
}

// SkillSelectionCount counts (task, skill) pairs.
type SkillSelectionCount struct {
	TruePositive  int `json:"true_positive"`
	FalsePositive int `json:"false_positive"`
	FalseNegative int `json:"false_negative"`
}

// SkillTaskResult is one task: the skills expected and offered.
type SkillTaskResult struct {
	Task     string   `json:"task"`
	Expected []string `json:"expected"`
	Offered  []string `json:"offered"`
}

// Default pass bars of a skill_selection case.
const (
	defaultMinSkillPrecision = 0.8
	defaultMinSkillRecall    = 0.8
)

var skillSelectionKind = &kindSpec{
	kind:   KindSkillSelection,
	fields: []string{"skills", "tasks", "min_precision", "min_recall"},
	validate: func(v *validator, s *Suite, c *Case, id string, alias func(field, name string)) {
		validateSkillTasks(v, c, id, validateSkillSpecs(v, c, id))
		for i, sk := range c.Skills {
			if sk.Body != "" {
				v.add(id, fmt.Sprintf("skills[%d].body", i), governance.Say("applies to skill_ab cases only (selection reads the name and description)"))
			}
		}
		for i, tk := range c.SkillTasks {
			if len(tk.Checks) > 0 {
				v.add(id, fmt.Sprintf("tasks[%d].checks", i), governance.Say("applies to skill_ab cases only"))
			}
		}
		for field, p := range map[string]*float64{"min_precision": c.MinPrecision, "min_recall": c.MinRecall} {
			if p != nil && (*p < 0 || *p > 1) {
				v.add(id, field, governance.Say("must be between 0 and 1"))
			}
		}
	},
	run: func(e *engine, ctx context.Context, _ int, c *Case, res *CaseResult) error {
		d := RunSkillSelection(c.Skills, c.SkillTasks)
		res.Detail.Skills = d
		minP, minR := defaultMinSkillPrecision, defaultMinSkillRecall
		if c.MinPrecision != nil {
			minP = *c.MinPrecision
		}
		if c.MinRecall != nil {
			minR = *c.MinRecall
		}
		if d.Precision < minP {
			res.Detail.add(governance.Say("selection precision %.2f is below %.2f", d.Precision, minP))
		}
		if d.Recall < minR {
			res.Detail.add(governance.Say("selection recall %.2f is below %.2f", d.Recall, minR))
		}
		if len(res.Detail.Problems) == 0 {
			res.because(governance.Say("skill selection over %d tasks and %d skills: precision %.2f, recall %.2f", len(d.Tasks), d.Skills, d.Precision, d.Recall))
		}
		return nil
	},
}

// validateSkillSpecs checks a skill case's skills and returns their names.
func validateSkillSpecs(v *validator, c *Case, id string) map[string]bool {
	switch {
	case len(c.Skills) > 0:
	case c.Kind == KindSkillAB:
		v.add(id, "skills", governance.Say("a skill_ab case needs skills"))
	default:
		v.add(id, "skills", governance.Say("a skill_selection case needs skills"))
	}
	names := map[string]bool{}
	for i, sk := range c.Skills {
		switch {
		case !governance.SkillNameOK(sk.Name):
			v.add(id, fmt.Sprintf("skills[%d].name", i), governance.Say("must be kebab-case, at most 64 characters"))
		case names[sk.Name]:
			v.add(id, fmt.Sprintf("skills[%d].name", i), governance.Say("names a skill twice"))
		case strings.TrimSpace(sk.Description) == "":
			v.add(id, fmt.Sprintf("skills[%d].description", i), governance.Say("is required"))
		}
		names[sk.Name] = true
	}
	return names
}

// validateSkillTasks checks a skill case's tasks against its skills' names.
func validateSkillTasks(v *validator, c *Case, id string, names map[string]bool) {
	switch {
	case len(c.SkillTasks) > 0:
	case c.Kind == KindSkillAB:
		v.add(id, "tasks", governance.Say("a skill_ab case needs tasks"))
	default:
		v.add(id, "tasks", governance.Say("a skill_selection case needs tasks"))
	}
	for i, tk := range c.SkillTasks {
		if strings.TrimSpace(tk.Task) == "" {
			v.add(id, fmt.Sprintf("tasks[%d].task", i), governance.Say("is required"))
		}
		for _, n := range tk.Expect {
			if !names[n] {
				v.add(id, fmt.Sprintf("tasks[%d].expect", i), governance.Say("%q is not one of the case's skills", n))
			}
		}
	}
}

// RunSkillSelection runs the offline skill selection for each task and
// scores it against the expected skills.
func RunSkillSelection(skills []*SkillSpec, tasks []*SkillTask) *SkillSelectionDetail {
	list := make([]*governance.Skill, len(skills))
	for i, s := range skills {
		list[i] = &governance.Skill{Name: s.Name, Description: s.Description, Status: governance.SkillActive, Version: 1}
	}
	ix := recall.NewSkillIndex(list)
	d := &SkillSelectionDetail{Skills: len(skills)}
	for _, tk := range tasks {
		r := SkillTaskResult{Task: tk.Task, Expected: append([]string{}, tk.Expect...), Offered: []string{}}
		for _, m := range ix.Select(tk.Task, recall.MaxSkills) {
			r.Offered = append(r.Offered, m.Name)
			if slices.Contains(tk.Expect, m.Name) {
				d.Counts.TruePositive++
			} else {
				d.Counts.FalsePositive++
			}
		}
		for _, n := range tk.Expect {
			if !slices.Contains(r.Offered, n) {
				d.Counts.FalseNegative++
			}
		}
		d.Tasks = append(d.Tasks, r)
	}
	tp, fp, fn := float64(d.Counts.TruePositive), float64(d.Counts.FalsePositive), float64(d.Counts.FalseNegative)
	d.Precision, d.Recall = 1, 1
	if tp+fp > 0 {
		d.Precision = tp / (tp + fp)
	}
	if tp+fn > 0 {
		d.Recall = tp / (tp + fn)
	}
	return d
}
