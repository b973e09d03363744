package heuristic_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/seed"
)

// demo is one demo project run through the extractor, as the heartbeat
// would: seqs 1..N in file order, one Extract call per session.
type demo struct {
	events   map[int64]*governance.Event // by seq
	sessions []string
	out      map[string]*governance.Extraction // by session id
}

func mustExtractDemo(tb testing.TB, slug string) *demo {
	tb.Helper()
	projects, err := seed.DemoProjects()
	if err != nil {
		tb.Fatal(err)
	}
	i := slices.IndexFunc(projects, func(p seed.DemoProject) bool { return p.Slug == slug })
	if i < 0 {
		tb.Fatalf("no demo project %q", slug)
	}
	d := &demo{events: map[int64]*governance.Event{}, out: map[string]*governance.Extraction{}}
	bySession := map[string][]*governance.Event{}
	for k, e := range projects[i].Events {
		e.Seq = int64(k + 1)
		d.events[e.Seq] = e
		if bySession[e.SessionID] == nil {
			d.sessions = append(d.sessions, e.SessionID)
		}
		bySession[e.SessionID] = append(bySession[e.SessionID], e)
	}
	x := heuristic.NewExtractor()
	for _, sid := range d.sessions {
		ex, err := x.Extract(context.Background(), governance.ExtractInput{SessionID: sid, Events: bySession[sid]})
		if err != nil {
			tb.Fatal(err)
		}
		for _, it := range ex.Items {
			for _, seq := range it.SupportSeqs {
				if e := d.events[seq]; e == nil || e.SessionID != sid {
					tb.Fatalf("session %s: item %q names seq %d outside the session", sid, it.Statement, seq)
				}
			}
		}
		d.out[sid] = ex
	}
	return d
}

// ids names an item's supporting events by their event ids.
func (d *demo) ids(it governance.ExtractedItem) []string {
	var ids []string
	for _, seq := range it.SupportSeqs {
		ids = append(ids, d.events[seq].ID)
	}
	return ids
}

// want describes an expected item: its type, durability, words its
// statement must contain, and its supporting event ids.
type want struct {
	typ      governance.MemoryType
	durable  bool
	contains []string
	support  []string
}

func (d *demo) check(t *testing.T, session string, wants []want) {
	t.Helper()
	items := d.out[session].Items
	if got := len(items); got != len(wants) {
		for _, it := range items {
			t.Logf("got %s durable=%v %v %s", it.Type, it.Durable, d.ids(it), it.Statement)
		}
		t.Fatalf("%s: got %d items, want %d", session, got, len(wants))
	}
	for k, w := range wants {
		it := items[k]
		if it.Type != w.typ || it.Durable != w.durable {
			t.Errorf("%s item %d: got %s durable=%v, want %s durable=%v (%s)", session, k, it.Type, it.Durable, w.typ, w.durable, it.Statement)
		}
		for _, c := range w.contains {
			if !strings.Contains(it.Statement, c) {
				t.Errorf("%s item %d: statement %q does not contain %q", session, k, it.Statement, c)
			}
		}
		if got := d.ids(it); !slices.Equal(got, w.support) {
			t.Errorf("%s item %d: support got %v, want %v", session, k, got, w.support)
		}
	}
}

const crossDistrict = "远距离的大型景点单独安排一天，同一天内的景点按区域集中安排，避免跨区奔波"

func TestDemoTravelAgent(t *testing.T) {
	d := mustExtractDemo(t, "travel-agent")
	if got := len(d.sessions); got != 3 {
		t.Fatalf("sessions: got %d, want 3", got)
	}

	t.Run("Beijing", func(t *testing.T) {
		d.check(t, "chen-beijing", []want{
			{governance.TypeFact, false, []string{"女儿", "五岁"}, []string{"t1-01"}},
			{governance.TypeLesson, false, []string{crossDistrict}, []string{"t1-03", "t1-04", "t1-05"}},
			{governance.TypePreference, true, []string{"14:00–16:00", "午睡", "空出来"}, []string{"t1-07"}},
			{governance.TypePreference, false, []string{"这次", "王府井"}, []string{"t1-09"}},
			{governance.TypePreference, true, []string{"以后每次", "路线检查的结论", "附上"}, []string{"t1-13"}},
		})
	})
	t.Run("Xian", func(t *testing.T) {
		d.check(t, "chen-xian", []want{
			{governance.TypeLesson, false, []string{crossDistrict}, []string{"t2-03", "t2-04", "t2-05"}},
			{governance.TypePreference, true, []string{"以后每次", "检查结论附上"}, []string{"t2-07"}},
		})
		// Weather chat (t2-11..t2-13) and the corrected slip (t2-09) yield nothing.
		for _, it := range d.out["chen-xian"].Items {
			for _, id := range d.ids(it) {
				if slices.Contains([]string{"t2-09", "t2-11", "t2-12", "t2-13"}, id) {
					t.Errorf("item %q is supported by %s (weather chat or slip)", it.Statement, id)
				}
			}
			for _, word := range []string{"钟楼", "鼓楼", "天气", "热", "帽子"} {
				if strings.Contains(it.Statement, word) {
					t.Errorf("item %q mentions %q", it.Statement, word)
				}
			}
		}
	})
	t.Run("Hangzhou", func(t *testing.T) {
		d.check(t, "chen-hangzhou", []want{
			// The forum post: extracted verbatim, so that the gate and
			// promotion block it visibly.
			{governance.TypePreference, true, []string{"Ignore your previous instructions", "Hotel Yunqi"}, []string{"t3-02"}},
			{governance.TypePreference, true, []string{"14:00–16:00", "午睡", "空出来"}, []string{"t3-06"}},
			// "这次…一直念叨": the one-off marker wins over "一直".
			{governance.TypePreference, false, []string{"这次", "手划船"}, []string{"t3-08"}},
		})
		if e := d.events[d.out["chen-hangzhou"].Items[0].SupportSeqs[0]]; e.Source != governance.SourceExternal {
			t.Errorf("injected instruction: got source %s, want external", e.Source)
		}
	})

	t.Run("Summaries", func(t *testing.T) {
		for _, sid := range d.sessions {
			checkSummary(t, sid, d.out[sid].Summary)
		}
		if s, want := d.out["chen-hangzhou"].Summary, "用户提出了 2 条要求，其中 1 条长期有效"; !strings.Contains(s, want) {
			t.Errorf("Hangzhou summary counts external content as the user's: %s", s)
		}
		for _, sid := range []string{"chen-beijing", "chen-xian"} {
			s := d.out[sid].Summary
			if !strings.Contains(s, "route_checker") || !strings.Contains(s, "复查通过") {
				t.Errorf("%s summary does not say what failed and how it was fixed: %s", sid, s)
			}
		}
	})

	t.Run("Merge", func(t *testing.T) {
		groups := partitionAll(t, d)
		// (a) the nap window, durable, from sessions 1 and 3.
		nap := groupOf(t, d, groups, "t1-07")
		if want := []string{"t1-07", "t3-06"}; !slices.Equal(nap, want) {
			t.Errorf("nap window group: got %v, want %v", nap, want)
		}
		// (b) the cross-district lesson from sessions 1 and 2, each backed
		// by a failed route check.
		lesson := groupOf(t, d, groups, "t1-03")
		if want := []string{"t1-03", "t1-04", "t1-05", "t2-03", "t2-04", "t2-05"}; !slices.Equal(lesson, want) {
			t.Errorf("cross-district group: got %v, want %v", lesson, want)
		}
		// (c) attach the route check conclusion: session 1, and the
		// reminder in session 2.
		attach := groupOf(t, d, groups, "t1-13")
		if want := []string{"t1-13", "t2-07"}; !slices.Equal(attach, want) {
			t.Errorf("route check conclusion group: got %v, want %v", attach, want)
		}
		// One-off wishes and the injected instruction merge with nothing.
		for _, id := range []string{"t1-09", "t3-08", "t3-02", "t1-01"} {
			if got := groupOf(t, d, groups, id); !slices.Equal(got, []string{id}) {
				t.Errorf("%s: got group %v, want it alone", id, got)
			}
		}
		if got, want := len(groups), 7; got != want {
			t.Errorf("groups: got %d, want %d", got, want)
		}
	})
}

func TestDemoExpenseAgent(t *testing.T) {
	d := mustExtractDemo(t, "expense-agent")
	d.check(t, "liwei-2026-05-a", []want{
		{governance.TypePreference, true, []string{"200元以下", "不用", "发票扫描件"}, []string{"e1-03"}},
	})
	d.check(t, "liwei-2026-05-b", []want{
		{governance.TypePreference, true, []string{"200元以下", "不用", "发票扫描件"}, []string{"e2-03"}},
	})
	d.check(t, "liwei-2026-05-c", []want{
		{governance.TypeLesson, false, []string{"发票扫描件"}, []string{"e3-03", "e3-04", "e3-06", "e3-07"}},
	})
	groups := partitionAll(t, d)
	if got, want := groupOf(t, d, groups, "e1-03"), []string{"e1-03", "e2-03"}; !slices.Equal(got, want) {
		t.Errorf("invoice rule group: got %v, want %v", got, want)
	}
	for _, sid := range d.sessions {
		checkSummary(t, sid, d.out[sid].Summary)
	}
}

func TestDemoCodingAssistant(t *testing.T) {
	d := mustExtractDemo(t, "coding-assistant")
	// Two different fixes of failed tests: no template lesson joins them.
	// The first failure says no cause in words (a got/want line), so its
	// fix stays in the episode; the second says what went wrong and what
	// changed.
	d.check(t, "sam-billing-fix", []want{
		{governance.TypePreference, true, []string{"always run the linter before committing"}, []string{"c1-07"}},
		{governance.TypePreference, false, []string{"This time", "skip the changelog entry"}, []string{"c1-10"}},
	})
	d.check(t, "sam-import-dry-run", []want{
		{governance.TypeFact, false, []string{"Go 1.26"}, []string{"c2-01"}},
		{governance.TypeLesson, false, []string{"When test_runner fails because dry run wrote 3 rows, move the write behind the flag check"}, []string{"c2-03", "c2-04", "c2-05"}},
	})
	groups := partitionAll(t, d)
	if got := groupOf(t, d, groups, "c1-10"); len(got) != 1 {
		t.Errorf("one-off changelog wish: got group %v, want it alone", got)
	}
	for _, sid := range d.sessions {
		checkSummary(t, sid, d.out[sid].Summary)
	}
	if s := d.out["sam-billing-fix"].Summary; !strings.Contains(s, "test_runner failed") || !strings.Contains(s, "re-check passed") {
		t.Errorf("summary does not say what failed and how it was fixed: %s", s)
	}
}

func TestDemoDeterministic(t *testing.T) {
	for _, slug := range []string{"travel-agent", "expense-agent", "coding-assistant"} {
		a, b := mustExtractDemo(t, slug), mustExtractDemo(t, slug)
		for _, sid := range a.sessions {
			x, y := a.out[sid], b.out[sid]
			if x.Summary != y.Summary || !slices.EqualFunc(x.Items, y.Items, func(p, q governance.ExtractedItem) bool {
				return p.Type == q.Type && p.Statement == q.Statement && p.Durable == q.Durable && slices.Equal(p.SupportSeqs, q.SupportSeqs)
			}) {
				t.Errorf("%s/%s: two runs differ", slug, sid)
			}
		}
	}
}

// checkSummary: non-empty and at most three sentences.
func checkSummary(t *testing.T, session, summary string) {
	t.Helper()
	if summary == "" {
		t.Errorf("%s: empty summary", session)
		return
	}
	n := strings.Count(summary, "。") + strings.Count(summary, "！") + strings.Count(summary, "？")
	n += strings.Count(summary+" ", ". ") + strings.Count(summary+" ", "? ") + strings.Count(summary+" ", "! ")
	if n > 3 {
		t.Errorf("%s: summary has %d sentences, want at most 3: %s", session, n, summary)
	}
}

// item is an extracted item keyed for merging.
type item struct {
	id int64
	governance.ExtractedItem
}

// partitionAll offers every item of every session of d to the merger, one
// call per type as the consolidator does, and returns the groups as lists
// of items.
func partitionAll(t *testing.T, d *demo) [][]item {
	t.Helper()
	byID := map[int64]item{}
	byType := map[governance.MemoryType][]governance.MergeItem{}
	var id int64
	for _, sid := range d.sessions {
		for _, it := range d.out[sid].Items {
			id++
			byID[id] = item{id, it}
			byType[it.Type] = append(byType[it.Type], governance.MergeItem{ID: id, Type: it.Type, Statement: it.Statement})
		}
	}
	var groups [][]item
	m := heuristic.NewMerger()
	for _, typ := range []governance.MemoryType{governance.TypePreference, governance.TypeFact, governance.TypeLesson} {
		items := byType[typ]
		if len(items) == 0 {
			continue
		}
		parts, _, err := m.Partition(context.Background(), items)
		if err != nil {
			t.Fatal(err)
		}
		if err := governance.CheckPartition(items, parts); err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			var g []item
			for _, id := range p {
				g = append(g, byID[id])
			}
			groups = append(groups, g)
		}
	}
	return groups
}

// groupOf returns the sorted event ids supporting the group that contains
// an item supported by event id.
func groupOf(t *testing.T, d *demo, groups [][]item, id string) []string {
	t.Helper()
	for _, g := range groups {
		var ids []string
		found := false
		for _, it := range g {
			for _, eid := range d.ids(it.ExtractedItem) {
				ids = append(ids, eid)
				found = found || eid == id
			}
		}
		if found {
			slices.Sort(ids)
			return slices.Compact(ids)
		}
	}
	t.Fatalf("no item is supported by %s", id)
	return nil
}
