package governance

// AuditFilter selects audit rows; zero fields are ignored.
type AuditFilter struct {
	Actor      string
	Action     string
	ObjectType string
	ObjectID   string
	ProjectIDs []int64 // restrict to these projects (nil: all)
	Since      string  // RFC 3339 lower bound
	Until      string  // RFC 3339 upper bound
	Offset     int
	Limit      int
}

// AuditVerification is the result of walking the audit chain.
type AuditVerification struct {
	OK    bool
	Rows  int
	BadID int64
	// Problem says what is wrong with row BadID.
	Problem string
}
