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
	// HideEval leaves out what eval runs did in their scratch projects
	// (rows of projects that are eval scratch or no longer exist, and the
	// runner's own rows), so people's actions stand out.
	HideEval bool
	Offset   int
	Limit    int
}

// AuditVerification is the result of walking the audit chain.
type AuditVerification struct {
	OK    bool
	Rows  int
	BadID int64
	// Problem says what is wrong with row BadID.
	Problem string
}
