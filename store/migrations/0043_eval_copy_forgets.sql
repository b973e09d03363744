-- A forget no longer removes an eval run's scratch projects when they hold
-- a copy of its project's events (fixtures.copy_events): it forgets the
-- copy of what it forgets there, in its transaction, and counts here how
-- many forgets reached this copy. The run then tells a case that read the
-- copy from one that failed on its own, and its report says a forget
-- happened while it ran. forgotten still withholds the run's result
-- details (SaveEvalResult).
ALTER TABLE eval_copies ADD COLUMN forgets INTEGER NOT NULL DEFAULT 0;
