package storetest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/seed"
)

// MemoryStore is the memory and governance part of a store the suite
// exercises: the heartbeat's store, candidates, episodes and evidence, the
// review queue, and the rule lifecycle. A store passed to the memory tests
// must implement it besides Store.
type MemoryStore interface {
	Store
	consolidate.HeartbeatStore

	FindCheckpoint(ctx context.Context, projectID int64) (int64, error)
	FindBeats(ctx context.Context, limit int) ([]*governance.BeatRecord, error)
	RepairInterrupted(ctx context.Context) (int64, error)

	FindCandidates(ctx context.Context, f governance.CandidateFilter) ([]*governance.Candidate, int, error)
	FindCandidateByID(ctx context.Context, id int64) (*governance.Candidate, error)
	FindCandidateEvidence(ctx context.Context, cands []*governance.Candidate) ([]*governance.EvidenceLink, error)
	FindEvidenceByRules(ctx context.Context, ruleIDs []int64) (map[int64][]*governance.EvidenceLink, error)
	FindRuleEvidence(ctx context.Context, ruleID int64) ([]*governance.EvidenceLink, error)
	FindEpisodes(ctx context.Context, f governance.EpisodeFilter) ([]*governance.Episode, int, error)
	CountProposals(ctx context.Context, projectIDs []int64) (int, error)
	CountRuleCandidates(ctx context.Context, ruleIDs []int64) (map[int64]int, error)
	FindReviewCounts(ctx context.Context, projectIDs []int64) (map[int64]*governance.ReviewCounts, error)
	ReviewQueueVersion(ctx context.Context, projectID int64, status governance.CandidateStatus) (string, error)
	ReleaseCandidate(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	RejectCandidate(ctx context.Context, actor string, id int64, reason string) (*governance.Candidate, error)
	SplitCandidate(ctx context.Context, actor string, ruleID, candidateID int64, reason string) (*governance.Rule, error)
	ProposeMemory(ctx context.Context, actor string, n governance.NewMemory) (*governance.Rule, error)

	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
	FindRuleByID(ctx context.Context, id int64) (*governance.Rule, error)
	FindRulesByIDs(ctx context.Context, ids []int64) ([]*governance.Rule, error)
	FindRuleVersions(ctx context.Context, ruleID int64) ([]*governance.RuleVersion, error)
	ApproveRule(ctx context.Context, actor string, id int64, edit *governance.RuleEdit) (*governance.Rule, error)
	ApproveRules(ctx context.Context, actor string, ids []int64) error
	RejectRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	RejectRules(ctx context.Context, actor string, ids []int64, reason string) error
	EditRule(ctx context.Context, actor string, id int64, e governance.RuleEdit) (*governance.Rule, error)
	MergeRules(ctx context.Context, actor string, keepID, otherID int64, edit *governance.RuleEdit) (*governance.Rule, error)
	DemoteRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	DemoteRuleToCandidates(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	HoldRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	RestoreRule(ctx context.Context, actor string, id int64, reason string) (*governance.Rule, error)
	SupersedeRule(ctx context.Context, actor string, oldID, newID int64, reason string) (*governance.Rule, error)
	SetRuleExpiry(ctx context.Context, actor string, id int64, at *time.Time, reason string) (*governance.Rule, error)
	SetRulePaused(ctx context.Context, actor string, id int64, paused bool, reason string) (*governance.Rule, error)
	UndoRule(ctx context.Context, actor string, id, auditID int64, anyActor bool) (*governance.Rule, error)
}

// memoryTests are the memory and governance tests Run adds to the suite.
var memoryTests = []struct {
	name string
	fn   func(*testing.T, Opener)
}{
	{"HeartbeatDemo", TestHeartbeatDemo},
	{"Heartbeat", TestHeartbeat},
	{"RepairInterrupted", TestRepairInterrupted},
	{"ForgetRechainsLegacyAudit", TestForgetRechainsLegacyAudit},
	{"RepairRemovesOrphanScratch", TestRepairRemovesOrphanScratch},
	{"HeartbeatWithModel", TestHeartbeatWithModel},
	{"HeartbeatReopenedSession", TestHeartbeatReopenedSession},
	{"HeartbeatReplacementProposal", TestHeartbeatReplacementProposal},
	{"HeartbeatCorrectionOffline", TestHeartbeatCorrectionOffline},
	{"HeartbeatValueCorrection", TestHeartbeatValueCorrection},
	{"HeartbeatCorrectionBatch", TestHeartbeatCorrectionBatch},
	{"HeartbeatWideningProposal", TestHeartbeatWideningProposal},
	{"HeartbeatWideningOffline", TestHeartbeatWideningOffline},
	{"WriteGateEndToEnd", TestWriteGateEndToEnd},
	{"ApproveRule", TestApproveRule},
	{"RejectClass", TestRejectClass},
	{"ReviewRanks", TestReviewRanks},
	{"ConcurrentApprove", TestConcurrentApprove},
	{"UndoRule", TestUndoRule},
	{"UndoAfterBeat", TestUndoAfterBeat},
	{"RejectRule", TestRejectRule},
	{"HoldAndDemote", TestHoldAndDemote},
	{"HoldKeepsEvidence", TestHoldKeepsEvidence},
	{"BeatReopensHeldRule", TestBeatReopensHeldRule},
	{"SupersedePauseExpire", TestSupersedePauseExpire},
	{"ReplacementFromAnyState", TestReplacementFromAnyState},
	{"EditRule", TestEditRule},
	{"MergeAndSplit", TestMergeAndSplit},
	{"ReviewCounts", TestReviewCounts},
	{"FindPages", TestFindPages},
	{"CandidateDecisions", TestCandidateDecisions},
	{"FindRulesQuery", TestFindRulesQuery},
	{"Embeddings", TestEmbeddings},
	{"SimilarRules", TestSimilarRules},
}

// OpenMemory opens a store from open (in the states from) that
// implements MemoryStore.
func OpenMemory(tb testing.TB, open Opener, from ...State) MemoryStore {
	tb.Helper()
	s, ok := open(tb, from...).(MemoryStore)
	if !ok {
		tb.Fatalf("%T does not implement storetest.MemoryStore", s)
	}
	return s
}

// Demo is the demo data after its first heartbeat, as a fresh start shows it.
type Demo struct {
	Store  MemoryStore
	Beat   *consolidate.Heartbeat
	Travel *governance.Project
}

// DemoState is the demo (package seed) loaded into an empty store and
// consolidated by a first beat with the offline extractor. Loading and
// beating it costs seconds under the race detector, so a backend builds
// it once per test binary and every test gets a copy.
var DemoState = State{Name: "demo after its first beat", Build: func(ctx context.Context, s Store) error {
	st, ok := s.(MemoryStore)
	if !ok {
		return fmt.Errorf("%T does not implement storetest.MemoryStore", s)
	}
	if _, err := seed.Load(ctx, st, seed.Options{
		Hash:     func(pw string) (string, error) { return "hash:" + pw, nil },
		Generate: func() string { return "pw" },
		Demo:     true,
	}); err != nil {
		return err
	}
	_, err := demoHeartbeat(st).Beat(ctx, "test")
	return err
}}

// demoHeartbeat is the heartbeat of the demo: the offline extractor.
func demoHeartbeat(st MemoryStore) *consolidate.Heartbeat {
	m := heuristic.NewMerger()
	return &consolidate.Heartbeat{Store: st, Idle: 30 * time.Minute, Consolidator: &consolidate.Consolidator{
		Extractor: heuristic.NewExtractor(), Merger: m, Fallback: m, Classifier: gate.Patterns,
	}}
}

// LoadDemo opens a store from open in DemoState (the test's own copy) with
// the heartbeat that beat it.
func LoadDemo(tb testing.TB, open Opener) *Demo {
	tb.Helper()
	st := OpenMemory(tb, open, DemoState)
	travel, err := st.FindProjectBySlug(context.Background(), "travel-agent")
	if err != nil {
		tb.Fatal(err)
	}
	return &Demo{Store: st, Beat: demoHeartbeat(st), Travel: travel}
}

// Rule returns the one rule of the travel project whose text holds every needle.
func (d *Demo) Rule(tb testing.TB, needles ...string) *governance.Rule {
	tb.Helper()
	rules, _, err := d.Store.FindRules(context.Background(), governance.RuleFilter{ProjectID: &d.Travel.ID})
	if err != nil {
		tb.Fatal(err)
	}
	var found *governance.Rule
	for _, r := range rules {
		ok := true
		for _, n := range needles {
			ok = ok && strings.Contains(r.Text, n)
		}
		if ok {
			if found != nil {
				tb.Fatalf("more than one rule holds %q", needles)
			}
			found = r
		}
	}
	if found == nil {
		tb.Fatalf("no rule holds %q", needles)
	}
	return found
}

// Candidates returns the candidates supporting a rule.
func (d *Demo) Candidates(tb testing.TB, ruleID int64) []*governance.Candidate {
	tb.Helper()
	cands, _, err := d.Store.FindCandidates(context.Background(), governance.CandidateFilter{RuleID: ruleID})
	if err != nil {
		tb.Fatal(err)
	}
	return cands
}

// MemoryContent describes what the heartbeat left in a store by content,
// not ids (which differ between backends): per project, the checkpoint,
// the episodes, the candidates with their status, rule and evidence (as
// event ids), the rules with their status, versions and candidates, and
// the beats' counts. Two stores fed the same events and beaten the same
// way have the same content.
func MemoryContent(tb testing.TB, s MemoryStore) string {
	tb.Helper()
	ctx := context.Background()
	projects, err := s.FindProjects(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, p := range projects {
		cp, err := s.FindCheckpoint(ctx, p.ID)
		if err != nil {
			tb.Fatal(err)
		}
		events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
		if err != nil {
			tb.Fatal(err)
		}
		eventID := map[int64]string{}
		cpEvent := "-"
		for _, e := range events {
			eventID[e.Seq] = e.ID
			if e.Seq == cp {
				cpEvent = e.ID
			}
		}
		out = append(out, fmt.Sprintf("project %s checkpoint at %s", p.Slug, cpEvent))
		eps, _, err := s.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: p.ID})
		if err != nil {
			tb.Fatal(err)
		}
		var lines []string
		for _, e := range eps {
			lines = append(lines, fmt.Sprintf("  episode %s/%s %q events %d %s..%s by %s", e.SessionID, e.SubjectID, e.Summary,
				e.EventCount, eventID[e.FirstSeq], eventID[e.LastSeq], e.Extractor))
		}
		rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
		if err != nil {
			tb.Fatal(err)
		}
		ruleText := map[int64]string{}
		for _, r := range rules {
			ruleText[r.ID] = r.Text
		}
		for _, r := range rules {
			vs, err := s.FindRuleVersions(ctx, r.ID)
			if err != nil {
				tb.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("  rule %q %s/%s %s %s v%d (%d versions) trust %.3f paused %v supersedes %q findings %d",
				r.Text, r.SubjectID, r.Kind, r.Status, r.PromotionReason, r.Version, len(vs), r.Trust, r.Paused,
				ruleText[r.Supersedes], len(r.Findings)))
		}
		cands, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID})
		if err != nil {
			tb.Fatal(err)
		}
		candStatement := map[int64]string{}
		for _, c := range cands {
			candStatement[c.ID] = c.Statement
		}
		for _, c := range cands {
			var ev []string
			for _, seq := range c.EvidenceSeqs {
				ev = append(ev, eventID[seq])
			}
			group := "own"
			if c.GroupID != c.ID && c.GroupID != 0 {
				group = fmt.Sprintf("%q", candStatement[c.GroupID])
			}
			lines = append(lines, fmt.Sprintf("  candidate %q %s/%s/%s %s (%s) durable %v rule %q group %s evidence %v by %s",
				c.Statement, c.SessionID, c.SubjectID, c.Type, c.Status, c.StatusReason, c.Durable, ruleText[c.RuleID], group, ev, c.Extractor))
		}
		sort.Strings(lines)
		out = append(out, lines...)
	}
	return strings.Join(out, "\n")
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := governance.ErrorCode(err); got != code {
		tb.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

// lastAudit returns the newest audit row about a rule.
func lastAudit(tb testing.TB, s Store, object string) *governance.AuditEntry {
	tb.Helper()
	rows, _, err := s.FindAudit(context.Background(), governance.AuditFilter{ObjectType: "rule", ObjectID: object, Limit: 1})
	if err != nil || len(rows) == 0 {
		tb.Fatalf("no audit row for rule %s: %v", object, err)
	}
	return rows[0]
}
