package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/mnemo-console/mnemo/governance/model/modeltest"
	"github.com/mnemo-console/mnemo/store"
)

// newFakeEmbedder is a go-openai client of an in-process embeddings
// endpoint (real HTTP, deterministic vectors).
func newFakeEmbedder(t *testing.T) (*modeltest.Embeddings, *model.Client) {
	t.Helper()
	fake := modeltest.NewEmbeddings(t)
	return fake, model.New(model.Config{BaseURL: fake.URL(), APIKey: "test", Model: "fake-embed", Backoff: time.Millisecond}, nil)
}

func embeddingCount(t *testing.T, s *store.Store, where string, args ...any) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM embeddings WHERE `+where, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func embedCheckpoint(t *testing.T, s *store.Store, project int64) int64 {
	t.Helper()
	var seq int64
	if err := s.DB().QueryRowContext(context.Background(), `SELECT COALESCE((SELECT event_seq FROM embed_checkpoints WHERE project_id = ?), 0)`,
		project).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	return seq
}

// TestEmbeddings: the backfill embeds rules, episodes and events in bounded
// batches, moves the checkpoint only with a saved batch (a failed model
// call leaves it), touches no other project, and a forget removes the
// vectors. (Recall's fusion runs on both backends:
// storetest.TestEmbeddings.)
func TestEmbeddings(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p, q := &governance.Project{Slug: "p", Name: "P"}, &governance.Project{Slug: "q", Name: "Q"}
	for _, pr := range []*governance.Project{p, q} {
		if err := s.CreateProject(ctx, pr); err != nil {
			t.Fatal(err)
		}
	}
	linter := MustInsertRecallRule(t, s, recallRuleRow{Project: p.ID, Text: "Always run the linter before committing."})
	nap := MustInsertRecallRule(t, s, recallRuleRow{Project: p.ID, Subject: "u1", Kind: governance.TypePreference,
		Reason: governance.ReasonExplicit, Text: "The child naps from two to four in the afternoon."})
	MustInsertRecallRule(t, s, recallRuleRow{Project: q.ID, Text: "Always run the linter twice."})
	MustInsertRecallEpisode(t, s, p.ID, "s0", "", "The build failed because the linter was skipped.")
	at := s.Now().UTC().Add(-time.Hour)
	var evs []*governance.Event
	for i, text := range []string{"Run the linter on the parser package.", "The linter found two unused imports.",
		"My daughter naps after lunch.", "Book the museum for the morning."} {
		evs = append(evs, &governance.Event{ID: fmt.Sprintf("e%d", i), SessionID: "s1", SubjectID: "u1", Turn: i + 1,
			Role: governance.RoleUser, Text: text, OccurredAt: at.Add(time.Duration(i) * time.Minute)})
	}
	evs = append(evs, &governance.Event{ID: "e-end", SessionID: "s1", Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Hour)})
	if _, err := s.IngestEvents(ctx, p.ID, evs); err != nil {
		t.Fatal(err)
	}
	fake, emb := newFakeEmbedder(t)

	t.Run("FailedCallKeepsCheckpoint", func(t *testing.T) {
		fake.Fail(true)
		defer fake.Fail(false)
		if _, err := consolidate.Backfill(ctx, s, emb, p.ID, 3, 5); err == nil {
			t.Fatal("backfill with a failing model succeeded")
		}
		if n := embeddingCount(t, s, "1 = 1"); n != 0 || embedCheckpoint(t, s, p.ID) != 0 {
			t.Errorf("after a failed call: %d vectors, checkpoint %d", n, embedCheckpoint(t, s, p.ID))
		}
	})
	t.Run("Batches", func(t *testing.T) {
		n, err := consolidate.Backfill(ctx, s, emb, p.ID, 3, 1)
		if err != nil || n != 3 {
			t.Fatalf("first batch: %d, %v", n, err)
		}
		if got := embeddingCount(t, s, "kind IN ('rule', 'episode') AND project_id = ?", p.ID); got != 3 || embedCheckpoint(t, s, p.ID) != 0 {
			t.Errorf("rules and episode first: %d vectors, checkpoint %d", got, embedCheckpoint(t, s, p.ID))
		}
		if n, err = consolidate.Backfill(ctx, s, emb, p.ID, 3, 10); err != nil || n != 4 {
			t.Fatalf("the rest: %d, %v", n, err)
		}
		if got := embeddingCount(t, s, "kind = 'event'"); got != 4 || embedCheckpoint(t, s, p.ID) != evs[4].Seq {
			t.Errorf("events: %d vectors, checkpoint %d, want %d", got, embedCheckpoint(t, s, p.ID), evs[4].Seq)
		}
		if got := embeddingCount(t, s, "project_id = ?", q.ID); got != 0 {
			t.Errorf("project q got %d vectors", got)
		}
		calls, _ := fake.Calls()
		if n, err = consolidate.Backfill(ctx, s, emb, p.ID, 3, 10); err != nil || n != 0 {
			t.Errorf("nothing left: %d, %v", n, err)
		}
		if again, _ := fake.Calls(); again != calls {
			t.Errorf("a backfill with nothing pending called the model %d times", again-calls)
		}
	})
	t.Run("HeartbeatAfterFailure", func(t *testing.T) {
		more := []*governance.Event{{ID: "f1", SessionID: "s2", SubjectID: "u1", Turn: 1, Role: governance.RoleUser,
			Text: "The linter config lives in the repository root.", OccurredAt: at}}
		if _, err := s.IngestEvents(ctx, p.ID, more); err != nil {
			t.Fatal(err)
		}
		before := embedCheckpoint(t, s, p.ID)
		hb := newHeartbeat(s, &lineExtractor{})
		hb.Embedder, hb.Embeddings, hb.EmbedBatch = emb, s, 2
		fake.Fail(true)
		if _, err := hb.Beat(ctx, "test"); err == nil {
			t.Error("beat with a failing model reported no error")
		}
		if got := embedCheckpoint(t, s, p.ID); got != before {
			t.Errorf("checkpoint moved to %d after a failed call, want %d", got, before)
		}
		fake.Fail(false)
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		if got := embedCheckpoint(t, s, p.ID); got != more[0].Seq || embeddingCount(t, s, "kind = 'event' AND item_id = ?", more[0].Seq) != 1 {
			t.Errorf("after the next beat: checkpoint %d, want %d", got, more[0].Seq)
		}
	})
	t.Run("ForgetRemovesVectors", func(t *testing.T) {
		if got := embeddingCount(t, s, "subject_id = 'u1'"); got == 0 {
			t.Fatal("no vectors of u1 to forget")
		}
		if _, err := s.ForgetSubject(ctx, "test", p.ID, "u1"); err != nil {
			t.Fatal(err)
		}
		if got := embeddingCount(t, s, "subject_id = 'u1' OR (kind = 'rule' AND item_id = ?)", nap); got != 0 {
			t.Errorf("%d vectors of the forgotten subject left", got)
		}
		if got := embeddingCount(t, s, "kind = 'rule' AND item_id = ?", linter); got != 1 {
			t.Errorf("project-wide rule's vector: %d", got)
		}
	})
}
