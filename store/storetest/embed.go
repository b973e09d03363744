package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/mnemo-console/mnemo/governance/model/modeltest"
)

// EmbedStore is a store with recall's semantic channel: the heartbeat's
// backfill writes its vectors, recall reads them once an embedder is set.
type EmbedStore interface {
	MemoryStore
	governance.EmbedStore
	SetEmbedder(e governance.Embedder)
	SimilarRules(ctx context.Context, f governance.RuleFilter, q governance.SimilarQuery) ([]governance.RuleHit, error)
}

// TestEmbeddings: the backfill embeds a project's rules, episodes and
// events (a failed model call stores nothing), touches no other project;
// recall fuses the vectors' ranking with the words' and shows both in the
// trace, ranks by words alone when the task cannot be embedded, and a
// forgotten rule's vector is gone with it.
func TestEmbeddings(t *testing.T, open Opener) {
	ctx := context.Background()
	s, ok := open(t).(EmbedStore)
	if !ok {
		t.Fatalf("the store has no semantic channel (storetest.EmbedStore)")
	}
	const linter, nap = "Always run the linter before committing.", "The child naps from two to four in the afternoon."
	p, ids := MustCreateRules(t, s, "p", linter, nap)
	q, _ := MustCreateRules(t, s, "q", "Always run the linter twice.")
	if err := s.ApproveRules(ctx, "rita", []int64{ids[linter], ids[nap]}); err != nil {
		t.Fatal(err)
	}
	fake := modeltest.NewEmbeddings(t)
	emb := model.New(model.Config{BaseURL: fake.URL(), APIKey: "test", Model: "fake-embed", Backoff: time.Millisecond}, nil)
	pending := func(projectID int64) int {
		t.Helper()
		b, err := s.PendingEmbeddings(ctx, projectID, "fake-embed", 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(b.Items)
	}
	all := pending(p.ID)
	if all < 2+2+2 { // two rules, two episodes, two user lines
		t.Fatalf("%d items pending in p, want its rules, episodes and events", all)
	}
	fake.Fail(true)
	if _, err := consolidate.Backfill(ctx, s, emb, p.ID, 3, 5); err == nil {
		t.Fatal("backfill with a failing model succeeded")
	}
	fake.Fail(false)
	if n := pending(p.ID); n != all {
		t.Fatalf("after a failed call %d items pending, want all %d", n, all)
	}
	if n, err := consolidate.Backfill(ctx, s, emb, p.ID, 3, 100); err != nil || n != all {
		t.Fatalf("backfill = %d, %v; want %d", n, err, all)
	}
	if n := pending(p.ID); n != 0 {
		t.Fatalf("%d items pending after the backfill", n)
	}
	if n := pending(q.ID); n == 0 {
		t.Fatal("project q's items were embedded with p's")
	}

	req := governance.RecallRequest{Task: "run the linter", ProjectID: p.ID, SubjectID: "u1", Preview: true, IncludeEvents: true}
	plain, err := s.Recall(ctx, "test", req)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Trace.Fusion != nil {
		t.Errorf("fusion without an embedder: %+v", plain.Trace.Fusion)
	}
	s.SetEmbedder(emb)
	defer s.SetEmbedder(nil)
	pkg, err := s.Recall(ctx, "test", req)
	if err != nil {
		t.Fatal(err)
	}
	if f := pkg.Trace.Fusion; f == nil || f.Method != "rrf" || f.Model != "fake-embed" || f.Error != "" {
		t.Fatalf("fusion = %+v", f)
	}
	score := map[string]governance.RecallScore{}
	for _, e := range pkg.Trace.Considered {
		score[e.ID] = e.Score
	}
	if sc := score[governance.RecallRuleID(ids[linter])]; sc.LexicalRank != 1 || sc.SemanticRank != 1 || sc.Cosine <= 0 {
		t.Errorf("linter rule: %+v", sc)
	}
	if len(pkg.Items) == 0 || pkg.Items[0].ID != governance.RecallRuleID(ids[linter]) {
		t.Errorf("items = %+v", pkg.Items)
	}
	fake.Fail(true)
	down, err := s.Recall(ctx, "test", req)
	fake.Fail(false)
	if err != nil {
		t.Fatal(err)
	}
	if f := down.Trace.Fusion; f == nil || f.Error == "" {
		t.Errorf("fusion with the model down = %+v", f)
	}
	if fmt.Sprint(recallItemIDs(down)) != fmt.Sprint(recallItemIDs(plain)) {
		t.Errorf("model down: items %v, words alone %v", recallItemIDs(down), recallItemIDs(plain))
	}

	if _, err := s.ForgetRule(ctx, "test", ids[linter], true); err != nil {
		t.Fatal(err)
	}
	after, err := s.Recall(ctx, "test", req)
	if err != nil {
		t.Fatal(err)
	}
	if f := after.Trace.Fusion; f == nil || f.Error != "" {
		t.Fatalf("fusion after the forget = %+v", f)
	}
	for _, e := range after.Trace.Considered {
		if e.ID == governance.RecallRuleID(ids[linter]) && (e.Score.SemanticRank != 0 || e.Score.Cosine != 0) {
			t.Errorf("the forgotten rule still has a vector: %+v", e.Score)
		}
	}
}

// TestSimilarRules: the rules search by meaning ranks the filter's rules
// by their vectors' cosine with the search's, best first and above the
// minimum, never reads another project's or another model's vectors, keeps
// to the filter's statuses, and a forgotten rule is not found.
func TestSimilarRules(t *testing.T, open Opener) {
	ctx := context.Background()
	s, ok := open(t).(EmbedStore)
	if !ok {
		t.Fatalf("the store has no semantic channel (storetest.EmbedStore)")
	}
	const nap, linter, seats = "The child naps from two to four in the afternoon.", "Always run the linter before committing.", "Book aisle seats on long flights."
	p, ids := MustCreateRules(t, s, "p", nap, linter, seats)
	q, qids := MustCreateRules(t, s, "q", "The child naps after lunch.")
	if err := s.ApproveRules(ctx, "rita", []int64{ids[nap], ids[linter], ids[seats]}); err != nil {
		t.Fatal(err)
	}
	if err := s.ApproveRules(ctx, "rita", []int64{qids["The child naps after lunch."]}); err != nil {
		t.Fatal(err)
	}
	fake := modeltest.NewEmbeddings(t)
	emb := model.New(model.Config{BaseURL: fake.URL(), APIKey: "test", Model: "fake-embed", Backoff: time.Millisecond}, nil)
	for _, pr := range []*governance.Project{p, q} {
		if _, err := consolidate.Backfill(ctx, s, emb, pr.ID, 16, 100); err != nil {
			t.Fatal(err)
		}
	}
	vecs, err := emb.Embed(ctx, []string{"when does the child nap in the afternoon"})
	if err != nil {
		t.Fatal(err)
	}
	query := governance.SimilarQuery{Model: "fake-embed", Vector: governance.Normalized(vecs[0]), K: 5, MinCosine: governance.MinSearchCosine}
	find := func(f governance.RuleFilter, q governance.SimilarQuery) []governance.RuleHit {
		t.Helper()
		hits, err := s.SimilarRules(ctx, f, q)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	active := []governance.RuleStatus{governance.RuleActive}
	hits := find(governance.RuleFilter{ProjectID: &p.ID, Statuses: active, Query: "unrelated words"}, query)
	if len(hits) == 0 || hits[0].Rule.ID != ids[nap] {
		t.Fatalf("hits = %+v, want the nap rule first", hits)
	}
	for i, h := range hits {
		if h.Rule.ProjectID != p.ID || h.Cosine < query.MinCosine || i > 0 && h.Cosine > hits[i-1].Cosine {
			t.Errorf("hit %d = %+v (%.3f)", i, h.Rule, h.Cosine)
		}
		if h.Rule.ID == ids[linter] {
			t.Errorf("the linter rule is close to a question about naps: %.3f", h.Cosine)
		}
	}
	if both := find(governance.RuleFilter{ProjectIDs: []int64{p.ID, q.ID}, Statuses: active}, query); len(both) < 2 {
		t.Errorf("both projects: %d hits, want the nap rule of each", len(both))
	}
	if got := find(governance.RuleFilter{ProjectID: &p.ID, Statuses: []governance.RuleStatus{governance.RuleRejected}}, query); len(got) != 0 {
		t.Errorf("rejected rules: %+v", got)
	}
	other := query
	other.Model = "another-model"
	if got := find(governance.RuleFilter{ProjectID: &p.ID}, other); len(got) != 0 {
		t.Errorf("another model's vectors: %+v", got)
	}
	if _, err := s.ForgetRule(ctx, "test", ids[nap], true); err != nil {
		t.Fatal(err)
	}
	for _, h := range find(governance.RuleFilter{ProjectID: &p.ID}, query) {
		if h.Rule.ID == ids[nap] {
			t.Errorf("the forgotten rule is still found: %+v", h.Rule)
		}
	}
}

func recallItemIDs(pkg *governance.RecallPackage) []string {
	var ids []string
	for _, it := range pkg.Items {
		ids = append(ids, it.ID)
	}
	return ids
}
