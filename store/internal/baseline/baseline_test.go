package baseline_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mnemo-console/mnemo/store/internal/baseline"
)

// TestFTS5: the reference finds documents by any of the query's words,
// best bm25 first, and removes its files when closed.
func TestFTS5(t *testing.T) {
	ctx := context.Background()
	b, err := baseline.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ctx, []string{"a", "b", "c"}, []string{
		"we take the train to the lake",
		"trains and trains and more trains",
		"a hotel near the museum",
	}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Search(ctx, "Train? museum!", 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Fatalf("search = %v, want c (the rarer word), b (train three times), a (once, in a longer text)", got)
	}
	if got, _ := b.Search(ctx, "?!", 10); got != nil {
		t.Fatalf("search without words = %v, want nothing", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}
