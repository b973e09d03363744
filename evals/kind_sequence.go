package evals

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// sequenceKind: steps (turns then a heartbeat, or a forget) applied in
// order to a scratch project of the case's own, each with expectations on
// what was written, updated, kept, superseded, forgotten and recalled.
var sequenceKind = &kindSpec{
	kind:   KindSequence,
	fields: []string{"steps", "with_fixtures"},
	own:    true,
	validate: func(v *validator, s *Suite, c *Case, id string, alias func(field, name string)) {
		if len(c.Steps) == 0 {
			v.add(id, "steps", governance.Say("a sequence case needs at least one step"))
		}
		for i, st := range c.Steps {
			validateStep(v, id, fmt.Sprintf("steps[%d]", i), st)
		}
	},
	run: func(e *engine, ctx context.Context, index int, c *Case, res *CaseResult) error {
		return e.runSequence(ctx, index, c, res)
	},
}

func (e *engine) runSequence(ctx context.Context, index int, c *Case, res *CaseResult) error {
	pid, err := e.caseProject(ctx, index, c, nil)
	if err != nil {
		return err
	}
	subject := e.subject(c)
	failed := 0
	for i, st := range c.Steps {
		sr := &StepResult{Name: cmpOr(st.Name, fmt.Sprintf("step %d", i+1))}
		if err := e.runStep(ctx, pid, subject, i, st, sr); err != nil {
			return fmt.Errorf("%s: %w", sr.Name, err)
		}
		sr.Passed = len(sr.Problems) == 0
		if !sr.Passed {
			failed++
			for _, p := range sr.Sentences() {
				res.Detail.add(governance.Say("%s: %s", sr.Name, p))
			}
		}
		res.Detail.Steps = append(res.Detail.Steps, sr)
	}
	if failed == 0 {
		res.because(governance.Say("all %d steps did what was expected", len(c.Steps)))
	}
	return nil
}

func (e *engine) runStep(ctx context.Context, pid int64, subject string, i int, st *Step, sr *StepResult) error {
	mem := e.deps.Memory
	before, beforeList, err := e.allRules(ctx, pid)
	if err != nil {
		return err
	}
	x := &st.Expect
	evidence := map[int64]int{}
	for _, m := range x.Updates {
		for _, r := range beforeList {
			if live(r) && m.MatchRule(r) {
				links, err := mem.FindRuleEvidence(ctx, r.ID)
				if err != nil {
					return err
				}
				evidence[r.ID] = countEvidence(links)
			}
		}
	}
	var forgotten []*governance.Rule
	switch {
	case len(st.Turns) > 0:
		sessionID := cmpOr(st.Session, fmt.Sprintf("step-%d", i+1))
		sess := &Session{ID: sessionID, Subject: subject, Events: st.Turns,
			start: time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC).AddDate(0, 0, i)}
		if _, err := mem.IngestEvents(ctx, pid, e.sessionEvents(sess, sessionID, subject)); err != nil {
			return fmt.Errorf("ingest turns: %w", err)
		}
		if err := mem.RunHeartbeat(ctx, pid); err != nil {
			return fmt.Errorf("heartbeat: %w", err)
		}
	case st.Forget != nil:
		for _, r := range beforeList {
			if live(r) && st.Forget.MatchRule(r) {
				if err := mem.ForgetRule(ctx, r.ID, e.deps.Actor); err != nil {
					return fmt.Errorf("forget rule %d: %w", r.ID, err)
				}
				forgotten = append(forgotten, r)
				sr.Notes = append(sr.Notes, "forgot "+describe(r))
			}
		}
		if len(forgotten) == 0 {
			sr.add(governance.Say("nothing to forget: no rule matches %s", st.Forget))
		}
	}
	after, afterList, err := e.allRules(ctx, pid)
	if err != nil {
		return err
	}
	var created []*governance.Rule
	for _, r := range afterList {
		if before[r.ID] == nil && r.Status != governance.RuleRejected {
			created = append(created, r)
			sr.Notes = append(sr.Notes, "new "+describe(r))
		} else if b := before[r.ID]; b != nil && (b.Status != r.Status || b.Version != r.Version) {
			sr.Notes = append(sr.Notes, fmt.Sprintf("rule %d: %s v%d → %s v%d", r.ID, b.Status, b.Version, r.Status, r.Version))
		}
	}
	listCreated := func() string {
		if len(created) == 0 {
			return "no rule was written"
		}
		var s []string
		for _, r := range created {
			s = append(s, describe(r))
		}
		return "new rules: " + strings.Join(s, "; ")
	}
	for _, m := range x.Writes {
		if !slices.ContainsFunc(created, m.MatchRule) {
			msg := governance.Say("expected a new rule matching %s; %s", m.String(), listCreated())
			if slices.ContainsFunc(beforeList, func(r *governance.Rule) bool { return live(r) && m.MatchRule(r) }) {
				msg = governance.Say("expected a new rule matching %s; %s (a matching rule existed before this step)", m.String(), listCreated())
			}
			sr.add(msg)
		}
	}
	if x.NoWrites && len(created) > 0 {
		sr.add(governance.Say("expected no new rule; %s", listCreated()))
	}
	for _, m := range x.Updates {
		ok := false
		for id, n := range evidence {
			a := after[id]
			if a == nil || !live(a) {
				continue
			}
			links, err := mem.FindRuleEvidence(ctx, id)
			if err != nil {
				return err
			}
			if countEvidence(links) > n || a.Version > before[id].Version {
				ok = true
				sr.Notes = append(sr.Notes, fmt.Sprintf("rule %d gained evidence (%d → %d events) or a version", id, n, countEvidence(links)))
			}
		}
		if len(evidence) == 0 {
			sr.add(governance.Say("expected an update of a rule matching %s, but no such rule existed before this step", m.String()))
			continue
		}
		if !ok {
			sr.add(governance.Say("expected the rule matching %s to gain evidence or a version; it did not", m.String()))
		}
		if slices.ContainsFunc(created, m.MatchRule) {
			sr.add(governance.Say("a duplicate rule matching %s was created instead of updating the existing one", m.String()))
		}
	}
	for _, m := range x.Unchanged {
		var was *governance.Rule
		for _, r := range beforeList {
			if (r.Status == governance.RuleActive || r.Status == governance.RuleProposed) && m.MatchRule(r) {
				was = r
				break
			}
		}
		if was == nil {
			sr.add(governance.Say("expected a rule matching %s to stay unchanged, but none was active before this step", m.String()))
			continue
		}
		now := after[was.ID]
		switch {
		case now == nil:
			sr.add(governance.Say("rule %d matching %s disappeared", was.ID, m.String()))
		case now.Status != was.Status || now.Version != was.Version || now.SupersededBy != 0:
			sr.add(governance.Say("rule %d matching %s changed: %s v%d → %s v%d", was.ID, m.String(), was.Status, was.Version, now.Status, now.Version))
		case slices.ContainsFunc(created, func(r *governance.Rule) bool { return r.Supersedes == was.ID }):
			sr.add(governance.Say("a replacement for rule %d matching %s was proposed", was.ID, m.String()))
		}
	}
	for _, sp := range x.Supersedes {
		var old *governance.Rule
		for _, r := range beforeList {
			if live(r) && r.Status != governance.RuleSuperseded && sp.Old.MatchRule(r) {
				old = r
				break
			}
		}
		if old == nil {
			sr.add(governance.Say("expected %s to be superseded, but no such rule existed before this step", sp.Old.String()))
			continue
		}
		ok := false
		for _, r := range afterList {
			if !live(r) || r.ID == old.ID || !sp.New.MatchRule(r) {
				continue
			}
			if r.Supersedes == old.ID || after[old.ID].SupersededBy == r.ID {
				ok = true
				sr.Notes = append(sr.Notes, fmt.Sprintf("rule %d supersedes rule %d", r.ID, old.ID))
			}
		}
		if !ok {
			sr.add(governance.Say("expected a rule matching %s to supersede rule %d (%s); %s",
				sp.New.String(), old.ID, shorten(old.Text, 60), listCreated()))
		}
	}
	for _, m := range x.Forgets {
		var targets []*governance.Rule
		for _, r := range forgotten {
			if m.MatchRule(r) {
				targets = append(targets, r)
			}
		}
		if len(targets) == 0 {
			sr.add(governance.Say("expected a rule matching %s to be forgotten in this step", m.String()))
			continue
		}
		for _, r := range targets {
			if a := after[r.ID]; a != nil && a.Status != governance.RuleForgotten {
				sr.add(governance.Say("rule %d is %s after the forget, not forgotten", r.ID, a.Status))
			}
			if a := after[r.ID]; a != nil && a.Text != "" && a.Text == r.Text {
				sr.add(governance.Say("rule %d still holds its text after the forget", r.ID))
			}
			pkg, err := mem.Recall(ctx, RecallQuery{ProjectID: pid, SubjectID: subject, Task: r.Text})
			if err != nil {
				return fmt.Errorf("recall after forget: %w", err)
			}
			for _, it := range pkg.Items {
				if it.RuleID == r.ID || strings.Contains(it.Text, r.Text) {
					sr.add(governance.Say("recall still returns %s after the forget: %s", it.ID, shorten(it.Text, 60)))
				}
			}
		}
		for _, r := range afterList {
			if live(r) && m.MatchRule(r) && !slices.ContainsFunc(targets, func(t *governance.Rule) bool { return t.ID == r.ID }) {
				sr.add(governance.Say("another rule still matches %s: %s", m.String(), describe(r)))
			}
		}
	}
	if rx := x.Recall; rx != nil {
		_, _, problems, err := e.checkPackage(ctx, pid, cmpOr(rx.Subject, subject), rx.Task, rx.Include, rx.Exclude)
		if err != nil {
			return err
		}
		for _, p := range problems {
			sr.add(p)
		}
	}
	return nil
}

func countEvidence(links []*governance.EvidenceLink) int {
	seen := map[int64]bool{}
	for _, l := range links {
		for _, ev := range l.Events {
			seen[ev.Seq] = true
		}
	}
	return len(seen)
}

func validateStep(v *validator, id, field string, st *Step) {
	if st == nil {
		v.add(id, field, governance.Say("is empty"))
		return
	}
	if (len(st.Turns) > 0) == (st.Forget != nil) {
		v.add(id, field, governance.Say("needs either turns (ingested, then a heartbeat) or forget"))
	}
	validateEvents(v, id, field+".turns", st.Turns, false)
	validateMatcher(v, id, field+".forget", st.Forget)
	e := &st.Expect
	n := len(e.Writes) + len(e.Updates) + len(e.Unchanged) + len(e.Supersedes) + len(e.Forgets)
	if n == 0 && !e.NoWrites && e.Recall == nil {
		v.add(id, field+".expect", governance.Say("name at least one of writes, no_writes, updates, unchanged, supersedes, forgets, recall"))
	}
	if e.NoWrites && len(e.Writes) > 0 {
		v.add(id, field+".expect", governance.Say("no_writes contradicts writes"))
	}
	for name, ms := range map[string][]*Matcher{"writes": e.Writes, "updates": e.Updates, "unchanged": e.Unchanged, "forgets": e.Forgets} {
		for i, m := range ms {
			validateMatcher(v, id, fmt.Sprintf("%s.expect.%s[%d]", field, name, i), m)
		}
	}
	for i, sp := range e.Supersedes {
		f := fmt.Sprintf("%s.expect.supersedes[%d]", field, i)
		if sp == nil || sp.Old == nil || sp.New == nil {
			v.add(id, f, governance.Say("needs old and new"))
			continue
		}
		validateMatcher(v, id, f+".old", sp.Old)
		validateMatcher(v, id, f+".new", sp.New)
	}
	if r := e.Recall; r != nil {
		if strings.TrimSpace(r.Task) == "" {
			v.add(id, field+".expect.recall.task", governance.Say("is required"))
		}
		for i, m := range r.Include {
			validateMatcher(v, id, fmt.Sprintf("%s.expect.recall.include[%d]", field, i), m)
		}
		for i, m := range r.Exclude {
			validateMatcher(v, id, fmt.Sprintf("%s.expect.recall.exclude[%d]", field, i), m)
		}
	}
}
