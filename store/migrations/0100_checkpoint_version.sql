-- Every applied beat bumps its project's checkpoint version. A beat reads
-- the version with its input and writes its plan only if the version is
-- still the same, so two console instances on one database file that beat
-- one project at once (a leader change in flight) write each session's
-- work once.
ALTER TABLE checkpoints ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
