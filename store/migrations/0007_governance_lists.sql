-- Governance lists at scale: the rules list and the review queue page
-- through a project's rules in id order and count them without touching the
-- rows (the filter columns ride in the index), so neither sorts nor reads
-- thousands of rows for one page.
CREATE INDEX rules_list ON rules (project_id, id, status, subject_id, kind, promotion_reason, paused);
