-- Full-text index over rule texts for the rules list's search (a LIKE over
-- every rule's text cost 7-15 ms of CPU a page at 10k rules). Trigram, like
-- the events index; external content, so it holds no copy of the text, and
-- secure-delete, so a forgotten rule's terms leave it at once.
CREATE VIRTUAL TABLE rules_fts USING fts5(
	text,
	content = 'rules',
	content_rowid = 'id',
	tokenize = 'trigram'
);
INSERT INTO rules_fts (rules_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO rules_fts (rules_fts) VALUES ('rebuild');

CREATE TRIGGER rules_fts_insert AFTER INSERT ON rules BEGIN
	INSERT INTO rules_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER rules_fts_delete AFTER DELETE ON rules BEGIN
	INSERT INTO rules_fts (rules_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER rules_fts_update AFTER UPDATE OF text ON rules BEGIN
	INSERT INTO rules_fts (rules_fts, rowid, text) VALUES ('delete', old.id, old.text);
	INSERT INTO rules_fts (rowid, text) VALUES (new.id, new.text);
END;

-- Two-character Chinese words, which trigrams cannot find, through the CJK
-- character pairs of each rule (as events_cjk does for events).
CREATE VIRTUAL TABLE rules_cjk USING fts5(
	grams,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61'
);
INSERT INTO rules_cjk (rules_cjk, rank) VALUES ('secure-delete', 1);
INSERT INTO rules_cjk (rowid, grams)
	SELECT id, mnemo_cjk_bigrams(text) FROM rules WHERE mnemo_cjk_bigrams(text) <> '';

CREATE TRIGGER rules_cjk_insert AFTER INSERT ON rules WHEN mnemo_cjk_bigrams(new.text) <> '' BEGIN
	INSERT INTO rules_cjk (rowid, grams) VALUES (new.id, mnemo_cjk_bigrams(new.text));
END;
CREATE TRIGGER rules_cjk_delete AFTER DELETE ON rules BEGIN
	DELETE FROM rules_cjk WHERE rowid = old.id;
END;
CREATE TRIGGER rules_cjk_update AFTER UPDATE OF text ON rules BEGIN
	DELETE FROM rules_cjk WHERE rowid = old.id;
	INSERT INTO rules_cjk (rowid, grams) SELECT new.id, mnemo_cjk_bigrams(new.text) WHERE mnemo_cjk_bigrams(new.text) <> '';
END;
