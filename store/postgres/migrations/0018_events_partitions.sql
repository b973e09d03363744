-- events becomes a table partitioned by hash of project_id, 16 partitions
-- (events_p00 … events_p15); migration 0019 does the same to episodes. A
-- forget rewrites the old row versions of what it changed out of the
-- files (VACUUM FULL, which holds the table's exclusive lock while it
-- copies it); on a partitioned table it rewrites only the partitions of
-- the projects it touched, so the copy is about a sixteenth of the table
-- in a database of many projects, and the projects of the other
-- partitions read and write meanwhile (queries name their project, and
-- the store plans every statement with its values, so the planner prunes
-- the other partitions without locking them). docs/ARCHITECTURE.md
-- ("Forget") gives the design and the measurements.
--
-- partition_by_project(tbl, key) rebuilds a table so: the new table takes
-- the old one's columns, defaults, checks and identity (LIKE), its foreign
-- keys, its indexes and triggers (their definitions, read before the
-- rename, so whatever earlier migrations added comes along) and its rows.
-- PostgreSQL requires every unique index of a partitioned table to hold
-- the partition key: the primary key becomes (key, project_id), which
-- still finds a row by key alone; and no foreign key can reference the
-- key alone any more, so those are dropped (evidence.event_seq: events
-- are never deleted but with their project, whose evidence goes first).

CREATE FUNCTION partition_by_project(tbl text, key text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	old  text := tbl || '_old';
	defs text[];
	r    record;
BEGIN
	SELECT array_agg(def ORDER BY ord) INTO defs FROM (
		SELECT format('ALTER TABLE %I ADD CONSTRAINT %I %s', tbl, c.conname, pg_get_constraintdef(c.oid)) AS def, 1 AS ord
			FROM pg_constraint c WHERE c.contype = 'f' AND c.conrelid = tbl::regclass
		UNION ALL
		SELECT pg_get_indexdef(i.indexrelid), 2 FROM pg_index i
			WHERE i.indrelid = tbl::regclass AND NOT i.indisprimary
		UNION ALL
		SELECT pg_get_triggerdef(t.oid), 3 FROM pg_trigger t
			WHERE t.tgrelid = tbl::regclass AND NOT t.tgisinternal) d;
	FOR r IN SELECT conrelid::regclass AS t, conname FROM pg_constraint
		WHERE contype = 'f' AND confrelid = tbl::regclass AND conrelid <> tbl::regclass LOOP
		EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.t, r.conname);
	END LOOP;
	EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, old);
	FOR r IN SELECT i.indexrelid::regclass AS idx, c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = old::regclass LOOP
		EXECUTE format('ALTER INDEX %s RENAME TO %I', r.idx, left(r.relname, 55) || '_old');
	END LOOP;
	EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING GENERATED
		INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY HASH (project_id)', tbl, old);
	FOR i IN 0..15 LOOP
		EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES WITH (MODULUS 16, REMAINDER %s)',
			tbl || '_p' || lpad(i::text, 2, '0'), tbl, i);
	END LOOP;
	EXECUTE format('INSERT INTO %I OVERRIDING SYSTEM VALUE SELECT * FROM %I', tbl, old);
	IF pg_get_serial_sequence(tbl, key) IS NOT NULL THEN
		EXECUTE format('SELECT setval(%L, COALESCE(max(%I), 0) + 1, false) FROM %I', pg_get_serial_sequence(tbl, key), key, tbl);
	END IF;
	EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (%I, project_id)', tbl, key);
	FOR i IN 1..coalesce(array_length(defs, 1), 0) LOOP
		EXECUTE defs[i];
	END LOOP;
	EXECUTE format('DROP TABLE %I', old);
	EXECUTE format('ANALYZE %I', tbl);
END;
$$;

SELECT partition_by_project('events', 'seq');
