-- The live projects an eval run reads: its suite's fixtures.use_live_project
-- projects and fixtures.copy_events sources, recorded when the run is
-- queued (CreateEvalRun). A forget that redacts what people said in one of
-- them (a subject's events, a project's, a rule's sources) withholds the
-- details and reasons of the run's stored results and the rule texts of
-- its summary (withholdEvalReads): a case may quote what it recalled.
CREATE TABLE eval_reads (
	run_id     INTEGER NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
	project_id INTEGER NOT NULL,
	PRIMARY KEY (run_id, project_id)
);
CREATE INDEX eval_reads_project ON eval_reads (project_id);
-- Runs queued before: every live project whose slug their suite names.
INSERT OR IGNORE INTO eval_reads (run_id, project_id)
	SELECT r.id, p.id FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id JOIN projects p ON p.scratch = 0
	WHERE instr(s.body, p.slug) > 0;
