-- A rule's text holds at most 2,000 characters (governance.MaxRuleText).
-- Every write of one is checked before it reaches SQL; these triggers
-- refuse whatever write would get past that. Rows written before keep
-- their text, and a change that leaves a rule's text alone passes.
CREATE FUNCTION rule_text_cap() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF char_length(NEW.text) > 2000 AND (TG_OP = 'INSERT' OR NEW.text IS DISTINCT FROM OLD.text) THEN
		RAISE EXCEPTION 'a rule text holds at most 2000 characters';
	END IF;
	RETURN NEW;
END;
$$;
CREATE TRIGGER rules_text_cap BEFORE INSERT OR UPDATE OF text ON rules FOR EACH ROW EXECUTE FUNCTION rule_text_cap();
CREATE TRIGGER rule_versions_text_cap BEFORE INSERT ON rule_versions FOR EACH ROW EXECUTE FUNCTION rule_text_cap();
