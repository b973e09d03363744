-- A subject forget leaves no identifier of the subject behind (issue 11).
--
-- forget_keys: one random HMAC key per project, kept. A forgotten event's id
-- becomes 'forgotten:' and 32 hex digits of HMAC-SHA256(key, id), so a
-- later import or ingest of the same event (a file imported again, an agent
-- retrying) is recognised and skipped instead of bringing the text back.
-- Confirming a guessed event id needs this key, i.e. access to the database.
CREATE TABLE forget_keys (
	project_id INTEGER PRIMARY KEY REFERENCES projects(id),
	key        BLOB NOT NULL
);

-- subject_keys: one random HMAC key per (project, subject), made when an
-- audit row or a forget first needs to name the subject. Audit rows name a
-- subject only by 'subject:' and 32 hex digits of HMAC-SHA256(key, subject
-- id); the subject's session ids and subject id become tombstones made with
-- the same key. A subject forget deletes the key: nothing left in the
-- database can then confirm a guess of the forgotten ids.
CREATE TABLE subject_keys (
	project_id INTEGER NOT NULL REFERENCES projects(id),
	subject_id TEXT NOT NULL,
	key        BLOB NOT NULL,
	PRIMARY KEY (project_id, subject_id)
) WITHOUT ROWID;

-- The generation was raised once per redacted event (a 100k-event subject
-- forget fired the trigger 100k times); applyForget now raises it once per
-- forget, in the same transaction.
DROP TRIGGER forget_generation_redact;
