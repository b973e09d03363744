-- Project-scoped terms for recall's episode index (0006), as 0032 does for
-- events: each term of a summary is written as <project id>_<term>
-- (mnemo_scoped_terms: the tokenizer package's English stems, CJK
-- character pairs and single characters, the terms recall's relevance
-- model scores), so a lookup reads only the project's part of each term's
-- list. The scope column holds <project id>_s<hex of subject id>0
-- ("<project id>_s0" for project-wide episodes). Still contentless with
-- secure-delete: it holds no copy of the text, and a forget rewrites it.
DROP TRIGGER episodes_recall_insert;
DROP TRIGGER episodes_recall_delete;
DROP TRIGGER episodes_recall_update;
DROP TABLE episodes_recall;

CREATE VIRTUAL TABLE episodes_recall USING fts5(
	scope,
	terms,
	content = '',
	contentless_delete = 1,
	tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Co Mn' tokenchars '_'"
);
INSERT INTO episodes_recall (episodes_recall, rank) VALUES ('secure-delete', 1);

INSERT INTO episodes_recall (rowid, scope, terms)
	SELECT id, project_id || '_s' || hex(subject_id) || '0', mnemo_scoped_terms(project_id, summary) FROM episodes;

CREATE TRIGGER episodes_recall_insert AFTER INSERT ON episodes BEGIN
	INSERT INTO episodes_recall (rowid, scope, terms)
	VALUES (new.id, new.project_id || '_s' || hex(new.subject_id) || '0', mnemo_scoped_terms(new.project_id, new.summary));
END;
CREATE TRIGGER episodes_recall_delete AFTER DELETE ON episodes BEGIN
	DELETE FROM episodes_recall WHERE rowid = old.id;
END;
CREATE TRIGGER episodes_recall_update AFTER UPDATE OF summary, project_id, subject_id ON episodes BEGIN
	DELETE FROM episodes_recall WHERE rowid = old.id;
	INSERT INTO episodes_recall (rowid, scope, terms)
	VALUES (new.id, new.project_id || '_s' || hex(new.subject_id) || '0', mnemo_scoped_terms(new.project_id, new.summary));
END;
