-- The audit stays append-only, with one exception (SQLite's migration
-- 0034): a subject forget re-chains the rows written before migration 0014
-- that name the subject in plain text (store/postgres/audit_rechain.go).
-- It opens a re-chain by inserting the row of audit_rechain_open, rewrites
-- the identifier and the links, and deletes the row, all in its
-- transaction (which no other transaction sees before the commit); only
-- then may a row's object id, details and links change. Who, what, when
-- and the reason never change, and no row is ever deleted.
CREATE TABLE audit_rechain_open (
	id integer PRIMARY KEY CHECK (id = 1)
);

CREATE FUNCTION audit_rechain_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF (new.id, new.at, new.actor, new.action, new.object_type, new.project_id, new.reason_hash, new.policy_version)
			IS DISTINCT FROM (old.id, old.at, old.actor, old.action, old.object_type, old.project_id, old.reason_hash, old.policy_version)
		OR NOT EXISTS (SELECT 1 FROM audit_rechain_open) THEN
		RAISE EXCEPTION 'audit is append-only';
	END IF;
	RETURN new;
END;
$$;
DROP TRIGGER audit_no_update ON audit;
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit FOR EACH ROW EXECUTE FUNCTION audit_rechain_only();
