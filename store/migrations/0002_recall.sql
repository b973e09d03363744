-- Recall: a full-text index over episode summaries (trigram, so Chinese
-- substrings and English words alike; external content, so it holds no copy
-- of the text, and the triggers keep it in step), and indexes for the scope
-- filter and its counts.
CREATE VIRTUAL TABLE episodes_fts USING fts5(
	summary,
	content = 'episodes',
	content_rowid = 'id',
	tokenize = 'trigram'
);
INSERT INTO episodes_fts (episodes_fts) VALUES ('rebuild');
CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes BEGIN
	INSERT INTO episodes_fts (rowid, summary) VALUES (new.id, new.summary);
END;
CREATE TRIGGER episodes_fts_delete AFTER DELETE ON episodes BEGIN
	INSERT INTO episodes_fts (episodes_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
END;
CREATE TRIGGER episodes_fts_update AFTER UPDATE OF summary ON episodes BEGIN
	INSERT INTO episodes_fts (episodes_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
	INSERT INTO episodes_fts (rowid, summary) VALUES (new.id, new.summary);
END;

CREATE INDEX episodes_scope ON episodes (project_id, subject_id, last_seq);
-- Counting the active rules outside a scope reads this index only.
CREATE INDEX rules_status ON rules (status, project_id, subject_id);

CREATE INDEX api_tokens_project ON api_tokens (project_id);
