-- Mnemo schema: accounts and projects, then the four memory layers
-- (raw events, consolidated episodes/candidates/evidence, semantic rules,
-- working recall traces), audit, heartbeat, API tokens and evals.
-- Times are UTC RFC 3339 text.

CREATE TABLE projects (
	id            INTEGER PRIMARY KEY,
	slug          TEXT NOT NULL UNIQUE,
	name          TEXT NOT NULL,
	description   TEXT NOT NULL DEFAULT '',
	auto_activate INTEGER NOT NULL DEFAULT 0,
	created_at    TEXT NOT NULL
);

CREATE TABLE accounts (
	id            INTEGER PRIMARY KEY,
	username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
	password_hash TEXT NOT NULL,
	is_admin      INTEGER NOT NULL DEFAULT 0,
	created_at    TEXT NOT NULL,
	updated_at    TEXT NOT NULL
);

CREATE TABLE memberships (
	account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
	role       TEXT NOT NULL CHECK (role IN ('reviewer', 'member')),
	subject_id TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (account_id, project_id),
	CHECK (role <> 'member' OR subject_id <> '')
);

-- Cookie signing and encryption keys, generated on first start.
CREATE TABLE session_keys (
	id         INTEGER PRIMARY KEY,
	hash_key   BLOB NOT NULL,
	block_key  BLOB NOT NULL,
	created_at TEXT NOT NULL
);

-- Raw layer: append-only; seq is the monotonic sequence the heartbeat
-- checkpoint uses. Only a forget changes a row (text redacted).
CREATE TABLE events (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,
	id          TEXT NOT NULL,
	project_id  INTEGER NOT NULL REFERENCES projects(id),
	session_id  TEXT NOT NULL,
	subject_id  TEXT NOT NULL DEFAULT '',
	turn        INTEGER NOT NULL DEFAULT 0,
	kind        TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'session_end')),
	role        TEXT NOT NULL DEFAULT '' CHECK (role IN ('user', 'assistant', 'tool', '')),
	text        TEXT NOT NULL DEFAULT '',
	tool        TEXT NOT NULL DEFAULT '',
	status      TEXT NOT NULL DEFAULT '',
	source      TEXT NOT NULL DEFAULT 'conversation' CHECK (source IN ('conversation', 'tool', 'external')),
	occurred_at TEXT NOT NULL,
	ingested_at TEXT NOT NULL,
	redacted    INTEGER NOT NULL DEFAULT 0,
	UNIQUE (project_id, id)
);
CREATE INDEX events_session ON events (project_id, session_id, turn, seq);
CREATE INDEX events_subject ON events (project_id, subject_id);

-- One row per session, kept in step by ingestion, so listing sessions and
-- finding ended ones never scans the events table.
CREATE TABLE sessions (
	project_id INTEGER NOT NULL REFERENCES projects(id),
	session_id TEXT NOT NULL,
	subject_id TEXT NOT NULL DEFAULT '',
	events     INTEGER NOT NULL DEFAULT 0,
	failed     INTEGER NOT NULL DEFAULT 0,
	external   INTEGER NOT NULL DEFAULT 0,
	first_at   TEXT NOT NULL,
	last_at    TEXT NOT NULL,
	ended      INTEGER NOT NULL DEFAULT 0,
	last_seq   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (project_id, session_id)
);
CREATE INDEX sessions_recent ON sessions (project_id, last_seq);
CREATE INDEX sessions_subject ON sessions (project_id, subject_id);

-- Full-text index over event text. The trigram tokenizer finds Chinese
-- substrings and English words alike; it holds no copy of the text
-- (external content), and the triggers keep it in step.
CREATE VIRTUAL TABLE events_fts USING fts5(
	text,
	content = 'events',
	content_rowid = 'seq',
	tokenize = 'trigram'
);
-- Deletes (a forget redacts an event's text) remove the old tokens from the
-- index at once instead of leaving them until the next merge.
INSERT INTO events_fts (events_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
	INSERT INTO events_fts (rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER events_fts_delete AFTER DELETE ON events BEGIN
	INSERT INTO events_fts (events_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER events_fts_update AFTER UPDATE OF text ON events BEGIN
	INSERT INTO events_fts (events_fts, rowid, text) VALUES ('delete', old.seq, old.text);
	INSERT INTO events_fts (rowid, text) VALUES (new.seq, new.text);
END;

-- Consolidated layer.
CREATE TABLE episodes (
	id          INTEGER PRIMARY KEY,
	project_id  INTEGER NOT NULL REFERENCES projects(id),
	session_id  TEXT NOT NULL,
	subject_id  TEXT NOT NULL DEFAULT '',
	summary     TEXT NOT NULL,
	first_seq   INTEGER NOT NULL,
	last_seq    INTEGER NOT NULL,
	event_count INTEGER NOT NULL,
	extractor   TEXT NOT NULL,
	created_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL,
	UNIQUE (project_id, session_id)
);

CREATE TABLE candidates (
	id            INTEGER PRIMARY KEY,
	project_id    INTEGER NOT NULL REFERENCES projects(id),
	session_id    TEXT NOT NULL,
	subject_id    TEXT NOT NULL DEFAULT '',
	type          TEXT NOT NULL CHECK (type IN ('user_preference', 'fact', 'lesson')),
	statement     TEXT NOT NULL,
	durable       INTEGER NOT NULL DEFAULT 0,
	extractor     TEXT NOT NULL,
	status        TEXT NOT NULL CHECK (status IN ('pending', 'held', 'proposed', 'promoted', 'rejected', 'blocked')),
	status_reason TEXT NOT NULL DEFAULT '',
	group_id      INTEGER NOT NULL DEFAULT 0,
	rule_id       INTEGER REFERENCES rules(id),
	fingerprint   TEXT NOT NULL DEFAULT '',
	findings      TEXT NOT NULL DEFAULT '[]',
	created_at    TEXT NOT NULL,
	updated_at    TEXT NOT NULL
);
CREATE INDEX candidates_project ON candidates (project_id, status);
CREATE INDEX candidates_rule ON candidates (rule_id);
CREATE INDEX candidates_group ON candidates (group_id);

-- Evidence: which events support which candidate.
CREATE TABLE evidence (
	candidate_id INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
	event_seq    INTEGER NOT NULL REFERENCES events(seq),
	PRIMARY KEY (candidate_id, event_seq)
) WITHOUT ROWID;
CREATE INDEX evidence_event ON evidence (event_seq);

-- Semantic layer.
CREATE TABLE rules (
	id               INTEGER PRIMARY KEY,
	project_id       INTEGER NOT NULL REFERENCES projects(id),
	subject_id       TEXT NOT NULL DEFAULT '',
	kind             TEXT NOT NULL CHECK (kind IN ('user_preference', 'fact', 'lesson')),
	text             TEXT NOT NULL,
	promotion_reason TEXT NOT NULL,
	status           TEXT NOT NULL CHECK (status IN ('proposed', 'active', 'stale', 'archived', 'superseded', 'rejected', 'forgotten')),
	version          INTEGER NOT NULL DEFAULT 1,
	trust            REAL NOT NULL DEFAULT 0.5,
	expires_at       TEXT,
	paused           INTEGER NOT NULL DEFAULT 0,
	last_used_at     TEXT,
	use_count        INTEGER NOT NULL DEFAULT 0,
	supersedes       INTEGER REFERENCES rules(id),
	superseded_by    INTEGER REFERENCES rules(id),
	findings         TEXT NOT NULL DEFAULT '[]',
	fingerprint      TEXT NOT NULL DEFAULT '',
	-- Code checks for rule compliance in evals (JSON array).
	checks           TEXT NOT NULL DEFAULT '[]',
	created_at       TEXT NOT NULL,
	updated_at       TEXT NOT NULL
);
CREATE INDEX rules_scope ON rules (project_id, status, subject_id);

CREATE TABLE rule_versions (
	rule_id    INTEGER NOT NULL REFERENCES rules(id) ON DELETE CASCADE,
	version    INTEGER NOT NULL,
	text       TEXT NOT NULL,
	kind       TEXT NOT NULL,
	actor      TEXT NOT NULL,
	reason     TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	PRIMARY KEY (rule_id, version)
);

-- Fingerprints of forgotten statements: the heartbeat never learns them again.
CREATE TABLE suppressions (
	project_id  INTEGER NOT NULL REFERENCES projects(id),
	fingerprint TEXT NOT NULL,
	subject_id  TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL,
	PRIMARY KEY (project_id, fingerprint)
);

-- Working layer: stored recall traces (ids, scores and reasons; no memory text).
CREATE TABLE recall_traces (
	id         INTEGER PRIMARY KEY,
	project_id INTEGER NOT NULL REFERENCES projects(id),
	subject_id TEXT NOT NULL DEFAULT '',
	actor      TEXT NOT NULL,
	task_hash  TEXT NOT NULL,
	trace      TEXT NOT NULL,
	created_at TEXT NOT NULL
);
CREATE INDEX recall_traces_project ON recall_traces (project_id, id);

-- Append-only audit, each row hash-chained to the one before.
CREATE TABLE audit (
	id             INTEGER PRIMARY KEY,
	at             TEXT NOT NULL,
	actor          TEXT NOT NULL,
	action         TEXT NOT NULL,
	object_type    TEXT NOT NULL,
	object_id      TEXT NOT NULL,
	project_id     INTEGER,
	reason         TEXT NOT NULL DEFAULT '',
	policy_version TEXT NOT NULL,
	details        TEXT NOT NULL DEFAULT '',
	prev_hash      TEXT NOT NULL,
	hash           TEXT NOT NULL
);
CREATE INDEX audit_object ON audit (object_type, object_id);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN
	SELECT RAISE(ABORT, 'audit is append-only');
END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN
	SELECT RAISE(ABORT, 'audit is append-only');
END;

-- Heartbeat: one checkpoint per project, one row per beat.
CREATE TABLE checkpoints (
	project_id INTEGER PRIMARY KEY REFERENCES projects(id),
	seq        INTEGER NOT NULL,
	updated_at TEXT NOT NULL
);

CREATE TABLE beats (
	id            INTEGER PRIMARY KEY,
	trigger       TEXT NOT NULL,
	started_at    TEXT NOT NULL,
	finished_at   TEXT,
	new_events    INTEGER NOT NULL DEFAULT 0,
	episodes      INTEGER NOT NULL DEFAULT 0,
	candidates    INTEGER NOT NULL DEFAULT 0,
	proposals     INTEGER NOT NULL DEFAULT 0,
	held          INTEGER NOT NULL DEFAULT 0,
	blocked       INTEGER NOT NULL DEFAULT 0,
	errors        TEXT NOT NULL DEFAULT '',
	tokens        INTEGER NOT NULL DEFAULT 0,
	next_beat_at  TEXT
);

-- Project API tokens (only the SHA-256 of the secret is kept).
CREATE TABLE api_tokens (
	id           INTEGER PRIMARY KEY,
	project_id   INTEGER NOT NULL REFERENCES projects(id),
	name         TEXT NOT NULL,
	token_hash   TEXT NOT NULL UNIQUE,
	scopes       TEXT NOT NULL,
	created_by   TEXT NOT NULL,
	created_at   TEXT NOT NULL,
	last_used_at TEXT,
	revoked_at   TEXT
);

-- Evals.
CREATE TABLE eval_suites (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	origin     TEXT NOT NULL CHECK (origin IN ('builtin', 'uploaded')),
	body       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);

CREATE TABLE eval_runs (
	id           INTEGER PRIMARY KEY,
	suite_id     INTEGER NOT NULL REFERENCES eval_suites(id),
	status       TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
	total        INTEGER NOT NULL DEFAULT 0,
	done         INTEGER NOT NULL DEFAULT 0,
	current_case TEXT NOT NULL DEFAULT '',
	passed       INTEGER NOT NULL DEFAULT 0,
	failed       INTEGER NOT NULL DEFAULT 0,
	skipped      INTEGER NOT NULL DEFAULT 0,
	summary      TEXT NOT NULL DEFAULT '{}',
	tokens       INTEGER NOT NULL DEFAULT 0,
	cost         REAL NOT NULL DEFAULT 0,
	error        TEXT NOT NULL DEFAULT '',
	created_by   TEXT NOT NULL,
	created_at   TEXT NOT NULL,
	started_at   TEXT,
	finished_at  TEXT
);

CREATE TABLE eval_results (
	id         INTEGER PRIMARY KEY,
	run_id     INTEGER NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
	case_id    TEXT NOT NULL,
	kind       TEXT NOT NULL,
	status     TEXT NOT NULL CHECK (status IN ('passed', 'failed', 'skipped', 'error')),
	reason     TEXT NOT NULL DEFAULT '',
	detail     TEXT NOT NULL DEFAULT '{}',
	created_at TEXT NOT NULL,
	UNIQUE (run_id, case_id)
);

-- Small key/value settings (policy version, model endpoint overrides).
CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
INSERT INTO settings (key, value) VALUES ('policy_version', '1');
