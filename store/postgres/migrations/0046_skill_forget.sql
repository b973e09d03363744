-- A forget leaves no copy in skills (governance/skill_forget.go): a kept
-- skill's version drafted from forgotten events loses its text and is
-- marked redacted, so its page says why it reads "[forgotten]".
ALTER TABLE skill_versions ADD COLUMN redacted boolean NOT NULL DEFAULT false;
