package governance

// Administration: what an administrator changes about accounts and
// projects. Nil fields of an update stay as they are.

// AccountUpdate changes an account.
type AccountUpdate struct {
	// PasswordHash replaces the password (and ends every session).
	PasswordHash *string
	// IsAdmin makes the account an administrator or takes that away.
	IsAdmin *bool
	// Disabled disables the account (ending every session) or enables it.
	Disabled *bool
}

// ProjectUpdate changes a project's name, description or review policy.
type ProjectUpdate struct {
	Name        *string
	Description *string
	// AutoActivate: proposals become active at once instead of waiting
	// for a reviewer.
	AutoActivate *bool
}

// ProjectDeletion counts everything deleting a project removes, for the
// confirmation page and the audit row; the deletion removes exactly that.
type ProjectDeletion struct {
	Project      *Project `json:"-"`
	Events       int      `json:"events"`
	Sessions     int      `json:"sessions"`
	Episodes     int      `json:"episodes"`
	Candidates   int      `json:"candidates"`
	Rules        int      `json:"rules"`
	RuleVersions int      `json:"rule_versions"`
	Suppressions int      `json:"suppressions"`
	RecallTraces int      `json:"recall_traces"`
	Tokens       int      `json:"tokens"`
	Memberships  int      `json:"memberships"`
	Sources      int      `json:"sources"`
	// AuditReasons are the reasons people gave on the project's audit rows:
	// they are blanked (the rows stay, holding ids only).
	AuditReasons int `json:"audit_reasons"`
	// ContentHash is the SHA-256 of the removed content (after deletion).
	ContentHash string `json:"content_hash,omitempty"`
}

// Empty reports whether the project holds nothing but itself.
func (d *ProjectDeletion) Empty() bool {
	return d.Events == 0 && d.Sessions == 0 && d.Episodes == 0 && d.Candidates == 0 && d.Rules == 0 &&
		d.Suppressions == 0 && d.RecallTraces == 0 && d.Tokens == 0 && d.Memberships == 0 && d.Sources == 0
}
