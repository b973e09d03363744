-- The rewrites (VACUUM FULL, vacuum.go) a forget, a project deletion or an
-- audit re-chain owes after its commit, recorded in its transaction and
-- deleted once done: a process killed between the commit and the end of
-- the rewrite leaves its row, and RepairInterrupted rewrites the tables
-- then. Table names and project ids only, never content.
CREATE TABLE pending_scrubs (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	tables     text[] NOT NULL,
	projects   bigint[] NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
);
