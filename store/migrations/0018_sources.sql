-- Followed directories of agent session files (console watch, the Sources
-- page) and, per file, how far it has been ingested: the byte offset just
-- after the last complete line stored and the number of lines before it.
-- The offset is written in the same transaction as the events of those
-- lines, so a restart neither loses nor repeats a line.
CREATE TABLE sources (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	dir        TEXT NOT NULL,
	format     TEXT NOT NULL DEFAULT '',
	subject_id TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	UNIQUE (project_id, dir)
);

CREATE TABLE source_files (
	source_id  INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
	path       TEXT NOT NULL,
	offset     INTEGER NOT NULL DEFAULT 0,
	lines      INTEGER NOT NULL DEFAULT 0,
	events     INTEGER NOT NULL DEFAULT 0,
	last_error TEXT NOT NULL DEFAULT '',
	updated_at TEXT NOT NULL,
	PRIMARY KEY (source_id, path)
) WITHOUT ROWID;
