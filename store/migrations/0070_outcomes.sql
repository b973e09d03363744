-- Outcomes (docs/outcomes.md): what agents report a recalled memory did,
-- the reviews the heartbeat drafts from harmful reports, each project's
-- outcome policy, and per-rule counts the rules list sorts by.

-- One report per recalled item (or the whole package: item_id '') of a
-- trace. note and task passed the write gate; a forget blanks them
-- (store/outcome.go). review_id is the review the report is evidence of.
CREATE TABLE recall_outcomes (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id INTEGER NOT NULL REFERENCES projects(id),
	trace_id   INTEGER NOT NULL REFERENCES recall_traces(id),
	subject_id TEXT NOT NULL DEFAULT '',
	item_id    TEXT NOT NULL DEFAULT '',
	rule_id    INTEGER,
	verdict    TEXT NOT NULL CHECK (verdict IN ('helped', 'not_used', 'misled', 'conflicted_with_current')),
	note       TEXT NOT NULL DEFAULT '',
	task       TEXT NOT NULL DEFAULT '',
	session_id TEXT NOT NULL DEFAULT '',
	actor      TEXT NOT NULL,
	review_id  INTEGER,
	created_at TEXT NOT NULL,
	UNIQUE (trace_id, item_id)
);
CREATE INDEX recall_outcomes_rule ON recall_outcomes (rule_id, id) WHERE rule_id IS NOT NULL;
CREATE INDEX recall_outcomes_subject ON recall_outcomes (project_id, subject_id, id);
-- The heartbeat's step reads the harmful reports no review holds yet.
CREATE INDEX recall_outcomes_pending ON recall_outcomes (project_id, id)
	WHERE review_id IS NULL AND rule_id IS NOT NULL AND verdict IN ('misled', 'conflicted_with_current');

-- Per-rule counts by verdict, kept with each report.
CREATE TABLE rule_outcomes (
	rule_id    INTEGER PRIMARY KEY REFERENCES rules(id),
	project_id INTEGER NOT NULL REFERENCES projects(id),
	helped     INTEGER NOT NULL DEFAULT 0,
	not_used   INTEGER NOT NULL DEFAULT 0,
	misled     INTEGER NOT NULL DEFAULT 0,
	conflicted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX rule_outcomes_project ON rule_outcomes (project_id);

-- A demotion (replacement_id NULL) or replacement the heartbeat proposes
-- for a rule that misled agents; at most one open review per rule.
CREATE TABLE outcome_reviews (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id     INTEGER NOT NULL REFERENCES projects(id),
	rule_id        INTEGER NOT NULL REFERENCES rules(id),
	rule_version   INTEGER NOT NULL,
	replacement_id INTEGER REFERENCES rules(id),
	status         TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'discarded')),
	sessions       INTEGER NOT NULL DEFAULT 0,
	reason         TEXT NOT NULL DEFAULT '',
	case_added     INTEGER NOT NULL DEFAULT 0,
	decided_by     TEXT NOT NULL DEFAULT '',
	decided_at     TEXT,
	created_at     TEXT NOT NULL,
	updated_at     TEXT NOT NULL
);
CREATE UNIQUE INDEX outcome_reviews_open ON outcome_reviews (rule_id) WHERE status = 'open';
CREATE INDEX outcome_reviews_project ON outcome_reviews (project_id, status, id);

CREATE TABLE outcome_policies (
	project_id            INTEGER PRIMARY KEY REFERENCES projects(id),
	threshold             INTEGER NOT NULL DEFAULT 2,
	require_no_regression INTEGER NOT NULL DEFAULT 0
);

-- Regression suites (origin 'regression'): a project's cases that
-- reviewers added from outcome reviews. The table is rebuilt with the
-- wider check, the way SQLite documents (ids kept; foreign keys are off
-- while a migration runs and checked before it commits).
CREATE TABLE eval_suites_new (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	origin     TEXT NOT NULL CHECK (origin IN ('builtin', 'uploaded', 'regression')),
	body       TEXT NOT NULL,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
INSERT INTO eval_suites_new (id, name, origin, body, created_at, updated_at)
	SELECT id, name, origin, body, created_at, updated_at FROM eval_suites;
DROP TABLE eval_suites;
ALTER TABLE eval_suites_new RENAME TO eval_suites;
