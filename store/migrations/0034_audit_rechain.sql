-- The audit stays append-only, with one exception (issue 11): a subject
-- forget re-chains the rows written before migration 0026 that name the
-- subject in plain text (store/audit_rechain.go). It opens a re-chain by
-- inserting a row into audit_rechain_open, rewrites the identifier and the
-- links, and deletes the row, all in its transaction; only then may a
-- row's object id, details and links change. Who, what, when and the
-- reason never change.
CREATE TABLE audit_rechain_open (
	id INTEGER PRIMARY KEY CHECK (id = 1)
);

DROP TRIGGER audit_no_update;
CREATE TRIGGER audit_no_update BEFORE UPDATE OF id, at, actor, action, object_type, project_id, reason, reason_hash, policy_version ON audit BEGIN
	SELECT RAISE(ABORT, 'audit is append-only');
END;
CREATE TRIGGER audit_rechain_only BEFORE UPDATE OF object_id, details, prev_hash, hash ON audit
WHEN NOT EXISTS (SELECT 1 FROM audit_rechain_open) BEGIN
	SELECT RAISE(ABORT, 'audit is append-only');
END;
