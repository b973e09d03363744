-- The rules list's search: every word of the query is a case-insensitive
-- substring of the text (the SQLite store's contract, served there by its
-- trigram and CJK pair indexes). A trigram index (pg_trgm, a trusted
-- extension since PostgreSQL 13, so the database's owner may create it)
-- serves ILIKE for words of three or more characters; Chinese words are
-- found through the character pairs of rules.words (rules_words).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX rules_text_trgm ON rules USING gin (text gin_trgm_ops);
