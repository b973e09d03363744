-- Active rules per project, kept by triggers, so recall can say how many
-- rules of other projects its scope filter removed without counting every
-- rule of the database on each request.
CREATE TABLE recall_rule_counts (
	project_id INTEGER PRIMARY KEY,
	active     INTEGER NOT NULL DEFAULT 0
);
INSERT INTO recall_rule_counts (project_id, active)
	SELECT project_id, COUNT(*) FROM rules WHERE status = 'active' GROUP BY project_id;

CREATE TRIGGER recall_rule_counts_insert AFTER INSERT ON rules WHEN new.status = 'active' BEGIN
	INSERT INTO recall_rule_counts (project_id, active) VALUES (new.project_id, 1)
		ON CONFLICT (project_id) DO UPDATE SET active = active + 1;
END;
CREATE TRIGGER recall_rule_counts_delete AFTER DELETE ON rules WHEN old.status = 'active' BEGIN
	UPDATE recall_rule_counts SET active = active - 1 WHERE project_id = old.project_id;
END;
CREATE TRIGGER recall_rule_counts_update AFTER UPDATE OF status, project_id ON rules
	WHEN (old.status = 'active') <> (new.status = 'active') OR (old.status = 'active' AND old.project_id <> new.project_id) BEGIN
	UPDATE recall_rule_counts SET active = active - 1 WHERE project_id = old.project_id AND old.status = 'active';
	INSERT INTO recall_rule_counts (project_id, active) SELECT new.project_id, 1 WHERE new.status = 'active'
		ON CONFLICT (project_id) DO UPDATE SET active = active + 1;
END;
