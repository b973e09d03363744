package heuristic_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/store"
)

// repeatGroup is one wish said in several sessions, or one task request.
type repeatGroup struct {
	name, lang, label string
	said              []string
}

// readRepeat reads testdata/repeat_requests.tsv: group, language, label
// and text a line, a wish's lines one a session.
func readRepeat(tb testing.TB) []repeatGroup {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "repeat_requests.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []repeatGroup
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 {
			tb.Fatalf("repeat_requests.tsv: %q has %d columns, want 4", line, len(cols))
		}
		if n := len(out); n > 0 && out[n-1].name == cols[0] {
			out[n-1].said = append(out[n-1].said, cols[3])
			continue
		}
		out = append(out, repeatGroup{name: cols[0], lang: cols[1], label: cols[2], said: []string{cols[3]}})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestRepeatRequestsExtract: every wording of a plain request about the
// agent's answers gives a preference, none durable on its own; a task
// request or a one-off gives nothing durable and no preference.
func TestRepeatRequestsExtract(t *testing.T) {
	var wishes, tasks int
	for _, g := range readRepeat(t) {
		for _, said := range g.said {
			ex := mustExtract(t, session("user", said))
			var prefs, durable int
			for _, it := range ex.Items {
				// A correction of one definite thing may replace a rule
				// about it and is nothing else (ReplacesOnly).
				if it.Type == governance.TypePreference && !it.ReplacesOnly {
					prefs++
					if it.Durable {
						durable++
					}
				}
			}
			switch g.label {
			case "wish":
				wishes++
				// One preference; durable only when the wording says it is
				// the standing arrangement ("same as before").
				if prefs != 1 {
					t.Errorf("%s: %q gave %d preferences, want one", g.name, said, prefs)
				}
			case "task", "instance":
				// A request about one definite thing is a task however
				// often it is said: nothing that repetition could promote.
				tasks++
				if prefs != 0 {
					t.Errorf("%s: %s %q gave %d preferences", g.name, g.label, said, prefs)
				}
			default: // a one-off or a change: a wish at most, never durable
				tasks++
				if durable != 0 {
					t.Errorf("%s: %s %q gave a durable preference", g.name, g.label, said)
				}
			}
		}
	}
	if wishes < 72 || tasks < 40 {
		t.Errorf("%d wish turns and %d tasks, want at least 72 and 40", wishes, tasks)
	}
}

// TestRepeatRequestsEndToEnd drives the offline heartbeat over a real
// SQLite store in an auto-activate project: each wish, said by one user in
// three sessions in three wordings, becomes one active rule with three
// sessions of evidence (at least 22 of 24 and more); no task request said in
// three sessions becomes a proposal.
func TestRepeatRequestsEndToEnd(t *testing.T) {
	ctx := context.Background()
	groups := readRepeat(t)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hb := &consolidate.Heartbeat{Store: st, Idle: time.Minute, Consolidator: heuristic.NewConsolidator(nil)}
	start := time.Now().UTC().Add(-72 * time.Hour).Truncate(time.Second)
	projects := map[string]*governance.Project{}
	for _, g := range groups {
		// One project a group: what one wish becomes is not mixed with
		// another's.
		p := &governance.Project{Slug: "r-" + strings.ToLower(g.name), Name: g.name}
		if err := st.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := st.SetProjectPolicy(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
		projects[g.name] = p
	}
	// A session a day, a beat after each: the first two sessions' candidates
	// are held, and the later sessions' join their group.
	for k := range 3 {
		at := start.Add(time.Duration(k) * 24 * time.Hour)
		for _, g := range groups {
			text := g.said[0]
			if g.label == "wish" {
				text = g.said[k]
			}
			sid := fmt.Sprintf("%s-s%d", g.name, k+1)
			events := []*governance.Event{
				{ID: sid + "-a", SessionID: sid, SubjectID: "u1", Turn: 1, Role: governance.RoleUser, Text: text, OccurredAt: at},
				{ID: sid + "-b", SessionID: sid, SubjectID: "u1", Turn: 2, Role: governance.RoleAssistant, Text: "OK.", OccurredAt: at.Add(time.Minute)},
				{ID: sid + "-end", SessionID: sid, Kind: governance.KindSessionEnd, OccurredAt: at.Add(2 * time.Minute)},
			}
			if _, err := st.IngestEvents(ctx, projects[g.name].ID, events); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
	}
	var wishes, oneGroup, active, lowRisk, taskProposals, otherProposals int
	for _, g := range groups {
		p := projects[g.name]
		rules, _, err := st.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
		if err != nil {
			t.Fatal(err)
		}
		if g.label != "wish" {
			for _, r := range rules {
				if g.label != "change" {
					// A one-off said in three sessions is three one-offs.
					taskProposals++
					t.Errorf("%s: %s %q became rule %q (%s)", g.name, g.label, g.said[0], r.Text, r.Status)
					continue
				}
				// A change with no rule to change is a wish, counted by
				// repetition as any.
				otherProposals++
				t.Logf("%s: %s %q became rule %q (%s)", g.name, g.label, g.said[0], r.Text, r.Status)
			}
			continue
		}
		wishes++
		cands, _, err := st.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID})
		if err != nil {
			t.Fatal(err)
		}
		// One wish, one group: every candidate in one merge group or
		// supporting one rule, the group's evidence from all three sessions.
		groupsOf, sessions := map[string]bool{}, map[string]bool{}
		allLow := len(cands) > 0
		for _, c := range cands {
			if c.Type != governance.TypePreference {
				continue
			}
			key := fmt.Sprint("g", c.GroupID)
			if c.RuleID != 0 {
				key = fmt.Sprint("r", c.RuleID)
			}
			groupsOf[key] = true
			sessions[c.SessionID] = true
			res, err := gate.Patterns.Classify(ctx, c.Statement)
			if err != nil {
				t.Fatal(err)
			}
			allLow = allLow && res.LowRisk != "" && len(res.Findings) == 0
		}
		var texts []string
		for _, r := range rules {
			texts = append(texts, fmt.Sprintf("%q (%s, %s)", r.Text, r.Status, r.PromotionReason))
		}
		if len(groupsOf) == 1 && len(sessions) == 3 && len(rules) <= 1 {
			oneGroup++
		} else {
			t.Logf("%s: %d candidates in %d groups over %d sessions; rules %s", g.name, len(cands), len(groupsOf), len(sessions), strings.Join(texts, "; "))
			for _, c := range cands {
				t.Logf("    %s %q %s group %d rule %d durable %v", c.SessionID, c.Statement, c.Status, c.GroupID, c.RuleID, c.Durable)
			}
		}
		if len(rules) == 1 && rules[0].Status == governance.RuleActive {
			active++
		} else {
			t.Logf("%s: not one active rule (placed in the low-risk set: %v); rules %s", g.name, allLow, strings.Join(texts, "; "))
		}
		if allLow {
			// Placed in the low-risk set and repeated: it must be active.
			lowRisk++
			if len(rules) != 1 || rules[0].Status != governance.RuleActive {
				t.Errorf("%s: low-risk wish said in three sessions, rules %s, want one active", g.name, strings.Join(texts, "; "))
			}
		}
	}
	t.Logf("%d of %d wishes in one group over three sessions; %d one active rule (%d placed in the low-risk set); %d proposals of tasks and one-offs; %d of changes",
		oneGroup, wishes, active, lowRisk, taskProposals, otherProposals)
	if wishes < 24 || oneGroup < wishes-2 {
		t.Errorf("%d of %d wishes in one group over three sessions, want at least %d", oneGroup, wishes, wishes-2)
	}
	// A wish about the agent's answers, said in three sessions, is what
	// the low-risk set is for: nearly every one is active.
	if want := wishes * 22 / 24; active < want {
		t.Errorf("%d of %d wishes are one active rule, want at least %d", active, wishes, want)
	}
}

// TestPlainRequestLookAlikes: sentences that name an aspect of answers but
// are no request about the agent's own ones — a task on a thing at hand, a
// report, someone else's habit, an errand — give no preference.
func TestPlainRequestLookAlikes(t *testing.T) {
	for _, said := range []string{
		"Don't send the summary to Marta.",
		"I kept the summary short.",
		"My sister answers in Spanish.",
		"Translate the menu into Spanish.",
		"Can you number the pages of this contract?",
		"We sorted the chores by room last weekend.",
		"把这份报告翻译成英文。",
		"他说得很简短。",
		"帮我把日期改成年月日格式。",
		"昨天的会议纪要写得太长了。",
		// Fragments that ask nothing of the answers, or ask for what the
		// gate keeps out.
		"The meeting room, the big one.",
		"Great job, thanks a lot.",
		"Bank details please, I find them useful.",
		"Fix this paragraph please, it reads badly.",
	} {
		ex := mustExtract(t, session("user", said))
		for _, it := range ex.Items {
			if it.Type == governance.TypePreference {
				t.Errorf("%q gave the preference %q", said, it.Statement)
			}
		}
	}
}

// TestPlainRequestForms: forms of a plain request about the answers read by
// structure: the speaker's wish that names the answers or the agent, a
// Chinese wish with "as before" after it, a value given to a sign-off with
// no verb of the answers, one row for each thing, a date format by the
// order of its parts. Each gives one preference, and no other wish of the
// speaker's does.
func TestPlainRequestForms(t *testing.T) {
	for _, said := range []string{
		"I'd prefer shorter answers from you.",
		"We want your replies in plain English.",
		"说话简短点，和之前一样。",
		"信的末尾署名“前台”。",
		"签名改成“前台”。",
		"Put the invoices in a table with a line for each client.",
		"Use month/day/year for dates.",
		"日期写成日-月-年。",
	} {
		var prefs int
		for _, it := range mustExtract(t, session("user", said)).Items {
			if it.Type == governance.TypePreference {
				prefs++
			}
		}
		if prefs != 1 {
			t.Errorf("%q gave %d preferences, want one", said, prefs)
		}
	}
	for _, said := range []string{
		"I want shorter meetings.",
		"I won't use bullet points in my replies.",
		"他的落款是“前台”。",
	} {
		for _, it := range mustExtract(t, session("user", said)).Items {
			if it.Type == governance.TypePreference {
				t.Errorf("%q gave the preference %q", said, it.Statement)
			}
		}
	}
}
