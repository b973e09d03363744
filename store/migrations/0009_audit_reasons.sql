-- The reasons people give (a reject reason may quote the memory it rejects)
-- are kept beside the hash chain: a new audit row keeps only the reason's
-- SHA-256 (reason_hash, covered by the row's hash) and the text lives in
-- audit_reasons, which a forget may blank without breaking verification.
ALTER TABLE audit ADD COLUMN reason_hash TEXT NOT NULL DEFAULT '';
CREATE TABLE audit_reasons (
	audit_id INTEGER PRIMARY KEY REFERENCES audit(id),
	reason   TEXT NOT NULL
);
