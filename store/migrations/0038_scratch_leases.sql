-- A CLI eval run ("console eval run") has no eval_runs row, so a killed
-- one's scratch projects (slug "eval-cli-<hex>-…") could not be told from
-- a live one's. The run claims its slug prefix here with a lease it renews
-- while it runs and deletes when it has removed its projects; a scratch
-- project whose CLI prefix has no lease, or an expired one, is an orphan
-- (evals.OrphanScratch, RemoveOrphanScratch). Times are UTC RFC 3339.
CREATE TABLE scratch_leases (
	prefix     TEXT PRIMARY KEY,
	holder     TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
