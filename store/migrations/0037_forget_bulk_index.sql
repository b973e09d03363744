-- A large forget (bulkForget in store/forget_plan.go) rewrites the events'
-- word index once after it has changed the rows ('rebuild' from the
-- events_terms view, in its transaction), so the row trigger's 'delete'
-- and re-insert of each changed event's terms only repeat that work: in a
-- subject forget of 100,000 events they were about half of the UPDATE of
-- the events. The update trigger (0032's, with a WHEN clause added) now
-- stands aside while ingest_mode.batch is set, as the insert trigger does
-- (0017); a bulk forget sets it around its UPDATE of the events and resets
-- it before the rebuild, in the same transaction, and raises the
-- project's event_index_versions row itself (once, not once per event).
DROP TRIGGER events_words_update;
CREATE TRIGGER events_words_update AFTER UPDATE OF text, project_id, subject_id ON events
	WHEN (SELECT batch FROM ingest_mode WHERE id = 1) = 0
BEGIN
	INSERT INTO events_words (events_words, rowid, scope, terms)
	VALUES ('delete', old.seq, old.project_id || '_s' || hex(old.subject_id) || '0', mnemo_scoped_terms(old.project_id, old.text));
	INSERT INTO events_words (rowid, scope, terms)
	VALUES (new.seq, new.project_id || '_s' || hex(new.subject_id) || '0', mnemo_scoped_terms(new.project_id, new.text));
	INSERT INTO event_index_versions (project_id, version) VALUES (old.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET version = version + 1;
	INSERT INTO event_index_versions (project_id, version) VALUES (new.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET version = version + 1;
END;
