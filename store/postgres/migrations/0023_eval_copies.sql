-- The copies of live projects' events in eval runs' scratch projects
-- (fixtures.copy_events), as SQLite's eval_copies of migration 0039: a
-- forget in the source project removes the scratch projects of the prefix
-- and marks the record forgotten.
CREATE TABLE eval_copies (
	prefix            text NOT NULL,
	source_project_id bigint NOT NULL,
	run_id            bigint,
	forgotten         boolean NOT NULL DEFAULT false,
	PRIMARY KEY (prefix, source_project_id)
);
CREATE INDEX eval_copies_source ON eval_copies (source_project_id);
CREATE INDEX eval_copies_run ON eval_copies (run_id) WHERE run_id IS NOT NULL;
