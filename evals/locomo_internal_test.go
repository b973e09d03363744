package evals

import (
	"math"
	"testing"
)

func TestNDCG(t *testing.T) {
	for _, tc := range []struct {
		ranks []int
		want  float64
	}{
		{[]int{1}, 1},
		{[]int{2}, 1 / math.Log2(3)},
		{[]int{0}, 0},
		{[]int{0, 1}, 1 / (1 + 1/math.Log2(3))},
		{[]int{2, 1}, 1},
		{[]int{11}, 0},
	} {
		if got := ndcg(tc.ranks, 10); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ndcg(%v) = %v, want %v", tc.ranks, got, tc.want)
		}
	}
	row := metricRow("x", "overall", []int{1, 5}, []QAResult{{Ranks: []int{1, 0}}, {Ranks: []int{3}}, {Ranks: []int{0}}})
	if row.HitAt[0].Value != 0.333 || row.HitAt[1].Value != 0.667 || row.AllAt[1].Value != 0.333 {
		t.Fatalf("row = %+v", row)
	}
}
