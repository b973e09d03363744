package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// The memory fixture: a travel project with events of two families, their
// episodes, rules in every state recall explains (active, a subject's own,
// another subject's, paused, expired, proposed, superseded, forgotten),
// candidates with evidence, a suppression and a checkpoint. It is an
// export (governance.ExportRecord lines), so every backend loads it
// through its own ImportExport: the memory tests need no backend's SQL.

// FixtureAt is the time of the fixture's first event.
var FixtureAt = time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)

// Fixture rule refs (the rule's ref in the export; Rules maps them to ids).
const (
	RuleFar        = 1 // project-wide lesson, active
	RuleNap        = 2 // family-1's preference, active
	RuleCheck      = 3 // family-1's preference, active
	RulePaused     = 4
	RuleExpired    = 5
	RuleProposed   = 6
	RuleOther      = 7 // family-2's preference, active
	RuleSuperseded = 8 // superseded by RuleFar
	RuleForgotten  = 9
)

// FixtureRuleTexts are the texts of the fixture's rules by ref.
var FixtureRuleTexts = map[int64]string{
	RuleFar:        "远距离的大型景点单独安排一天；同一区域的景点放在同一天。",
	RuleNap:        "每天 14:00–16:00 留给孩子午睡。",
	RuleCheck:      "每次给出行程时，附上路线检查的结论。",
	RulePaused:     "酒店订在王府井附近。",
	RuleExpired:    "故宫需要提前预约。",
	RuleProposed:   "尚未批准的规则。",
	RuleOther:      "每天 13:00–15:00 留给孩子午睡。",
	RuleSuperseded: "每天最多三个景点。",
	RuleForgotten:  "",
}

// MemoryFixture is the fixture as an export of a project with slug.
func MemoryFixture(slug string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	put := func(r governance.ExportRecord) {
		if err := enc.Encode(r); err != nil {
			panic(err)
		}
	}
	at := FixtureAt
	put(governance.ExportRecord{Type: "project", Format: governance.ExportFormat,
		Project: &governance.ExportProject{Slug: slug, Name: "Travel " + slug, Description: "family trips"}})
	minute := 0
	ev := func(id, session, subject string, turn int, role governance.Role, text string) {
		minute++
		put(governance.ExportRecord{Type: "event", Event: &governance.Event{ID: id, SessionID: session, SubjectID: subject, Turn: turn,
			Role: role, Text: text, OccurredAt: at.Add(time.Duration(minute) * time.Minute)}})
	}
	ev("e1", "s1", "family-1", 1, governance.RoleUser, "帮我规划北京三日游，女儿五岁，她想去环球影城。")
	ev("e2", "s1", "family-1", 2, governance.RoleAssistant, "故宫和环球影城排在同一天，路线太远。")
	put(governance.ExportRecord{Type: "event", Event: &governance.Event{ID: "e3", SessionID: "s1", SubjectID: "family-1", Turn: 3,
		Role: governance.RoleTool, Tool: "route_checker", Status: governance.StatusFailed, Text: `{"ok":false,"reason":"too far"}`,
		OccurredAt: at.Add(3 * time.Minute)}})
	ev("e4", "s1", "family-1", 4, governance.RoleUser, "以后每天 14:00–16:00 留给孩子午睡。")
	put(governance.ExportRecord{Type: "event", Event: &governance.Event{ID: "e5", SessionID: "s1", SubjectID: "family-1",
		Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Hour)}})
	ev("e6", "s2", "family-2", 1, governance.RoleUser, "我们家孩子每天 13:00–15:00 午睡，上海迪士尼怎么排？")
	ev("e7", "s2", "family-2", 2, governance.RoleAssistant, "上海迪士尼安排一整天，午睡在酒店。")
	ev("e8", "s3", "", 1, governance.RoleUser, "酒店订在王府井附近，故宫需要提前预约。")

	put(governance.ExportRecord{Type: "episode", Episode: &governance.ExportEpisode{SessionID: "s1", SubjectID: "family-1",
		Summary: "北京三日亲子游，环球影城单独安排一天。远距离的大型景点单独安排一天；同一区域的景点放在同一天。路线检查通过。", FirstEventID: "e1", LastEventID: "e5", EventCount: 5,
		Extractor: "test", CreatedAt: at, UpdatedAt: at}})
	put(governance.ExportRecord{Type: "episode", Episode: &governance.ExportEpisode{SessionID: "s2", SubjectID: "family-2",
		Summary: "另一家人的上海迪士尼行程。", FirstEventID: "e6", LastEventID: "e7", EventCount: 2, Extractor: "test",
		CreatedAt: at, UpdatedAt: at}})

	expired := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	rule := func(ref int64, subject string, kind governance.MemoryType, reason governance.PromotionReason, status governance.RuleStatus,
		change func(*governance.ExportRule)) {
		text := FixtureRuleTexts[ref]
		r := &governance.ExportRule{Ref: ref, SubjectID: subject, Kind: kind, Text: text, PromotionReason: reason, Status: status,
			Version: 1, Trust: 0.8, Fingerprint: governance.Fingerprint(text), Findings: json.RawMessage("[]"), Checks: json.RawMessage("[]"),
			CreatedAt: at, UpdatedAt: at, Versions: []*governance.RuleVersion{{Version: 1, Text: text, Kind: kind, Actor: "heartbeat",
				Reason: "learned", CreatedAt: at}}}
		if change != nil {
			change(r)
		}
		put(governance.ExportRecord{Type: "rule", Rule: r})
	}
	lesson, pref := governance.TypeLesson, governance.TypePreference
	fail, explicit := governance.ReasonToolFailure, governance.ReasonExplicit
	rule(RuleFar, "", lesson, fail, governance.RuleActive, func(r *governance.ExportRule) { r.Supersedes, r.UseCount = RuleSuperseded, 3 })
	rule(RuleNap, "family-1", pref, explicit, governance.RuleActive, nil)
	rule(RuleCheck, "family-1", pref, explicit, governance.RuleActive, nil)
	rule(RulePaused, "", lesson, fail, governance.RuleActive, func(r *governance.ExportRule) { r.Paused = true })
	rule(RuleExpired, "", lesson, fail, governance.RuleActive, func(r *governance.ExportRule) { r.ExpiresAt = &expired })
	rule(RuleProposed, "", lesson, fail, governance.RuleProposed, nil)
	rule(RuleOther, "family-2", pref, explicit, governance.RuleActive, nil)
	rule(RuleSuperseded, "", lesson, fail, governance.RuleSuperseded, func(r *governance.ExportRule) { r.SupersededBy = RuleFar })
	rule(RuleForgotten, "family-1", pref, explicit, governance.RuleForgotten, func(r *governance.ExportRule) { r.Fingerprint = "" })

	cand := func(ref, group, rule int64, session, subject string, typ governance.MemoryType, status governance.CandidateStatus,
		statement string, evidence ...string) {
		put(governance.ExportRecord{Type: "candidate", Candidate: &governance.ExportCandidate{Ref: ref, SessionID: session,
			SubjectID: subject, Type: typ, Statement: statement, Extractor: "test", Status: status, GroupRef: group, RuleRef: rule,
			Fingerprint: governance.Fingerprint(statement), Findings: json.RawMessage("[]"), EvidenceIDs: evidence,
			CreatedAt: at, UpdatedAt: at}})
	}
	cand(1, 1, RuleFar, "s1", "family-1", lesson, governance.CandidatePromoted, FixtureRuleTexts[RuleFar], "e2", "e3")
	cand(2, 2, RuleNap, "s1", "family-1", pref, governance.CandidatePromoted, FixtureRuleTexts[RuleNap], "e4")
	cand(3, 3, 0, "s2", "family-2", pref, governance.CandidatePending, "孩子每天 13:00–15:00 午睡。", "e6")
	cand(4, 3, 0, "s2", "family-2", pref, governance.CandidatePending, "午睡在酒店。", "e7")
	put(governance.ExportRecord{Type: "suppression", Fingerprint: "forgotten-fp", SubjectID: "family-1"})
	put(governance.ExportRecord{Type: "checkpoint", AfterEventID: "e5"})
	return buf.Bytes()
}

// Fixture is a loaded memory fixture: its project and its rules' ids by
// ref.
type Fixture struct {
	Project *governance.Project
	Rules   map[int64]int64
}

// LoadMemoryFixture imports the memory fixture into s as project slug.
func LoadMemoryFixture(tb testing.TB, s MemoryStore, slug string) *Fixture {
	tb.Helper()
	ctx := context.Background()
	p, _, err := s.ImportExport(ctx, bytes.NewReader(MemoryFixture(slug)), governance.ImportOptions{Actor: "test"})
	if err != nil {
		tb.Fatalf("load memory fixture: %v", err)
	}
	rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil {
		tb.Fatal(err)
	}
	f := &Fixture{Project: p, Rules: map[int64]int64{}}
	// Rules are imported in ref order, so ids follow refs.
	for i, r := range rules {
		f.Rules[int64(i+1)] = r.ID
	}
	if len(f.Rules) != len(FixtureRuleTexts) {
		tb.Fatalf("fixture loaded %d rules, want %d", len(f.Rules), len(FixtureRuleTexts))
	}
	return f
}
