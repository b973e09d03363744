-- events becomes a table partitioned by hash of project_id, 16 partitions
-- (events_p00 … events_p15). A forget rewrites the old row versions of
-- what it redacted out of the files (VACUUM FULL, which holds the table's
-- exclusive lock while it copies it); on a partitioned table it rewrites
-- only the partitions of the projects it touched, so the copy is about a
-- sixteenth of the events of a database of many projects, and the projects
-- of the other partitions read and write meanwhile (queries name their
-- project, and the store plans every statement with its values, so the
-- planner prunes the other partitions without locking them).
-- docs/ARCHITECTURE.md ("Forget") gives the design and the measurements.
--
-- The new table takes the old one's columns, defaults, checks and identity
-- (LIKE), its indexes and triggers (their definitions, read before the
-- rename, so whatever earlier migrations added comes along) and its rows.
-- PostgreSQL requires every unique index of a partitioned table to hold
-- the partition key: the primary key becomes (seq, project_id), which
-- still finds an event by seq alone, and no foreign key can reference
-- events(seq) any more. evidence.event_seq lost its foreign key: events
-- are never deleted but with their project, whose evidence goes first.

CREATE TEMP TABLE events_defs ON COMMIT DROP AS
	SELECT pg_get_indexdef(i.indexrelid) AS def, 1 AS ord FROM pg_index i
		WHERE i.indrelid = 'events'::regclass AND NOT i.indisprimary
	UNION ALL
	SELECT pg_get_triggerdef(t.oid), 2 FROM pg_trigger t
		WHERE t.tgrelid = 'events'::regclass AND NOT t.tgisinternal;

DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT conrelid::regclass AS tbl, conname FROM pg_constraint
		WHERE contype = 'f' AND confrelid = 'events'::regclass LOOP
		EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
	END LOOP;
	ALTER TABLE events RENAME TO events_old;
	FOR r IN SELECT i.indexrelid::regclass AS idx, c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = 'events_old'::regclass LOOP
		EXECUTE format('ALTER INDEX %s RENAME TO %I', r.idx, left(r.relname, 55) || '_old');
	END LOOP;
END;
$$;

CREATE TABLE events (LIKE events_old INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING GENERATED
	INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY HASH (project_id);
ALTER TABLE events ADD FOREIGN KEY (project_id) REFERENCES projects(id);

DO $$
BEGIN
	FOR i IN 0..15 LOOP
		EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES WITH (MODULUS 16, REMAINDER %s)',
			'events_p' || lpad(i::text, 2, '0'), i);
	END LOOP;
END;
$$;

INSERT INTO events OVERRIDING SYSTEM VALUE SELECT * FROM events_old;
SELECT setval(pg_get_serial_sequence('events', 'seq'), COALESCE(max(seq), 0) + 1, false) FROM events;

ALTER TABLE events ADD PRIMARY KEY (seq, project_id);

DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT def FROM events_defs ORDER BY ord LOOP
		EXECUTE r.def;
	END LOOP;
END;
$$;

DROP TABLE events_old;
ANALYZE events;
