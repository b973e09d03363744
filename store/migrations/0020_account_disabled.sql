-- When an administrator disabled an account (NULL: enabled). A disabled
-- account cannot sign in; disabling it also ends its sessions.
ALTER TABLE accounts ADD COLUMN disabled_at TEXT;
