-- Governed skills (governance/skill.go, docs/skills.md): a project's skill
-- folders in the Agent Skills format, each with its versions (SKILL.md
-- byte for byte, its other files, the risk review's findings, trigger
-- examples and their eval), the sessions a draft was learned from, and the
-- procedures the heartbeat saw (event seqs and a hash, never text).
CREATE SEQUENCE skill_rev;
CREATE TABLE skills (
	id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	project_id   bigint NOT NULL REFERENCES projects(id),
	name         text NOT NULL,
	category     text NOT NULL DEFAULT '',
	description  text NOT NULL DEFAULT '',
	status       text NOT NULL,
	pinned       boolean NOT NULL DEFAULT false,
	version      integer NOT NULL DEFAULT 0,
	latest       integer NOT NULL DEFAULT 0,
	pending      integer NOT NULL DEFAULT 0,
	findings     integer NOT NULL DEFAULT 0,
	examples     text NOT NULL DEFAULT '{}',
	signature    text NOT NULL DEFAULT '',
	uses         integer NOT NULL DEFAULT 0,
	last_used_at timestamptz,
	-- rev moves on with every change a context package could see (drawn
	-- from skill_rev): recall keeps its skill index until the project's
	-- highest rev changes.
	rev          bigint NOT NULL DEFAULT 0,
	status_at    timestamptz NOT NULL,
	created_at   timestamptz NOT NULL,
	updated_at   timestamptz NOT NULL,
	UNIQUE (project_id, name)
);
CREATE INDEX skills_rev ON skills (project_id, rev);
CREATE INDEX skills_status ON skills (project_id, status, name);
CREATE INDEX skills_signature ON skills (project_id, signature) WHERE signature <> '';

CREATE TABLE skill_versions (
	skill_id   bigint NOT NULL REFERENCES skills(id),
	version    integer NOT NULL,
	status     text NOT NULL,
	skill_md   text NOT NULL,
	fields     text NOT NULL DEFAULT '{}',
	digest     text NOT NULL,
	findings   text NOT NULL DEFAULT '[]',
	examples   text NOT NULL DEFAULT '{}',
	eval       text NOT NULL DEFAULT '',
	origin     text NOT NULL,
	source     text NOT NULL DEFAULT '',
	actor      text NOT NULL,
	reason     text NOT NULL DEFAULT '',
	decided_by text NOT NULL DEFAULT '',
	decided_at timestamptz,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (skill_id, version)
);

CREATE TABLE skill_files (
	skill_id bigint NOT NULL,
	version  integer NOT NULL,
	path     text NOT NULL,
	content  bytea NOT NULL,
	PRIMARY KEY (skill_id, version, path),
	FOREIGN KEY (skill_id, version) REFERENCES skill_versions(skill_id, version)
);

CREATE TABLE skill_evidence (
	skill_id   bigint NOT NULL REFERENCES skills(id),
	version    integer NOT NULL,
	session_id text NOT NULL,
	subject_id text NOT NULL DEFAULT '',
	seqs       text NOT NULL DEFAULT '[]',
	check_step text NOT NULL DEFAULT '',
	PRIMARY KEY (skill_id, session_id)
);
CREATE INDEX skill_evidence_subject ON skill_evidence (subject_id);

CREATE TABLE skill_procedures (
	project_id bigint NOT NULL REFERENCES projects(id),
	signature  text NOT NULL,
	session_id text NOT NULL,
	subject_id text NOT NULL DEFAULT '',
	seqs       text NOT NULL DEFAULT '[]',
	at         timestamptz NOT NULL,
	PRIMARY KEY (project_id, signature, session_id)
);
CREATE INDEX skill_procedures_subject ON skill_procedures (project_id, subject_id);
