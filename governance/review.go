package governance

// RuleEdit is a reviewer's change to a rule's wording or kind. Reason is
// asked for every edit and kept in the version history.
type RuleEdit struct {
	Text   string
	Kind   MemoryType
	Reason string
}

// ReviewCountCap bounds the held and blocked counts of the review queue: a
// project with more shows "1000+" instead of counting every one on every
// page view.
const ReviewCountCap = 1000

// ReviewCounts is what waits for review in one project. Held and Blocked
// stop at ReviewCountCap+1.
type ReviewCounts struct {
	Proposed int
	Held     int
	Blocked  int
}

// CandidateFilter selects candidates; zero fields are ignored.
type CandidateFilter struct {
	ProjectID  int64
	ProjectIDs []int64
	SubjectID  *string
	SessionID  *string
	Statuses   []CandidateStatus
	RuleID     int64
	EventSeq   int64
	Offset     int
	Limit      int
	// CountCap, with a Limit, stops the count CountCap rows past the page:
	// a total of Offset+Limit+CountCap then means "at least".
	CountCap int
}

// EpisodeFilter selects episodes.
type EpisodeFilter struct {
	ProjectID  int64
	ProjectIDs []int64
	SubjectID  *string
	SessionID  *string
	Offset     int
	Limit      int
}
