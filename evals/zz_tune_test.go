package evals_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
	"github.com/mnemo-console/mnemo/store"
)

type tuneQ struct {
	Project  int64
	Subject  string
	ID, Type string
	Question string
	Date     time.Time
	Evidence []string
	Answer   map[string]time.Time
	Abs      bool
}

func tuneStore(t *testing.T, name string, build func(ctx context.Context, st *store.Store) []tuneQ) (*store.Store, []tuneQ) {
	ctx := context.Background()
	dbp := "/tmp/lmetune/" + name + ".db"
	meta := "/tmp/lmetune/" + name + ".json"
	_, err := os.Stat(meta)
	st, err2 := store.Open(ctx, dbp)
	if err2 != nil {
		t.Fatal(err2)
	}
	t.Cleanup(func() { st.Close() })
	var qs []tuneQ
	if err == nil {
		b, _ := os.ReadFile(meta)
		json.Unmarshal(b, &qs)
		return st, qs
	}
	qs = build(ctx, st)
	b, _ := json.Marshal(qs)
	os.WriteFile(meta, b, 0o644)
	return st, qs
}

func buildLME(ctx context.Context, st *store.Store) []tuneQ {
	f, _ := os.Open("/work/shared/data/longmemeval/longmemeval-s-dev.json.gz")
	defer f.Close()
	r, err := evals.NewLMEReader(f)
	if err != nil {
		panic(err)
	}
	var out []tuneQ
	for {
		q, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		p := &governance.Project{Slug: fmt.Sprintf("q%d", q.Index), Name: "q", Scratch: true}
		if err := st.CreateProject(ctx, p); err != nil {
			panic(err)
		}
		evs, evidence, _ := q.Memory()
		for i := 0; i < len(evs); i += 1000 {
			if _, err := st.IngestEvents(ctx, p.ID, evs[i:min(len(evs), i+1000)]); err != nil {
				panic(err)
			}
		}
		tq := tuneQ{Project: p.ID, Subject: q.ID, ID: q.ID, Type: q.Type, Question: q.Question, Date: q.Date, Evidence: evidence, Answer: map[string]time.Time{}, Abs: q.Abstention()}
		for _, s := range q.Sessions {
			if slices.Contains(q.AnswerSessions, s.ID) && !s.At.After(q.Date) {
				tq.Answer[s.ID] = s.At
			}
		}
		out = append(out, tq)
	}
	return out
}

func buildLoCoMo(ctx context.Context, st *store.Store) []tuneQ {
	f, _ := os.Open("/work/shared/data/locomo/locomo-dev.json")
	defer f.Close()
	convs, err := evals.ParseLoCoMo(f)
	if err != nil {
		panic(err)
	}
	p := &governance.Project{Slug: "locomo", Name: "q", Scratch: true}
	if err := st.CreateProject(ctx, p); err != nil {
		panic(err)
	}
	var out []tuneQ
	for _, c := range convs {
		evs := c.Events()
		if _, err := st.IngestEvents(ctx, p.ID, evs); err != nil {
			panic(err)
		}
		for _, qa := range c.QA {
			if len(qa.Evidence) == 0 {
				continue
			}
			tq := tuneQ{Project: p.ID, Subject: c.ID, ID: c.ID, Type: evals.CategoryName(qa.Category), Question: qa.Question}
			for _, e := range qa.Evidence {
				tq.Evidence = append(tq.Evidence, c.ID+"/"+e)
			}
			out = append(out, tq)
		}
	}
	return out
}

type tuneIn struct {
	req governance.RecallRequest
	in  *governance.RecallInput
}

func loadInputs(t *testing.T, st *store.Store, qs []tuneQ) []tuneIn {
	ctx := context.Background()
	out := make([]tuneIn, len(qs))
	for i, q := range qs {
		req := governance.RecallRequest{Task: q.Question, ProjectID: q.Project, SubjectID: q.Subject, Preview: true, AsOf: q.Date,
			IncludeEvents: true, Budget: governance.Budget{Total: governance.MaxRecallTotal, PerItem: governance.MaxRecallTotal / 50}}
		req.Normalize()
		in, err := st.LoadRecallInput(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if q.Date.IsZero() && os.Getenv("LOCOMO_ASOF") != "" {
			var last time.Time
			for _, e := range in.Events {
				if e.Event.OccurredAt.After(last) {
					last = e.Event.OccurredAt
				}
			}
			req.AsOf = last.Add(24 * time.Hour)
		}
		out[i] = tuneIn{req, in}
	}
	return out
}

type agg struct {
	n                                 int
	h1, h5, h10, a5, a10, nd, kuN, kuOK float64
}

func tuneScore(qs []tuneQ, ins []tuneIn, w governance.RecallWeights, detail bool) map[string]*agg {
	res := map[string]*agg{}
	add := func(k string) *agg {
		if res[k] == nil {
			res[k] = &agg{}
		}
		return res[k]
	}
	for i, q := range qs {
		if q.Abs || len(q.Evidence) == 0 {
			continue
		}
		pkg := recall.Recall(ins[i].req, *ins[i].in, w)
		var ids []string
		for _, it := range pkg.Items {
			if it.Source.EventID != "" {
				ids = append(ids, it.Source.EventID)
			}
		}
		ranks := []int{}
		for _, e := range q.Evidence {
			ranks = append(ranks, slices.Index(ids[:min(10, len(ids))], e)+1)
		}
		f := func(k int) (hit, all bool) {
			n := 0
			for _, r := range ranks {
				if r > 0 && r <= k {
					n++
				}
			}
			return n > 0, n == len(ranks)
		}
		var dcg, idcg float64
		for _, r := range ranks {
			if r > 0 {
				dcg += 1 / math.Log2(float64(r)+1)
			}
		}
		for j := 1; j <= min(10, len(ranks)); j++ {
			idcg += 1 / math.Log2(float64(j)+1)
		}
		for _, k := range []string{"overall", q.Type} {
			a := add(k)
			a.n++
			h, _ := f(1)
			h5, a5 := f(5)
			h10, a10 := f(10)
			a.h1 += b2f(h)
			a.h5 += b2f(h5)
			a.h10 += b2f(h10)
			a.a5 += b2f(a5)
			a.a10 += b2f(a10)
			a.nd += dcg / idcg
		}
		if q.Type == "knowledge-update" && len(q.Answer) > 1 {
			var sess []string
			for _, id := range ids {
				s := id[:strings.LastIndexByte(id, '/')]
				if !slices.Contains(sess, s) {
					sess = append(sess, s)
				}
			}
			keys := []string{}
			for k := range q.Answer {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(a, b int) bool { return q.Answer[keys[a]].Before(q.Answer[keys[b]]) })
			newest := slices.Index(sess, keys[len(keys)-1])
			ok := newest >= 0
			for _, k := range keys[:len(keys)-1] {
				if j := slices.Index(sess, k); j >= 0 && j < newest {
					ok = false
				}
			}
			a := add("overall")
			a.kuN++
			a.kuOK += b2f(ok)
		}
		if os.Getenv("TOP") != "" && (os.Getenv("TOP") == q.Type || os.Getenv("TOP") == "all") {
			fmt.Printf("\n### %s %s %q ranks=%v\n", q.Type, q.ID, q.Question, ranks)
			byID := map[string]*governance.Event{}
			for _, e := range ins[i].in.Events {
				byID[e.Event.ID] = e.Event
			}
			for j, id := range ids[:min(5, len(ids))] {
				e := byID[id]
				mark := " "
				if slices.Contains(q.Evidence, id) {
					mark = "*"
				}
				txt := strings.Join(strings.Fields(e.Text), " ")
				fmt.Printf("  %s%d %-9s len=%5d score=%.3f %s %.150s\n", mark, j+1, e.Role, len(e.Text), pkg.Items[j].Score, e.OccurredAt.Format("01-02"), txt)
			}
			for _, ev := range q.Evidence {
				if e := byID[ev]; e != nil && !slices.Contains(ids[:min(5, len(ids))], ev) {
					fmt.Printf("  *? rank=%d %s len=%d %s %.150s\n", slices.Index(ids, ev)+1, e.Role, len(e.Text), e.OccurredAt.Format("01-02"), strings.Join(strings.Fields(e.Text), " "))
				}
			}
		}
		if detail {
			h5, a10 := f(5)
			_, a := f(10)
			_ = a10
			fmt.Printf("%-28s %-14s hit5=%v all10=%v ranks=%v %q\n", q.Type, q.ID, h5, a, ranks, q.Question)
		}
	}
	return res
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func printAgg(label string, res map[string]*agg) {
	keys := []string{}
	for k := range res {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Printf("== %s\n", label)
	for _, k := range keys {
		a := res[k]
		n := float64(a.n)
		ku := ""
		if a.kuN > 0 {
			ku = fmt.Sprintf(" newest-first %.3f (%d)", a.kuOK/a.kuN, int(a.kuN))
		}
		fmt.Printf("  %-26s n=%3d hit1 %.3f hit5 %.3f hit10 %.3f all5 %.3f all10 %.3f ndcg %.3f%s\n", k, a.n, a.h1/n, a.h5/n, a.h10/n, a.a5/n, a.a10/n, a.nd/n, ku)
	}
}

func TestZZTune(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	for _, set := range strings.Split(os.Getenv("TUNE"), ",") {
		build := buildLME
		if set == "locomo" {
			build = buildLoCoMo
		}
		st, qs := tuneStore(t, set, build)
		ins := loadInputs(t, st, qs)
		w := governance.DefaultRecallWeights()
		if os.Getenv("CAND") != "" {
			miss, tot, prevQ := 0, 0, 0
			for i, q := range qs {
				have := map[string]bool{}
				for _, e := range ins[i].in.Events {
					have[e.Event.ID] = true
				}
				for _, e := range q.Evidence {
					tot++
					if !have[e] {
						miss++
					}
				}
				_ = prevQ
			}
			fmt.Printf("%s: evidence not among candidates %d of %d\n", set, miss, tot)
		}
		printAgg(set+" default", tuneScore(qs, ins, w, os.Getenv("DETAIL") != ""))
		if os.Getenv("SWEEP") == "" {
			continue
		}
		for _, v := range []struct {
			name string
			f    func(w *governance.RecallWeights)
		}{
			{"st=0", func(w *governance.RecallWeights) { w.SameThing = 0 }},
			{"st=0.4", func(w *governance.RecallWeights) { w.SameThing = 0.4 }},
			{"st=0.2", func(w *governance.RecallWeights) { w.SameThing = 0.2 }},
			{"rec=0.0", func(w *governance.RecallWeights) { w.Recency = 0.0 }},
			{"st=0.2 rec=0.0", func(w *governance.RecallWeights) { w.Recency = 0.0; w.SameThing = 0.2 }},
			{"st=0 rec=0.0", func(w *governance.RecallWeights) { w.Recency = 0.0; w.SameThing = 0 }},
		} {
			w := governance.DefaultRecallWeights()
			v.f(&w)
			printAgg(set+" "+v.name, tuneScore(qs, ins, w, false))
		}
	}
}
