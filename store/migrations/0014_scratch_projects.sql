-- Eval scratch projects are flagged in the schema instead of being
-- recognised by their slug: only a flagged project may be deleted by the
-- scratch cleanup, and the heartbeat skips only flagged projects. Existing
-- scratch projects (left by an interrupted run) are the ones evals created:
-- its slug prefix together with the description it always writes.
ALTER TABLE projects ADD COLUMN scratch INTEGER NOT NULL DEFAULT 0;
UPDATE projects SET scratch = 1
WHERE substr(slug, 1, 5) = 'eval-' AND description = 'Created by an eval run; removed when the run ends.';
