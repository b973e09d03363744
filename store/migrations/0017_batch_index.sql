-- FTS5 writes its pending terms to disk at every statement that changes it
-- (a savepoint), so the row trigger of 0016 wrote one index segment per
-- ingested event, and merging those segments was most of ingest's cost.
-- Ingest now indexes each batch with one statement (indexBatch in
-- store/event.go) and sets ingest_mode.batch while it writes the rows; the
-- row trigger stands aside then and still indexes every other insert.
-- batch is 1 only inside an ingest transaction: it is reset before commit.
CREATE TABLE ingest_mode (
	id    INTEGER PRIMARY KEY CHECK (id = 1),
	batch INTEGER NOT NULL DEFAULT 0
);
INSERT INTO ingest_mode (id, batch) VALUES (1, 0);

DROP TRIGGER events_words_insert;
CREATE TRIGGER events_words_insert AFTER INSERT ON events WHEN (SELECT batch FROM ingest_mode WHERE id = 1) = 0 BEGIN
	INSERT INTO events_words (rowid, scope, terms)
	VALUES (new.seq, 'p' || new.project_id || ' s' || hex(new.subject_id) || '0', mnemo_terms(new.text));
END;
