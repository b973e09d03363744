-- The data file of an uploaded benchmark suite (SQLite's eval_suite_data
-- of migration 0059): a LongMemEval file, gzip-compressed, in parts of at
-- most a mebibyte.
CREATE TABLE eval_suite_data (
	suite_id bigint NOT NULL REFERENCES eval_suites(id),
	part     integer NOT NULL,
	bytes    bytea NOT NULL,
	PRIMARY KEY (suite_id, part)
);
