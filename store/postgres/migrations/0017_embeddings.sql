-- The semantic channel of recall (SQLite's migration 0028): one vector per
-- memory (rule, episode, raw event) and embeddings model, as little-endian
-- float32 of unit length, with the project and subject it is scoped to, so
-- recall reads only the request's scope and compares the vectors itself
-- (no pgvector). Written by the heartbeat's backfill; only when a model is
-- configured.
CREATE TABLE embeddings (
	kind       text NOT NULL CHECK (kind IN ('rule', 'episode', 'event')),
	item_id    bigint NOT NULL,
	model      text NOT NULL,
	project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	subject_id text NOT NULL DEFAULT '',
	vector     bytea NOT NULL,
	PRIMARY KEY (kind, item_id, model)
);
CREATE INDEX embeddings_scope ON embeddings (project_id, model, kind, subject_id);

-- How far the backfill has embedded a project's events (events only grow;
-- rules and episodes are found by their missing vector).
CREATE TABLE embed_checkpoints (
	project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	model      text NOT NULL,
	event_seq  bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (project_id, model)
);

-- A vector is derived from its text: whatever changes or removes the text
-- (a forget, an edit, a rewritten summary, a deleted project) removes the
-- vector in the same transaction, so no copy is left behind. A changed
-- rule or episode is embedded again by the next beat.
CREATE FUNCTION embeddings_event_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM embeddings WHERE kind = 'event' AND item_id = OLD.seq;
	RETURN NULL;
END;
$$;
CREATE FUNCTION embeddings_rule_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM embeddings WHERE kind = 'rule' AND item_id = OLD.id;
	RETURN NULL;
END;
$$;
CREATE FUNCTION embeddings_episode_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM embeddings WHERE kind = 'episode' AND item_id = OLD.id;
	RETURN NULL;
END;
$$;
CREATE TRIGGER embeddings_event_update AFTER UPDATE OF text, redacted ON events FOR EACH ROW
	WHEN (new.text IS DISTINCT FROM old.text OR new.redacted <> old.redacted) EXECUTE FUNCTION embeddings_event_gone();
CREATE TRIGGER embeddings_event_delete AFTER DELETE ON events FOR EACH ROW EXECUTE FUNCTION embeddings_event_gone();
CREATE TRIGGER embeddings_rule_update AFTER UPDATE OF text, status, subject_id ON rules FOR EACH ROW
	WHEN (new.text IS DISTINCT FROM old.text OR new.status <> old.status OR new.subject_id <> old.subject_id)
	EXECUTE FUNCTION embeddings_rule_gone();
CREATE TRIGGER embeddings_rule_delete AFTER DELETE ON rules FOR EACH ROW EXECUTE FUNCTION embeddings_rule_gone();
CREATE TRIGGER embeddings_episode_update AFTER UPDATE OF summary, subject_id ON episodes FOR EACH ROW
	WHEN (new.summary IS DISTINCT FROM old.summary OR new.subject_id <> old.subject_id) EXECUTE FUNCTION embeddings_episode_gone();
CREATE TRIGGER embeddings_episode_delete AFTER DELETE ON episodes FOR EACH ROW EXECUTE FUNCTION embeddings_episode_gone();
