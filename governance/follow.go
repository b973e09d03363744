package governance

// FollowSource is a followed directory of agent session files: the
// console's follow loop (and console watch) ingests new files and appended
// lines, with a checkpoint per file.
type FollowSource struct {
	ID        int64
	ProjectID int64
	// Project is the project's slug (filled when listed).
	Project string
	// Dir is an absolute directory path.
	Dir string
	// Format is a transcript format name ("auto" detects each file's).
	Format string
	// SubjectID is the subject of events whose file names none.
	SubjectID string
	Files     []*FollowFile
}

// FollowFile is how far one file of a followed directory has been ingested.
type FollowFile struct {
	Path      string
	Offset    int64
	Lines     int
	Events    int
	LastError string
	UpdatedAt string
}
