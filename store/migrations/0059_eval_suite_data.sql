-- The data file of an uploaded benchmark suite (a LongMemEval file, tens
-- of megabytes, gzip-compressed), kept beside the suite in parts of at
-- most a mebibyte so that a run reads it one part at a time. The suite's
-- body names the file by its SHA-256 and lists its questions.
CREATE TABLE eval_suite_data (
	suite_id INTEGER NOT NULL REFERENCES eval_suites(id),
	part     INTEGER NOT NULL,
	bytes    BLOB NOT NULL,
	PRIMARY KEY (suite_id, part)
);
