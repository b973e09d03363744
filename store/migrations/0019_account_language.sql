-- The language an account chose for the console ('' = follow the
-- browser's Accept-Language).
ALTER TABLE accounts ADD COLUMN language TEXT NOT NULL DEFAULT '';
