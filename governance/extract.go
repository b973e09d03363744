package governance

import "context"

// ExtractInput is one ended session handed to an extractor: all of its events
// in order (seq ascending). Supporting event seqs an extractor returns must be
// a subset of these; anything else is dropped and logged by the caller.
type ExtractInput struct {
	ProjectID int64
	SessionID string
	SubjectID string
	Events    []*Event
}

// ExtractedItem is one memory an extractor proposes from a session.
type ExtractedItem struct {
	Type      MemoryType `json:"type"`
	Statement string     `json:"statement"`
	// SupportSeqs are the seqs of the events that support the statement.
	SupportSeqs []int64 `json:"supported_event_ids"`
	// Durable: the user explicitly said it holds from now on.
	Durable bool `json:"durable"`
	// ReplacesOnly: the item corrects the value of one definite thing
	// ("The call is at 5 now, not 4"): it may replace a rule it corrects,
	// but is no wish of its own — with no such rule it is dropped, and it
	// never waits for repetition.
	ReplacesOnly bool `json:"replaces_only,omitempty"`
}

// Extraction is what an extractor made of one session.
type Extraction struct {
	// Summary is the episode summary: at most three sentences (what was done,
	// what failed, how it was fixed).
	Summary string
	Items   []ExtractedItem
	// Tokens used by a model call (0 for offline extractors).
	Tokens int
}

// Extractor turns an ended session into an episode summary and candidate
// memories. It judges language only; promotion is decided by code.
// Extract is called for several sessions at once and must be safe for
// concurrent use.
type Extractor interface {
	// Name identifies the extractor and its version, e.g. "heuristic/1".
	Name() string
	Extract(ctx context.Context, in ExtractInput) (*Extraction, error)
}

// MergeItem is a statement offered to a merger: a new candidate, the
// representative of a held group, or an existing rule.
type MergeItem struct {
	ID        int64
	Type      MemoryType
	Statement string
}

// Merger groups statements that mean the same thing.
type Merger interface {
	// Partition returns groups of item ids: every id exactly once, items of a
	// group meaning the same thing. Callers verify it is a partition.
	Partition(ctx context.Context, items []MergeItem) ([][]int64, int, error)
}

// CheckPartition verifies that groups is a partition of items' ids.
func CheckPartition(items []MergeItem, groups [][]int64) error {
	want := make(map[int64]bool, len(items))
	for _, it := range items {
		want[it.ID] = true
	}
	seen := make(map[int64]bool, len(items))
	for _, g := range groups {
		if len(g) == 0 {
			return Errorf(EINVALID, "merge returned an empty group")
		}
		for _, id := range g {
			if !want[id] {
				return Errorf(EINVALID, "merge returned unknown id %d", id)
			}
			if seen[id] {
				return Errorf(EINVALID, "merge returned id %d twice", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != len(want) {
		return Errorf(EINVALID, "merge left out %d id(s)", len(want)-len(seen))
	}
	return nil
}
