-- Every forget bumps its project's forget generation inside the forget's own
-- transaction (through these triggers: redacting an event, writing a
-- suppression). A writer that carries text it read earlier (the heartbeat)
-- compares the generation it started from with the one inside its write
-- transaction, and drops its work when a forget committed meanwhile, instead
-- of writing the forgotten text back.
CREATE TABLE forget_generations (
	project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
	generation INTEGER NOT NULL
);

CREATE TRIGGER forget_generation_redact AFTER UPDATE OF redacted ON events
WHEN NEW.redacted = 1 AND OLD.redacted = 0
BEGIN
	INSERT INTO forget_generations (project_id, generation) VALUES (NEW.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER forget_generation_suppress AFTER INSERT ON suppressions
BEGIN
	INSERT INTO forget_generations (project_id, generation) VALUES (NEW.project_id, 1)
	ON CONFLICT (project_id) DO UPDATE SET generation = generation + 1;
END;
