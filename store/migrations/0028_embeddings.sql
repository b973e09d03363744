-- The semantic channel of recall: one vector per memory (rule, episode,
-- raw event) and embeddings model, as little-endian float32 of unit length,
-- with the project and subject it is scoped to, so recall reads only the
-- request's scope. Written by the heartbeat's backfill; only when a model
-- is configured.
CREATE TABLE embeddings (
	kind       TEXT NOT NULL CHECK (kind IN ('rule', 'episode', 'event')),
	item_id    INTEGER NOT NULL,
	model      TEXT NOT NULL,
	project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	subject_id TEXT NOT NULL DEFAULT '',
	vector     BLOB NOT NULL,
	PRIMARY KEY (kind, item_id, model)
) WITHOUT ROWID;
CREATE INDEX embeddings_scope ON embeddings (project_id, model, kind, subject_id);

-- How far the backfill has embedded a project's events (events only grow;
-- rules and episodes are found by their missing vector).
CREATE TABLE embed_checkpoints (
	project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	model      TEXT NOT NULL,
	event_seq  INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (project_id, model)
) WITHOUT ROWID;

-- A vector is derived from its text: whatever changes or removes the text
-- (a forget, an edit, a rewritten summary, a deleted project) removes the
-- vector in the same transaction, so no copy is left behind. A changed
-- rule or episode is embedded again by the next beat.
CREATE TRIGGER embeddings_event_update AFTER UPDATE OF text, redacted ON events
WHEN new.text IS NOT old.text OR new.redacted <> old.redacted BEGIN
	DELETE FROM embeddings WHERE kind = 'event' AND item_id = old.seq;
END;
CREATE TRIGGER embeddings_event_delete AFTER DELETE ON events BEGIN
	DELETE FROM embeddings WHERE kind = 'event' AND item_id = old.seq;
END;
CREATE TRIGGER embeddings_rule_update AFTER UPDATE OF text, status, subject_id ON rules
WHEN new.text IS NOT old.text OR new.status <> old.status OR new.subject_id <> old.subject_id BEGIN
	DELETE FROM embeddings WHERE kind = 'rule' AND item_id = old.id;
END;
CREATE TRIGGER embeddings_rule_delete AFTER DELETE ON rules BEGIN
	DELETE FROM embeddings WHERE kind = 'rule' AND item_id = old.id;
END;
CREATE TRIGGER embeddings_episode_update AFTER UPDATE OF summary, subject_id ON episodes
WHEN new.summary IS NOT old.summary OR new.subject_id <> old.subject_id BEGIN
	DELETE FROM embeddings WHERE kind = 'episode' AND item_id = old.id;
END;
CREATE TRIGGER embeddings_episode_delete AFTER DELETE ON episodes BEGIN
	DELETE FROM embeddings WHERE kind = 'episode' AND item_id = old.id;
END;
