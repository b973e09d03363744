-- The live projects an eval run reads (SQLite's eval_reads of migration
-- 0080): its suite's fixtures.use_live_project projects and
-- fixtures.copy_events sources, recorded when the run is queued. A forget
-- that redacts what people said in one of them withholds the details and
-- reasons of the run's stored results and the rule texts of its summary.
CREATE TABLE eval_reads (
	run_id     bigint NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
	project_id bigint NOT NULL,
	PRIMARY KEY (run_id, project_id)
);
CREATE INDEX eval_reads_project ON eval_reads (project_id);
-- Runs queued before: every live project whose slug their suite names.
INSERT INTO eval_reads (run_id, project_id)
	SELECT r.id, p.id FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id JOIN projects p ON NOT p.scratch
	WHERE strpos(s.body, p.slug) > 0
	ON CONFLICT DO NOTHING;
