package governance

// Hermes-style memory files: MEMORY.md holds the project's standing rules,
// USER.md what is remembered about one user. Entries are separated by
// HermesSeparator and each file stays within its character limit.
const (
	HermesSeparator   = "\n§\n"
	HermesMemoryLimit = 2200
	HermesUserLimit   = 1375
	HermesMemoryName  = "MEMORY.md"
	HermesUserName    = "USER.md"
)

// HermesEntry is one rule offered to a memory file.
type HermesEntry struct {
	RuleID int64   `json:"rule_id"`
	Text   string  `json:"text"`
	Runes  int     `json:"runes"`
	Score  float64 `json:"score"`
}

// HermesFile is one built memory file: what went in, highest-ranked first,
// and what did not fit.
type HermesFile struct {
	Name     string        `json:"name"`
	Limit    int           `json:"limit"`
	Used     int           `json:"used"`
	Text     string        `json:"text"`
	Included []HermesEntry `json:"included"`
	Omitted  []HermesEntry `json:"omitted"`
}

// ExportFormat names the JSON Lines export format; the first line of an
// export carries it.
const ExportFormat = "mnemo-export/1"

// ExportOptions narrow an export.
type ExportOptions struct {
	// SubjectID, when set, exports only what concerns that subject (a
	// member's own data): their events, episodes, candidates and rules.
	SubjectID *string
}

// ExportStats counts the records of an export or import.
type ExportStats struct {
	Events       int `json:"events"`
	Episodes     int `json:"episodes"`
	Rules        int `json:"rules"`
	Candidates   int `json:"candidates"`
	Suppressions int `json:"suppressions"`
}

// ImportOptions say where an export goes.
type ImportOptions struct {
	// Slug overrides the project slug of the export (and Name, if set).
	Slug, Name string
	// Actor is recorded in the audit row.
	Actor string
}

// HermesExport is the pair of Hermes-style memory files of a project (and
// optionally one subject).
type HermesExport struct {
	Memory HermesFile
	User   HermesFile
}
