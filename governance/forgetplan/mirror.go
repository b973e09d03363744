package forgetplan

import (
	"context"
	"maps"
	"slices"
)

// Mirror plans the forget of the copy of what src forgets in scratchID, an
// eval run's scratch project holding a copy of the events of src's project
// sourceID (fixtures.copy_events; docs/evals.md, "Scratch
// projects"), so that a forget leaves no copy there while the rest of the
// run's data stays. copiesOf maps events of sourceID (by seq) to their
// copies in scratchID (the same event ids).
//
// For a subject forget: everything about the subject there. Otherwise:
// the rules and candidates there that state what src forgets (for the
// same subjects), and those resting on copies of the events src's
// candidates rest on (a heartbeat there may have worded them otherwise),
// with their versions, candidates and merge groups; when src redacts
// events, the copies of those events, with the lines that rest on or
// restate what goes. The episodes quoting it lose those sentences, and
// the scratch project's suppressions keep its heartbeat from learning it
// again.
func Mirror(ctx context.Context, q Reader, src *Plan, sourceID, scratchID int64, copiesOf func(seqs []int64) ([]int64, error)) (*Plan, error) {
	if src.SubjectID != "" {
		return Subject(ctx, q, scratchID, src.SubjectID)
	}
	p := newPlan()
	p.ProjectID, p.WithEvents = scratchID, src.WithEvents
	bySubject := map[string][]string{}
	for _, fp := range slices.Sorted(maps.Keys(src.Forgotten[sourceID])) {
		subjects := src.Forgotten[sourceID][fp]
		if p.Forgotten[scratchID] == nil {
			p.Forgotten[scratchID] = map[string]map[string]bool{}
		}
		p.Forgotten[scratchID][fp] = maps.Clone(subjects)
		for s := range subjects {
			bySubject[s] = append(bySubject[s], fp)
		}
	}
	for _, t := range src.texts {
		if !p.textSet[t] {
			p.textSet[t] = true
			p.texts = append(p.texts, t)
		}
	}
	for _, subject := range slices.Sorted(maps.Keys(bySubject)) {
		sel := RuleSelect{ProjectID: scratchID, Fingerprints: bySubject[subject]}
		if subject != "" {
			sel.SubjectID = &subject
		}
		rules, err := q.Rules(ctx, sel)
		if err != nil {
			return nil, err
		}
		for _, r := range rules {
			p.addRule(r)
		}
	}
	evidence := map[int64]bool{}
	for _, c := range src.Candidates {
		if c.ProjectID == sourceID {
			for _, s := range c.EvidenceSeqs {
				evidence[s] = true
			}
		}
	}
	if len(evidence) > 0 {
		seqs, err := copiesOf(SortedIDs(evidence))
		if err != nil {
			return nil, err
		}
		if len(seqs) > 0 {
			cands, err := q.Candidates(ctx, CandidateSelect{ProjectID: scratchID, EvidenceSeqs: seqs})
			if err != nil {
				return nil, err
			}
			for _, c := range cands {
				if c.RuleID != 0 {
					r, err := q.Rule(ctx, c.RuleID)
					if err != nil {
						return nil, err
					}
					p.addRule(r)
				}
				p.addCandidate(c)
			}
		}
	}
	if src.WithEvents && len(src.Seqs) > 0 {
		var err error
		if p.copies, err = copiesOf(src.Seqs); err != nil {
			return nil, err
		}
	}
	if err := p.expand(ctx, q); err != nil {
		return nil, err
	}
	return p, p.finish(ctx, q)
}
