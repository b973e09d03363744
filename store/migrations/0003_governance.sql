-- Governance: review, rule lifecycle, forget.
--
-- A forget rewrites episode summaries that quote what is forgotten; like the
-- events index, the episode index then removes the old tokens at once
-- instead of leaving them in older segments until the next merge.
INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('secure-delete', 1);

-- "My memories" and "forget everything about me" select one subject's
-- candidates and rules of a project.
CREATE INDEX candidates_subject ON candidates (project_id, subject_id);
CREATE INDEX rules_subject ON rules (project_id, subject_id);
