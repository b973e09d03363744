-- Recall picks the rarest of a task's search terms before it queries the
-- full-text indexes: these vocabulary tables give each trigram's document
-- count. They read the indexes and store nothing.
CREATE VIRTUAL TABLE episodes_fts_vocab USING fts5vocab(episodes_fts, row);
CREATE VIRTUAL TABLE events_fts_vocab USING fts5vocab(events_fts, row);
