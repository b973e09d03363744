-- A rejected class is its kind, head and risk: the channel that proposed
-- the rejected proposal stays in its column for the record but leaves the
-- key (governance.ReviewClass.Key). Standing rejections that now share a
-- key keep the oldest standing; the later ones are lifted by "system".
UPDATE rejected_classes SET lifted_at = created_at, lifted_by = 'system'
WHERE lifted_at IS NULL AND id NOT IN (
	SELECT MIN(id) FROM rejected_classes WHERE lifted_at IS NULL GROUP BY project_id, kind, head, risk);
UPDATE rejected_classes SET class_key = kind || '|' || head || '|' || risk;
