package recall

import "github.com/mnemo-console/mnemo/governance"

// Receipt seals what shaped pkg: each included item's id, version and the
// hash of its stored text (as in, the input it was built from, holds it;
// an item's delivered text may be shortened or masked), under the
// weights' policy version.
func Receipt(pkg *governance.RecallPackage, in *governance.RecallInput, w governance.RecallWeights) *governance.RecallReceipt {
	rules := map[int64]*governance.Rule{}
	for _, r := range in.Rules {
		rules[r.ID] = r
	}
	episodes := map[int64]*governance.Episode{}
	for _, e := range in.Episodes {
		episodes[e.Episode.ID] = e.Episode
	}
	events := map[int64]*governance.Event{}
	for _, e := range in.Events {
		events[e.Event.Seq] = e.Event
	}
	items := make([]governance.ReceiptItem, 0, len(pkg.Items))
	for _, it := range pkg.Items {
		version, text := it.Source.Version, it.Text
		switch it.Kind {
		case governance.RecallKindRule:
			if r := rules[it.Source.RuleID]; r != nil {
				version, text = r.Version, r.Text
			}
		case governance.RecallKindEpisode:
			if e := episodes[it.Source.EpisodeID]; e != nil {
				text = e.Summary
			}
		case governance.RecallKindEvent:
			if e := events[it.Source.EventSeq]; e != nil {
				text = e.Text
			}
		}
		items = append(items, governance.ReceiptItemOf(it.ID, version, text))
	}
	return governance.NewReceipt(governance.RecallPolicyVersion(w), items)
}
