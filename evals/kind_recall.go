package evals

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// recallKind: the context package for a task holds every include matcher
// and no exclude matcher. The package check itself (checkPackage, with the
// explanation of a missing memory) is shared with sequence steps.
var recallKind = &kindSpec{
	kind:   KindRecall,
	fields: []string{"task", "include", "exclude"},
	shared: true,
	validate: func(v *validator, s *Suite, c *Case, id string, alias func(field, name string)) {
		if len(c.Include)+len(c.Exclude) == 0 {
			v.add(id, "include", governance.Say("a recall case needs include or exclude"))
		}
	},
	run: func(e *engine, ctx context.Context, _ int, c *Case, res *CaseResult) error {
		return e.runRecall(ctx, c, res)
	},
}

func (e *engine) runRecall(ctx context.Context, c *Case, res *CaseResult) error {
	pid, err := e.project(ctx, cmpOr(c.Project, e.suite.Project))
	if err != nil {
		return err
	}
	d, _, problems, err := e.checkPackage(ctx, pid, e.subject(c), c.Task, c.Include, c.Exclude)
	if err != nil {
		return err
	}
	res.Detail.Recall = d
	res.Detail.addAll(problems)
	if len(problems) == 0 {
		res.because(governance.Say("all %d expected memories recalled, none of the %d excluded", len(c.Include), len(c.Exclude)))
	}
	return nil
}
