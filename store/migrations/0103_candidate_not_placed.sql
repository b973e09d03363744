-- The clause a proposed candidate's reason names as keeping its statement
-- outside the low-risk set, and why (governance.NotPlaced as JSON; '' when
-- the reason names none), so a page says it in the reader's language
-- instead of reading it back out of the English reason. Rows written
-- before keep '' and show their reason as stored.
ALTER TABLE candidates ADD COLUMN why_not_placed TEXT NOT NULL DEFAULT '';
