-- A suppression holds for one subject, or for everyone with subject ''.
-- One member forgetting "what I told you" no longer stops the heartbeat
-- learning the same words from another member; forgetting a project-wide
-- rule still stops it everywhere.
CREATE TABLE suppressions_scoped (
	project_id  INTEGER NOT NULL REFERENCES projects(id),
	fingerprint TEXT NOT NULL,
	subject_id  TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL,
	PRIMARY KEY (project_id, fingerprint, subject_id)
);
INSERT INTO suppressions_scoped (project_id, fingerprint, subject_id, created_at)
	SELECT project_id, fingerprint, subject_id, created_at FROM suppressions;
DROP TABLE suppressions;
ALTER TABLE suppressions_scoped RENAME TO suppressions;
