-- Project-scoped terms for the events' word index (0016). Each term of an
-- event's text is written as <project id>_<term> (mnemo_scoped_terms), so
-- a term's list of rows holds only its project's events: a search or a
-- recall in one project reads and ranks that project's part of the index,
-- never every project's. Before, "scope:p7 AND terms:(...)" walked the
-- lists of the task's terms across all projects and FTS5 scored every row
-- they held (most of a search's time at 1M events over 100 projects).
-- The tokenizer keeps '_' inside a token, so "7_tea" is one term; the
-- tokenizer package's terms hold letters, digits and combining marks only
-- (the marks now count as token characters too, so a term is never cut).
--
-- The scope column keeps the subject only, scoped the same way:
-- <project id>_s<hex of subject id>0 ("<project id>_s0" for project-wide
-- events). The index is rebuilt from the events (the content view); it
-- still keeps no copy of the text, and secure-delete applies a redacted
-- event's 'delete' at once.
DROP TRIGGER events_words_insert;
DROP TRIGGER events_words_delete;
DROP TRIGGER events_words_update;
DROP TABLE events_words;
DROP VIEW events_terms;

CREATE VIEW events_terms (seq, scope, terms) AS
	SELECT seq, project_id || '_s' || hex(subject_id) || '0', mnemo_scoped_terms(project_id, text) FROM events;
CREATE VIRTUAL TABLE events_words USING fts5(
	scope,
	terms,
	content = 'events_terms',
	content_rowid = 'seq',
	tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Co Mn' tokenchars '_'"
);
INSERT INTO events_words (events_words, rank) VALUES ('secure-delete', 1);
INSERT INTO events_words (events_words) VALUES ('rebuild');

-- Recall counts each scope's document frequencies in the index and the
-- store keeps them in memory (store/term_stats.go), valid while the
-- project's row here is unchanged:
-- every change of the project's indexed terms (a row indexed, its text
-- changed or redacted, the row deleted) bumps it in the same transaction,
-- through the triggers below and ingest's batch statement (endBatchIndex).
-- It holds a number, never a term.
CREATE TABLE event_index_versions (
	project_id INTEGER PRIMARY KEY,
	version    INTEGER NOT NULL
);

CREATE TRIGGER events_words_insert AFTER INSERT ON events WHEN (SELECT batch FROM ingest_mode WHERE id = 1) = 0 BEGIN
	INSERT INTO events_words (rowid, scope, terms)
	VALUES (new.seq, new.project_id || '_s' || hex(new.subject_id) || '0', mnemo_scoped_terms(new.project_id, new.text));
	INSERT INTO event_index_versions (project_id, version) VALUES (new.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER events_words_delete AFTER DELETE ON events BEGIN
	INSERT INTO events_words (events_words, rowid, scope, terms)
	VALUES ('delete', old.seq, old.project_id || '_s' || hex(old.subject_id) || '0', mnemo_scoped_terms(old.project_id, old.text));
	INSERT INTO event_index_versions (project_id, version) VALUES (old.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER events_words_update AFTER UPDATE OF text, project_id, subject_id ON events BEGIN
	INSERT INTO events_words (events_words, rowid, scope, terms)
	VALUES ('delete', old.seq, old.project_id || '_s' || hex(old.subject_id) || '0', mnemo_scoped_terms(old.project_id, old.text));
	INSERT INTO events_words (rowid, scope, terms)
	VALUES (new.seq, new.project_id || '_s' || hex(new.subject_id) || '0', mnemo_scoped_terms(new.project_id, new.text));
	INSERT INTO event_index_versions (project_id, version) VALUES (old.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET version = version + 1;
	INSERT INTO event_index_versions (project_id, version) VALUES (new.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET version = version + 1;
END;
