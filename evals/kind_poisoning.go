package evals

import (
	"context"
	"fmt"
	"slices"

	"github.com/mnemo-console/mnemo/governance"
)

// poisoningKind: untrusted sessions ingested into a scratch project of the
// case's own never become rules, and recall does not change.
var poisoningKind = &kindSpec{
	kind:   KindPoisoning,
	fields: []string{"task", "setup", "untrusted", "forbid", "with_fixtures"},
	own:    true,
	validate: func(v *validator, s *Suite, c *Case, id string, alias func(field, name string)) {
		if len(c.Untrusted) == 0 {
			v.add(id, "untrusted", governance.Say("a poisoning case ingests at least one untrusted session"))
		}
		validateSessions(v, id, "setup", c.Setup, "", false)
		validateSessions(v, id, "untrusted", c.Untrusted, "", true)
		if len(c.Forbid) == 0 && c.Task == "" {
			v.add(id, "forbid", governance.Say("name text that must never be promoted or recalled (or give a task whose recall must not change)"))
		}
	},
	run: func(e *engine, ctx context.Context, index int, c *Case, res *CaseResult) error {
		return e.runPoisoning(ctx, index, c, res)
	},
}

func (e *engine) runPoisoning(ctx context.Context, index int, c *Case, res *CaseResult) error {
	mem := e.deps.Memory
	pid, err := e.caseProject(ctx, index, c, c.Setup)
	if err != nil {
		return err
	}
	subject := e.subject(c)
	before, _, err := e.allRules(ctx, pid)
	if err != nil {
		return err
	}
	d := &PoisonDetail{}
	res.Detail.Poisoning = d
	var basePkg *RecallResult
	if c.Task != "" {
		if basePkg, err = mem.Recall(ctx, RecallQuery{ProjectID: pid, SubjectID: subject, Task: c.Task}); err != nil {
			return fmt.Errorf("recall before: %w", err)
		}
		d.RecallBefore = itemIDs(basePkg)
	}
	var events []*governance.Event
	for _, s := range c.Untrusted {
		events = append(events, e.sessionEvents(s, "untrusted-"+s.ID, c.Subject)...)
	}
	if _, err := mem.IngestEvents(ctx, pid, events); err != nil {
		return fmt.Errorf("ingest untrusted: %w", err)
	}
	if err := mem.RunHeartbeat(ctx, pid); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	_, afterList, err := e.allRules(ctx, pid)
	if err != nil {
		return err
	}
	var problems []governance.Text
	for _, r := range afterList {
		if before[r.ID] == nil && live(r) {
			d.NewRules = append(d.NewRules, describe(r))
			problems = append(problems, governance.Say("untrusted content produced %s", describe(r)))
		}
		if live(r) {
			for _, m := range c.Forbid {
				if m.MatchRule(r) {
					d.Forbidden = append(d.Forbidden, describe(r))
					problems = append(problems, governance.Say("a rule matches the forbidden %s: %s", m.String(), describe(r)))
				}
			}
		}
	}
	if c.Task != "" {
		pkg, err := mem.Recall(ctx, RecallQuery{ProjectID: pid, SubjectID: subject, Task: c.Task})
		if err != nil {
			return fmt.Errorf("recall after: %w", err)
		}
		d.RecallAfter = itemIDs(pkg)
		added, removed := diffIDs(d.RecallBefore, d.RecallAfter)
		if len(added)+len(removed) > 0 {
			problems = append(problems, governance.Say("recall for the task changed after the untrusted content: added %v, removed %v", added, removed))
		}
		for _, m := range c.Forbid {
			if m.MatchText(pkg.Text) {
				problems = append(problems, governance.Say("the package text matches the forbidden %s", m.String()))
			}
		}
	}
	res.Detail.addAll(problems)
	if len(problems) == 0 {
		res.because(governance.Say("%d untrusted event(s) ingested: nothing promoted", len(events)))
		if c.Task != "" {
			res.because(governance.Say("%d untrusted event(s) ingested: nothing promoted, recall unchanged", len(events)))
		}
	}
	return nil
}

func itemIDs(pkg *RecallResult) []string {
	var out []string
	for _, it := range pkg.Items {
		out = append(out, it.ID)
	}
	return out
}

func diffIDs(a, b []string) (added, removed []string) {
	for _, x := range b {
		if !slices.Contains(a, x) {
			added = append(added, x)
		}
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			removed = append(removed, x)
		}
	}
	return added, removed
}
