package storetest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
)

// RankStore is the review queue's stored rank part of a store.
type RankStore interface {
	MemoryStore
	FindEvidenceSpread(ctx context.Context, ruleIDs []int64) (map[int64]governance.EvidenceSpread, error)
	FindStaleRanks(ctx context.Context, projectID int64, version int) ([]*governance.Rule, map[int64]int64, error)
	SetRanks(ctx context.Context, ranks []governance.StoredRank) error
	FindRankedProposals(ctx context.Context, projectID int64, offset, limit int) ([]*governance.Rule, []governance.Rank, int, error)
}

// TestReviewRanks: a proposal's rank is kept with it and forgotten when
// its inputs change. New proposals have no rank; kept ranks read back in
// governance.RankedOrder with their reasons, page by page; a rank of
// another version is not known; evidence a later beat attaches and a
// candidate a reviewer splits off make the proposal's rank unknown again,
// and a rank computed before such a change is not kept.
func TestReviewRanks(t *testing.T, open Opener) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	st := OpenMemory(t, open)
	s, ok := st.(RankStore)
	if !ok {
		t.Fatalf("%T does not implement storetest.RankStore", st)
	}
	p := MustCreateProject(t, s, "ranks")
	hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: &consolidate.Consolidator{
		Extractor: &LineExtractor{}, Merger: heuristic.NewMerger(), Classifier: gate.Patterns}}
	beat := func(id string, at time.Duration, lines ...string) {
		t.Helper()
		if _, err := s.IngestEvents(ctx, p.ID, Session(id, now.Add(-at), true, lines...)); err != nil {
			t.Fatal(err)
		}
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
	}
	stale := func(version int) ([]*governance.Rule, map[int64]int64) {
		t.Helper()
		rules, epochs, err := s.FindStaleRanks(ctx, p.ID, version)
		if err != nil {
			t.Fatal(err)
		}
		return rules, epochs
	}
	compute := func(rules []*governance.Rule, epochs map[int64]int64) []governance.StoredRank {
		t.Helper()
		var ids []int64
		for _, r := range rules {
			ids = append(ids, r.ID)
		}
		spread, err := s.FindEvidenceSpread(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		var out []governance.StoredRank
		for _, r := range rules {
			out = append(out, governance.StoredRank{RuleID: r.ID, Epoch: epochs[r.ID], Version: governance.RankVersion,
				Rank: governance.RankProposal(governance.RankInput{Rule: r, Sessions: spread[r.ID].Sessions, Subjects: spread[r.ID].Subjects})})
		}
		return out
	}
	keep := func(ranks []governance.StoredRank) {
		t.Helper()
		if err := s.SetRanks(ctx, ranks); err != nil {
			t.Fatal(err)
		}
	}
	// The queue as ranked from a read of every proposal, and as stored.
	wantOrder := func() ([]int64, map[int64]governance.Rank) {
		t.Helper()
		rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID, Statuses: []governance.RuleStatus{governance.RuleProposed}})
		if err != nil {
			t.Fatal(err)
		}
		ranks := map[int64]governance.Rank{}
		for _, r := range compute(rules, nil) {
			ranks[r.RuleID] = r.Rank
		}
		governance.RankedOrder(rules, ranks)
		var ids []int64
		for _, r := range rules {
			ids = append(ids, r.ID)
		}
		return ids, ranks
	}
	checkStored := func() {
		t.Helper()
		want, ranks := wantOrder()
		var got []int64
		for off := 0; off < len(want)+2; off += 2 {
			page, pr, total, err := s.FindRankedProposals(ctx, p.ID, off, 2)
			if err != nil {
				t.Fatal(err)
			}
			if total != len(want) || len(page) != len(pr) || len(page) > 2 {
				t.Fatalf("page at %d: %d rules, %d ranks, total %d; want total %d", off, len(page), len(pr), total, len(want))
			}
			for i, r := range page {
				got = append(got, r.ID)
				if w := ranks[r.ID]; pr[i].Score != w.Score || !slices.Equal(pr[i].Reasons, w.Reasons) {
					t.Errorf("rule %d: stored rank %+v, want %+v", r.ID, pr[i], w)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("stored order %v, want %v", got, want)
		}
	}

	beat("s1", 72*time.Hour, "we always write the trip report to the shared drive", "we always book aisle seats",
		"we always pack a rain jacket")
	rules, epochs := stale(governance.RankVersion)
	if len(rules) != 3 {
		t.Fatalf("stale ranks of new proposals = %d, want 3", len(rules))
	}
	keep(compute(rules, epochs))
	if rules, _ := stale(governance.RankVersion); len(rules) != 0 {
		t.Fatalf("stale ranks after keeping them = %d", len(rules))
	}
	checkStored()
	if rules, _ := stale(governance.RankVersion + 1); len(rules) != 3 {
		t.Fatalf("ranks of another version known for %d proposals, want none", 3-len(rules))
	}

	// A later session repeats one: the beat attaches its evidence, and
	// that proposal's rank is not known until it is ranked again.
	beat("s2", 48*time.Hour, "we always book aisle seats")
	rules, epochs = stale(governance.RankVersion)
	if len(rules) != 1 || !strings.Contains(rules[0].Text, "aisle") {
		t.Fatalf("stale after a repeating beat = %v, want the aisle seats", texts(rules))
	}
	aisle := rules[0]
	// A reviewer splits the repetition off before the rank computed from
	// the earlier read is kept: that rank is not kept.
	old := compute(rules, epochs)
	cands, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID, RuleID: aisle.ID})
	if err != nil || len(cands) < 2 {
		t.Fatalf("candidates of the aisle proposal = %d, %v", len(cands), err)
	}
	if _, err := s.SplitCandidate(ctx, "rita", aisle.ID, cands[len(cands)-1].ID, "another trip"); err != nil {
		t.Fatal(err)
	}
	keep(old)
	rules, epochs = stale(governance.RankVersion)
	if !slices.ContainsFunc(rules, func(r *governance.Rule) bool { return r.ID == aisle.ID }) {
		t.Fatalf("a rank computed before a split was kept (stale = %v)", texts(rules))
	}
	keep(compute(rules, epochs))
	if rules, _ := stale(governance.RankVersion); len(rules) != 0 {
		t.Fatalf("stale ranks after keeping them = %v", texts(rules))
	}
	checkStored()
}

func texts(rules []*governance.Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Text)
	}
	return out
}

// SQL runs statements on a store's database in its own dialect: exec a
// statement, scalar one that returns one integer. Statements are written
// with "?" placeholders.
type SQL struct {
	Exec   func(t *testing.T, query string, args ...any)
	Scalar func(t *testing.T, query string, args ...any) int64
}

// TestRankTriggers: the triggers of the stored rank forget a proposal's
// rank (rank_score NULL, rank_epoch bumped) on every change of its inputs
// — a candidate moving or going, evidence removed, an
// event of its evidence moved to another session, its text, channel or
// findings — and on nothing else: keeping a rank, another
// column of the rule, or a rule that is no proposal.
func TestRankTriggers(t *testing.T, s MemoryStore, db SQL) {
	ctx := context.Background()
	p := MustCreateProject(t, s, "rank-triggers")
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{Ev("e1", "s1", 1, "user", "we always pack a rain jacket"),
		Ev("e2", "s2", 1, "user", "we always pack a rain jacket"), Ev("e3", "s3", 1, "user", "x")}); err != nil {
		t.Fatal(err)
	}
	seq := func(id string) int64 { return db.Scalar(t, `SELECT seq FROM events WHERE id = ?`, id) }
	now := time.Now().UTC().Format(time.RFC3339)
	rule := func(status string) int64 {
		db.Exec(t, `INSERT INTO rules (project_id, kind, text, promotion_reason, status, created_at, updated_at)
			VALUES (?, 'fact', 'pack a rain jacket', 'repeated_across_sessions', ?, ?, ?)`, p.ID, status, now, now)
		return db.Scalar(t, `SELECT MAX(id) FROM rules`)
	}
	proposed, active := rule("proposed"), rule("active")
	candidate := func(ruleID int64) int64 {
		db.Exec(t, `INSERT INTO candidates (project_id, session_id, type, statement, extractor, status, rule_id, created_at, updated_at)
			VALUES (?, 's1', 'fact', 'pack a rain jacket', 'test', 'proposed', ?, ?, ?)`, p.ID, ruleID, now, now)
		return db.Scalar(t, `SELECT MAX(id) FROM candidates`)
	}
	epoch := func(id int64) int64 { return db.Scalar(t, `SELECT rank_epoch FROM rules WHERE id = ?`, id) }
	known := func(id int64) bool {
		return db.Scalar(t, `SELECT COUNT(*) FROM rules WHERE id = ? AND rank_score IS NOT NULL`, id) == 1
	}
	keep := func() {
		t.Helper()
		db.Exec(t, `UPDATE rules SET rank_score = 0.5, rank_reasons = '[]', rank_version = 1 WHERE id IN (?, ?)`, proposed, active)
	}
	step := func(what string, stales bool, query string, args ...any) {
		t.Helper()
		keep()
		before, other := epoch(proposed), epoch(active)
		db.Exec(t, query, args...)
		if got := !known(proposed); got != stales || (epoch(proposed) > before) != stales {
			t.Errorf("%s: rank forgotten = %v (epoch %d → %d), want %v", what, got, before, epoch(proposed), stales)
		}
		if epoch(active) != other || !known(active) {
			t.Errorf("%s: the active rule's rank was forgotten", what)
		}
	}
	if known(proposed) {
		t.Fatal("a new proposal's rank is known")
	}
	keep()
	if !known(proposed) {
		t.Fatal("keeping a rank forgot it")
	}
	step("another column", false, `UPDATE rules SET use_count = use_count + 1 WHERE id = ?`, proposed)
	c := candidate(proposed)
	other := candidate(active)
	// A candidate and its evidence are written only together: the writer
	// marks the proposals that gained candidates once per transaction
	// (TestReviewRanks), no trigger does.
	db.Exec(t, `INSERT INTO evidence (candidate_id, event_seq) VALUES (?, ?), (?, ?)`, c, seq("e1"), c, seq("e3"))
	db.Exec(t, `INSERT INTO evidence (candidate_id, event_seq) VALUES (?, ?)`, other, seq("e2"))
	step("an event moved to another session", true, `UPDATE events SET session_id = 's9' WHERE id = 'e1'`)
	step("an event's other column", false, `UPDATE events SET turn = 7 WHERE id = 'e1'`)
	step("evidence removed", true, `DELETE FROM evidence WHERE candidate_id = ? AND event_seq = ?`, c, seq("e1"))
	step("its text", true, `UPDATE rules SET text = 'pack a rain coat' WHERE id = ?`, proposed)
	step("its findings", true, `UPDATE rules SET findings = '[{"category":"authority"}]' WHERE id = ?`, proposed)
	step("its channel", true, `UPDATE rules SET promotion_reason = 'explicit_user_instruction' WHERE id = ?`, proposed)
	step("a candidate moved away", true, `UPDATE candidates SET rule_id = ? WHERE id = ?`, active, c)
	step("a candidate moved in", true, `UPDATE candidates SET rule_id = ? WHERE id = ?`, proposed, c)
	step("a candidate's other column", false, `UPDATE candidates SET status_reason = 'x' WHERE id = ?`, c)
	step("a candidate deleted", true, `DELETE FROM candidates WHERE id = ?`, c)
}
