-- Governed skills (governance/skill.go, docs/skills.md): a project's skill
-- folders in the Agent Skills format, each with its versions (SKILL.md
-- byte for byte, its other files, the risk review's findings, trigger
-- examples and their eval), the sessions a draft was learned from, and the
-- procedures the heartbeat saw (event seqs and a hash, never text).
CREATE TABLE skills (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id   INTEGER NOT NULL REFERENCES projects(id),
	name         TEXT NOT NULL,
	category     TEXT NOT NULL DEFAULT '',
	description  TEXT NOT NULL DEFAULT '',
	status       TEXT NOT NULL,
	pinned       INTEGER NOT NULL DEFAULT 0,
	version      INTEGER NOT NULL DEFAULT 0,
	latest       INTEGER NOT NULL DEFAULT 0,
	pending      INTEGER NOT NULL DEFAULT 0,
	findings     INTEGER NOT NULL DEFAULT 0,
	examples     TEXT NOT NULL DEFAULT '{}',
	signature    TEXT NOT NULL DEFAULT '',
	uses         INTEGER NOT NULL DEFAULT 0,
	last_used_at TEXT,
	-- rev moves on with every change a context package could see: recall
	-- keeps its skill index until the project's highest rev changes.
	rev          INTEGER NOT NULL DEFAULT 0,
	status_at    TEXT NOT NULL,
	created_at   TEXT NOT NULL,
	updated_at   TEXT NOT NULL,
	UNIQUE (project_id, name)
);
CREATE INDEX skills_rev ON skills (project_id, rev);
CREATE INDEX skills_status ON skills (project_id, status, name);
CREATE INDEX skills_signature ON skills (project_id, signature) WHERE signature <> '';

CREATE TABLE skill_versions (
	skill_id   INTEGER NOT NULL REFERENCES skills(id),
	version    INTEGER NOT NULL,
	status     TEXT NOT NULL,
	skill_md   TEXT NOT NULL,
	fields     TEXT NOT NULL DEFAULT '{}',
	digest     TEXT NOT NULL,
	findings   TEXT NOT NULL DEFAULT '[]',
	examples   TEXT NOT NULL DEFAULT '{}',
	eval       TEXT NOT NULL DEFAULT '',
	origin     TEXT NOT NULL,
	source     TEXT NOT NULL DEFAULT '',
	actor      TEXT NOT NULL,
	reason     TEXT NOT NULL DEFAULT '',
	decided_by TEXT NOT NULL DEFAULT '',
	decided_at TEXT,
	created_at TEXT NOT NULL,
	PRIMARY KEY (skill_id, version)
);

CREATE TABLE skill_files (
	skill_id INTEGER NOT NULL,
	version  INTEGER NOT NULL,
	path     TEXT NOT NULL,
	content  BLOB NOT NULL,
	PRIMARY KEY (skill_id, version, path),
	FOREIGN KEY (skill_id, version) REFERENCES skill_versions(skill_id, version)
);

CREATE TABLE skill_evidence (
	skill_id   INTEGER NOT NULL REFERENCES skills(id),
	version    INTEGER NOT NULL,
	session_id TEXT NOT NULL,
	subject_id TEXT NOT NULL DEFAULT '',
	seqs       TEXT NOT NULL DEFAULT '[]',
	check_step TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (skill_id, session_id)
);
CREATE INDEX skill_evidence_subject ON skill_evidence (subject_id);

CREATE TABLE skill_procedures (
	project_id INTEGER NOT NULL REFERENCES projects(id),
	signature  TEXT NOT NULL,
	session_id TEXT NOT NULL,
	subject_id TEXT NOT NULL DEFAULT '',
	seqs       TEXT NOT NULL DEFAULT '[]',
	at         TEXT NOT NULL,
	PRIMARY KEY (project_id, signature, session_id)
);
CREATE INDEX skill_procedures_subject ON skill_procedures (project_id, subject_id);
