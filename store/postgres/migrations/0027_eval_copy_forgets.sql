-- How many forgets reached an eval run's copy of a project's events, as
-- SQLite's migration 0043: a forget forgets the copy of what it forgets in
-- the run's scratch projects instead of removing them.
ALTER TABLE eval_copies ADD COLUMN forgets integer NOT NULL DEFAULT 0;
