package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
)

// reviewFixture is the demo after its first heartbeat (proposals, held and
// blocked candidates in two projects) behind the use cases, with one actor
// of every kind.
type reviewFixture struct {
	st              *store.Store
	app             *app.App
	travel, expense *governance.Project
	// Accounts: the demo's admin, travel reviewer and travel member
	// (family-chen); a reviewer of the expense project; a travel member
	// with another subject (family-wang).
	admin, reviewer, member, otherMember, expenseReviewer governance.Actor
	// travelToken and expenseToken are API tokens with every scope.
	travelToken, expenseToken governance.Actor
}

func newReviewFixture(tb testing.TB) *reviewFixture {
	tb.Helper()
	ctx := context.Background()
	st := sqlitetest.OpenWith(tb, "demo after its first beat", func(ctx context.Context, st *store.Store) error {
		if _, err := seed.Load(ctx, st, seed.Options{
			Hash:     func(string) (string, error) { return "not-a-hash", nil },
			Generate: func() string { return "pw" },
			Demo:     true,
		}); err != nil {
			return err
		}
		m := heuristic.NewMerger()
		hb := &consolidate.Heartbeat{Store: st, Idle: 30 * time.Minute, Consolidator: &consolidate.Consolidator{
			Extractor: heuristic.NewExtractor(), Merger: m, Fallback: m, Classifier: gate.Patterns,
		}}
		_, err := hb.Beat(ctx, "test")
		return err
	})
	var err error
	f := &reviewFixture{st: st, app: app.New(st)}
	if f.travel, err = st.FindProjectBySlug(ctx, seed.TravelProject); err != nil {
		tb.Fatal(err)
	}
	if f.expense, err = st.FindProjectBySlug(ctx, "expense-agent"); err != nil {
		tb.Fatal(err)
	}
	for _, a := range []*governance.Account{
		{Username: "erin", PasswordHash: "x", Memberships: []governance.Membership{{ProjectID: f.expense.ID, Role: governance.ProjectReviewer}}},
		{Username: "otto", PasswordHash: "x", Memberships: []governance.Membership{{ProjectID: f.travel.ID, Role: governance.ProjectMember, SubjectID: "family-wang"}}},
	} {
		if err := st.CreateAccount(ctx, a); err != nil {
			tb.Fatal(err)
		}
	}
	account := func(name string) governance.Actor {
		a, err := st.FindAccountByUsername(ctx, name)
		if err != nil {
			tb.Fatal(err)
		}
		return governance.AccountActor(a)
	}
	f.admin, f.reviewer, f.member = account("admin"), account("reviewer"), account("family-chen")
	f.otherMember, f.expenseReviewer = account("otto"), account("erin")
	all := []governance.TokenScope{governance.ScopeIngest, governance.ScopeRecall, governance.ScopeForget, governance.ScopeExport}
	f.travelToken = governance.TokenActor(&governance.APIToken{ID: 1, ProjectID: f.travel.ID, ProjectSlug: f.travel.Slug, Name: "t", Scopes: all})
	f.expenseToken = governance.TokenActor(&governance.APIToken{ID: 2, ProjectID: f.expense.ID, ProjectSlug: f.expense.Slug, Name: "e", Scopes: all})
	return f
}

// rules returns the rules of p with status st.
func (f *reviewFixture) rules(tb testing.TB, p *governance.Project, st governance.RuleStatus) []*governance.Rule {
	tb.Helper()
	rules, _, err := f.st.FindRules(context.Background(), governance.RuleFilter{ProjectID: &p.ID, Statuses: []governance.RuleStatus{st}})
	if err != nil {
		tb.Fatal(err)
	}
	if len(rules) == 0 {
		tb.Fatalf("no %s rules in %s", st, p.Slug)
	}
	return rules
}

func (f *reviewFixture) reload(tb testing.TB, id int64) *governance.Rule {
	tb.Helper()
	r, err := f.st.FindRuleByID(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// wantCode fails unless err has code ("" = nil).
func wantErrCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := governance.ErrorCode(err); got != code {
		tb.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

// wantFields fails unless err is app.FieldErrors naming exactly fields.
func wantFields(tb testing.TB, err error, fields ...string) {
	tb.Helper()
	fe, ok := app.AsFieldErrors(err)
	if !ok {
		tb.Fatalf("error = %v, want field errors on %v", err, fields)
	}
	if governance.ErrorCode(err) != governance.EINVALID {
		tb.Fatalf("field errors have code %q, want %q", governance.ErrorCode(err), governance.EINVALID)
	}
	if len(fe) != len(fields) {
		tb.Fatalf("field errors = %v, want %v", fe, fields)
	}
	for _, name := range fields {
		if fe[name].IsZero() {
			tb.Fatalf("field errors = %v, want one on %q", fe, name)
		}
	}
}

// actorCase is one actor and the error code a use case must answer it.
type actorCase struct {
	name  string
	actor governance.Actor
	code  string
}

// reviewerCases: the travel project's reviewers and admins may, everyone
// else may not.
func (f *reviewFixture) reviewerCases() []actorCase {
	return []actorCase{
		{"Admin", f.admin, ""},
		{"Reviewer", f.reviewer, ""},
		{"ReviewerOfAnotherProject", f.expenseReviewer, governance.EFORBIDDEN},
		{"Member", f.member, governance.EFORBIDDEN},
		{"Token", f.travelToken, governance.EFORBIDDEN},
		{"Anonymous", governance.Actor{}, governance.EUNAUTHORIZED},
	}
}

func TestReviewsQueue(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	for _, tc := range f.reviewerCases() {
		t.Run("Authorization/"+tc.name, func(t *testing.T) {
			_, err := f.app.Reviews.Queue(ctx, tc.actor, app.QueueQuery{Project: f.travel.Slug, Tab: governance.CandidateProposed, Limit: 10})
			wantErrCode(t, err, tc.code)
		})
	}
	t.Run("OtherProjectsToken", func(t *testing.T) {
		_, err := f.app.Reviews.Queue(ctx, f.expenseToken, app.QueueQuery{Project: f.travel.Slug, Tab: governance.CandidateProposed})
		wantErrCode(t, err, governance.ENOTFOUND)
	})
	t.Run("UnknownProject", func(t *testing.T) {
		_, err := f.app.Reviews.Queue(ctx, f.admin, app.QueueQuery{Project: "nope", Tab: governance.CandidateProposed})
		wantErrCode(t, err, governance.ENOTFOUND)
	})
	t.Run("UnknownTab", func(t *testing.T) {
		_, err := f.app.Reviews.Queue(ctx, f.admin, app.QueueQuery{Project: f.travel.Slug, Tab: governance.CandidatePromoted})
		wantErrCode(t, err, governance.EINVALID)
	})
	t.Run("Proposals", func(t *testing.T) {
		proposed := f.rules(t, f.travel, governance.RuleProposed)
		q, err := f.app.Reviews.Queue(ctx, f.reviewer, app.QueueQuery{Project: f.travel.Slug, Tab: governance.CandidateProposed,
			Limit: 100, InlineEvidence: 3})
		if err != nil {
			t.Fatal(err)
		}
		if q.Total != len(proposed) || len(q.Proposals) != len(proposed) || q.Counts.Proposed != len(proposed) {
			t.Fatalf("total %d, %d proposals, count %d; want %d", q.Total, len(q.Proposals), q.Counts.Proposed, len(proposed))
		}
		for _, p := range q.Proposals {
			if p.Rule.ProjectID != f.travel.ID || p.Rule.Status != governance.RuleProposed {
				t.Fatalf("proposal %d: project %d, status %s", p.Rule.ID, p.Rule.ProjectID, p.Rule.Status)
			}
			if p.EvidenceCount <= 3 && len(p.Evidence) != p.EvidenceCount {
				t.Fatalf("proposal %d: %d evidence links inline of %d", p.Rule.ID, len(p.Evidence), p.EvidenceCount)
			}
		}
		if q.CanSetPolicy {
			t.Fatal("a reviewer may set the project policy")
		}
		// Polling with the version it has: unchanged, nothing loaded.
		again, err := f.app.Reviews.Queue(ctx, f.reviewer, app.QueueQuery{Project: f.travel.Slug, Tab: governance.CandidateProposed,
			Limit: 100, Since: q.Version})
		if err != nil {
			t.Fatal(err)
		}
		if !again.Unchanged || again.Proposals != nil {
			t.Fatalf("unchanged = %v with %d proposals, want an empty unchanged answer", again.Unchanged, len(again.Proposals))
		}
	})
	t.Run("RankOrder", func(t *testing.T) {
		// The queue's pages, walked two at a time, are the order and the
		// ranks computed from a read of every proposal, before and after
		// a reviewer's split changes one proposal's evidence.
		ranked := func() ([]int64, map[int64]governance.Rank) {
			rules := f.rules(t, f.travel, governance.RuleProposed)
			ids := make([]int64, len(rules))
			for i, r := range rules {
				ids[i] = r.ID
			}
			spread, err := f.st.FindEvidenceSpread(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			ranks := map[int64]governance.Rank{}
			for _, r := range rules {
				ranks[r.ID] = governance.RankProposal(governance.RankInput{Rule: r, Sessions: spread[r.ID].Sessions, Subjects: spread[r.ID].Subjects})
			}
			governance.RankedOrder(rules, ranks)
			for i, r := range rules {
				ids[i] = r.ID
			}
			return ids, ranks
		}
		check := func() {
			t.Helper()
			want, ranks := ranked()
			var got []int64
			for off := 0; off < len(want); off += 2 {
				q, err := f.app.Reviews.Queue(ctx, f.reviewer, app.QueueQuery{Project: f.travel.Slug, Tab: governance.CandidateProposed,
					Offset: off, Limit: 2})
				if err != nil {
					t.Fatal(err)
				}
				if q.Total != len(want) {
					t.Fatalf("total %d, want %d", q.Total, len(want))
				}
				for _, p := range q.Proposals {
					got = append(got, p.Rule.ID)
					if w := ranks[p.Rule.ID]; p.Rank.Score != w.Score || len(p.Rank.Reasons) != len(w.Reasons) {
						t.Errorf("proposal %d: rank %+v, want %+v", p.Rule.ID, p.Rank, w)
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("queue order %v, want %v", got, want)
			}
		}
		check()
		var split bool
		for _, r := range f.rules(t, f.travel, governance.RuleProposed) {
			cands, _, err := f.st.FindCandidates(ctx, governance.CandidateFilter{ProjectID: f.travel.ID, RuleID: r.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) >= 2 {
				if _, err := f.st.SplitCandidate(ctx, "rita", r.ID, cands[len(cands)-1].ID, "another instruction"); err != nil {
					t.Fatal(err)
				}
				split = true
				break
			}
		}
		if !split {
			t.Fatal("no proposal with two candidates to split")
		}
		check()
	})
	t.Run("HeldGroupsAndBlocked", func(t *testing.T) {
		q, err := f.app.Reviews.Queue(ctx, f.admin, app.QueueQuery{Project: f.travel.Slug, Tab: governance.CandidateHeld, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		members := 0
		for _, g := range q.Groups {
			for _, l := range g.Members {
				members++
				if l.Candidate.GroupID != g.GroupID || l.Candidate.Status != governance.CandidateHeld {
					t.Fatalf("group %d holds candidate %d of group %d (%s)", g.GroupID, l.Candidate.ID, l.Candidate.GroupID, l.Candidate.Status)
				}
			}
		}
		if members == 0 || !q.CanSetPolicy {
			t.Fatalf("held members = %d, admin may set policy = %v", members, q.CanSetPolicy)
		}
		q, err = f.app.Reviews.Queue(ctx, f.admin, app.QueueQuery{Project: f.travel.Slug, Tab: governance.CandidateBlocked, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(q.Blocked) == 0 || q.Counts.Blocked == 0 {
			t.Fatalf("blocked = %d (count %d), want some", len(q.Blocked), q.Counts.Blocked)
		}
	})
}

func TestReviewsIndexAndPending(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	slugs := func(actor governance.Actor) (string, error) {
		ps, err := f.app.Reviews.Index(ctx, actor)
		var out []string
		for _, p := range ps {
			out = append(out, p.Project.Slug)
		}
		return strings.Join(out, ","), err
	}
	for _, tc := range []struct {
		name  string
		actor governance.Actor
		want  string
		code  string
	}{
		{"Admin", f.admin, "coding-assistant,travel-agent,expense-agent", ""},
		{"Reviewer", f.reviewer, "travel-agent", ""},
		{"ReviewerOfAnotherProject", f.expenseReviewer, "expense-agent", ""},
		{"Member", f.member, "", governance.EFORBIDDEN},
		{"Token", f.travelToken, "", governance.EFORBIDDEN},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := slugs(tc.actor)
			wantErrCode(t, err, tc.code)
			if !sameSet(got, tc.want) {
				t.Fatalf("projects = %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("Pending", func(t *testing.T) {
		travel := len(f.rules(t, f.travel, governance.RuleProposed))
		expense := len(f.rules(t, f.expense, governance.RuleProposed))
		everywhere, _, err := f.st.FindRules(ctx, governance.RuleFilter{Statuses: []governance.RuleStatus{governance.RuleProposed}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			actor governance.Actor
			want  int
		}{
			{"Admin", f.admin, len(everywhere)}, {"Reviewer", f.reviewer, travel}, {"ReviewerOfAnotherProject", f.expenseReviewer, expense},
			{"Member", f.member, 0}, {"Token", f.travelToken, 0}, {"Anonymous", governance.Actor{}, 0},
		} {
			n, err := f.app.Reviews.Pending(ctx, tc.actor)
			if err != nil || n != tc.want {
				t.Fatalf("%s: pending = %d, %v; want %d", tc.name, n, err, tc.want)
			}
		}
	})
}

func sameSet(a, b string) bool {
	as, bs := strings.Split(a, ","), strings.Split(b, ",")
	if len(as) != len(bs) {
		return false
	}
	for _, x := range as {
		if !strings.Contains(","+b+",", ","+x+",") {
			return false
		}
	}
	return true
}

func TestReviewsDecisions(t *testing.T) {
	ctx := context.Background()
	// Each case starts from the demo's proposals: the travel project has
	// three.
	setup := func(t *testing.T) (*reviewFixture, []*governance.Rule, *governance.Rule) {
		f := newReviewFixture(t)
		proposed := f.rules(t, f.travel, governance.RuleProposed)
		if len(proposed) < 3 {
			t.Fatalf("%d travel proposals, the test needs 3", len(proposed))
		}
		return f, proposed, f.rules(t, f.expense, governance.RuleProposed)[0]
	}

	t.Run("ApproveAuthorization", func(t *testing.T) {
		f, proposed, _ := setup(t)
		r := proposed[0]
		for _, tc := range []actorCase{
			{"ReviewerOfAnotherProject", f.expenseReviewer, governance.EFORBIDDEN},
			{"Member", f.member, governance.EFORBIDDEN},
			{"OtherMember", f.otherMember, governance.EFORBIDDEN},
			{"Token", f.travelToken, governance.EFORBIDDEN},
			{"OtherProjectsToken", f.expenseToken, governance.ENOTFOUND},
			{"Anonymous", governance.Actor{}, governance.EUNAUTHORIZED},
		} {
			_, _, err := f.app.Reviews.Approve(ctx, tc.actor, r.ID, app.Approval{})
			wantErrCode(t, err, tc.code)
		}
		_, _, err := f.app.Reviews.Approve(ctx, f.reviewer, 1<<40, app.Approval{})
		wantErrCode(t, err, governance.ENOTFOUND)
		if got := f.reload(t, r.ID).Status; got != governance.RuleProposed {
			t.Fatalf("refused approvals left the rule %s", got)
		}
	})
	t.Run("Approve", func(t *testing.T) {
		f, proposed, _ := setup(t)
		after, edited, err := f.app.Reviews.Approve(ctx, f.reviewer, proposed[0].ID, app.Approval{})
		if err != nil || edited || after.Status != governance.RuleActive {
			t.Fatalf("approve = %v, edited %v, %v; want active", after, edited, err)
		}
	})
	t.Run("ApproveEdited", func(t *testing.T) {
		f, proposed, _ := setup(t)
		r := proposed[1]
		_, _, err := f.app.Reviews.Approve(ctx, f.reviewer, r.ID, app.Approval{Edited: true, Text: " ", Kind: "nonsense"})
		wantFields(t, err, "text", "kind", "reason")
		_, _, err = f.app.Reviews.Approve(ctx, f.reviewer, r.ID, app.Approval{Edited: true, Text: r.Text + " Always.", Kind: r.Kind})
		wantFields(t, err, "reason")
		if got := f.reload(t, r.ID); got.Status != governance.RuleProposed || got.Text != r.Text {
			t.Fatalf("invalid approvals changed the rule: %s %q", got.Status, got.Text)
		}
		after, edited, err := f.app.Reviews.Approve(ctx, f.admin, r.ID, app.Approval{Edited: true, Text: r.Text + " Always.", Kind: r.Kind, Reason: "clearer"})
		if err != nil || !edited || after.Status != governance.RuleActive || after.Text != r.Text+" Always." {
			t.Fatalf("approve as edited = %+v, edited %v, %v", after, edited, err)
		}
		// The form sent back unchanged: approved as proposed, no reason asked.
		r = proposed[2]
		if _, edited, err := f.app.Reviews.Approve(ctx, f.reviewer, r.ID, app.Approval{Edited: true, Text: r.Text, Kind: r.Kind}); err != nil || edited {
			t.Fatalf("unchanged form: edited %v, %v", edited, err)
		}
	})
	t.Run("Reject", func(t *testing.T) {
		f, proposed, _ := setup(t)
		r := proposed[0]
		_, err := f.app.Reviews.Reject(ctx, f.reviewer, r.ID, "  ")
		wantFields(t, err, "reason")
		_, err = f.app.Reviews.Reject(ctx, f.member, r.ID, "no")
		wantErrCode(t, err, governance.EFORBIDDEN)
		after, err := f.app.Reviews.Reject(ctx, f.reviewer, r.ID, "wrong")
		if err != nil || after.Status != governance.RuleRejected {
			t.Fatalf("reject = %v, %v", after, err)
		}
	})
	t.Run("Bulk", func(t *testing.T) {
		f, proposed, expenseRule := setup(t)
		ids := []int64{proposed[0].ID, proposed[1].ID}
		_, err := f.app.Reviews.ApproveMany(ctx, f.reviewer, f.travel.Slug, append(ids, expenseRule.ID))
		wantErrCode(t, err, governance.EFORBIDDEN)
		_, err = f.app.Reviews.ApproveMany(ctx, f.reviewer, f.travel.Slug, append(ids, 1<<40))
		wantErrCode(t, err, governance.ENOTFOUND)
		_, err = f.app.Reviews.ApproveMany(ctx, f.reviewer, f.travel.Slug, append(ids, 0))
		wantErrCode(t, err, governance.EINVALID)
		_, err = f.app.Reviews.ApproveMany(ctx, f.expenseReviewer, f.travel.Slug, ids)
		wantErrCode(t, err, governance.EFORBIDDEN)
		_, err = f.app.Reviews.ApproveMany(ctx, f.member, f.travel.Slug, ids)
		wantErrCode(t, err, governance.EFORBIDDEN)
		_, err = f.app.Reviews.ApproveMany(ctx, f.reviewer, f.travel.Slug, nil)
		wantFields(t, err, "ids")
		_, err = f.app.Reviews.RejectMany(ctx, f.reviewer, f.travel.Slug, ids, "")
		wantFields(t, err, "reason")
		for _, id := range ids {
			if got := f.reload(t, id).Status; got != governance.RuleProposed {
				t.Fatalf("refused bulk actions left rule %d %s", id, got)
			}
		}
		n, err := f.app.Reviews.ApproveMany(ctx, f.reviewer, f.travel.Slug, append(ids, ids[0]))
		if err != nil || n != 2 {
			t.Fatalf("approve many = %d, %v; want 2", n, err)
		}
		for _, id := range ids {
			if got := f.reload(t, id).Status; got != governance.RuleActive {
				t.Fatalf("rule %d is %s after the bulk approval", id, got)
			}
		}
	})
	t.Run("HoldAndSplitAuthorization", func(t *testing.T) {
		f, _, expenseRule := setup(t)
		_, err := f.app.Reviews.Hold(ctx, f.expenseReviewer, expenseRule.ID, "")
		wantErrCode(t, err, "")
		if got := f.reload(t, expenseRule.ID).Status; got == governance.RuleProposed {
			t.Fatalf("held rule is still %s", got)
		}
		_, err = f.app.Reviews.Split(ctx, f.reviewer, expenseRule.ID, 1, "")
		wantErrCode(t, err, governance.EFORBIDDEN)
		_, err = f.app.Reviews.Split(ctx, f.expenseReviewer, expenseRule.ID, 0, "")
		wantErrCode(t, err, governance.EINVALID)
	})
	t.Run("AutoActivate", func(t *testing.T) {
		f, _, _ := setup(t)
		_, err := f.app.Reviews.SetAutoActivate(ctx, f.reviewer, f.travel.Slug, true)
		wantErrCode(t, err, governance.EFORBIDDEN)
		_, err = f.app.Reviews.SetAutoActivate(ctx, f.member, f.travel.Slug, true)
		wantErrCode(t, err, governance.EFORBIDDEN)
		p, err := f.app.Reviews.SetAutoActivate(ctx, f.admin, f.travel.Slug, true)
		if err != nil || p.ID != f.travel.ID {
			t.Fatalf("set auto-activate = %v, %v", p, err)
		}
		got, err := f.st.FindProjectByID(ctx, f.travel.ID)
		if err != nil || !got.AutoActivate {
			t.Fatalf("auto-activate = %v, %v; want on", got.AutoActivate, err)
		}
	})
}

func TestReviewsMerge(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	// Two proposals about the same subject (or both project-wide) merge.
	var a, b *governance.Rule
	proposed := f.rules(t, f.travel, governance.RuleProposed)
	for i := range proposed {
		for j := i + 1; j < len(proposed) && a == nil; j++ {
			if proposed[i].SubjectID == proposed[j].SubjectID {
				a, b = proposed[i], proposed[j]
			}
		}
	}
	if a == nil {
		t.Fatal("no two travel proposals share a scope")
	}
	ids := []int64{a.ID, b.ID}

	_, err := f.app.Reviews.MergeChoice(ctx, f.reviewer, f.travel.Slug, ids[:1])
	wantFields(t, err, "ids")
	_, err = f.app.Reviews.MergeChoice(ctx, f.expenseReviewer, f.travel.Slug, ids)
	wantErrCode(t, err, governance.EFORBIDDEN)
	choice, err := f.app.Reviews.MergeChoice(ctx, f.reviewer, f.travel.Slug, ids)
	if err != nil || len(choice.Rules) != 2 || choice.Project.ID != f.travel.ID {
		t.Fatalf("merge choice = %+v, %v", choice, err)
	}
	_, _, err = f.app.Reviews.Merge(ctx, f.reviewer, f.travel.Slug, app.Merge{IDs: ids, Keep: 12345, Text: "new words"})
	wantFields(t, err, "ids", "reason")
	kept, other, err := f.app.Reviews.Merge(ctx, f.reviewer, f.travel.Slug, app.Merge{IDs: ids, Keep: b.ID})
	if err != nil || kept.ID != b.ID || other != a.ID {
		t.Fatalf("merge = %v, %d, %v; want %d kept, %d merged", kept, other, err, b.ID, a.ID)
	}
	if got := f.reload(t, a.ID).Status; got == governance.RuleProposed {
		t.Fatalf("the merged proposal is still %s", got)
	}
}

// TestHoldKeepsEvidence: holding a proposal keeps its evidence chain; the
// member sees the statement once (the rule with its lines), and restoring
// it brings the proposal back with its chain.
func TestHoldKeepsEvidence(t *testing.T) {
	f := newReviewFixture(t)
	ctx := context.Background()
	var nap *governance.Rule
	for _, r := range f.rules(t, f.travel, governance.RuleProposed) {
		if strings.Contains(r.Text, "午睡") {
			nap = r
		}
	}
	if nap == nil {
		t.Fatal("no nap proposal in the demo")
	}
	count := func(tb testing.TB) (rules, loose, lines int) {
		tb.Helper()
		mine, err := f.app.Me.Memories(ctx, f.member)
		if err != nil {
			tb.Fatal(err)
		}
		for _, g := range mine {
			for _, r := range g.Rules {
				if r.Rule.Text == nap.Text {
					rules++
					for _, l := range r.Evidence {
						lines += len(l.Events)
					}
				}
			}
			for _, c := range g.Candidates {
				if c.Candidate.Statement == nap.Text {
					loose++
				}
			}
		}
		return
	}
	_, _, before := count(t)
	if before == 0 {
		t.Fatal("the nap proposal shows no lines before the hold")
	}
	_, err := f.app.Reviews.Hold(ctx, f.member, nap.ID, "")
	wantErrCode(t, err, governance.EFORBIDDEN)
	held, err := f.app.Reviews.Hold(ctx, f.reviewer, nap.ID, "wait for more")
	if err != nil || held.Status != governance.RuleArchived {
		t.Fatalf("hold = %v, %v", held, err)
	}
	if rules, loose, lines := count(t); rules != 1 || loose != 0 || lines != before {
		t.Fatalf("after hold the member sees the rule %d times, %d loose candidates, %d lines; want 1, 0, %d", rules, loose, lines, before)
	}
	_, err = f.app.Rules.Restore(ctx, f.member, nap.ID, "")
	wantErrCode(t, err, governance.EFORBIDDEN)
	back, err := f.app.Rules.Restore(ctx, f.reviewer, nap.ID, "more came in")
	if err != nil || back.Status != governance.RuleProposed {
		t.Fatalf("restore = %v, %v; want proposed", back, err)
	}
	if rules, loose, lines := count(t); rules != 1 || loose != 0 || lines != before {
		t.Fatalf("after restore the member sees the rule %d times, %d loose, %d lines; want 1, 0, %d", rules, loose, lines, before)
	}
}
