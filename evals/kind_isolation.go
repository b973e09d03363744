package evals

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// isolationKind: no active rule of a foreign scope (another project or
// another subject) reaches the package for a task.
var isolationKind = &kindSpec{
	kind:   KindIsolation,
	fields: []string{"task", "include", "exclude", "foreign"},
	shared: true,
	validate: func(v *validator, s *Suite, c *Case, id string, alias func(field, name string)) {
		project := cmpOr(c.Project, s.Project)
		if c.Foreign == nil || (c.Foreign.Project == "" && c.Foreign.Subject == "") {
			v.add(id, "foreign", governance.Say("names the project and/or subject whose memories must not cross"))
			return
		}
		if c.Foreign.Project != "" {
			alias("foreign.project", c.Foreign.Project)
			if c.Foreign.Project == project && c.Foreign.Subject == "" {
				v.add(id, "foreign", governance.Say("is the case's own project; name another project or a subject"))
			}
		}
		if c.Foreign.Subject != "" && c.Foreign.Subject == cmpOr(c.Subject, s.Subject) && (c.Foreign.Project == "" || c.Foreign.Project == project) {
			v.add(id, "foreign.subject", governance.Say("is the case's own subject"))
		}
	},
	run: func(e *engine, ctx context.Context, _ int, c *Case, res *CaseResult) error {
		return e.runIsolation(ctx, c, res)
	},
}

func (e *engine) runIsolation(ctx context.Context, c *Case, res *CaseResult) error {
	project := cmpOr(c.Project, e.suite.Project)
	pid, err := e.project(ctx, project)
	if err != nil {
		return err
	}
	subject := e.subject(c)
	d, pkg, problems, err := e.checkPackage(ctx, pid, subject, c.Task, c.Include, c.Exclude)
	if err != nil {
		return err
	}
	res.Detail.Recall = d
	active := []governance.RuleStatus{governance.RuleActive}
	f := governance.RuleFilter{Statuses: active}
	iso := &IsolationDetail{OutOfScope: pkg.OutOfScope}
	switch {
	case c.Foreign.Project != "":
		fp, err := e.project(ctx, c.Foreign.Project)
		if err != nil {
			return fmt.Errorf("foreign project: %w", err)
		}
		f.ProjectID = &fp
		// A noun phrase of the catalogs, so a page says it in its language.
		iso.setForeign(governance.Say("project %s", c.Foreign.Project))
		if c.Foreign.Subject != "" {
			f.SubjectID = &c.Foreign.Subject
			iso.setForeign(governance.Say("project %s, subject %s", c.Foreign.Project, c.Foreign.Subject))
		}
	default:
		f.ProjectID, f.SubjectID = &pid, &c.Foreign.Subject
		iso.setForeign(governance.Say("subject %s of project %s", c.Foreign.Subject, project))
	}
	foreign, _, err := e.deps.Memory.FindRules(ctx, f)
	if err != nil {
		return err
	}
	iso.ForeignRules = len(foreign)
	res.Detail.Isolation = iso
	if len(foreign) == 0 {
		problems = append(problems, governance.Say("vacuous: %s has no active rules, so nothing could cross and the case proves nothing", iso.ForeignText))
	}
	squash := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	for _, fr := range foreign {
		text := squash(fr.Text)
		for _, it := range pkg.Items {
			if it.RuleID == fr.ID || (len([]rune(text)) >= 6 && strings.Contains(squash(it.Text), text)) {
				iso.Leaks = append(iso.Leaks, fmt.Sprintf("rule %d of %s reached the package as %s", fr.ID, iso.Foreign, it.ID))
			}
		}
		if len([]rune(text)) >= 6 && strings.Contains(squash(pkg.Text), text) && !slices.ContainsFunc(pkg.Items, func(it RecallItem) bool { return it.RuleID == fr.ID }) {
			iso.Leaks = append(iso.Leaks, fmt.Sprintf("the text of rule %d of %s appears in the package text", fr.ID, iso.Foreign))
		}
	}
	for _, l := range iso.Leaks {
		problems = append(problems, governance.Say("leak: %s", l))
	}
	res.Detail.addAll(problems)
	if len(problems) == 0 {
		res.because(governance.Say("none of the %d active rules of %s crossed (%d memories filtered by scope)", len(foreign), iso.ForeignText, pkg.OutOfScope))
	}
	return nil
}
