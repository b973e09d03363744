-- Evidence is written only with its candidate, in the transaction that
-- writes the candidate (a beat's plan, an import), as SQLite's migration
-- 0104 states: the writer marks the proposals whose candidates gained
-- evidence stale once per transaction instead of a trigger call per
-- evidence row. Evidence removed still forgets the rank by its trigger.
DROP TRIGGER evidence_rank_insert ON evidence;
