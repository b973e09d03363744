package heuristic_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic"
)

func TestSimilarityThreshold(t *testing.T) {
	th := heuristic.DefaultThreshold
	t.Run("MustMerge", func(t *testing.T) {
		for _, p := range [][2]string{
			// The demo's paraphrases across sessions.
			{"孩子每天14:00–16:00要午睡，以后不管去哪儿玩，这个时间段都给她空出来", "14:00–16:00孩子要午睡，这段时间都空出来"},
			{"以后每次给用户出行程方案，都把路线检查的结论一起附上，这样用户心里有底", "以后每次出行程都要把检查结论附上"},
			{"以后200元以下的报销都不用找用户要发票扫描件，直接提交就行", "200元以下的报销都不用发票扫描件"},
			// Times and amounts are compared in one canonical form.
			{"下午两点到四点孩子午睡，这段时间空出来", "孩子14:00-16:00午睡，这段时间空出来"},
			{"200块以下的报销不用发票扫描件", "200元以下报销不用发票扫描件"},
			// English: inflections and stop words do not matter.
			{"From now on, always run the linter before committing", "Run the linter before every commit"},
			{"Always run golangci-lint before committing", "Run golangci-lint before you commit"},
			{"Keep 2-4pm free for the kid's nap", "Keep 14:00-16:00 free for the kid's nap, always"},
			// A rule text and the candidate it came from.
			{"远距离的大型景点单独安排一天，同一天内的景点按区域集中安排，避免跨区奔波", "远距离的大型景点单独安排一天，同一天的景点按区域集中安排"},
		} {
			if s := heuristic.Similarity(p[0], p[1]); s < th {
				t.Errorf("%.3f < %.2f: %q / %q", s, th, p[0], p[1])
			}
		}
	})
	t.Run("MustNotMerge", func(t *testing.T) {
		for _, p := range [][2]string{
			{"孩子每天14:00–16:00要午睡，以后不管去哪儿玩，这个时间段都给她空出来", "以后每次给用户出行程方案，都把路线检查的结论一起附上"},
			{"用户这次想住王府井附近，晚上带孩子出去逛逛、吃点东西都方便", "用户这次想坐一趟西湖的手划船，孩子在视频里看到过，一直念叨"},
			{"用户这次想住王府井附近，晚上带孩子出去逛逛", "用户这次想住西湖边，晚上散步方便"},
			// Same frame, different instruction.
			{"以后每次出行程都把路线检查的结论附上", "以后每次出行程都把预算明细附上"},
			{"以后200元以下的报销都不用发票扫描件", "以后500元以上的报销都要部门经理审批"},
			{"Always run the linter before committing", "Always run the tests before pushing"},
			{"From now on, always run the linter before committing", "This time, skip the changelog entry"},
			{"Keep 14:00–16:00 free for the nap", "Book dinner at 18:00 near the hotel"},
			// Markers alone are not meaning.
			{"以后每次都要早点出发", "以后每次都要订含早餐的酒店"},
			// Different languages never merge.
			{"以后每次都把路线检查的结论附上", "Always attach the route check result"},
		} {
			if s := heuristic.Similarity(p[0], p[1]); s >= th {
				t.Errorf("%.3f >= %.2f: %q / %q", s, th, p[0], p[1])
			}
		}
	})
	t.Run("Bounds", func(t *testing.T) {
		if s := heuristic.Similarity("以后每次都把路线检查的结论附上", "以后每次都把路线检查的结论附上"); s != 1 {
			t.Errorf("identical: got %v, want 1", s)
		}
		if s := heuristic.Similarity("", "anything"); s != 0 {
			t.Errorf("empty: got %v, want 0", s)
		}
	})
}

func TestPartition(t *testing.T) {
	items := []governance.MergeItem{
		{ID: -3, Type: governance.TypePreference, Statement: "以后每次出行程都要把检查结论附上"},
		{ID: 7, Type: governance.TypePreference, Statement: "14:00–16:00孩子要午睡，这段时间都空出来"},
		{ID: -1, Type: governance.TypePreference, Statement: "孩子每天下午两点到四点要午睡，以后不管去哪儿玩，这个时间段都给她空出来"},
		{ID: 1 << 40, Type: governance.TypePreference, Statement: "以后每次给用户出行程方案，都把路线检查的结论一起附上"},
		{ID: -2, Type: governance.TypePreference, Statement: "用户这次想住王府井附近"},
		// Same words, another type: never in the same group.
		{ID: 9, Type: governance.TypeFact, Statement: "14:00–16:00孩子要午睡，这段时间都空出来"},
	}
	want := [][]int64{{-3, 1 << 40}, {-2}, {-1, 7}, {9}}

	t.Run("OK", func(t *testing.T) {
		got, tokens, err := heuristic.NewMerger().Partition(context.Background(), items)
		if err != nil {
			t.Fatal(err)
		}
		if err := governance.CheckPartition(items, got); err != nil {
			t.Fatal(err)
		}
		if tokens != 0 {
			t.Errorf("tokens: got %d, want 0", tokens)
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("OrderIndependent", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for range 20 {
			shuffled := slices.Clone(items)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			got, _, err := (&heuristic.Merger{}).Partition(context.Background(), shuffled)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("order %v: got %v, want %v", shuffled, got, want)
			}
		}
	})
	t.Run("Threshold", func(t *testing.T) {
		got, _, err := (&heuristic.Merger{Threshold: 0.99}).Partition(context.Background(), items)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(items) {
			t.Errorf("threshold 0.99: got %v, want every item alone", got)
		}
	})
	t.Run("NoChaining", func(t *testing.T) {
		// B is close to both A and C, but A and C are unrelated: average
		// linkage keeps C out of A's group.
		chain := []governance.MergeItem{
			{ID: 1, Type: governance.TypeLesson, Statement: "远距离的景点单独安排一天"},
			{ID: 2, Type: governance.TypeLesson, Statement: "远距离的景点单独安排一天，同一天的景点按区域集中"},
			{ID: 3, Type: governance.TypeLesson, Statement: "同一天的景点按区域集中，中午回酒店休息"},
		}
		got, _, err := heuristic.NewMerger().Partition(context.Background(), chain)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Errorf("got %v, want two groups", got)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		got, _, err := heuristic.NewMerger().Partition(context.Background(), nil)
		if err != nil || len(got) != 0 {
			t.Errorf("got %v, %v", got, err)
		}
	})
}

// TestPartitionOutputRequests: restatements of one wish about the agent's
// answers are one group however worded; the same aspect with another value
// is a correction, never merged; different aspects stay apart.
func TestPartitionOutputRequests(t *testing.T) {
	pref := func(id int64, s string) governance.MergeItem {
		return governance.MergeItem{ID: id, Type: governance.TypePreference, Statement: s}
	}
	for _, tc := range []struct {
		name  string
		items []governance.MergeItem
		want  [][]int64
	}{
		{"SignOff", []governance.MergeItem{
			pref(1, "Sign it 'Warm regards, the team'"),
			pref(2, "Swap my name at the bottom for 'Warm regards, the team'"),
			pref(3, "The sign-off should be 'Warm regards, the team'"),
			pref(4, "The sign-off should be 'Best'"),
		}, [][]int64{{1, 2, 3}, {4}}},
		{"Numbering", []governance.MergeItem{
			pref(1, "Number the steps"),
			pref(2, "Can you number the steps for me"),
			pref(3, "The steps should be numbered"),
			pref(4, "Use bullet points for the summary"),
		}, [][]int64{{1, 2, 3}, {4}}},
		{"Units", []governance.MergeItem{
			pref(1, "Give the quantities in grams, not cups"),
			pref(2, "Use grams for the ingredients please"),
			pref(3, "Give the quantities in cups"),
		}, [][]int64{{1, 2}, {3}}},
		{"Length", []governance.MergeItem{
			pref(1, "Keep the workout summary under 100 words"),
			pref(2, "Make the summary shorter, 100 words max"),
			pref(3, "Keep the workout summary under 200 words"),
		}, [][]int64{{1, 2}, {3}}},
		{"落款", []governance.MergeItem{
			pref(1, "落款写“王老师”"),
			pref(2, "署名用“王老师”"),
			pref(3, "结尾署名还是“王老师”"),
			pref(4, "落款写“李老师”"),
		}, [][]int64{{1, 2, 3}, {4}}},
		{"Include", []governance.MergeItem{
			pref(1, "每道菜都附上热量"),
			pref(2, "菜谱里要标出热量"),
			pref(3, "每道菜都附上价格"),
		}, [][]int64{{1, 2}, {3}}},
		{"Omit", []governance.MergeItem{
			pref(1, "Leave out the hotel prices"),
			pref(2, "Skip the hotel prices, please"),
			pref(3, "Leave out the flight times"),
		}, [][]int64{{1, 2}, {3}}},
		// A tone said more fully is the same wish; another tone corrects it.
		{"Tone", []governance.MergeItem{
			pref(1, "Keep the tone calm when you write to clients"),
			pref(2, "A calm, neutral tone please"),
			pref(3, "Write in a calm tone"),
			pref(4, "A cheerful tone please"),
		}, [][]int64{{1, 2, 3}, {4}}},
		{"语气", []governance.MergeItem{
			pref(1, "语气礼貌一些"),
			pref(2, "请用礼貌、正式的语气回复"),
			pref(3, "语气随意一点"),
		}, [][]int64{{1, 2}, {3}}},
		// A date format is the order of its parts, however written.
		{"DateOrder", []governance.MergeItem{
			pref(1, "Write dates as day, month, year"),
			pref(2, "Use dd/mm/yyyy for dates please"),
			pref(3, "Dates in day-month-year order"),
			pref(4, "Use yyyy-mm-dd for dates"),
			pref(5, "日期用年月日"),
		}, [][]int64{{1, 2, 3}, {4, 5}}},
		// A one-off said again is another one-off: no group to repeat it.
		{"OneOff", []governance.MergeItem{
			pref(1, "For this one, keep it under 50 words"),
			pref(2, "For this one, keep it under 50 words"),
			pref(3, "Keep the summary under 50 words"),
			pref(4, "用户这次想住西湖边"),
			pref(5, "用户这次想住西湖边"),
		}, [][]int64{{1}, {2}, {3}, {4}, {5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := heuristic.NewMerger().Partition(context.Background(), tc.items)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
