-- CLI eval runs claim their scratch projects' slug prefix with a lease
-- (SQLite's scratch_leases of migration 0038): a scratch project whose CLI
-- prefix has no lease, or an expired one, is an orphan.
CREATE TABLE scratch_leases (
	prefix     text PRIMARY KEY,
	holder     text NOT NULL,
	expires_at timestamptz NOT NULL
);
