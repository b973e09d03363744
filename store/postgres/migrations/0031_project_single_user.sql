-- A project's policy may say it has a single trusted user: then a rule for
-- the whole project that one person supports may become active without a
-- reviewer (still only inside the low-risk set; docs/gate.md).
ALTER TABLE projects ADD COLUMN single_user BOOLEAN NOT NULL DEFAULT false;
