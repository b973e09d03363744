-- A subject forget leaves no identifier of the subject behind (SQLite's
-- migration 0026; the tombstones themselves are made in Go,
-- store/internal/forgetplan).
--
-- forget_keys: one random HMAC key per project, kept. A forgotten event's id
-- becomes 'forgotten:' and 32 hex digits of HMAC-SHA256(key, id), so a
-- later import or ingest of the same event is recognised and skipped
-- instead of bringing the text back.
CREATE TABLE forget_keys (
	project_id bigint PRIMARY KEY REFERENCES projects(id),
	key        bytea NOT NULL
);

-- subject_keys: one random HMAC key per (project, subject), made when an
-- audit row or a forget first needs to name the subject. Audit rows name a
-- subject only by 'subject:' and 32 hex digits of HMAC-SHA256(key, subject
-- id); the subject's session and subject ids become tombstones made with
-- the same key. A subject forget deletes the key: nothing left in the
-- database can then confirm a guess of the forgotten ids.
CREATE TABLE subject_keys (
	project_id bigint NOT NULL REFERENCES projects(id),
	subject_id text NOT NULL,
	key        bytea NOT NULL,
	PRIMARY KEY (project_id, subject_id)
);
