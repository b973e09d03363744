package evals

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/sashabaranov/go-openai"
)

// engine runs the cases of one suite for one run.
type engine struct {
	deps  Deps
	suite *Suite
	// prefix starts the slug of every scratch project of this run.
	prefix string
	// projects maps fixture aliases (scratch) to project ids.
	projects map[string]int64
}

func newEngine(deps Deps, suite *Suite, prefix string) *engine {
	deps.defaults()
	return &engine{deps: deps, suite: suite, prefix: prefix, projects: map[string]int64{}}
}

// needsShared reports whether any of the cases uses the suite's shared
// projects (scratch fixtures or a benchmark project).
func (e *engine) needsShared(caseIDs []string) bool {
	if e.suite.Benchmark != nil {
		return len(caseIDs) > 0
	}
	if e.suite.Fixtures.UseLiveProject {
		return false
	}
	for _, id := range caseIDs {
		switch e.suite.Case(id).Kind {
		case KindRecall, KindIsolation, KindAB:
			return true
		}
	}
	return false
}

// setup builds the shared scratch projects: found again by slug when a
// run resumes; ingestion skips events already there and a heartbeat over
// nothing new changes nothing, so setting up twice is harmless.
func (e *engine) setup(ctx context.Context, caseIDs []string) error {
	if !e.needsShared(caseIDs) {
		return nil
	}
	if e.suite.Benchmark != nil {
		id, err := e.scratchProject(ctx, e.prefix+"benchmark", false, false)
		e.projects["benchmark"] = id
		if err != nil {
			return err
		}
		// Every conversation is ingested before any question is asked, in
		// the suite's order, so each question sees the same database
		// whatever order the workers run the conversations in.
		for _, conv := range e.suite.Benchmark.conversations {
			if !slices.Contains(caseIDs, conv.ID) {
				continue
			}
			if err := e.ingest(ctx, id, conv.Events()); err != nil {
				return fmt.Errorf("ingest conversation %s: %w", conv.ID, err)
			}
		}
		return nil
	}
	for _, alias := range e.suite.projectAliases() {
		id, err := e.scratchProject(ctx, e.prefix+"s-"+alias, e.autoActivate(), false)
		if err != nil {
			return err
		}
		e.projects[alias] = id
		events, err := e.fixtureEvents(ctx, alias)
		if err != nil {
			return err
		}
		if err := e.ingest(ctx, id, events); err != nil {
			return fmt.Errorf("fixtures of %s: %w", alias, err)
		}
		if err := e.deps.Memory.RunHeartbeat(ctx, id); err != nil {
			return fmt.Errorf("heartbeat on fixtures of %s: %w", alias, err)
		}
	}
	return nil
}

func (e *engine) autoActivate() bool {
	return e.suite.Fixtures.AutoActivate == nil || *e.suite.Fixtures.AutoActivate
}

// scratchProject finds or creates a scratch project by slug; fresh deletes
// a leftover one first (a case interrupted by a restart starts again).
func (e *engine) scratchProject(ctx context.Context, slug string, autoActivate, fresh bool) (int64, error) {
	mem := e.deps.Memory
	if fresh {
		if err := mem.DeleteScratchProjects(ctx, slug); err != nil {
			return 0, fmt.Errorf("remove leftover scratch project %s: %w", slug, err)
		}
	} else if p, err := mem.FindProjectBySlug(ctx, slug); err == nil {
		return p.ID, nil
	} else if governance.ErrorCode(err) != governance.ENOTFOUND {
		return 0, err
	}
	p, err := mem.CreateScratchProject(ctx, slug, "Eval scratch: "+e.suite.Name, autoActivate)
	if err != nil {
		return 0, fmt.Errorf("create scratch project %s: %w", slug, err)
	}
	return p.ID, nil
}

// fixtureEvents are the fixture sessions of one alias plus the events
// copied from a live project.
func (e *engine) fixtureEvents(ctx context.Context, alias string) ([]*governance.Event, error) {
	var out []*governance.Event
	if slug := e.suite.Fixtures.CopyEvents[alias]; slug != "" {
		p, err := e.deps.Memory.FindProjectBySlug(ctx, slug)
		if err != nil {
			return nil, fmt.Errorf("copy_events from %s: %w", slug, err)
		}
		events, _, err := e.deps.Memory.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
		if err != nil {
			return nil, err
		}
		for _, ev := range events {
			if ev.Redacted {
				continue // forgotten content never reaches an eval
			}
			cp := *ev
			cp.Seq, cp.ProjectID, cp.Project, cp.IngestedAt = 0, 0, "", time.Time{}
			out = append(out, &cp)
		}
	}
	for _, sess := range e.suite.Fixtures.Sessions {
		if cmpOr(sess.Project, e.suite.Project) == alias {
			out = append(out, e.sessionEvents(sess, sess.ID, "")...)
		}
	}
	return out, nil
}

// sessionEvents turns a fixture session into events; ids are prefixed so
// sessions of different origins never collide.
func (e *engine) sessionEvents(sess *Session, sessionID, subject string) []*governance.Event {
	subject = cmpOr(sess.Subject, cmpOr(subject, e.suite.Subject))
	var out []*governance.Event
	for i, fe := range sess.Events {
		ev := fe.event(fmt.Sprintf("%s-%d", sessionID, i+1), sessionID, i+1, sess.start.Add(time.Duration(i)*time.Minute))
		ev.SubjectID = subject
		out = append(out, ev)
	}
	if !sess.Open {
		out = append(out, &governance.Event{ID: sessionID + "-end", SessionID: sessionID, SubjectID: subject,
			Turn: len(sess.Events) + 1, Kind: governance.KindSessionEnd, OccurredAt: sess.start.Add(time.Duration(len(sess.Events)) * time.Minute)})
	}
	return out
}

func (e *engine) ingest(ctx context.Context, projectID int64, events []*governance.Event) error {
	const batch = 1000
	for i := 0; i < len(events); i += batch {
		if _, err := e.deps.Memory.IngestEvents(ctx, projectID, events[i:min(len(events), i+batch)]); err != nil {
			return err
		}
	}
	return nil
}

// project resolves a case's project: a fixture alias, or a live slug.
func (e *engine) project(ctx context.Context, name string) (int64, error) {
	if !e.suite.Fixtures.UseLiveProject {
		id, ok := e.projects[name]
		if !ok {
			return 0, fmt.Errorf("fixture project %q was not set up", name)
		}
		return id, nil
	}
	p, err := e.deps.Memory.FindProjectBySlug(ctx, name)
	if err != nil {
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			return 0, fmt.Errorf("live project %q does not exist", name)
		}
		return 0, err
	}
	return p.ID, nil
}

// runUnit runs one case (or benchmark conversation) with its own timeout.
// index is the unit's position in the suite (it names scratch projects).
func (e *engine) runUnit(ctx context.Context, index int, id string) *CaseResult {
	start := time.Now()
	var (
		res *CaseResult
		err error
	)
	timeout := e.deps.CaseTimeout
	if e.suite.Benchmark != nil {
		var conv *Conversation
		for _, c := range e.suite.Benchmark.conversations {
			if c.ID == id {
				conv = c
			}
		}
		cctx, cancel := context.WithTimeout(ctx, max(timeout, 10*time.Minute))
		res, err = e.runConversation(cctx, conv)
		cancel()
		if err != nil {
			res = &CaseResult{CaseID: id, Kind: KindBenchmark}
		}
	} else {
		c := e.suite.Case(id)
		if c.timeout > 0 {
			timeout = c.timeout
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		res, err = e.runCase(cctx, index, c)
		if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("timed out after %s", timeout)
		}
		cancel()
		if res == nil {
			res = &CaseResult{CaseID: c.ID, Kind: c.Kind}
		}
	}
	if err != nil {
		res.Status, res.Reason = StatusError, err.Error()
		if res.Detail == nil {
			res.Detail = &Detail{}
		}
		res.Detail.Problems = append(res.Detail.Problems, err.Error())
	}
	res.DurationMS = time.Since(start).Milliseconds()
	res.Cost = roundCost(res.Cost)
	return res
}

func (e *engine) runCase(ctx context.Context, index int, c *Case) (*CaseResult, error) {
	res := &CaseResult{CaseID: c.ID, Kind: c.Kind, Detail: &Detail{}}
	var err error
	switch c.Kind {
	case KindRecall:
		err = e.runRecall(ctx, c, res)
	case KindIsolation:
		err = e.runIsolation(ctx, c, res)
	case KindSequence:
		err = e.runSequence(ctx, index, c, res)
	case KindPoisoning:
		err = e.runPoisoning(ctx, index, c, res)
	case KindAB:
		err = e.runAB(ctx, c, res)
	default:
		err = fmt.Errorf("unknown kind %q", c.Kind)
	}
	if err != nil {
		return res, err
	}
	if res.Status == "" {
		if len(res.Detail.Problems) > 0 {
			res.Status, res.Reason = StatusFailed, res.Detail.Problems[0]
			if n := len(res.Detail.Problems); n > 1 {
				res.Reason += fmt.Sprintf(" (and %d more)", n-1)
			}
		} else {
			res.Status = StatusPassed
		}
	}
	return res, nil
}

func (e *engine) subject(c *Case) string { return cmpOr(c.Subject, e.suite.Subject) }

// scopeRules are the rules a subject of a project may receive, every status.
func (e *engine) scopeRules(ctx context.Context, projectID int64, subject string) ([]*governance.Rule, error) {
	rules, _, err := e.deps.Memory.FindRules(ctx, governance.RuleFilter{ProjectID: &projectID, ForSubject: &subject})
	return rules, err
}

// checkPackage recalls for a task and checks include/exclude; it returns
// the detail and the problems found.
func (e *engine) checkPackage(ctx context.Context, projectID int64, subject, task string, include, exclude []*Matcher) (*RecallDetail, *RecallResult, []string, error) {
	pkg, err := e.deps.Memory.Recall(ctx, RecallQuery{ProjectID: projectID, SubjectID: subject, Task: task})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("recall: %w", err)
	}
	rules, err := e.scopeRules(ctx, projectID, subject)
	if err != nil {
		return nil, nil, nil, err
	}
	byID := map[int64]*governance.Rule{}
	for _, r := range rules {
		byID[r.ID] = r
	}
	itemMatches := func(m *Matcher, it RecallItem) bool {
		if it.RuleID != 0 {
			if m.Rule != 0 && m.Rule == it.RuleID {
				return true
			}
			if r := byID[it.RuleID]; r != nil && m.MatchText(r.Text) {
				return true
			}
		}
		return m.MatchText(it.Text)
	}
	d := &RecallDetail{Task: task, Items: pkg.Items, OutOfScope: pkg.OutOfScope}
	var problems []string
	found := 0
	for _, m := range include {
		mr := MatchResult{Matcher: m.String()}
		for _, it := range pkg.Items {
			if itemMatches(m, it) {
				mr.OK, mr.Item = true, it.ID
				break
			}
		}
		if mr.OK {
			found++
		} else {
			mr.Why = e.whyMissing(m, rules, pkg)
			problems = append(problems, fmt.Sprintf("expected a memory matching %s in the package, but %s", m, mr.Why))
		}
		d.Include = append(d.Include, mr)
	}
	for _, m := range exclude {
		mr := MatchResult{Matcher: m.String(), OK: true}
		for _, it := range pkg.Items {
			if itemMatches(m, it) {
				mr.OK, mr.Item = false, it.ID
				mr.Why = fmt.Sprintf("%s is in the package: %s", it.ID, shorten(it.Text, 80))
				problems = append(problems, fmt.Sprintf("the package must not hold a memory matching %s, but %s", m, mr.Why))
				break
			}
		}
		d.Exclude = append(d.Exclude, mr)
	}
	if len(include) > 0 {
		d.Recall = ptr(float64(found) / float64(len(include)))
		relevant, total := 0, 0
		for _, it := range pkg.Items {
			if it.RuleID == 0 {
				continue
			}
			total++
			for _, m := range include {
				if itemMatches(m, it) {
					relevant++
					break
				}
			}
		}
		if total > 0 {
			d.Precision = ptr(float64(relevant) / float64(total))
		} else {
			d.Precision = ptr(0)
		}
	}
	return d, pkg, problems, nil
}

// whyMissing explains an expected memory missing from a package.
func (e *engine) whyMissing(m *Matcher, scope []*governance.Rule, pkg *RecallResult) string {
	var matched []*governance.Rule
	for _, r := range scope {
		if m.MatchRule(r) {
			matched = append(matched, r)
		}
	}
	if len(matched) == 0 {
		msg := fmt.Sprintf("no rule in this project and subject matches it (%d rules in scope", len(scope))
		if pkg.OutOfScope > 0 {
			msg += fmt.Sprintf("; %d memories outside the scope were filtered out, as they must be", pkg.OutOfScope)
		}
		return msg + ")"
	}
	var why []string
	for _, r := range matched {
		if ok, reason := r.Usable(time.Now()); !ok {
			why = append(why, fmt.Sprintf("rule %d is %s", r.ID, reason))
			continue
		}
		entry := ""
		for _, t := range pkg.Trace {
			if t.RuleID == r.ID {
				entry = fmt.Sprintf("rule %d was excluded by recall: %s (score %.2f)", r.ID, t.Reason, t.Score)
				break
			}
		}
		if entry == "" {
			entry = fmt.Sprintf("rule %d is active but recall did not consider it", r.ID)
		}
		why = append(why, entry)
	}
	return strings.Join(why, "; ")
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
	res.Detail.Problems = append(res.Detail.Problems, problems...)
	if len(problems) == 0 {
		res.Reason = fmt.Sprintf("all %d expected memories recalled, none of the %d excluded", len(c.Include), len(c.Exclude))
	}
	return nil
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
		iso.Foreign = "project " + c.Foreign.Project
		if c.Foreign.Subject != "" {
			f.SubjectID = &c.Foreign.Subject
			iso.Foreign += ", subject " + c.Foreign.Subject
		}
	default:
		f.ProjectID, f.SubjectID = &pid, &c.Foreign.Subject
		iso.Foreign = "subject " + c.Foreign.Subject + " of project " + project
	}
	foreign, _, err := e.deps.Memory.FindRules(ctx, f)
	if err != nil {
		return err
	}
	iso.ForeignRules = len(foreign)
	res.Detail.Isolation = iso
	if len(foreign) == 0 {
		problems = append(problems, fmt.Sprintf("vacuous: %s has no active rules, so nothing could cross and the case proves nothing", iso.Foreign))
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
		problems = append(problems, "leak: "+l)
	}
	res.Detail.Problems = append(res.Detail.Problems, problems...)
	if len(problems) == 0 {
		res.Reason = fmt.Sprintf("none of the %d active rules of %s crossed (%d memories filtered by scope)", len(foreign), iso.Foreign, pkg.OutOfScope)
	}
	return nil
}

// caseProject creates the case's own scratch project, with the suite's
// fixtures of its project when asked, and the given sessions; then runs a
// heartbeat.
func (e *engine) caseProject(ctx context.Context, index int, c *Case, setup []*Session) (int64, error) {
	slug := fmt.Sprintf("%sc%d-%s", e.prefix, index, slugPart(c.ID))
	pid, err := e.scratchProject(ctx, slug, e.autoActivate(), true)
	if err != nil {
		return 0, err
	}
	var events []*governance.Event
	if c.WithFixtures {
		fe, err := e.fixtureEvents(ctx, cmpOr(c.Project, e.suite.Project))
		if err != nil {
			return 0, err
		}
		events = append(events, fe...)
	}
	for _, s := range setup {
		events = append(events, e.sessionEvents(s, "setup-"+s.ID, c.Subject)...)
	}
	if len(events) > 0 {
		if err := e.ingest(ctx, pid, events); err != nil {
			return 0, fmt.Errorf("ingest setup: %w", err)
		}
		if err := e.deps.Memory.RunHeartbeat(ctx, pid); err != nil {
			return 0, fmt.Errorf("heartbeat: %w", err)
		}
	}
	return pid, nil
}

var slugRe = regexp.MustCompile(`[^a-z0-9-]+`)

func slugPart(id string) string {
	s := strings.Trim(slugRe.ReplaceAllString(strings.ToLower(id), "-"), "-")
	return s[:min(len(s), 40)]
}

func (e *engine) allRules(ctx context.Context, pid int64) (map[int64]*governance.Rule, []*governance.Rule, error) {
	rules, _, err := e.deps.Memory.FindRules(ctx, governance.RuleFilter{ProjectID: &pid})
	if err != nil {
		return nil, nil, err
	}
	m := make(map[int64]*governance.Rule, len(rules))
	for _, r := range rules {
		m[r.ID] = r
	}
	return m, rules, nil
}

func live(r *governance.Rule) bool {
	return r.Status != governance.RuleForgotten && r.Status != governance.RuleRejected
}

func describe(r *governance.Rule) string {
	return fmt.Sprintf("rule %d (%s): %s", r.ID, r.Status, shorten(r.Text, 80))
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
			for _, p := range sr.Problems {
				res.Detail.Problems = append(res.Detail.Problems, sr.Name+": "+p)
			}
		}
		res.Detail.Steps = append(res.Detail.Steps, sr)
	}
	if failed == 0 {
		res.Reason = fmt.Sprintf("all %d steps did what was expected", len(c.Steps))
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
			sr.Problems = append(sr.Problems, fmt.Sprintf("nothing to forget: no rule matches %s", st.Forget))
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
			msg := fmt.Sprintf("expected a new rule matching %s; %s", m, listCreated())
			if slices.ContainsFunc(beforeList, func(r *governance.Rule) bool { return live(r) && m.MatchRule(r) }) {
				msg += " (a matching rule existed before this step)"
			}
			sr.Problems = append(sr.Problems, msg)
		}
	}
	if x.NoWrites && len(created) > 0 {
		sr.Problems = append(sr.Problems, "expected no new rule; "+listCreated())
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
			sr.Problems = append(sr.Problems, fmt.Sprintf("expected an update of a rule matching %s, but no such rule existed before this step", m))
			continue
		}
		if !ok {
			sr.Problems = append(sr.Problems, fmt.Sprintf("expected the rule matching %s to gain evidence or a version; it did not", m))
		}
		if slices.ContainsFunc(created, m.MatchRule) {
			sr.Problems = append(sr.Problems, fmt.Sprintf("a duplicate rule matching %s was created instead of updating the existing one", m))
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
			sr.Problems = append(sr.Problems, fmt.Sprintf("expected a rule matching %s to stay unchanged, but none was active before this step", m))
			continue
		}
		now := after[was.ID]
		switch {
		case now == nil:
			sr.Problems = append(sr.Problems, fmt.Sprintf("rule %d matching %s disappeared", was.ID, m))
		case now.Status != was.Status || now.Version != was.Version || now.SupersededBy != 0:
			sr.Problems = append(sr.Problems, fmt.Sprintf("rule %d matching %s changed: %s v%d → %s v%d", was.ID, m, was.Status, was.Version, now.Status, now.Version))
		case slices.ContainsFunc(created, func(r *governance.Rule) bool { return r.Supersedes == was.ID }):
			sr.Problems = append(sr.Problems, fmt.Sprintf("a replacement for rule %d matching %s was proposed", was.ID, m))
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
			sr.Problems = append(sr.Problems, fmt.Sprintf("expected %s to be superseded, but no such rule existed before this step", sp.Old))
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
			sr.Problems = append(sr.Problems, fmt.Sprintf("expected a rule matching %s to supersede rule %d (%s); %s",
				sp.New, old.ID, shorten(old.Text, 60), listCreated()))
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
			sr.Problems = append(sr.Problems, fmt.Sprintf("expected a rule matching %s to be forgotten in this step", m))
			continue
		}
		for _, r := range targets {
			if a := after[r.ID]; a != nil && a.Status != governance.RuleForgotten {
				sr.Problems = append(sr.Problems, fmt.Sprintf("rule %d is %s after the forget, not forgotten", r.ID, a.Status))
			}
			if a := after[r.ID]; a != nil && a.Text != "" && a.Text == r.Text {
				sr.Problems = append(sr.Problems, fmt.Sprintf("rule %d still holds its text after the forget", r.ID))
			}
			pkg, err := mem.Recall(ctx, RecallQuery{ProjectID: pid, SubjectID: subject, Task: r.Text})
			if err != nil {
				return fmt.Errorf("recall after forget: %w", err)
			}
			for _, it := range pkg.Items {
				if it.RuleID == r.ID || strings.Contains(it.Text, r.Text) {
					sr.Problems = append(sr.Problems, fmt.Sprintf("recall still returns %s after the forget: %s", it.ID, shorten(it.Text, 60)))
				}
			}
		}
		for _, r := range afterList {
			if live(r) && m.MatchRule(r) && !slices.ContainsFunc(targets, func(t *governance.Rule) bool { return t.ID == r.ID }) {
				sr.Problems = append(sr.Problems, fmt.Sprintf("another rule still matches %s: %s", m, describe(r)))
			}
		}
	}
	if rx := x.Recall; rx != nil {
		_, _, problems, err := e.checkPackage(ctx, pid, cmpOr(rx.Subject, subject), rx.Task, rx.Include, rx.Exclude)
		if err != nil {
			return err
		}
		sr.Problems = append(sr.Problems, problems...)
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
	var problems []string
	for _, r := range afterList {
		if before[r.ID] == nil && live(r) {
			d.NewRules = append(d.NewRules, describe(r))
			problems = append(problems, "untrusted content produced "+describe(r))
		}
		if live(r) {
			for _, m := range c.Forbid {
				if m.MatchRule(r) {
					d.Forbidden = append(d.Forbidden, describe(r))
					problems = append(problems, fmt.Sprintf("a rule matches the forbidden %s: %s", m, describe(r)))
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
			problems = append(problems, fmt.Sprintf("recall for the task changed after the untrusted content: added %v, removed %v", added, removed))
		}
		for _, m := range c.Forbid {
			if m.MatchText(pkg.Text) {
				problems = append(problems, fmt.Sprintf("the package text matches the forbidden %s", m))
			}
		}
	}
	res.Detail.Problems = append(res.Detail.Problems, problems...)
	if len(problems) == 0 {
		res.Reason = fmt.Sprintf("%d untrusted event(s) ingested: nothing promoted", len(events))
		if c.Task != "" {
			res.Reason += ", recall unchanged"
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

// target is one rule whose compliance an ab case checks.
type target struct {
	name   string
	ruleID int64
	text   string
	checks []*Check
}

func (e *engine) runAB(ctx context.Context, c *Case, res *CaseResult) error {
	if e.deps.Model == nil {
		res.Status, res.Reason = StatusSkipped, NoModelReason
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
		res.Status, res.Reason = StatusError, errs[0]
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
		res.Reason = fmt.Sprintf("compliance with memory %.2f, without %.2f, uplift %+.2f over %d rules", d.With.Score, d.Without.Score, d.Uplift, n)
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
