-- Follow mode, second part (SQLite's migration 0030): the last message of
-- a followed file that may still grow (open_id, and where its first line
-- starts), read again by the next poll so its event gets every part; and
-- a followed Hermes state.db's second cursor, the latest sessions.ended_at
-- seen in Unix milliseconds.
ALTER TABLE source_files ADD COLUMN open_id text NOT NULL DEFAULT '';
ALTER TABLE source_files ADD COLUMN open_offset bigint NOT NULL DEFAULT 0;
ALTER TABLE source_files ADD COLUMN open_lines integer NOT NULL DEFAULT 0;
ALTER TABLE source_files ADD COLUMN ended_mark bigint NOT NULL DEFAULT 0;
