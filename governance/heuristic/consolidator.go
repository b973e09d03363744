package heuristic

import (
	"log/slog"

	"github.com/mnemo-console/mnemo/governance"
)

// NewConsolidator wires offline consolidation: the heuristic extractor and
// merger (also the fallback when another merger fails), the write gate, and
// n-gram similarity to find the rule a new statement contradicts.
func NewConsolidator(logger *slog.Logger) *governance.Consolidator {
	m := NewMerger()
	return &governance.Consolidator{
		Extractor: NewExtractor(),
		Merger:    m,
		Fallback:  m,
		Gate:      governance.GateText,
		Related:   Similarity,
		Logger:    logger,
	}
}
