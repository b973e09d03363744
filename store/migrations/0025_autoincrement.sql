-- Projects, rules, candidates and episodes get AUTOINCREMENT ids: SQLite
-- then never hands out an id again, also after the newest rows were deleted
-- (an eval scratch project, a forgotten candidate), and keeps the highest id
-- each table has used in sqlite_sequence. It replaces id_floors (0013),
-- which code had to raise before every delete. Each table is rebuilt the way
-- SQLite documents (the migration runs with foreign keys off and checks them
-- before it commits): a copy with the new definition takes the rows, ids
-- included, the old table goes, the copy takes its name, and its indexes and
-- triggers are created again. The full-text tables keyed by these ids are
-- untouched: every id stays the same.

-- projects
CREATE TABLE projects_new (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	slug          TEXT NOT NULL UNIQUE,
	name          TEXT NOT NULL,
	description   TEXT NOT NULL DEFAULT '',
	auto_activate INTEGER NOT NULL DEFAULT 0,
	created_at    TEXT NOT NULL
, scratch INTEGER NOT NULL DEFAULT 0);
INSERT INTO projects_new SELECT * FROM projects;
DROP TABLE projects;
ALTER TABLE projects_new RENAME TO projects;

-- rules
CREATE TABLE rules_new (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id       INTEGER NOT NULL REFERENCES projects(id),
	subject_id       TEXT NOT NULL DEFAULT '',
	kind             TEXT NOT NULL CHECK (kind IN ('user_preference', 'fact', 'lesson')),
	text             TEXT NOT NULL,
	promotion_reason TEXT NOT NULL,
	status           TEXT NOT NULL CHECK (status IN ('proposed', 'active', 'stale', 'archived', 'superseded', 'rejected', 'forgotten')),
	version          INTEGER NOT NULL DEFAULT 1,
	trust            REAL NOT NULL DEFAULT 0.5,
	expires_at       TEXT,
	paused           INTEGER NOT NULL DEFAULT 0,
	last_used_at     TEXT,
	use_count        INTEGER NOT NULL DEFAULT 0,
	supersedes       INTEGER REFERENCES rules(id),
	superseded_by    INTEGER REFERENCES rules(id),
	findings         TEXT NOT NULL DEFAULT '[]',
	fingerprint      TEXT NOT NULL DEFAULT '',
	-- Code checks for rule compliance in evals (JSON array).
	checks           TEXT NOT NULL DEFAULT '[]',
	created_at       TEXT NOT NULL,
	updated_at       TEXT NOT NULL
);
INSERT INTO rules_new SELECT * FROM rules;
DROP TABLE rules;
ALTER TABLE rules_new RENAME TO rules;
CREATE INDEX rules_scope ON rules (project_id, status, subject_id);
CREATE INDEX rules_status ON rules (status, project_id, subject_id);
CREATE INDEX rules_subject ON rules (project_id, subject_id);
CREATE INDEX rules_list ON rules (project_id, id, status, subject_id, kind, promotion_reason, paused);
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
CREATE TRIGGER rules_fts_insert AFTER INSERT ON rules BEGIN
	INSERT INTO rules_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER rules_fts_delete AFTER DELETE ON rules BEGIN
	INSERT INTO rules_fts (rules_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER rules_fts_update AFTER UPDATE OF text ON rules BEGIN
	INSERT INTO rules_fts (rules_fts, rowid, text) VALUES ('delete', old.id, old.text);
	INSERT INTO rules_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER rules_cjk_insert AFTER INSERT ON rules WHEN mnemo_cjk_bigrams(new.text) <> '' BEGIN
	INSERT INTO rules_cjk (rowid, grams) VALUES (new.id, mnemo_cjk_bigrams(new.text));
END;
CREATE TRIGGER rules_cjk_delete AFTER DELETE ON rules BEGIN
	DELETE FROM rules_cjk WHERE rowid = old.id;
END;
CREATE TRIGGER rules_cjk_update AFTER UPDATE OF text ON rules BEGIN
	DELETE FROM rules_cjk WHERE rowid = old.id;
	INSERT INTO rules_cjk (rowid, grams) SELECT new.id, mnemo_cjk_bigrams(new.text) WHERE mnemo_cjk_bigrams(new.text) <> '';
END;

-- candidates
CREATE TABLE candidates_new (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id    INTEGER NOT NULL REFERENCES projects(id),
	session_id    TEXT NOT NULL,
	subject_id    TEXT NOT NULL DEFAULT '',
	type          TEXT NOT NULL CHECK (type IN ('user_preference', 'fact', 'lesson')),
	statement     TEXT NOT NULL,
	durable       INTEGER NOT NULL DEFAULT 0,
	extractor     TEXT NOT NULL,
	status        TEXT NOT NULL CHECK (status IN ('pending', 'held', 'proposed', 'promoted', 'rejected', 'blocked')),
	status_reason TEXT NOT NULL DEFAULT '',
	group_id      INTEGER NOT NULL DEFAULT 0,
	rule_id       INTEGER REFERENCES rules(id),
	fingerprint   TEXT NOT NULL DEFAULT '',
	findings      TEXT NOT NULL DEFAULT '[]',
	created_at    TEXT NOT NULL,
	updated_at    TEXT NOT NULL
);
INSERT INTO candidates_new SELECT * FROM candidates;
DROP TABLE candidates;
ALTER TABLE candidates_new RENAME TO candidates;
CREATE INDEX candidates_project ON candidates (project_id, status);
CREATE INDEX candidates_rule ON candidates (rule_id);
CREATE INDEX candidates_group ON candidates (group_id);
CREATE INDEX candidates_subject ON candidates (project_id, subject_id);

-- episodes
CREATE TABLE episodes_new (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id  INTEGER NOT NULL REFERENCES projects(id),
	session_id  TEXT NOT NULL,
	subject_id  TEXT NOT NULL DEFAULT '',
	summary     TEXT NOT NULL,
	first_seq   INTEGER NOT NULL,
	last_seq    INTEGER NOT NULL,
	event_count INTEGER NOT NULL,
	extractor   TEXT NOT NULL,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL,
	UNIQUE (project_id, session_id)
);
INSERT INTO episodes_new SELECT * FROM episodes;
DROP TABLE episodes;
ALTER TABLE episodes_new RENAME TO episodes;
CREATE INDEX episodes_scope ON episodes (project_id, subject_id, last_seq);
CREATE TRIGGER episodes_recall_insert AFTER INSERT ON episodes BEGIN
	INSERT INTO episodes_recall (rowid, scope, grams, text)
	VALUES (new.id, 'p' || new.project_id || ' s' || hex(new.subject_id) || '0', mnemo_cjk_bigrams(new.summary), new.summary);
END;
CREATE TRIGGER episodes_recall_delete AFTER DELETE ON episodes BEGIN
	DELETE FROM episodes_recall WHERE rowid = old.id;
END;
CREATE TRIGGER episodes_recall_update AFTER UPDATE OF summary, project_id, subject_id ON episodes BEGIN
	DELETE FROM episodes_recall WHERE rowid = old.id;
	INSERT INTO episodes_recall (rowid, scope, grams, text)
	VALUES (new.id, 'p' || new.project_id || ' s' || hex(new.subject_id) || '0', mnemo_cjk_bigrams(new.summary), new.summary);
END;

-- The highest id each table has used: its own, or the floor 0013 kept.
DELETE FROM sqlite_sequence WHERE name IN ('projects', 'rules', 'candidates', 'episodes');
INSERT INTO sqlite_sequence (name, seq) VALUES ('projects', MAX(COALESCE((SELECT MAX(id) FROM projects), 0), COALESCE((SELECT id FROM id_floors WHERE tbl = 'projects'), 0)));
INSERT INTO sqlite_sequence (name, seq) VALUES ('rules', MAX(COALESCE((SELECT MAX(id) FROM rules), 0), COALESCE((SELECT id FROM id_floors WHERE tbl = 'rules'), 0)));
INSERT INTO sqlite_sequence (name, seq) VALUES ('candidates', MAX(COALESCE((SELECT MAX(id) FROM candidates), 0), COALESCE((SELECT id FROM id_floors WHERE tbl = 'candidates'), 0)));
INSERT INTO sqlite_sequence (name, seq) VALUES ('episodes', MAX(COALESCE((SELECT MAX(id) FROM episodes), 0), COALESCE((SELECT id FROM id_floors WHERE tbl = 'episodes'), 0)));
DROP TABLE id_floors;
