package governance

import (
	"time"
)

// RecallTraceInfo is one stored recall trace.
type RecallTraceInfo struct {
	ID        int64
	ProjectID int64
	SubjectID string
	Actor     string
	TaskHash  string
	CreatedAt time.Time
	Budget    Budget
	Used      int
	Preview   bool
	Trace     RecallTrace
	// Receipt is nil for traces stored before receipts.
	Receipt *RecallReceipt
}

// RecallTraceFilter selects stored traces; zero fields are ignored.
type RecallTraceFilter struct {
	ProjectID int64
	SubjectID *string
	// RuleID selects traces that considered this rule.
	RuleID int64
	// ID selects one trace.
	ID     int64
	Offset int
	Limit  int
}
