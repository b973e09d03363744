package recall

import (
	"slices"

	"github.com/mnemo-console/mnemo/governance"
)

// markLatest says which of what one side said about the same thing at
// different times is the latest. What a user says about something changes
// ("I've watched 12 of the videos", weeks later "15"): the latest
// statement is the current one. Recency (measured from the request's
// AsOf) ranks it first among near-equals; this names it: among the best
// RerankDepth events, two of the same role from different sessions and
// times are about the same thing when the task's terms both hold weigh
// (by idf) at least SameThing of all the task's terms. Each group of such
// events (linked pairs, transitively) has its latest item count the group
// (RecallItem.Latest) and each older one name the latest
// (RecallItem.Newer), which the fenced text says. The ranking is left as
// it is: a question about how things were wants the older statement.
func markLatest(events []*recallCandidate, idf []float64, w governance.RecallWeights) {
	var mass float64
	for _, v := range idf {
		mass += v
	}
	if mass <= 0 || w.SameThing <= 0 || len(events) < 2 {
		return
	}
	top := slices.Clone(events)
	slices.SortStableFunc(top, byScore)
	top = top[:min(len(top), w.LatestDepth)]
	group := make([]int, len(top))
	for i := range group {
		group[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if group[i] != i {
			group[i] = find(group[i])
		}
		return group[i]
	}
	for i, a := range top {
		if a.tf == nil || a.at.IsZero() {
			continue
		}
		for j := i + 1; j < len(top); j++ {
			b := top[j]
			if b.tf == nil || b.role != a.role || b.session == a.session || b.at.Equal(a.at) || b.at.IsZero() {
				continue
			}
			var common float64
			for k, f := range a.tf {
				if f > 0 && b.tf[k] > 0 {
					common += idf[k]
				}
			}
			if common >= w.SameThing*mass {
				group[find(j)] = find(i)
			}
		}
	}
	members := map[int][]*recallCandidate{}
	for i, c := range top {
		members[find(i)] = append(members[find(i)], c)
	}
	for _, g := range members {
		if len(g) < 2 {
			continue
		}
		latest := g[0]
		for _, c := range g {
			if c.at.After(latest.at) {
				latest = c
			}
		}
		latest.item.Latest = len(g)
		for _, c := range g {
			if c != latest {
				c.item.Newer = latest.entry.ID
			}
		}
	}
}
