package governance

import (
	"encoding/json"
	"fmt"
)

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
	Path string
	FollowCheckpoint
	Events int
	// LastError is the file's latest problem as StoreText wrote it (read
	// it with ParseText); a problem recorded before is English text.
	LastError string
	UpdatedAt string
	// Database is set (when listed) for a database read by row id (a
	// Hermes state.db): Offset is then the highest message row id read and
	// Lines the number of messages, not a byte offset and lines.
	Database bool
}

// FollowCheckpoint is where the next poll of a followed file starts. It is
// stored in the transaction that stores the events read up to it.
type FollowCheckpoint struct {
	// Offset is the byte offset after the last complete line read, and
	// Lines the number of lines before it. For a Hermes state.db, Offset
	// is the highest message row id read.
	Offset int64
	Lines  int
	// OpenID is the event id of the last message read when more of it may
	// still be appended (Claude Code writes one API message over several
	// lines); OpenOffset and OpenLines are where its first line starts.
	// The next poll reads again from there and the store replaces the
	// event's text with the whole message's. "" when no message is open.
	OpenID     string
	OpenOffset int64
	OpenLines  int
	// EndedMark is, for a Hermes state.db, the latest sessions.ended_at
	// seen (Unix milliseconds): sessions ending later get their end event.
	EndedMark int64
}

// StopAudit is the audit row of stopping to follow src: its directory and
// format, and how many files and events it had imported (they stay).
func (src *FollowSource) StopAudit(actor string) *AuditEntry {
	events := 0
	for _, f := range src.Files {
		events += f.Events
	}
	details, _ := json.Marshal(struct {
		Dir    string `json:"dir"`
		Format string `json:"format"`
		Files  int    `json:"files"`
		Events int    `json:"events"`
	}{src.Dir, src.Format, len(src.Files), events})
	return &AuditEntry{Actor: actor, Action: "source.stop", ObjectType: "source", ObjectID: fmt.Sprint(src.ID),
		ProjectID: src.ProjectID, Details: string(details), Subject: src.SubjectID}
}
