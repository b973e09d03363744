-- A rule's text holds at most 2,000 characters (governance.MaxRuleText).
-- Every write of one is checked before it reaches SQL; these triggers
-- refuse whatever write would get past that. Rows written before keep
-- their text, and a change that leaves a rule's text alone passes.
CREATE TRIGGER rules_text_cap_insert BEFORE INSERT ON rules
WHEN length(NEW.text) > 2000 BEGIN
	SELECT RAISE(ABORT, 'a rule text holds at most 2000 characters');
END;
CREATE TRIGGER rules_text_cap_update BEFORE UPDATE OF text ON rules
WHEN length(NEW.text) > 2000 AND NEW.text IS NOT OLD.text BEGIN
	SELECT RAISE(ABORT, 'a rule text holds at most 2000 characters');
END;
CREATE TRIGGER rule_versions_text_cap BEFORE INSERT ON rule_versions
WHEN length(NEW.text) > 2000 BEGIN
	SELECT RAISE(ABORT, 'a rule text holds at most 2000 characters');
END;
