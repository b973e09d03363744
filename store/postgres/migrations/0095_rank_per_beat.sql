-- A candidate and its evidence are written only together, in one
-- transaction (a beat's plan, an import), as SQLite's migration 0104
-- states: the writer marks the proposals that gained candidates stale once
-- per transaction instead of a trigger call per candidate and evidence
-- row. A candidate moved or deleted and evidence removed still forget the
-- rank by their triggers.
DROP TRIGGER candidates_rank_insert ON candidates;
DROP TRIGGER evidence_rank_insert ON evidence;
