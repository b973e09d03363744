-- A number per project that changes whenever the project's events change:
-- a row inserted (ingest, import, a forget's tombstone), updated (a
-- follow-mode message read again, a redaction) or deleted. Search keeps
-- the ranked window of a project's recent searches in each instance's
-- memory (search_window.go) and uses it only while this number is the one
-- it was read with, in the same statement as the rows it shows; so a page
-- served from memory shows what a search run now would, on whichever
-- instance made the change. The triggers are per statement, with the
-- statement's rows as a transition table, so an ingest chunk of 500
-- events bumps the row once; the upsert takes the row's lock in project
-- order, held to the commit. It holds a number, never a word.
CREATE TABLE event_versions (
	project_id bigint PRIMARY KEY,
	version    bigint NOT NULL
);

CREATE FUNCTION event_versions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO event_versions AS v (project_id, version)
		SELECT project_id, 1 FROM changed_events GROUP BY project_id ORDER BY project_id
		ON CONFLICT (project_id) DO UPDATE SET version = v.version + 1;
	RETURN NULL;
END;
$$;
CREATE TRIGGER event_versions_insert AFTER INSERT ON events
	REFERENCING NEW TABLE AS changed_events FOR EACH STATEMENT EXECUTE FUNCTION event_versions_bump();
CREATE TRIGGER event_versions_update AFTER UPDATE ON events
	REFERENCING NEW TABLE AS changed_events FOR EACH STATEMENT EXECUTE FUNCTION event_versions_bump();
CREATE TRIGGER event_versions_delete AFTER DELETE ON events
	REFERENCING OLD TABLE AS changed_events FOR EACH STATEMENT EXECUTE FUNCTION event_versions_bump();
