-- Follow mode, second part (see 0018). A followed file's checkpoint also
-- names the last message read when more of it may still be appended:
-- Claude Code writes one API message over several lines sharing
-- message.id, and a poll can fall between them. open_id is that message's
-- event id and open_offset/open_lines where its first line starts; the
-- next poll reads again from there and the message's event gets the text
-- of all its parts. ended_mark is the second cursor of a followed Hermes
-- state.db (whose offset is the highest message row id read): the latest
-- sessions.ended_at seen, in Unix milliseconds.
ALTER TABLE source_files ADD COLUMN open_id TEXT NOT NULL DEFAULT '';
ALTER TABLE source_files ADD COLUMN open_offset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE source_files ADD COLUMN open_lines INTEGER NOT NULL DEFAULT 0;
ALTER TABLE source_files ADD COLUMN ended_mark INTEGER NOT NULL DEFAULT 0;
