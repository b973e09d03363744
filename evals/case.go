package evals

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// engine runs the cases of one suite for one run.
type engine struct {
	deps  Deps
	suite *Suite
	// prefix starts the slug of every scratch project of this run.
	prefix string
	// projects maps fixture aliases (scratch) to project ids.
	projects map[string]int64
	// lme holds a LongMemEval run's questions once set up, by id.
	lme map[string]*lmeCase
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
		if readsShared(e.suite.Case(id).Kind) {
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
	if e.suite.Benchmark != nil && e.suite.Benchmark.Format == FormatLongMemEval {
		return e.setupLongMemEval(ctx, caseIDs)
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
		slug := e.prefix + "s-" + aliasSlug(alias)
		id, err := e.scratchProject(ctx, slug, e.autoActivate(), false)
		if err != nil {
			return err
		}
		e.projects[alias] = id
		if _, err := e.fillFixtures(ctx, alias, id); err != nil {
			return e.copyLost(ctx, alias, slug, fmt.Errorf("fixtures of %s: %w", alias, err))
		}
		if err := e.deps.Memory.RunHeartbeat(ctx, id); err != nil {
			return e.copyLost(ctx, alias, slug, fmt.Errorf("heartbeat on fixtures of %s: %w", alias, err))
		}
		if e.autoActivate() {
			if err := e.approveProposals(ctx, id); err != nil {
				return fmt.Errorf("approve the proposals of %s: %w", alias, err)
			}
		}
	}
	return nil
}

// approveProposals approves every proposal of scratch project pid, as a
// reviewer approving all of them would: fixtures with auto_activate are
// curated memory recall runs against, and the product activates on its
// own only what is in the low-risk set (auto-activation is default-deny).
func (e *engine) approveProposals(ctx context.Context, pid int64) error {
	rules, _, err := e.deps.Memory.FindRules(ctx, governance.RuleFilter{ProjectID: &pid,
		Statuses: []governance.RuleStatus{governance.RuleProposed}, Limit: 10000})
	if err != nil || len(rules) == 0 {
		return err
	}
	ids := make([]int64, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	return e.deps.Memory.ApproveRules(ctx, "eval", ids)
}

// copyLost explains err when the alias copies a live project's events and
// its scratch project is gone: deleting that project removed the copy
// while the run set it up (a forget only forgets what it forgets there).
func (e *engine) copyLost(ctx context.Context, alias, scratch string, err error) error {
	if slug := e.suite.Fixtures.CopyEvents[alias]; slug != "" {
		if _, ferr := e.deps.Memory.FindProjectBySlug(ctx, scratch); governance.ErrorCode(ferr) == governance.ENOTFOUND {
			return fmt.Errorf("copy_events from %s: deleting that project removed this run's copy of its events (%w)", slug, err)
		}
	}
	return err
}

// copySource is the live project an alias copies the events of (fixtures.copy_events).
func (e *engine) copySource(ctx context.Context, alias string) (*governance.Project, error) {
	slug := e.suite.Fixtures.CopyEvents[alias]
	p, err := e.deps.Memory.FindProjectBySlug(ctx, slug)
	if err != nil {
		return nil, fmt.Errorf("copy_events from %s: %w", slug, err)
	}
	return p, nil
}

// forgottenInputs names the live project a forget during the run reached
// the copy of, when case c reads that copy (its project's, or its foreign
// scope's, shared fixtures or its own with_fixtures); "" otherwise. The
// store counts each forget that removed something from a run's copy
// (EventCopyForgets).
func (e *engine) forgottenInputs(ctx context.Context, c *Case) string {
	if !readsShared(c.Kind) && !c.WithFixtures {
		return ""
	}
	aliases := []string{cmpOr(c.Project, e.suite.Project)}
	if c.Foreign != nil && c.Foreign.Project != "" {
		aliases = append(aliases, c.Foreign.Project)
	}
	var forgets map[int64]int
	for _, alias := range aliases {
		if e.suite.Fixtures.CopyEvents[alias] == "" {
			continue
		}
		if forgets == nil {
			var err error
			if forgets, err = e.deps.Memory.EventCopyForgets(ctx, e.prefix); err != nil {
				return ""
			}
		}
		if src, err := e.copySource(ctx, alias); err == nil && forgets[src.ID] > 0 {
			return src.Slug
		}
	}
	return ""
}

// copyForgets counts the forgets that reached the run's copies of live
// projects' events so far.
func (e *engine) copyForgets(ctx context.Context) int {
	if len(e.suite.Fixtures.CopyEvents) == 0 {
		return 0
	}
	forgets, err := e.deps.Memory.EventCopyForgets(ctx, e.prefix)
	if err != nil {
		e.deps.Logger.Warn("counting the forgets of an eval run's copies failed", slog.Any("error", err))
		return 0
	}
	n := 0
	for _, f := range forgets {
		n += f
	}
	return n
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
		if !p.Scratch {
			return 0, fmt.Errorf("project %s exists and is not an eval scratch project", slug)
		}
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

// fillFixtures writes the fixtures of one alias into scratch project pid:
// the events copied from a live project (Memory.CopyEvents, one step a
// forget of that project either precedes or follows), then the fixture
// sessions. It returns how many events it wrote.
func (e *engine) fillFixtures(ctx context.Context, alias string, pid int64) (int, error) {
	n := 0
	if slug := e.suite.Fixtures.CopyEvents[alias]; slug != "" {
		src, err := e.copySource(ctx, alias)
		if err != nil {
			return 0, err
		}
		if n, err = e.deps.Memory.CopyEvents(ctx, e.prefix, src.ID, pid); err != nil {
			return 0, fmt.Errorf("copy_events from %s: %w", slug, err)
		}
	}
	var events []*governance.Event
	for _, sess := range e.suite.Fixtures.Sessions {
		if cmpOr(sess.Project, e.suite.Project) == alias {
			events = append(events, e.sessionEvents(sess, sess.ID, "")...)
		}
	}
	if err := e.ingest(ctx, pid, events); err != nil {
		return n, err
	}
	return n + len(events), nil
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
		cctx, cancel := context.WithTimeout(ctx, max(timeout, 10*time.Minute))
		if e.suite.Benchmark.Format == FormatLongMemEval {
			res, err = e.runQuestion(cctx, id)
		} else {
			var conv *Conversation
			for _, c := range e.suite.Benchmark.conversations {
				if c.ID == id {
					conv = c
				}
			}
			res, err = e.runConversation(cctx, conv)
		}
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
		res.Status = StatusError
		res.because(governance.Say(err.Error()))
		if res.Detail == nil {
			res.Detail = &Detail{}
		}
		res.Detail.Problems = append(res.Detail.Problems, err.Error())
	}
	if res.Status == StatusFailed || res.Status == StatusError {
		// Expectations are written for the data as copied: a case that
		// read a copy a forget changed is not judged on it (the problems
		// found stay in its detail).
		if e.suite.Benchmark == nil {
			if slug := e.forgottenInputs(ctx, e.suite.Case(id)); slug != "" {
				res.Status = StatusSkipped
				res.because(governance.Say("a forget in project %s during this run removed data this case reads; it was not judged", slug))
			}
		}
	}
	res.DurationMS = time.Since(start).Milliseconds()
	res.Cost = roundCost(res.Cost)
	return res
}

func (e *engine) runCase(ctx context.Context, index int, c *Case) (*CaseResult, error) {
	res := &CaseResult{CaseID: c.ID, Kind: c.Kind, Detail: &Detail{}}
	spec := specOf(c.Kind)
	if spec == nil {
		return res, fmt.Errorf("unknown kind %q", c.Kind)
	}
	err := spec.run(e, ctx, index, c, res)
	if err != nil {
		return res, err
	}
	if res.Status == "" {
		if len(res.Detail.Problems) > 0 {
			res.Status = StatusFailed
			first := res.Detail.problem(0)
			if n := len(res.Detail.Problems); n > 1 {
				res.because(governance.Say("%s (and %d more)", first, n-1))
			} else {
				res.because(first)
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
func (e *engine) checkPackage(ctx context.Context, projectID int64, subject, task string, include, exclude []*Matcher) (*RecallDetail, *RecallResult, []governance.Text, error) {
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
	var problems []governance.Text
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
			mr.because(e.whyMissing(m, rules, pkg))
			problems = append(problems, governance.Say("expected a memory matching %s in the package, but %s", m.String(), mr.WhyText))
		}
		d.Include = append(d.Include, mr)
	}
	for _, m := range exclude {
		mr := MatchResult{Matcher: m.String(), OK: true}
		for _, it := range pkg.Items {
			if itemMatches(m, it) {
				mr.OK, mr.Item = false, it.ID
				mr.because(governance.Say("%s is in the package: %s", it.ID, shorten(it.Text, 80)))
				problems = append(problems, governance.Say("the package must not hold a memory matching %s, but %s", m.String(), mr.WhyText))
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
func (e *engine) whyMissing(m *Matcher, scope []*governance.Rule, pkg *RecallResult) governance.Text {
	var matched []*governance.Rule
	for _, r := range scope {
		if m.MatchRule(r) {
			matched = append(matched, r)
		}
	}
	if len(matched) == 0 {
		if pkg.OutOfScope > 0 {
			return governance.Say("no rule in this project and subject matches it (%d rules in scope; %d memories outside the scope were filtered out, as they must be)", len(scope), pkg.OutOfScope)
		}
		return governance.Say("no rule in this project and subject matches it (%d rules in scope)", len(scope))
	}
	var why []governance.Text
	for _, r := range matched {
		if ok, reason := r.Usable(time.Now()); !ok {
			why = append(why, governance.Say("rule %d is %s", r.ID, reason))
			continue
		}
		var entry governance.Text
		for _, t := range pkg.Trace {
			if t.RuleID == r.ID {
				entry = governance.Say("rule %d was excluded by recall: %s (score %.2f)", r.ID, t.Reason, t.Score)
				break
			}
		}
		if entry.IsZero() {
			entry = governance.Say("rule %d is active but recall did not consider it", r.ID)
		}
		why = append(why, entry)
	}
	return governance.Joined(why...)
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
	written := 0
	if c.WithFixtures {
		if written, err = e.fillFixtures(ctx, cmpOr(c.Project, e.suite.Project), pid); err != nil {
			return 0, err
		}
	}
	var events []*governance.Event
	for _, s := range setup {
		events = append(events, e.sessionEvents(s, "setup-"+s.ID, c.Subject)...)
	}
	if written+len(events) > 0 {
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

// slugPart turns an id into at most 40 characters of a project slug.
func slugPart(id string) string {
	s := strings.Trim(slugRe.ReplaceAllString(strings.ToLower(id), "-"), "-")
	return s[:min(len(s), 40)]
}

// aliasSlug is the slug part of a fixture alias: the alias itself when it
// is short and valid in a slug, else a readable part plus a hash of it, so
// two aliases never share a scratch project (aliases may hold capitals,
// '.', '_' and ':'; slugs may not).
func aliasSlug(alias string) string {
	if len(alias) <= 32 && governance.ValidateSlug(alias) == nil {
		return alias
	}
	sum := sha256.Sum256([]byte(alias))
	s := slugPart(alias)
	s = strings.TrimRight(s[:min(len(s), 32)], "-")
	if s == "" {
		return hex.EncodeToString(sum[:3])
	}
	return s + "-" + hex.EncodeToString(sum[:3])
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
