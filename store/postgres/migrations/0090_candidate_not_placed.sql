-- The clause a proposed candidate's reason names as keeping its statement
-- outside the low-risk set, and why, as SQLite's migration 0103 states
-- (governance.NotPlaced as JSON; '' when the reason names none).
ALTER TABLE candidates ADD COLUMN why_not_placed TEXT NOT NULL DEFAULT '';
