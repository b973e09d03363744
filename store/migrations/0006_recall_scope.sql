-- Recall's own full-text index over episode summaries, partitioned by scope:
-- each row carries the tokens p<project id> and s<hex of subject id>0 ("s0"
-- for project-wide episodes), so a lookup for one project and subject
-- touches only their rows however large the database grows. Text is indexed
-- as CJK character pairs (mnemo_cjk_bigrams, so two-character Chinese words
-- are found) and as English words (porter stems). Contentless: it holds no
-- copy of the text; secure-delete removes a forgotten summary's terms.
CREATE VIRTUAL TABLE episodes_recall USING fts5(
	scope,
	grams,
	text,
	content = '',
	contentless_delete = 1,
	tokenize = 'porter unicode61'
);
INSERT INTO episodes_recall (episodes_recall, rank) VALUES ('secure-delete', 1);

INSERT INTO episodes_recall (rowid, scope, grams, text)
	SELECT id, 'p' || project_id || ' s' || hex(subject_id) || '0', mnemo_cjk_bigrams(summary), summary FROM episodes;

CREATE TRIGGER episodes_recall_insert AFTER INSERT ON episodes BEGIN
	INSERT INTO episodes_recall (rowid, scope, grams, text)
	VALUES (new.id, 'p' || new.project_id || ' s' || hex(new.subject_id) || '0', mnemo_cjk_bigrams(new.summary), new.summary);
END;
CREATE TRIGGER episodes_recall_delete AFTER DELETE ON episodes BEGIN
	DELETE FROM episodes_recall WHERE rowid = old.id;
END;
CREATE TRIGGER episodes_recall_update AFTER UPDATE OF summary, project_id, subject_id ON episodes BEGIN
	DELETE FROM episodes_recall WHERE rowid = old.id;
	INSERT INTO episodes_recall (rowid, scope, grams, text)
	VALUES (new.id, 'p' || new.project_id || ' s' || hex(new.subject_id) || '0', mnemo_cjk_bigrams(new.summary), new.summary);
END;

-- The document counts of 0004 walk whole doclists; recall no longer uses them.
DROP TABLE episodes_fts_vocab;
DROP TABLE events_fts_vocab;
