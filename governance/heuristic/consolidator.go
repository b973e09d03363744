package heuristic

import (
	"log/slog"

	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// NewConsolidator wires offline consolidation: the heuristic extractor and
// merger (also the fallback when another merger fails), the write gate's
// classifier, and n-gram similarity to find the rule a new statement
// contradicts.
func NewConsolidator(logger *slog.Logger) *consolidate.Consolidator {
	m := NewMerger()
	c := consolidate.New(gate.Patterns, NewExtractor(), m)
	c.Fallback, c.Related, c.Logger = m, Similarity, logger
	return c
}
