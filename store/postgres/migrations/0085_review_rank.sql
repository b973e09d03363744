-- The review queue's rank (governance.RankProposal) is kept with the
-- proposal, as SQLite's migration 0102 keeps it: rank_score is NULL while
-- the rank is not known (a new proposal, or one whose inputs changed), and
-- every change of its inputs sets it NULL and bumps rank_epoch; a rank
-- computed from a read is written only while the epoch is still the one it
-- was read at; rank_version is the governance.RankVersion it was computed
-- with.
ALTER TABLE rules ADD COLUMN rank_score double precision;
ALTER TABLE rules ADD COLUMN rank_reasons text NOT NULL DEFAULT '';
ALTER TABLE rules ADD COLUMN rank_epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE rules ADD COLUMN rank_version integer NOT NULL DEFAULT 0;
CREATE INDEX rules_rank ON rules (project_id, status, rank_score DESC NULLS LAST, id DESC);
CREATE INDEX rules_rank_version ON rules (project_id, status, rank_version, rank_score);

-- A proposal's own inputs: its text, channel, findings, and becoming a
-- proposal again.
CREATE FUNCTION rules_rank_own() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.status = 'proposed' AND (NEW.text IS DISTINCT FROM OLD.text OR NEW.promotion_reason IS DISTINCT FROM OLD.promotion_reason
		OR NEW.findings IS DISTINCT FROM OLD.findings OR NEW.status IS DISTINCT FROM OLD.status) THEN
		NEW.rank_score := NULL;
		NEW.rank_epoch := OLD.rank_epoch + 1;
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER rules_rank_own BEFORE UPDATE ON rules FOR EACH ROW EXECUTE FUNCTION rules_rank_own();

CREATE FUNCTION rank_stale(rule bigint) RETURNS void LANGUAGE sql AS $$
	UPDATE rules SET rank_score = NULL, rank_epoch = rank_epoch + 1 WHERE id = $1 AND status = 'proposed';
$$;

-- A candidate joining or leaving a proposal.
CREATE FUNCTION candidates_rank() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' AND OLD.rule_id IS NOT NULL AND (TG_OP = 'DELETE' OR OLD.rule_id IS DISTINCT FROM NEW.rule_id) THEN
		PERFORM rank_stale(OLD.rule_id);
	END IF;
	IF TG_OP <> 'DELETE' AND NEW.rule_id IS NOT NULL AND (TG_OP = 'INSERT' OR OLD.rule_id IS DISTINCT FROM NEW.rule_id) THEN
		PERFORM rank_stale(NEW.rule_id);
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER candidates_rank_insert AFTER INSERT ON candidates FOR EACH ROW EXECUTE FUNCTION candidates_rank();
CREATE TRIGGER candidates_rank_move AFTER UPDATE OF rule_id ON candidates FOR EACH ROW EXECUTE FUNCTION candidates_rank();
CREATE TRIGGER candidates_rank_delete AFTER DELETE ON candidates FOR EACH ROW EXECUTE FUNCTION candidates_rank();

-- Evidence added to or removed from a proposal's candidate.
CREATE FUNCTION evidence_rank() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		PERFORM rank_stale(rule_id) FROM candidates WHERE id = OLD.candidate_id AND rule_id IS NOT NULL;
	ELSE
		PERFORM rank_stale(rule_id) FROM candidates WHERE id = NEW.candidate_id AND rule_id IS NOT NULL;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER evidence_rank_insert AFTER INSERT ON evidence FOR EACH ROW EXECUTE FUNCTION evidence_rank();
CREATE TRIGGER evidence_rank_delete AFTER DELETE ON evidence FOR EACH ROW EXECUTE FUNCTION evidence_rank();

-- An event of a proposal's evidence moved to another session or person,
-- or re-sourced (an event with evidence cannot be deleted).
CREATE FUNCTION events_rank() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.session_id IS DISTINCT FROM NEW.session_id OR OLD.subject_id IS DISTINCT FROM NEW.subject_id
		OR OLD.source IS DISTINCT FROM NEW.source THEN
		PERFORM rank_stale(c.rule_id) FROM evidence v JOIN candidates c ON c.id = v.candidate_id
		WHERE v.event_seq = OLD.seq AND c.rule_id IS NOT NULL;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER events_rank_update AFTER UPDATE OF session_id, subject_id, source ON events FOR EACH ROW EXECUTE FUNCTION events_rank();
