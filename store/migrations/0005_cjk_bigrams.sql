-- A second full-text index for two-character Chinese, Japanese and Korean
-- words, which the trigram index cannot find (its terms need three
-- characters): every CJK run of an event's text is indexed as its
-- overlapping character pairs (mnemo_cjk_bigrams, registered by the store).
-- Contentless: it holds no copy of the text; secure-delete removes the
-- pairs of a redacted event at once.
CREATE VIRTUAL TABLE events_cjk USING fts5(
	grams,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61'
);
INSERT INTO events_cjk (events_cjk, rank) VALUES ('secure-delete', 1);

INSERT INTO events_cjk (rowid, grams)
	SELECT seq, mnemo_cjk_bigrams(text) FROM events WHERE mnemo_cjk_bigrams(text) <> '';

CREATE TRIGGER events_cjk_insert AFTER INSERT ON events WHEN mnemo_cjk_bigrams(new.text) <> '' BEGIN
	INSERT INTO events_cjk (rowid, grams) VALUES (new.seq, mnemo_cjk_bigrams(new.text));
END;
CREATE TRIGGER events_cjk_delete AFTER DELETE ON events BEGIN
	DELETE FROM events_cjk WHERE rowid = old.seq;
END;
CREATE TRIGGER events_cjk_update AFTER UPDATE OF text ON events BEGIN
	DELETE FROM events_cjk WHERE rowid = old.seq;
	INSERT INTO events_cjk (rowid, grams) SELECT new.seq, mnemo_cjk_bigrams(new.text) WHERE mnemo_cjk_bigrams(new.text) <> '';
END;
