package heuristic

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// naivePartition is the textbook average-linkage clustering that Partition
// speeds up: scan every pair for the best merge, every time.
func naivePartition(items []governance.MergeItem, threshold float64) [][]int64 {
	n := len(items)
	sim := make([][]float64, n)
	for i := range sim {
		sim[i] = make([]float64, n)
		for j := range sim[i] {
			sim[i][j] = -1
			if i != j && items[i].Type == items[j].Type {
				sim[i][j] = Similarity(items[i].Statement, items[j].Statement)
			}
		}
	}
	// The same pairs lifted or kept apart as Partition does.
	anchorPairs(items, sim, QuotedAnchors, threshold)
	outputPairs(items, sim, threshold)
	oneOffsApart(items, sim)
	members := make([][]int, n)
	for i := range members {
		members[i] = []int{i}
	}
	for {
		bi, bj, best := -1, -1, threshold
		for i := range n {
			for j := i + 1; j < n; j++ {
				if members[i] != nil && members[j] != nil && sim[i][j] >= best && (bi < 0 || sim[i][j] > best) {
					bi, bj, best = i, j, sim[i][j]
				}
			}
		}
		if bi < 0 {
			break
		}
		wi, wj := float64(len(members[bi])), float64(len(members[bj]))
		for k := range n {
			if members[k] != nil && k != bi && k != bj {
				v := -1.0
				if sim[bi][k] >= 0 && sim[bj][k] >= 0 {
					v = (wi*sim[bi][k] + wj*sim[bj][k]) / (wi + wj)
				}
				sim[bi][k], sim[k][bi] = v, v
			}
		}
		members[bi] = append(members[bi], members[bj]...)
		members[bj] = nil
	}
	var groups [][]int64
	for _, ms := range members {
		if ms != nil {
			g := make([]int64, 0, len(ms))
			for _, idx := range ms {
				g = append(g, items[idx].ID)
			}
			slices.Sort(g)
			groups = append(groups, g)
		}
	}
	slices.SortFunc(groups, func(a, b []int64) int { return int(a[0] - b[0]) })
	return groups
}

func TestPartitionMatchesNaive(t *testing.T) {
	words := []string{"以后每次", "出行程", "都把", "路线检查", "的结论", "附上", "孩子", "14:00–16:00", "午睡", "空出来", "预算明细", "酒店", "早餐", "run the linter", "before committing", "tests", "always", "王府井", "附近"}
	types := []governance.MemoryType{governance.TypePreference, governance.TypeLesson}
	r := rand.New(rand.NewPCG(7, 11))
	merged := 0
	for round := range 30 {
		var items []governance.MergeItem
		for k := range 40 {
			st := ""
			for range 2 + r.IntN(4) {
				st += words[r.IntN(len(words))]
			}
			items = append(items, governance.MergeItem{ID: int64(k*7%41 - 20), Type: types[r.IntN(2)], Statement: st})
		}
		slices.SortFunc(items, func(a, b governance.MergeItem) int { return int(a.ID - b.ID) })
		got, _, err := NewMerger().Partition(context.Background(), items)
		if err != nil {
			t.Fatal(err)
		}
		if want := naivePartition(items, DefaultThreshold); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: got %v, want %v", round, got, want)
		}
		merged += len(items) - len(got)
	}
	if merged < 100 {
		t.Errorf("only %d merges in all rounds; the comparison is too weak", merged)
	}
}

// TestSimilaritiesMatchDice checks the inverted-index similarities
// against dice on every pair, exactly: same type, other type, empty
// statements, Chinese and English.
func TestSimilaritiesMatchDice(t *testing.T) {
	statements := []string{"", "Always run the linter before committing.", "run the linter before every commit", "以后每次出行程都把路线检查的结论附上",
		"出行程都把路线检查的结论附上", "孩子 14:00–16:00 午睡，行程要空出来", "预算明细附在最后", "the the the", "酒店早餐", "王府井附近的酒店"}
	types := []governance.MemoryType{governance.TypePreference, governance.TypeLesson}
	var items []governance.MergeItem
	var feats [][]uint64
	for _, st := range statements {
		for _, ty := range types {
			items = append(items, governance.MergeItem{ID: int64(len(items)), Type: ty, Statement: st})
			feats = append(feats, featurize(st))
		}
	}
	sim := similarities(items, feats)
	for i := range items {
		for j := range items {
			want := -1.0
			switch {
			case i == j:
				want = 0
			case items[i].Type == items[j].Type:
				want = dice(feats[i], feats[j])
			}
			if sim[i][j] != want {
				t.Errorf("%q / %q: got %v, want %v", items[i].Statement, items[j].Statement, sim[i][j], want)
			}
		}
	}
}
