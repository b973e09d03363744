-- One full-text index over event text in place of two: events_words holds
-- each event's terms as the tokenizer package cuts them (mnemo_terms, lower-
-- cased English stems without stop words; for Chinese, Japanese and Korean
-- runs the overlapping character pairs, then the single characters), so
-- search and recall rank words by relevance, a Chinese substring of two or
-- more characters is a phrase of its pairs, and one character is a term of
-- its own. Word tokens are a fraction of the trigrams the old index wrote
-- for every three bytes of text, and one index replaces the trigram and
-- pair indexes: ingest writes far less.
--
-- The scope column holds p<project id> and s<hex of subject id>0 ("s0" for
-- project-wide events), so a lookup for one project and subject reads only
-- their part of each term's list. The index's content is the view
-- events_terms, which computes the terms from the event text: the index
-- keeps no copy of the text and can be rebuilt. Rows leave through FTS5's
-- 'delete' command with the terms they were indexed with (mnemo_terms is
-- deterministic), which secure-delete applies to the index pages at once:
-- a redacted event's terms are gone, not tombstoned.
CREATE VIEW events_terms (seq, scope, terms) AS
	SELECT seq, 'p' || project_id || ' s' || hex(subject_id) || '0', mnemo_terms(text) FROM events;
CREATE VIRTUAL TABLE events_words USING fts5(
	scope,
	terms,
	content = 'events_terms',
	content_rowid = 'seq',
	tokenize = 'unicode61 remove_diacritics 0'
);
INSERT INTO events_words (events_words, rank) VALUES ('secure-delete', 1);
INSERT INTO events_words (events_words) VALUES ('rebuild');

CREATE TRIGGER events_words_insert AFTER INSERT ON events BEGIN
	INSERT INTO events_words (rowid, scope, terms)
	VALUES (new.seq, 'p' || new.project_id || ' s' || hex(new.subject_id) || '0', mnemo_terms(new.text));
END;
CREATE TRIGGER events_words_delete AFTER DELETE ON events BEGIN
	INSERT INTO events_words (events_words, rowid, scope, terms)
	VALUES ('delete', old.seq, 'p' || old.project_id || ' s' || hex(old.subject_id) || '0', mnemo_terms(old.text));
END;
CREATE TRIGGER events_words_update AFTER UPDATE OF text, project_id, subject_id ON events BEGIN
	INSERT INTO events_words (events_words, rowid, scope, terms)
	VALUES ('delete', old.seq, 'p' || old.project_id || ' s' || hex(old.subject_id) || '0', mnemo_terms(old.text));
	INSERT INTO events_words (rowid, scope, terms)
	VALUES (new.seq, 'p' || new.project_id || ' s' || hex(new.subject_id) || '0', mnemo_terms(new.text));
END;

DROP TRIGGER events_fts_insert;
DROP TRIGGER events_fts_delete;
DROP TRIGGER events_fts_update;
DROP TABLE events_fts;
DROP TRIGGER events_cjk_insert;
DROP TRIGGER events_cjk_delete;
DROP TRIGGER events_cjk_update;
DROP TABLE events_cjk;

-- Episode summaries keep recall's scope-partitioned index (episodes_recall);
-- the trigram index over them served nothing any more.
DROP TRIGGER episodes_fts_insert;
DROP TRIGGER episodes_fts_delete;
DROP TRIGGER episodes_fts_update;
DROP TABLE episodes_fts;
