-- The status a rule had when it was superseded, so that restoring it
-- (undoing the replacement) brings it back to use, or to review when it
-- was still a proposal or rejected. NULL for a rule superseded before this
-- column existed (only a rule in use could be then).
ALTER TABLE rules ADD COLUMN superseded_from text
	CHECK (superseded_from IN ('proposed', 'active', 'stale', 'archived', 'rejected'));
