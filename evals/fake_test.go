package evals_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// fakeMemory is an in-memory stand-in for the product with a toy
// heartbeat: a user message (never external) holding "always", "from now
// on" or "以后" becomes a rule, keyed by the text before ":"; a new text for
// an existing key supersedes it, the same text adds evidence. Recall returns
// the active in-scope rules sharing a word with the task.
type fakeMemory struct {
	mu         sync.Mutex
	projects   map[int64]*governance.Project
	events     map[int64][]*governance.Event
	checkpoint map[int64]int64
	rules      []*governance.Rule
	evidence   map[int64][]*governance.Event
	checks     map[int64]string
	seq, ids   int64

	// Bugs to inject.
	promoteExternal bool          // the heartbeat learns from external events
	ignoreScope     bool          // recall returns rules of every project
	recallDelay     time.Duration // each recall sleeps (restart/cancel tests)
	beats           int

	leases map[string]time.Time // CLI runs' claims: prefix → expiry
	copies map[string][]int64   // run prefix → live projects copied
}

func newFakeMemory() *fakeMemory {
	return &fakeMemory{projects: map[int64]*governance.Project{}, events: map[int64][]*governance.Event{},
		checkpoint: map[int64]int64{}, evidence: map[int64][]*governance.Event{}, checks: map[int64]string{},
		leases: map[string]time.Time{}, copies: map[string][]int64{}}
}

var _ evals.Memory = (*fakeMemory)(nil)

func (f *fakeMemory) CreateScratchProject(_ context.Context, slug, name string, auto bool) (*governance.Project, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.projects {
		if p.Slug == slug {
			return nil, governance.Errorf(governance.ECONFLICT, "exists")
		}
	}
	f.ids++
	p := &governance.Project{ID: f.ids, Slug: slug, Name: name, AutoActivate: auto, Scratch: true}
	f.projects[p.ID] = p
	return p, nil
}

// addProject creates a live project with rules, for live-mode suites.
func (f *fakeMemory) addProject(slug string, rules ...*governance.Rule) *governance.Project {
	p, _ := f.CreateScratchProject(context.Background(), slug, slug, true)
	f.mu.Lock()
	defer f.mu.Unlock()
	p.Scratch = false
	for _, r := range rules {
		f.ids++
		r.ID, r.ProjectID, r.Version = f.ids, p.ID, 1
		if r.Status == "" {
			r.Status = governance.RuleActive
		}
		f.rules = append(f.rules, r)
	}
	return p
}

func (f *fakeMemory) DeleteScratchProjects(_ context.Context, prefix string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, p := range f.projects {
		if p.Scratch && strings.HasPrefix(p.Slug, prefix) {
			delete(f.projects, id)
			delete(f.events, id)
			f.rules = slices.DeleteFunc(f.rules, func(r *governance.Rule) bool { return r.ProjectID == id })
		}
	}
	return nil
}

func (f *fakeMemory) ClaimScratch(_ context.Context, prefix, _ string, ttl time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.leases[prefix]; ok {
		return governance.Errorf(governance.ECONFLICT, "claimed")
	}
	f.leases[prefix] = time.Now().Add(ttl)
	return nil
}

func (f *fakeMemory) RenewScratch(_ context.Context, prefix string, ttl time.Duration) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if exp, ok := f.leases[prefix]; !ok || !exp.After(time.Now()) {
		return false, nil
	}
	f.leases[prefix] = time.Now().Add(ttl)
	return true, nil
}

func (f *fakeMemory) ReleaseScratch(_ context.Context, prefix string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.leases, prefix)
	return nil
}

// RemoveOrphanScratch knows no server runs: the fake serves RunSuite.
func (f *fakeMemory) RemoveOrphanScratch(ctx context.Context) (int64, error) {
	f.mu.Lock()
	var slugs []string
	for _, p := range f.projects {
		if p.Scratch {
			slugs = append(slugs, p.Slug)
		}
	}
	now := time.Now()
	orphans := evals.OrphanScratch(slugs, nil, maps.Clone(f.leases), now)
	maps.DeleteFunc(f.leases, func(_ string, exp time.Time) bool { return !exp.After(now) })
	f.mu.Unlock()
	for _, prefix := range orphans {
		if err := f.DeleteScratchProjects(ctx, prefix); err != nil {
			return 0, err
		}
	}
	return int64(len(orphans)), nil
}

func (f *fakeMemory) CopyEvents(ctx context.Context, prefix string, sourceID, scratchID int64) (int, error) {
	f.mu.Lock()
	f.copies[prefix] = append(f.copies[prefix], sourceID)
	var events []*governance.Event
	for _, e := range f.events[sourceID] {
		if !e.Redacted {
			events = append(events, evals.EventCopy(e))
		}
	}
	f.mu.Unlock()
	res, err := f.IngestEvents(ctx, scratchID, events)
	if err != nil {
		return 0, err
	}
	return res.Inserted, nil
}

func (f *fakeMemory) EventCopyForgets(_ context.Context, prefix string) (map[int64]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[int64]int{}
	for _, id := range f.copies[prefix] {
		out[id] = 0
	}
	return out, nil
}

func (f *fakeMemory) scratchCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, p := range f.projects {
		if p.Scratch {
			n++
		}
	}
	return n
}

func (f *fakeMemory) FindProjectBySlug(_ context.Context, slug string) (*governance.Project, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.projects {
		if p.Slug == slug {
			return p, nil
		}
	}
	return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
}

func (f *fakeMemory) IngestEvents(_ context.Context, pid int64, events []*governance.Event) (*governance.ImportResult, error) {
	if err := governance.ValidateBatch(events); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.projects[pid] == nil {
		return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	res := &governance.ImportResult{}
	for _, e := range events {
		if slices.ContainsFunc(f.events[pid], func(x *governance.Event) bool { return x.ID == e.ID }) {
			res.Skipped++
			continue
		}
		f.seq++
		cp := *e
		cp.Seq, cp.ProjectID = f.seq, pid
		f.events[pid] = append(f.events[pid], &cp)
		res.Inserted++
	}
	return res, nil
}

func (f *fakeMemory) FindEvents(_ context.Context, flt governance.EventFilter) ([]*governance.Event, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.events[*flt.ProjectID])
	return out, len(out), nil
}

func (f *fakeMemory) SearchEvents(_ context.Context, flt governance.EventFilter) ([]*governance.EventHit, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	terms := strings.Fields(strings.ToLower(flt.Query))
	if len(terms) == 0 {
		return nil, 0, governance.Errorf(governance.EINVALID, "empty")
	}
	var out []*governance.EventHit
	evs := f.events[*flt.ProjectID]
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if flt.SubjectID != nil && e.SubjectID != *flt.SubjectID {
			continue
		}
		all := true
		for _, t := range terms {
			all = all && strings.Contains(strings.ToLower(e.Text), t)
		}
		if all {
			out = append(out, &governance.EventHit{Event: e})
		}
	}
	total := len(out)
	if flt.Limit > 0 && len(out) > flt.Limit {
		out = out[:flt.Limit]
	}
	return out, total, nil
}

var durable = []string{"always", "from now on", "以后"}

func (f *fakeMemory) RunHeartbeat(_ context.Context, pid int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.beats++
	p := f.projects[pid]
	for _, e := range f.events[pid] {
		if e.Seq <= f.checkpoint[pid] {
			continue
		}
		if e.Role != governance.RoleUser || (e.Source == governance.SourceExternal && !f.promoteExternal) {
			continue
		}
		if !slices.ContainsFunc(durable, func(m string) bool { return strings.Contains(strings.ToLower(e.Text), m) }) {
			continue
		}
		key, _, _ := strings.Cut(e.Text, ":")
		status := governance.RuleProposed
		if p.AutoActivate {
			status = governance.RuleActive
		}
		var old *governance.Rule
		for _, r := range f.rules {
			if r.ProjectID == pid && r.Status == governance.RuleActive && strings.HasPrefix(r.Text, key+":") {
				old = r
			}
		}
		if old != nil && old.Text == e.Text {
			f.evidence[old.ID] = append(f.evidence[old.ID], e)
			continue
		}
		f.ids++
		r := &governance.Rule{ID: f.ids, ProjectID: pid, SubjectID: e.SubjectID, Text: e.Text, Status: status, Version: 1,
			Kind: governance.TypePreference, PromotionReason: governance.ReasonExplicit, Trust: 0.8}
		if old != nil {
			r.Supersedes = old.ID
			old.Status, old.SupersededBy = governance.RuleSuperseded, r.ID
		}
		f.rules = append(f.rules, r)
		f.evidence[r.ID] = []*governance.Event{e}
	}
	if evs := f.events[pid]; len(evs) > 0 {
		f.checkpoint[pid] = evs[len(evs)-1].Seq
	}
	return nil
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == ' ' || r == ':' || r == ',' || r == '.' || r == '-' || r == '/'
	})
}

func (f *fakeMemory) Recall(ctx context.Context, q evals.RecallQuery) (*evals.RecallResult, error) {
	if f.recallDelay > 0 {
		select {
		case <-time.After(f.recallDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	res := &evals.RecallResult{}
	taskWords := words(q.Task)
	var texts []string
	for _, r := range f.rules {
		inScope := r.ProjectID == q.ProjectID && (r.SubjectID == "" || r.SubjectID == q.SubjectID)
		if !inScope && !f.ignoreScope {
			if r.Status == governance.RuleActive {
				res.OutOfScope++
			}
			continue
		}
		if r.Status != governance.RuleActive {
			res.Trace = append(res.Trace, evals.TraceEntry{ID: fmt.Sprintf("rule:%d", r.ID), RuleID: r.ID, Reason: string(r.Status)})
			continue
		}
		relevant := slices.ContainsFunc(words(r.Text), func(w string) bool { return len(w) > 2 && slices.Contains(taskWords, w) })
		if !relevant {
			res.Trace = append(res.Trace, evals.TraceEntry{ID: fmt.Sprintf("rule:%d", r.ID), RuleID: r.ID, Reason: "low relevance", Score: 0.2})
			continue
		}
		res.Items = append(res.Items, evals.RecallItem{ID: fmt.Sprintf("rule:%d", r.ID), Kind: "rule", RuleID: r.ID, Text: r.Text, Score: 0.8})
		res.Trace = append(res.Trace, evals.TraceEntry{ID: fmt.Sprintf("rule:%d", r.ID), RuleID: r.ID, Included: true, Reason: "included", Score: 0.8})
		texts = append(texts, "- "+r.Text)
	}
	if len(texts) > 0 {
		res.Text = "<recalled_memory>\n" + strings.Join(texts, "\n") + "\n</recalled_memory>"
	}
	return res, nil
}

func (f *fakeMemory) ForgetRule(_ context.Context, id int64, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if r.ID == id {
			r.Status, r.Text = governance.RuleForgotten, ""
			return nil
		}
	}
	return governance.Errorf(governance.ENOTFOUND, "Rule not found.")
}

func (f *fakeMemory) FindRules(_ context.Context, flt governance.RuleFilter) ([]*governance.Rule, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*governance.Rule
	for _, r := range f.rules {
		switch {
		case flt.ProjectID != nil && r.ProjectID != *flt.ProjectID,
			flt.SubjectID != nil && r.SubjectID != *flt.SubjectID,
			flt.ForSubject != nil && r.SubjectID != "" && r.SubjectID != *flt.ForSubject,
			len(flt.Statuses) > 0 && !slices.Contains(flt.Statuses, r.Status):
			continue
		}
		cp := *r
		out = append(out, &cp)
	}
	return out, len(out), nil
}

func (f *fakeMemory) ApproveRules(_ context.Context, _ string, ids []int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if slices.Contains(ids, r.ID) && r.Status == governance.RuleProposed {
			r.Status = governance.RuleActive
		}
	}
	return nil
}

func (f *fakeMemory) FindRuleEvidence(_ context.Context, id int64) ([]*governance.EvidenceLink, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []*governance.EvidenceLink{{Candidate: &governance.Candidate{}, Events: slices.Clone(f.evidence[id])}}, nil
}

func (f *fakeMemory) FindRuleChecks(_ context.Context, ids []int64) (map[int64]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[int64]string{}
	for _, id := range ids {
		if c, ok := f.checks[id]; ok {
			out[id] = c
		}
	}
	return out, nil
}
