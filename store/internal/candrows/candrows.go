// Package candrows is how both stores read candidates with their
// evidence: a page of candidates keyed by id as their rows come (Set),
// each one's evidence seqs from one query over all of them (Evidence),
// and the evidence links of a review page assembled from the events read
// (Links, ByRule); and the review queue's counts per project
// (ReviewCounts). Each store keeps its SQL.
package candrows

import (
	"slices"

	"github.com/mnemo-console/mnemo/governance"
)

// Scanner reads one row's columns (a database/sql row, a pgx row).
type Scanner interface{ Scan(dest ...any) error }

// Set is the candidates a query read, in its order, keyed by id.
type Set struct {
	List []*governance.Candidate
	byID map[int64]*governance.Candidate
}

// NewSet starts a set with list (nil or empty: what a store returns when
// it reads none).
func NewSet(list []*governance.Candidate) *Set {
	return &Set{List: list, byID: map[int64]*governance.Candidate{}}
}

// Add adds what scan reads of each row to the set.
func Add[R Scanner](set *Set, scan func(R) (*governance.Candidate, error)) func(R) error {
	return func(row R) error {
		c, err := scan(row)
		if err == nil {
			set.List = append(set.List, c)
			set.byID[c.ID] = c
		}
		return err
	}
}

// IDs are the set's candidate ids, in its order.
func (s *Set) IDs() []int64 {
	ids := make([]int64, len(s.List))
	for i, c := range s.List {
		ids[i] = c.ID
	}
	return ids
}

// Evidence adds each row of (candidate id, event seq) to the evidence
// seqs of its candidate in the set.
func Evidence[R Scanner](set *Set) func(R) error {
	return func(row R) error {
		var cid, seq int64
		if err := row.Scan(&cid, &seq); err != nil {
			return err
		}
		if c := set.byID[cid]; c != nil {
			c.EvidenceSeqs = append(c.EvidenceSeqs, seq)
		}
		return nil
	}
}

// Seqs are the evidence seqs of cands and, sorted and each once, the
// projects they belong to.
func Seqs(cands []*governance.Candidate) (seqs, projects []int64) {
	for _, c := range cands {
		seqs = append(seqs, c.EvidenceSeqs...)
		projects = append(projects, c.ProjectID)
	}
	slices.Sort(projects)
	return seqs, slices.Compact(projects)
}

// Links are the evidence links of cands, in their order: each candidate
// with those of its evidence events that events holds (by seq).
func Links(cands []*governance.Candidate, events map[int64]*governance.Event) []*governance.EvidenceLink {
	out := make([]*governance.EvidenceLink, 0, len(cands))
	for _, c := range cands {
		link := &governance.EvidenceLink{Candidate: c}
		for _, seq := range c.EvidenceSeqs {
			if e := events[seq]; e != nil {
				link.Events = append(link.Events, e)
			}
		}
		out = append(out, link)
	}
	return out
}

// ByRule keys links by the rule their candidate supports.
func ByRule(links []*governance.EvidenceLink) map[int64][]*governance.EvidenceLink {
	out := map[int64][]*governance.EvidenceLink{}
	for _, l := range links {
		out[l.Candidate.RuleID] = append(out[l.Candidate.RuleID], l)
	}
	return out
}

// ReviewCounts counts the review queue of each project of ids with count
// (ids nil: every project, as all lists them).
func ReviewCounts(ids []int64, all func() ([]int64, error), count func(projectID int64, c *governance.ReviewCounts) error) (map[int64]*governance.ReviewCounts, error) {
	if ids == nil {
		var err error
		if ids, err = all(); err != nil {
			return nil, err
		}
	}
	out := make(map[int64]*governance.ReviewCounts, len(ids))
	for _, id := range ids {
		c := &governance.ReviewCounts{}
		if err := count(id, c); err != nil {
			return nil, err
		}
		out[id] = c
	}
	return out, nil
}
