-- Classes of proposals a reviewer rejected in a project (governance.
-- RejectedClass): the heartbeat holds a group of a class standing here
-- instead of proposing it, until a reviewer lifts the rejection
-- (lifted_at). A class is its parts (kind, channel, head words, risk),
-- never a rule's text; at most one standing rejection per class.
CREATE TABLE rejected_classes (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id INTEGER NOT NULL REFERENCES projects(id),
	class_key  TEXT NOT NULL,
	kind       TEXT NOT NULL,
	channel    TEXT NOT NULL,
	head       TEXT NOT NULL,
	risk       TEXT NOT NULL DEFAULT '',
	reason     TEXT NOT NULL CHECK (reason IN ('command_dump', 'one_off', 'off_project')),
	rule_id    INTEGER NOT NULL,
	actor      TEXT NOT NULL,
	created_at TEXT NOT NULL,
	lifted_at  TEXT,
	lifted_by  TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX rejected_classes_standing ON rejected_classes (project_id, class_key) WHERE lifted_at IS NULL;
