-- An eval suite's fixtures.copy_events copies a live project's events into
-- a run's scratch projects. The run records the copy here before it reads
-- the events; a forget in the source project then removes the scratch
-- projects whose slug starts with the prefix, in its transaction, and
-- sets forgotten: the run's stored results lose their details, and those
-- it stores afterwards are withheld (SaveEvalResult). run_id is the server
-- run (NULL for a CLI run). No foreign keys: the record outlives the
-- deletion of the source project, and the run's cleanup removes it.
CREATE TABLE eval_copies (
	prefix            TEXT NOT NULL,
	source_project_id INTEGER NOT NULL,
	run_id            INTEGER,
	forgotten         INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (prefix, source_project_id)
);
CREATE INDEX eval_copies_source ON eval_copies (source_project_id);
CREATE INDEX eval_copies_run ON eval_copies (run_id) WHERE run_id IS NOT NULL;
