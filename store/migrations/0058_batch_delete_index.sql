-- Deleting a project (an admin's project deletion, an eval run's scratch
-- clean-up) removed its events' terms from the word index one row at a
-- time: each row's 'delete' was a statement of its own, and FTS5 flushed
-- its pending changes at every one (a secure delete of the row's terms
-- from the index pages, with its statements prepared again), about nine
-- milliseconds of CPU an event. The delete trigger now stands aside while
-- ingest_mode.batch is set, as the insert (0017) and update (0037)
-- triggers do: deleteProjectRows (store/admin.go) removes the project's
-- terms with one statement from the events_terms view, raises the
-- project's event_index_versions row itself, and resets the flag before
-- the transaction commits.
DROP TRIGGER events_words_delete;
CREATE TRIGGER events_words_delete AFTER DELETE ON events
	WHEN (SELECT batch FROM ingest_mode WHERE id = 1) = 0
BEGIN
	INSERT INTO events_words (events_words, rowid, scope, terms)
	VALUES ('delete', old.seq, old.project_id || '_s' || hex(old.subject_id) || '0', mnemo_scoped_terms(old.project_id, old.text));
	INSERT INTO event_index_versions (project_id, version) VALUES (old.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET version = version + 1;
END;
