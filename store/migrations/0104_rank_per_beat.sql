-- A candidate and its evidence are written only together, in one
-- transaction (a beat's plan, an import), and evidence is never added to a
-- candidate afterwards. The per-row triggers of migration 0102 on candidate
-- and evidence inserts made each row rewrite its proposal's row twice, a
-- beat over many events rewriting the same proposals thousands of times;
-- the writer now marks the proposals that gained candidates stale once
-- per transaction (rank_score NULL, rank_epoch bumped), which keeps a rank
-- computed before the write from being kept. A candidate moved or deleted
-- and evidence removed still forget the rank by their triggers.
DROP TRIGGER candidates_rank_insert;
DROP TRIGGER evidence_rank_insert;
