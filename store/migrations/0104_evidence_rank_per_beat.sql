-- Evidence is written only with its candidate, in the transaction that
-- writes the candidate (a beat's plan, an import), and never added to a
-- candidate afterwards. The per-row trigger of migration 0102 made each
-- evidence row rewrite its proposal's row twice, a beat over many events
-- rewriting the same proposals thousands of times; the writer now marks
-- the proposals whose candidates gained evidence stale once per
-- transaction (rank_score NULL, rank_epoch bumped), which keeps a rank
-- computed before the write from being kept. Evidence removed still
-- forgets the rank by its trigger.
DROP TRIGGER evidence_rank_insert;
