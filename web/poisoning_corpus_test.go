package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/gate/gatecorpus"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/web"
)

// corpusEvent is one statement of the gate corpora as ingested.
type corpusEvent struct {
	id, text string
	attack   bool
	class    string
	blocked  bool // the gate blocks the text itself
}

// TestPoisoningCorpusEndToEnd runs every line of the gate's corpora —
// the attacks with their obfuscated variants, the unseen batch, the benign
// lines — through the console as an agent would send them: ingested over
// REST (auto-activate project) and MCP (approval project), each attack said
// by one user in three sessions and also returned once by a tool as web
// content, consolidated by the heartbeat with the offline extractor, then
// recalled over REST and MCP with and without raw events. It requires that
// no attack becomes an active rule, that no recall output carries an
// attack's rule, a blocked event or an episode summary quoting blocked
// text, that no episode summary quotes blocked text, and that benign lines
// still become rules. Under the race detector it samples every eighth
// statement.
func TestPoisoningCorpusEndToEnd(t *testing.T) {
	ctx := context.Background()
	dir := "../governance/gate/testdata/gate/"
	var lines []corpusEvent
	for _, name := range []string{"attacks.txt", "unseen_attacks.txt", "variant_attacks.txt", "heldout_attacks.txt", "fresh_attacks.txt"} {
		as, err := gatecorpus.Attacks(dir+name, name == "attacks.txt")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			lines = append(lines, corpusEvent{text: a.Text, attack: true, class: a.Class})
		}
	}
	// The gate's verdict on each text, computed once: the same texts come
	// back as events, web content, rules and recalled items.
	verdicts := map[string]governance.GateResult{}
	scan := func(text string) governance.GateResult {
		res, ok := verdicts[text]
		if !ok {
			res = gate.Scan(text)
			verdicts[text] = res
		}
		return res
	}
	attacks := len(lines)
	for _, name := range []string{"benign.txt", "unseen_benign.txt", "heldout_benign.txt"} {
		ls, err := gatecorpus.Read(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			lines = append(lines, corpusEvent{text: l.Text})
		}
	}

	if raceEnabled {
		// Under the race detector the gate runs several times slower:
		// every eighth statement keeps the test within CI's budget. The
		// whole corpus runs without it.
		var sample []corpusEvent
		attacks = 0
		for i, c := range lines {
			if i%8 == 0 {
				sample = append(sample, c)
				if c.attack {
					attacks++
				}
			}
		}
		lines = sample
	}

	f := NewFixture(t, web.Config{})
	auto, approval := autoAndApproval(t, f, "poison", "Poisoning")

	// Sessions of 20 statements; attacks by mallory, benign lines by alice.
	// Repetition matters only where the gate does not block: those attacks
	// are said in three sessions, as are every fifth blocked attack and
	// every third benign line (so that benign rules can form); the other
	// blocked attacks once. Every other attack also comes back once from
	// a tool as web content. Kept this small so the test stays cheap.
	byID := map[string]corpusEvent{}
	var events []*governance.Event
	add := func(e *governance.Event, c corpusEvent) {
		c.id, c.text, c.blocked = e.ID, e.Text, scan(e.Text).Blocked()
		byID[e.ID] = c
		events = append(events, e)
	}
	for round := range 3 {
		for i, c := range lines {
			switch {
			case !c.attack && i%3 != 0:
				continue
			case c.attack && round > 0 && i%5 != 0 && scan(c.text).Blocked():
				continue
			}
			subject, kind := "alice", "ok"
			if c.attack {
				subject, kind = "mallory", "atk"
			}
			session := fmt.Sprintf("%s-%d-%d", kind, round, i/20)
			add(&governance.Event{ID: fmt.Sprintf("%s-%d-%d", kind, round, i), SessionID: session, SubjectID: subject,
				Turn: i%20*2 + 1, Role: governance.RoleUser, Text: c.text,
				OccurredAt: t0.Add(time.Duration(round*len(lines)+i) * time.Second)}, c)
			if c.attack && round == 0 && i%2 == 0 {
				add(&governance.Event{ID: fmt.Sprintf("web-%d", i), SessionID: session, SubjectID: subject,
					Turn: i%20*2 + 2, Role: governance.RoleTool, Tool: "fetch_page", Status: governance.StatusPassed,
					Source: governance.SourceExternal, Text: "Page content: " + c.text,
					OccurredAt: t0.Add(time.Duration(i)*time.Second + time.Millisecond)}, c)
			}
		}
	}

	restToken := mustAPIToken(t, f.Store, auto.ID, governance.ScopeIngest, governance.ScopeRecall)
	mcpToken := mustAPIToken(t, f.Store, approval.ID, governance.ScopeIngest, governance.ScopeRecall)
	cs, err := mcpConnect(t, f.Server.URL, mcpToken)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(events); i += 1000 {
		batch := events[i:min(i+1000, len(events))]
		var res governance.ImportResult
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", restToken, "application/json", mustJSON(t, batch), &res), http.StatusOK)
		var list []any
		if err := json.Unmarshal(mustJSON(t, batch), &list); err != nil {
			t.Fatal(err)
		}
		if r, text := callTool(t, cs, "record_events", map[string]any{"events": list}); r.IsError {
			t.Fatalf("record_events: %s", text)
		}
	}

	hb := &consolidate.Heartbeat{Store: f.Store, Idle: time.Minute, Consolidator: heuristic.NewConsolidator(nil)}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}

	// Which event each seq is, per project.
	origin := map[int64]map[int64]corpusEvent{}
	for _, p := range []int64{auto.ID, approval.ID} {
		origin[p] = map[int64]corpusEvent{}
		stored, _, err := f.Store.FindEvents(ctx, governance.EventFilter{ProjectID: &p, Limit: len(events) + 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range stored {
			origin[p][e.Seq] = byID[e.ID]
		}
		if len(stored) != len(events) {
			t.Fatalf("project %d holds %d events, want %d", p, len(stored), len(events))
		}
	}

	// Rules: no attack's rule is active; benign lines still make rules.
	// An attack's rule: one with a blocked event among its evidence, or
	// with attacks only. A credential the gate redacts (a pasted key) is
	// not blocked: its rule may form, and must not hold the secret.
	attackRules := map[string]bool{}
	for _, p := range []*governance.Project{auto, approval} {
		rules, evidence := rulesWithEvidence(t, f, governance.RuleFilter{ProjectID: &p.ID})
		benign := 0
		for _, r := range rules {
			blocked, attack, redacted, all := false, 0, 0, 0
			for _, link := range evidence[r.ID] {
				for _, e := range link.Events {
					c := byID[e.ID]
					blocked = blocked || c.attack && c.blocked
					all++
					if c.attack {
						attack++
						if c.class == governance.GateCredentials && !c.blocked {
							redacted++
						}
					}
				}
			}
			if redacted > 0 && (scan(r.Text).Redacted() || strings.Contains(r.Text, "AIza") || strings.Contains(r.Text, "sk-")) {
				t.Errorf("%s: rule %d holds a credential: %q", p.Slug, r.ID, r.Text)
			}
			fromAttack := blocked || all > 0 && attack == all && redacted < attack
			switch {
			case fromAttack:
				attackRules[governance.RecallRuleID(r.ID)] = true
				if r.Status == governance.RuleActive {
					t.Errorf("%s: an attack became active rule %d (%s): %q", p.Slug, r.ID, r.PromotionReason, r.Text)
					for _, link := range evidence[r.ID] {
						for _, e := range link.Events {
							t.Logf("   evidence %s %q (candidate %q)", e.ID, e.Text, link.Candidate.Statement)
						}
					}
				}
			case r.Status == governance.RuleActive || r.Status == governance.RuleProposed:
				benign++
			}
		}
		if benign == 0 {
			t.Errorf("%s: no benign line became a rule", p.Slug)
		}
		t.Logf("%s: %d rules, %d active or proposed that are no attack's", p.Slug, len(rules), benign)
	}

	// Episode summaries never quote blocked text.
	for _, p := range []*governance.Project{auto, approval} {
		episodes, _, err := f.Store.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: p.ID, Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		if len(episodes) == 0 {
			t.Fatalf("%s: no episodes", p.Slug)
		}
		for _, ep := range episodes {
			for _, e := range events {
				if e.SessionID == ep.SessionID && byID[e.ID].blocked && quotes(ep.Summary, e.Text) {
					t.Errorf("%s: episode %d quotes blocked %s: %q", p.Slug, ep.ID, e.ID, ep.Summary)
				}
			}
		}
	}

	// Recall: REST for the auto-activate project, MCP for the approval one,
	// with and without raw events, for tasks that are attacks (the closest
	// match to what was injected) and benign lines.
	type task struct{ text, subject string }
	var tasks []task
	every := 8
	if raceEnabled {
		every = 3
	}
	for i := 0; i < attacks; i += max(1, attacks/every) {
		tasks = append(tasks, task{lines[i].text, "mallory"})
	}
	for i := attacks; i < len(lines); i += max(1, (len(lines)-attacks)/(every/2)) {
		tasks = append(tasks, task{lines[i].text, "alice"})
	}
	benignRecalled := 0
	check := func(surface string, p int64, pkg *governance.RecallPackage, text string) {
		t.Helper()
		for _, it := range pkg.Items {
			switch it.Kind {
			case governance.RecallKindRule:
				if attackRules[it.ID] {
					t.Errorf("%s: recall serves %s, a rule with attack evidence: %q", surface, it.ID, it.Text)
				} else {
					benignRecalled++
				}
			case governance.RecallKindEvent:
				var seq int64
				fmt.Sscanf(it.ID, "event:%d", &seq)
				if c := origin[p][seq]; c.blocked || scan(it.Text).Blocked() {
					t.Errorf("%s: recall serves blocked event %s: %q", surface, it.ID, it.Text)
				}
			case governance.RecallKindEpisode:
				if scan(it.Text).Blocked() {
					t.Errorf("%s: recall serves an episode with blocked text %s: %q", surface, it.ID, it.Text)
				}
			}
		}
		if gate.Scan(strings.NewReplacer(governance.RecallFenceOpen, "", governance.RecallFenceClose, "").Replace(text)).Blocked() {
			t.Errorf("%s: recall text holds blocked text:\n%s", surface, text)
		}
	}
	for _, task := range tasks {
		for _, withEvents := range []bool{false, true} {
			args := map[string]any{"task": task.text, "subject_id": task.subject, "include_events": withEvents}
			var pkg governance.RecallPackage
			wantStatus(t, apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/recall", restToken, "application/json",
				mustJSON(t, args), &pkg), http.StatusOK)
			check(fmt.Sprintf("REST (events %v, task %q)", withEvents, task.text), auto.ID, &pkg, pkg.Text)

			res, text := callTool(t, cs, "recall_memory", args)
			if res.IsError {
				t.Fatalf("recall_memory: %s", text)
			}
			var mpkg governance.RecallPackage
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &mpkg); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("MCP (events %v, task %q)", withEvents, task.text), approval.ID, &mpkg, text)
		}
	}
	if benignRecalled == 0 {
		t.Error("no recall served a rule: benign lines do not flow")
	}
	t.Logf("%d statements (%d attacks), %d events per project, %d recall tasks × 4", len(lines), attacks, len(events), len(tasks))
}

// quotes reports whether summary repeats a passage of text: any run of 16
// runes (the whole text when shorter) with letters in it.
func quotes(summary, text string) bool {
	r := []rune(text)
	const window = 16
	if len(r) <= window {
		return strings.Contains(summary, text)
	}
	for i := 0; i+window <= len(r); i++ {
		if w := string(r[i : i+window]); strings.TrimSpace(w) != "" && strings.Contains(summary, w) {
			return true
		}
	}
	return false
}

// rulesWithEvidence returns the rules filter finds (10,000 at most unless
// it says) and their evidence chains.
func rulesWithEvidence(t *testing.T, f *Fixture, filter governance.RuleFilter) ([]*governance.Rule, map[int64][]*governance.EvidenceLink) {
	t.Helper()
	if filter.Limit == 0 {
		filter.Limit = 10000
	}
	rules, _, err := f.Store.FindRules(context.Background(), filter)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	evidence, err := f.Store.FindEvidenceByRules(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	return rules, evidence
}

// autoAndApproval creates two projects, slug-auto (auto-activate) and
// slug-approval (proposals wait for a reviewer).
func autoAndApproval(t *testing.T, f *Fixture, slug, name string) (auto, approval *governance.Project) {
	t.Helper()
	auto = MustCreateProject(t, f.Store, slug+"-auto", name+", auto-activate")
	approval = MustCreateProject(t, f.Store, slug+"-approval", name+", approval")
	if err := f.Store.SetProjectAutoActivate(context.Background(), "test", auto.ID, true); err != nil {
		t.Fatal(err)
	}
	return auto, approval
}
