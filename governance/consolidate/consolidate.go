package consolidate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/readability"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Consolidator turns ended sessions into a BeatPlan: extract → classify →
// merge → promote. The model (or heuristic) judges language; the write
// gate's classifier what a statement touches; the promotion decision is
// Decide's. Build one with New: it cannot run without a classifier.
type Consolidator struct {
	Extractor governance.Extractor
	// ExtractFallback extracts a session whose reply from Extractor is no
	// extraction (EINVALID: a refusal, a reply with no JSON, one cut off
	// before any item) — asking again would get the same. Other failures
	// (the endpoint down, rate limits after the retries) fail the beat, which
	// keeps its checkpoint. Nil: none.
	ExtractFallback governance.Extractor
	Merger          governance.Merger
	// Fallback merges when Merger fails (e.g. a model answer that is not a partition).
	Fallback governance.Merger
	// Classifier reads every statement, supporting event and episode
	// summary (the write gate and its risk features, and a model beside
	// it when one is configured). Plan refuses to run without one.
	Classifier governance.Classifier
	Logger     *slog.Logger
	// Concurrency bounds how many sessions are extracted at once (default GOMAXPROCS).
	Concurrency int
	// Related scores how much two statements are about the same thing (0–1),
	// for finding the rule a new statement contradicts; nil skips that search.
	Related func(a, b string) float64
}

// sessionOutput is what extraction and the gate made of one session.
type sessionOutput struct {
	// extractor names the extractor whose items these are.
	extractor string
	episode   *governance.Episode
	items     []gatedItem
	tokens    int
	dropped   int
}

type gatedItem struct {
	governance.ExtractedItem
	support     []int64
	text        string
	findings    []governance.Finding
	blocked     bool
	lowRisk     string
	notPlaced   *governance.NotPlaced
	fingerprint string
}

// New returns a consolidator of x and m that reads every text through cl.
// It panics without a classifier: nothing may be consolidated ungated.
func New(cl governance.Classifier, x governance.Extractor, m governance.Merger) *Consolidator {
	if cl == nil {
		panic("consolidate: a consolidator needs a classifier")
	}
	return &Consolidator{Classifier: cl, Extractor: x, Merger: m}
}

// ErrNoClassifier is Plan's error for a consolidator without a classifier.
var ErrNoClassifier = errors.New("consolidate: no classifier: every statement must be classified")

// withoutForgotten returns the episode summary without the sentences that
// quote a statement the user had forgotten (its fingerprint is suppressed),
// so consolidating a session again never brings the text back.
func withoutForgotten(ex *governance.Extraction, suppressed func(fp string) bool) string {
	var gone []string
	for _, it := range ex.Items {
		if it.Statement != "" && suppressed(governance.Fingerprint(it.Statement)) {
			gone = append(gone, it.Statement)
		}
	}
	if len(gone) == 0 {
		return ex.Summary
	}
	var b strings.Builder
	for _, sentence := range splitSentences(ex.Summary) {
		if !slices.ContainsFunc(gone, func(g string) bool { return strings.Contains(sentence, g) }) {
			b.WriteString(sentence)
		}
	}
	return strings.TrimSpace(b.String())
}

// splitSentences cuts text after each sentence's terminators, keeping them
// (the pieces put together give text back).
func splitSentences(text string) []string {
	var out []string
	tokenizer.Sentences(text, func(start, _, next int, _ bool) bool {
		out = append(out, text[start:next])
		return true
	})
	return out
}

// scopeKey buckets statements that may merge: the same type, and for
// preferences the same subject (one user's preference never supports another's).
func scopeKey(t governance.MemoryType, subject string) string {
	if t == governance.TypePreference {
		return string(t) + "\x00" + subject
	}
	return string(t)
}

// ruleScope is the subject a rule of this type from these members is about.
func ruleScope(t governance.MemoryType, subject string) string {
	if t == governance.TypePreference {
		return subject
	}
	return ""
}

// RelatedThreshold is the similarity above which a new statement is about
// the same subject as an existing rule for the contradiction check (lower
// than the merge threshold: "改成13:00–15:00" says less in common with the
// rule it replaces than a paraphrase does).
const RelatedThreshold = 0.2

// CorrectionRelatedThreshold is the similarity above which a correction
// (governance.Corrects) is about an existing rule.
const CorrectionRelatedThreshold = 0.12

func sortedKeys[V any](m map[int64]V) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Plan builds the plan for one project. It reads nothing and writes nothing.
func (c *Consolidator) Plan(ctx context.Context, in *governance.ConsolidateInput) (*governance.BeatPlan, error) {
	if c.Classifier == nil {
		return nil, ErrNoClassifier
	}
	plan := &governance.BeatPlan{ProjectID: in.Project.ID, Checkpoint: in.NewCheckpoint, ForgetGeneration: in.ForgetGeneration, BeatVersion: in.BeatVersion, Attach: map[int64]int64{}}
	plan.Stats.NewEvents = in.NewEvents
	evidence := make(map[int64]*governance.Event, len(in.Evidence))
	for seq, e := range in.Evidence {
		evidence[seq] = e
	}
	nextID := int64(0)
	tempID := func() int64 { nextID--; return nextID }

	outs, err := c.extractAll(ctx, in)
	if err != nil {
		return nil, err
	}
	for i, out := range outs {
		if out == nil {
			continue
		}
		w := in.Sessions[i]
		plan.Stats.Tokens += out.tokens
		plan.Stats.Dropped += out.dropped
		plan.Episodes = append(plan.Episodes, out.episode)
		for _, e := range w.Events {
			evidence[e.Seq] = e
		}
		for _, it := range out.items {
			if in.Suppressed.Has(w.Session.SubjectID, it.fingerprint) || w.Known[it.fingerprint] || !slices.ContainsFunc(it.support, func(seq int64) bool { return seq > w.Consolidated }) {
				continue
			}
			if governance.CheckRuleText(it.text) != nil {
				plan.Stats.Dropped++ // too long to ever become a rule
				continue
			}
			w.Known[it.fingerprint] = true
			cand := &governance.Candidate{
				ID: tempID(), ProjectID: in.Project.ID, SessionID: w.Session.SessionID, SubjectID: w.Session.SubjectID,
				Type: it.Type, Statement: it.text, Durable: it.Durable, Extractor: out.extractor,
				Status: governance.CandidatePending, Fingerprint: it.fingerprint, Findings: it.findings, EvidenceSeqs: it.support,
				CreatedAt: in.Now, UpdatedAt: in.Now, LowRisk: it.lowRisk, NotPlaced: it.notPlaced, ReplacesOnly: it.ReplacesOnly,
			}
			if it.blocked {
				cand.Status = governance.CandidateBlocked
			}
			plan.Candidates = append(plan.Candidates, cand)
		}
	}
	plan.Stats.Episodes = len(plan.Episodes)
	if err := c.mergeAndPromote(ctx, in, plan, evidence, tempID); err != nil {
		return nil, err
	}
	// A correction of one definite thing that corrected no rule is
	// nothing to keep (ExtractedItem.ReplacesOnly).
	plan.Candidates = slices.DeleteFunc(plan.Candidates, func(c *governance.Candidate) bool { return c.ReplacesOnly && c.GroupID == 0 })
	plan.Stats.Candidates = len(plan.Candidates)
	return plan, nil
}

// extractAll extracts and gates every session, Concurrency sessions at a
// time (extraction and the gate are the costly, independent part of a beat;
// a model extractor spends most of it waiting). Results keep session order,
// so the plan is the same whatever the concurrency.
func (c *Consolidator) extractAll(ctx context.Context, in *governance.ConsolidateInput) ([]*sessionOutput, error) {
	outs := make([]*sessionOutput, len(in.Sessions))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     = make(chan int)
	)
	workers := c.Concurrency
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for range min(workers, max(1, len(in.Sessions))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out, err := c.extractSession(ctx, in, in.Sessions[i])
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					mu.Unlock()
					continue
				}
				outs[i] = out
			}
		}()
	}
feed:
	for i := range in.Sessions {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return outs, ctx.Err()
}

// extractSession runs the extractor over one session and gates its summary
// and statements; support outside the session is dropped and logged.
func (c *Consolidator) extractSession(ctx context.Context, in *governance.ConsolidateInput, w *governance.SessionWork) (*sessionOutput, error) {
	if len(w.Events) == 0 {
		return nil, nil
	}
	xin := governance.ExtractInput{
		ProjectID: in.Project.ID, SessionID: w.Session.SessionID, SubjectID: w.Session.SubjectID, Events: w.Events,
	}
	extractor := c.Extractor
	ex, err := extractor.Extract(ctx, xin)
	if err != nil && c.ExtractFallback != nil && governance.ErrorCode(err) == governance.EINVALID && ctx.Err() == nil {
		if c.Logger != nil {
			c.Logger.Warn("extractor reply unusable; extracting the session with the fallback",
				slog.Int64("project_id", in.Project.ID), slog.String("session_id", w.Session.SessionID),
				slog.String("extractor", extractor.Name()), slog.String("fallback", c.ExtractFallback.Name()), slog.Any("error", err))
		}
		extractor = c.ExtractFallback
		ex, err = extractor.Extract(ctx, xin)
	}
	if err != nil {
		return nil, fmt.Errorf("extract session %s: %w", w.Session.SessionID, err)
	}
	bySeq := make(map[int64]*governance.Event, len(w.Events))
	for _, e := range w.Events {
		bySeq[e.Seq] = e
	}
	// What the classifier finds in each event of the session, once.
	eventResults := map[int64]governance.GateResult{}
	classifyEvent := func(seq int64) (governance.GateResult, error) {
		if r, ok := eventResults[seq]; ok {
			return r, nil
		}
		var r governance.GateResult
		if e := bySeq[seq]; e != nil {
			var err error
			if r, err = c.Classifier.Classify(ctx, e.Text); err != nil {
				return r, fmt.Errorf("classify event %d: %w", seq, err)
			}
		}
		eventResults[seq] = r
		return r, nil
	}
	// The findings of a blocked event (nil for one that passes).
	blockedEvent := func(seq int64) ([]governance.Finding, error) {
		r, err := classifyEvent(seq)
		if err != nil || !r.Blocked() {
			return nil, err
		}
		why := "A supporting event is blocked: %s"
		if e := bySeq[seq]; e != nil && gate.HidesContent(e.Text) {
			why = "A supporting event hides content: %s"
		}
		var out []governance.Finding
		for _, f := range r.Findings {
			// The spans are in the event, not in the statement.
			f.Start, f.End = 0, 0
			f.Because(governance.Say(why, f.WhyOf()))
			out = append(out, f)
		}
		return out, nil
	}
	// The risk features of a user's turn that passes (nil for one
	// without, and for tool results and the assistant's turns: evidence
	// for the statement, not the words it was cut from), spans dropped:
	// they are in the event, not in the statement.
	riskOfEvent := func(seq int64) ([]governance.Finding, error) {
		if e := bySeq[seq]; e == nil || e.Role != governance.RoleUser {
			return nil, nil
		}
		r, err := classifyEvent(seq)
		if err != nil || r.Blocked() {
			return nil, err
		}
		out := slices.Clone(r.Findings)
		for i := range out {
			out[i].Start, out[i].End = 0, 0
		}
		return out, nil
	}
	inSession := make(map[int64]bool, len(w.Events))
	first, last := w.Events[0].Seq, w.Events[0].Seq
	for _, e := range w.Events {
		inSession[e.Seq] = true
		first, last = min(first, e.Seq), max(last, e.Seq)
	}
	summary := withoutForgotten(ex, func(fp string) bool { return in.Suppressed.Has(w.Session.SubjectID, fp) })
	// Built only from gated text, and describing rather than quoting what
	// is outside the low-risk set (see describeSummary).
	summary, err = c.describeSummary(ctx, summary, w.Events, classifyEvent)
	if err != nil {
		return nil, err
	}
	out := &sessionOutput{extractor: extractor.Name(), tokens: ex.Tokens, episode: &governance.Episode{
		ProjectID: in.Project.ID, SessionID: w.Session.SessionID, SubjectID: w.Session.SubjectID,
		Summary: summary, FirstSeq: first, LastSeq: last, EventCount: len(w.Events),
		Extractor: extractor.Name(), CreatedAt: in.Now, UpdatedAt: in.Now,
	}}
	for _, it := range ex.Items {
		if !it.Type.Valid() || it.Statement == "" {
			out.dropped++
			continue
		}
		if p := readability.Check(it.Statement); p != readability.OK {
			// Not a rule a reviewer could read (a command line, JSON, a
			// path, a trace, a fragment): the events stay as the
			// episode's evidence, nothing is proposed.
			out.dropped++
			if c.Logger != nil {
				c.Logger.Debug("unreadable statement dropped", slog.String("session_id", w.Session.SessionID), slog.String("problem", string(p)))
			}
			continue
		}
		var support []int64
		for _, seq := range it.SupportSeqs {
			if inSession[seq] {
				support = append(support, seq)
			} else if c.Logger != nil {
				c.Logger.Warn("extractor named an event outside the session; dropped",
					slog.Int64("project_id", in.Project.ID), slog.String("session_id", w.Session.SessionID), slog.Int64("event_seq", seq))
			}
		}
		if len(support) == 0 {
			out.dropped++
			continue
		}
		slices.Sort(support)
		g := gatedItem{ExtractedItem: it, support: slices.Compact(support)}
		res, err := c.Classifier.Classify(ctx, it.Statement)
		if err != nil {
			return nil, fmt.Errorf("classify a statement of session %s: %w", w.Session.SessionID, err)
		}
		g.text, g.findings, g.blocked, g.lowRisk, g.notPlaced = res.Text, res.Findings, res.Blocked(), res.LowRisk, res.NotPlaced
		if !g.blocked {
			// An extractor may drop what it cannot see or keep only the
			// harmless part of a blocked event ("always approve refunds"
			// from a fake "### New instructions:" block): every supporting
			// event is gated itself, and a blocked one blocks the statement.
			for _, seq := range g.support {
				f, err := blockedEvent(seq)
				if err != nil {
					return nil, err
				}
				if len(f) > 0 {
					g.findings, g.blocked, g.lowRisk = append(g.findings, f...), true, ""
					break
				}
			}
		}
		if !g.blocked {
			// Nor is a statement safer than the user's turns it was cut from: a
			// sentence said beside a risk feature ("you're DAN now. …
			// Stay DAN in every chat", a pasted notice and the wish it
			// frames) carries the feature, so it is outside the low-risk
			// set and one person's repetition counts once.
			for _, seq := range g.support {
				f, err := riskOfEvent(seq)
				if err != nil {
					return nil, err
				}
				g.findings = appendNew(g.findings, f)
			}
			if len(g.findings) > 0 {
				g.lowRisk = ""
			}
		}
		g.fingerprint = governance.Fingerprint(g.text)
		out.items = append(out.items, g)
	}
	return out, nil
}

func (c *Consolidator) mergeAndPromote(ctx context.Context, in *governance.ConsolidateInput, plan *governance.BeatPlan, evidence map[int64]*governance.Event, tempID func() int64) error {
	fresh := map[int64]*governance.Candidate{}
	for _, cand := range plan.Candidates {
		if cand.Status == governance.CandidateBlocked {
			cand.GroupID = cand.ID
			cand.StatusReason, cand.WhyNotPlaced = governance.Decide(nil, nil, cand.Findings).Why, nil
			plan.Stats.Blocked++
			continue
		}
		fresh[cand.ID] = cand
	}
	if len(fresh) == 0 {
		return nil
	}
	// Held candidates by group, rules by id; merge items are new candidates,
	// one representative per held group, and the existing rules, in buckets.
	heldGroups := map[int64][]*governance.Candidate{}
	for _, h := range in.Held {
		heldGroups[h.GroupID] = append(heldGroups[h.GroupID], h)
	}
	rules := map[int64]*governance.Rule{}
	buckets := map[string][]governance.MergeItem{}
	var keys []string
	addItem := func(key string, it governance.MergeItem) {
		if _, ok := buckets[key]; !ok {
			keys = append(keys, key)
		}
		buckets[key] = append(buckets[key], it)
	}
	for _, cand := range plan.Candidates {
		if fresh[cand.ID] != nil {
			addItem(scopeKey(cand.Type, cand.SubjectID), governance.MergeItem{ID: cand.ID, Type: cand.Type, Statement: cand.Statement})
		}
	}
	groupIDs := sortedKeys(heldGroups)
	for _, gid := range groupIDs {
		rep := heldGroups[gid][0]
		// Held groups are offered under their group id (positive, distinct from
		// new candidates' negative ids); rules under an offset id space.
		addItem(scopeKey(rep.Type, rep.SubjectID), governance.MergeItem{ID: gid, Type: rep.Type, Statement: rep.Statement})
	}
	const ruleBase = int64(1) << 40
	rulesByKey := map[string][]*governance.Rule{}
	for _, r := range in.Rules {
		rules[r.ID] = r
		rulesByKey[scopeKey(r.Kind, r.SubjectID)] = append(rulesByKey[scopeKey(r.Kind, r.SubjectID)], r)
		addItem(scopeKey(r.Kind, r.SubjectID), governance.MergeItem{ID: ruleBase + r.ID, Type: r.Kind, Statement: r.Text})
	}
	slices.Sort(keys)
	for _, key := range keys {
		items := buckets[key]
		hasFresh := slices.ContainsFunc(items, func(it governance.MergeItem) bool { return it.ID < 0 })
		if !hasFresh {
			continue
		}
		groups, tokens, err := c.partition(ctx, items)
		if err != nil {
			return err
		}
		plan.Stats.Tokens += tokens
		for _, g := range groups {
			var (
				members []*governance.Candidate
				newOnes []*governance.Candidate
				ruleID  int64
				held    int64
			)
			for _, id := range g {
				switch {
				case id < 0:
					newOnes = append(newOnes, fresh[id])
				case id >= ruleBase:
					if ruleID == 0 || id-ruleBase < ruleID {
						ruleID = id - ruleBase
					}
				default:
					members = append(members, heldGroups[id]...)
					if held == 0 || id < held {
						held = id
					}
				}
			}
			if ruleID == 0 && c.replaces(rulesByKey[key], newOnes) == nil {
				// Corrections of one definite thing that correct no rule
				// are dropped (their group id stays 0).
				newOnes = slices.DeleteFunc(newOnes, func(c *governance.Candidate) bool { return c.ReplacesOnly })
			}
			if len(newOnes) == 0 {
				continue
			}
			if ruleID != 0 {
				// Same subject as an existing rule. Statements that agree add
				// evidence to it (never a duplicate proposal); one that
				// contradicts it (other times or amounts, or a negation) is
				// proposed as its replacement if it has the evidence.
				rule := rules[ruleID]
				var agree, replace []*governance.Candidate
				for _, cand := range newOnes {
					if governance.Replaces(rule.Text, cand.Statement) {
						replace = append(replace, cand)
					} else {
						agree = append(agree, cand)
					}
				}
				status := governance.CandidatePromoted
				if rule.Status == governance.RuleProposed {
					status = governance.CandidateProposed
				}
				for _, cand := range append(agree, members...) {
					if cand.GroupID == 0 {
						cand.GroupID = cand.ID
					}
					cand.RuleID, cand.Status = ruleID, status
					cand.StatusReason = fmt.Sprintf("Adds evidence to rule %d.", ruleID)
					plan.Attach[cand.ID] = ruleID
				}
				plan.Updates = append(plan.Updates, members...)
				if len(replace) > 0 {
					for _, cand := range replace {
						cand.GroupID = replace[0].ID
					}
					if err := c.place(ctx, replace); err != nil {
						return err
					}
					placed, err := c.placeAsRule(ctx, rule, replace)
					if err != nil {
						return err
					}
					d := governance.DecideReplacement(replace, evidence, rule)
					r, err := c.apply(ctx, in, plan, replace, d, placed, tempID)
					if err != nil {
						return err
					}
					if r != nil {
						r.Supersedes = ruleID
					}
					for _, cand := range replace {
						cand.StatusReason = fmt.Sprintf("Contradicts rule %d. %s", ruleID, cand.StatusReason)
					}
				}
				continue
			}
			all := append(slices.Clone(members), newOnes...)
			gid := held
			if gid == 0 {
				gid = newOnes[0].ID
			}
			for _, cand := range all {
				cand.GroupID = gid
			}
			if err := c.place(ctx, all); err != nil {
				return err
			}
			replaced := c.replaces(rulesByKey[key], newOnes)
			placed := ""
			if replaced != nil {
				if placed, err = c.placeAsRule(ctx, replaced, all); err != nil {
					return err
				}
			}
			d := governance.DecideReplacement(all, evidence, replaced)
			r, err := c.apply(ctx, in, plan, all, d, placed, tempID)
			if err != nil {
				return err
			}
			if r != nil && replaced != nil {
				r.Supersedes = replaced.ID
			}
			if replaced != nil {
				for _, cand := range all {
					cand.StatusReason = fmt.Sprintf("Contradicts rule %d. %s", replaced.ID, cand.StatusReason)
				}
			}
			plan.Updates = append(plan.Updates, members...)
		}
	}
	return nil
}

// place classifies the candidates read from the store (held ones, which
// are never stored with their low-risk class) so Decide sees where each
// statement stands; a new candidate was classified when it was drawn.
func (c *Consolidator) place(ctx context.Context, members []*governance.Candidate) error {
	for _, cand := range members {
		if cand.ID < 0 || cand.LowRisk != "" || governance.GateFound(cand.Findings) {
			continue
		}
		res, err := c.Classifier.Classify(ctx, cand.Statement)
		if err != nil {
			return fmt.Errorf("classify candidate %d: %w", cand.ID, err)
		}
		cand.LowRisk, cand.NotPlaced = res.LowRisk, res.NotPlaced
	}
	return nil
}

// replaces returns the existing rule a new group contradicts: the most
// related rule of the same bucket that Contradicts one of the new statements.
func (c *Consolidator) replaces(rules []*governance.Rule, newOnes []*governance.Candidate) *governance.Rule {
	if c.Related == nil {
		return nil
	}
	// A correction that names the rule's old value may share no word with
	// it (会议改成十一点了，不是十点 against 周会都在十点开): any relatedness,
	// none included, is enough for it.
	var best *governance.Rule
	score := -1.0
	for _, r := range rules {
		for _, cand := range newOnes {
			sim := c.Related(r.Text, cand.Statement)
			if sim <= score {
				continue
			}
			// A correction says it changes something ("change of plan",
			// 改成): it needs less in common with the rule it names.
			// One that names the rule's value as gone ("make that 30,
			// not 50") is about the rule whatever words they share.
			if sim >= RelatedThreshold && governance.Replaces(r.Text, cand.Statement) ||
				(sim >= CorrectionRelatedThreshold || governance.NamesOldValue(r.Text, cand.Statement)) && governance.Corrects(r.Text, cand.Statement) {
				best, score = r, sim
			}
		}
	}
	return best
}

// placeAsRule places a group that corrects rule where the rule stands when
// the rule is in the low-risk set and the group only changes a value of it
// (governance.ChangesValue: "the fee is 30 euros now, not 50", 时长改成60分钟),
// each member said by the rule's own subject and carrying no finding. It
// returns the class, or "" when the group must be placed on its own words.
func (c *Consolidator) placeAsRule(ctx context.Context, rule *governance.Rule, group []*governance.Candidate) (string, error) {
	if rule.SubjectID == "" || governance.GateFound(rule.Findings) {
		return "", nil
	}
	for _, cand := range group {
		if governance.GateFound(cand.Findings) || cand.SubjectID != rule.SubjectID || !governance.ChangesValue(rule.Text, cand.Statement) {
			return "", nil
		}
	}
	res, err := c.Classifier.Classify(ctx, rule.Text)
	if err != nil {
		return "", fmt.Errorf("classify rule %d: %w", rule.ID, err)
	}
	if res.LowRisk == "" || len(res.Findings) > 0 {
		return "", nil
	}
	for _, cand := range group {
		if cand.LowRisk == "" {
			cand.LowRisk, cand.NotPlaced = res.LowRisk, nil
		}
	}
	return res.LowRisk, nil
}

// apply records the decision for a merged group: a proposal, or held/blocked with why.
// A group placed where the rule it corrects stands (placeAsRule) is placed
// in class placed when its statement is not placed on its own words.
// It returns the proposed rule, or nil when the group is held or blocked.
func (c *Consolidator) apply(ctx context.Context, in *governance.ConsolidateInput, plan *governance.BeatPlan, all []*governance.Candidate, d governance.Decision, placed string, tempID func() int64) (*governance.Rule, error) {
	for _, cand := range all {
		cand.Status, cand.StatusReason, cand.WhyNotPlaced = d.Status, d.Why, d.NotPlaced
		cand.UpdatedAt = in.Now
	}
	switch d.Status {
	case governance.CandidateHeld:
		plan.Stats.Held++
		return nil, nil
	case governance.CandidateBlocked:
		plan.Stats.Blocked++
		return nil, nil
	}
	best, res, findings, err := c.statement(ctx, all)
	if err != nil {
		return nil, err
	}
	if c.suppressed(in, all, best, d, res.Text, findings) {
		plan.Stats.Held++
		return nil, nil
	}
	text := res.Text
	// Default-deny: only a proposal Decide leaves to the policy, whose
	// statement is placed in the low-risk set, becomes active without a
	// reviewer.
	status := governance.RuleProposed
	review := d.Review && !(d.OnePerson && in.Project.SingleUser)
	lowRisk := res.LowRisk
	if lowRisk == "" {
		lowRisk = placed
	}
	if in.Project.AutoActivate && !review && lowRisk != "" && len(findings) == 0 {
		status = governance.RuleActive
		if d.Review {
			// One person's rule for the whole project, in a project with
			// a single trusted user.
			for _, cand := range all {
				cand.StatusReason = strings.TrimSuffix(cand.StatusReason, governance.WhyProjectWide)
			}
		}
	}
	if status == governance.RuleProposed && lowRisk == "" {
		// Outside the low-risk set with no finding, a proposal carries the
		// review marker (default-deny for markers), and so does each of
		// its candidates outside the set: no proposal waits for a reviewer
		// looking like an ordinary preference.
		findings = governance.MarkOutside(text, findings, res.NotPlaced)
		for _, cand := range all {
			if cand.LowRisk == "" {
				cand.Findings = governance.MarkOutside(cand.Statement, cand.Findings, cand.NotPlaced)
			}
		}
	}
	r := &governance.Rule{
		ID: tempID(), ProjectID: in.Project.ID, SubjectID: ruleScope(best.Type, best.SubjectID), Kind: best.Type,
		Text: text, PromotionReason: d.Reason, Status: status, Version: 1, Trust: governance.Trust(d.Reason, d.Sessions),
		Findings: findings, Fingerprint: governance.Fingerprint(text), CreatedAt: in.Now, UpdatedAt: in.Now,
	}
	plan.Rules = append(plan.Rules, r)
	plan.Stats.Proposals++
	for _, cand := range all {
		cand.RuleID = r.ID
		if status == governance.RuleActive {
			cand.Status = governance.CandidatePromoted
		}
	}
	return r, nil
}

func (c *Consolidator) partition(ctx context.Context, items []governance.MergeItem) ([][]int64, int, error) {
	groups, tokens, err := c.Merger.Partition(ctx, items)
	if err == nil {
		err = governance.CheckPartition(items, groups)
	}
	if err == nil {
		return groups, tokens, nil
	}
	if c.Fallback == nil {
		return nil, tokens, fmt.Errorf("merge: %w", err)
	}
	if c.Logger != nil {
		c.Logger.Warn("merger failed; using the fallback", slog.Any("error", err))
	}
	groups, t2, err := c.Fallback.Partition(ctx, items)
	if err == nil {
		err = governance.CheckPartition(items, groups)
	}
	return groups, tokens + t2, err
}

// statement is what a group's rule says: the best member, the
// classifier's reading of its statement, and the findings that mark the
// group.
func (c *Consolidator) statement(ctx context.Context, all []*governance.Candidate) (*governance.Candidate, governance.GateResult, []governance.Finding, error) {
	best := bestMember(all)
	res, err := c.Classifier.Classify(ctx, best.Statement)
	if err != nil {
		return nil, res, nil, fmt.Errorf("classify a proposal: %w", err)
	}
	findings := res.Findings
	if len(findings) == 0 {
		// Another member's findings still mark the group (a review marker
		// is the proposal's own, made again for its statement).
		for _, cand := range all {
			findings = append(findings, governance.WithoutMarkers(cand.Findings)...)
		}
	}
	return best, res, findings, nil
}

// bestMember is the member whose statement the rule takes: durable first
// (the user's own words of the instruction), then the fullest wording, then
// the newest.
func bestMember(all []*governance.Candidate) *governance.Candidate {
	return slices.MaxFunc(all, func(a, b *governance.Candidate) int {
		if a.Durable != b.Durable {
			if a.Durable {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(len([]rune(a.Statement)), len([]rune(b.Statement))); c != 0 {
			return c
		}
		return cmp.Compare(a.CreatedAt.Unix(), b.CreatedAt.Unix())
	})
}

// suppressed holds a group that would be proposed when a reviewer rejected
// its class in the project (governance.RejectedClass): the candidates wait
// with the reason, and a beat after the rejection is lifted proposes them.
func (c *Consolidator) suppressed(in *governance.ConsolidateInput, all []*governance.Candidate, best *governance.Candidate, d governance.Decision, text string, findings []governance.Finding) bool {
	if len(in.RejectedClasses) == 0 {
		return false
	}
	rc := in.RejectedClasses.Match(governance.ClassOf(best.Type, d.Reason, text, findings))
	if rc == nil {
		return false
	}
	why := governance.SuppressedWhy(rc)
	for _, cand := range all {
		cand.Status, cand.StatusReason = governance.CandidateHeld, why
	}
	return true
}

// appendNew appends the findings of more that have neither the category
// and pattern nor the excerpt of one in have.
func appendNew(have, more []governance.Finding) []governance.Finding {
	for _, f := range more {
		if !slices.ContainsFunc(have, func(h governance.Finding) bool {
			return h.Category == f.Category && (h.Pattern == f.Pattern || h.Excerpt == f.Excerpt)
		}) {
			have = append(have, f)
		}
	}
	return have
}
