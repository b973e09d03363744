package heuristic

import (
	"log/slog"

	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// NewConsolidator wires offline consolidation: the heuristic extractor and
// merger (also the fallback when another merger fails), the write gate, and
// n-gram similarity to find the rule a new statement contradicts.
func NewConsolidator(logger *slog.Logger) *consolidate.Consolidator {
	m := NewMerger()
	return &consolidate.Consolidator{
		Extractor: NewExtractor(),
		Merger:    m,
		Fallback:  m,
		Gate:      gate.GateText,
		Related:   Similarity,
		Logger:    logger,
	}
}
