-- The review queue's rank (governance.RankProposal) is kept with the
-- proposal, so a queue page reads a page of proposals in rank order
-- instead of ranking every proposal of the project on each view.
-- rank_score is NULL while the rank is not known: a new proposal, or one
-- whose inputs changed since (its text, channel or findings, a candidate
-- joining or leaving it, evidence added or removed, an event of its
-- evidence moved to another session or person or re-sourced; an event
-- with evidence cannot be deleted). The triggers below set it NULL and bump
-- rank_epoch on each such change; a rank computed from a read is written
-- only while the rule's epoch is still the one it was read at, so a rank
-- never outlives a change that happened while it was computed. (The epoch
-- is bumped by a statement of its own and the score cleared only when it is
-- set: a beat attaching evidence rewrites the rule's row, not the rank
-- indexes, for each link.)
-- rank_version is the governance.RankVersion a rank was computed with: a
-- rank of another version is not known either.
ALTER TABLE rules ADD COLUMN rank_score REAL;
ALTER TABLE rules ADD COLUMN rank_reasons TEXT NOT NULL DEFAULT '';
ALTER TABLE rules ADD COLUMN rank_epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rules ADD COLUMN rank_version INTEGER NOT NULL DEFAULT 0;
CREATE INDEX rules_rank ON rules (project_id, status, rank_score, id);
CREATE INDEX rules_rank_version ON rules (project_id, status, rank_version, rank_score);

CREATE TRIGGER rules_rank_own AFTER UPDATE OF text, promotion_reason, findings, status ON rules
WHEN NEW.status = 'proposed' BEGIN
	UPDATE rules SET rank_epoch = rank_epoch + 1 WHERE id = NEW.id;
	UPDATE rules SET rank_score = NULL WHERE rank_score IS NOT NULL AND id = NEW.id;
END;
CREATE TRIGGER candidates_rank_insert AFTER INSERT ON candidates WHEN NEW.rule_id IS NOT NULL BEGIN
	UPDATE rules SET rank_epoch = rank_epoch + 1 WHERE id = NEW.rule_id AND status = 'proposed';
	UPDATE rules SET rank_score = NULL WHERE rank_score IS NOT NULL AND id = NEW.rule_id AND status = 'proposed';
END;
CREATE TRIGGER candidates_rank_move AFTER UPDATE OF rule_id ON candidates WHEN OLD.rule_id IS NOT NEW.rule_id BEGIN
	UPDATE rules SET rank_epoch = rank_epoch + 1 WHERE id IN (OLD.rule_id, NEW.rule_id) AND status = 'proposed';
	UPDATE rules SET rank_score = NULL WHERE rank_score IS NOT NULL AND id IN (OLD.rule_id, NEW.rule_id) AND status = 'proposed';
END;
CREATE TRIGGER candidates_rank_delete AFTER DELETE ON candidates WHEN OLD.rule_id IS NOT NULL BEGIN
	UPDATE rules SET rank_epoch = rank_epoch + 1 WHERE id = OLD.rule_id AND status = 'proposed';
	UPDATE rules SET rank_score = NULL WHERE rank_score IS NOT NULL AND id = OLD.rule_id AND status = 'proposed';
END;
CREATE TRIGGER evidence_rank_insert AFTER INSERT ON evidence BEGIN
	UPDATE rules SET rank_epoch = rank_epoch + 1 WHERE id = (SELECT rule_id FROM candidates WHERE id = NEW.candidate_id) AND status = 'proposed';
	UPDATE rules SET rank_score = NULL WHERE rank_score IS NOT NULL AND id = (SELECT rule_id FROM candidates WHERE id = NEW.candidate_id) AND status = 'proposed';
END;
CREATE TRIGGER evidence_rank_delete AFTER DELETE ON evidence BEGIN
	UPDATE rules SET rank_epoch = rank_epoch + 1 WHERE id = (SELECT rule_id FROM candidates WHERE id = OLD.candidate_id) AND status = 'proposed';
	UPDATE rules SET rank_score = NULL WHERE rank_score IS NOT NULL AND id = (SELECT rule_id FROM candidates WHERE id = OLD.candidate_id) AND status = 'proposed';
END;
CREATE TRIGGER events_rank_update AFTER UPDATE OF session_id, subject_id, source ON events BEGIN
	UPDATE rules SET rank_epoch = rank_epoch + 1 WHERE status = 'proposed' AND id IN (
		SELECT c.rule_id FROM evidence v JOIN candidates c ON c.id = v.candidate_id WHERE v.event_seq = NEW.seq);
	UPDATE rules SET rank_score = NULL WHERE rank_score IS NOT NULL AND status = 'proposed' AND id IN (
		SELECT c.rule_id FROM evidence v JOIN candidates c ON c.id = v.candidate_id WHERE v.event_seq = NEW.seq);
END;
