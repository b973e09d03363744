-- When an administrator disabled an account (NULL: enabled), as SQLite's
-- migration 0020.
ALTER TABLE accounts ADD COLUMN disabled_at timestamptz;
