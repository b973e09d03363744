package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"regexp"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// Applying a forget plan inside its transaction: content replaced or
// deleted, events redacted, suppressions written, full-text indexes left
// without the removed terms.

// ftsIndex is an FTS5 table that removes deleted terms at once.
type ftsIndex struct {
	name string
	// contentless indexes keep no text and are rewritten with 'optimize',
	// which drops their tombstoned rows; the others are rebuilt from their
	// content ('rebuild'), because 'optimize' keeps delete markers of an
	// external-content index.
	contentless bool
}

var contentlessFTS = regexp.MustCompile(`(?i)\bcontent\s*=\s*''`)

// secureIndexes lists the FTS5 tables that have secure-delete on.
func secureIndexes(ctx context.Context, tx *Tx) ([]ftsIndex, error) {
	var all []ftsIndex
	if err := queryAll(ctx, tx, `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5(%' ORDER BY name`,
		nil, func(r scanner) error {
			var n, sql string
			err := r.Scan(&n, &sql)
			all = append(all, ftsIndex{name: n, contentless: contentlessFTS.MatchString(sql)})
			return err
		}); err != nil {
		return nil, err
	}
	var out []ftsIndex
	for _, ix := range all {
		var v string
		err := tx.QueryRowContext(ctx, `SELECT v FROM "`+ix.name+`_config" WHERE k = 'secure-delete'`).Scan(&v)
		if isNoRows(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("store: index %s: %w", ix.name, err)
		}
		if v == "1" {
			out = append(out, ix)
		}
	}
	return out, nil
}

// setSecureDelete turns secure-delete of the given FTS5 tables on or off.
func setSecureDelete(ctx context.Context, tx *Tx, indexes []ftsIndex, on bool) error {
	v := 0
	if on {
		v = 1
	}
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO "`+ix.name+`" ("`+ix.name+`", rank) VALUES ('secure-delete', ?)`, v); err != nil {
			return fmt.Errorf("store: secure-delete of %s: %w", ix.name, err)
		}
	}
	return nil
}

// rewriteIndexes rewrites each index so that no deleted term is left in it.
func rewriteIndexes(ctx context.Context, tx *Tx, indexes []ftsIndex) error {
	for _, ix := range indexes {
		cmd := "rebuild"
		if ix.contentless {
			cmd = "optimize"
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO "`+ix.name+`" ("`+ix.name+`") VALUES ('`+cmd+`')`); err != nil {
			return fmt.Errorf("store: %s index %s: %w", cmd, ix.name, err)
		}
	}
	return nil
}

// applyForget removes the planned content and returns the report.
func applyForget(ctx context.Context, tx *Tx, p *forgetPlan) (*governance.ForgetReport, error) {
	now := formatTime(tx.now)
	h := sha256.New()
	r := p.Report(h)
	// What eval runs copied of these projects' events goes first, so the
	// index rewrites below drop its terms too.
	if !p.mirror {
		if err := forgetCopies(ctx, tx, p); err != nil {
			return nil, err
		}
	}

	// A large forget marks deletions without looking each term up, then
	// rewrites every such index once (rebuild, or optimize when it keeps no
	// text): the rewrite drops the deleted terms and SQLite's secure_delete
	// zeroes the pages they were on.
	var rewrite []ftsIndex
	if p.bulk {
		var err error
		if rewrite, err = secureIndexes(ctx, tx); err != nil {
			return nil, err
		}
		if err := setSecureDelete(ctx, tx, rewrite, false); err != nil {
			return nil, err
		}
	}

	// A subject forget's tombstones are made with the subject's key.
	var subjectKeyOf []byte
	if p.SubjectID != "" {
		var err error
		if subjectKeyOf, err = subjectKey(ctx, tx, p.ProjectID, p.SubjectID); err != nil {
			return nil, err
		}
	}
	// Rules keep their ids, scope and history of who did what, not their words.
	if _, err := tx.ExecContext(ctx, `
		UPDATE rules SET text = ?, status = 'forgotten', findings = '[]', checks = '[]', paused = 0, updated_at = ?
		WHERE id IN (SELECT value FROM json_each(?))`, governance.RedactedText, now, listArg(r.RuleIDs)); err != nil {
		return nil, fmt.Errorf("store: forget rules: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE rule_versions SET text = ?, reason = '' WHERE rule_id IN (SELECT value FROM json_each(?))`,
		governance.RedactedText, listArg(r.RuleIDs)); err != nil {
		return nil, fmt.Errorf("store: forget rule versions: %w", err)
	}
	// Reasons people gave on these rules and candidates may quote them.
	if err := redactAuditReasons(ctx, tx, "rule", r.RuleIDs); err != nil {
		return nil, err
	}
	if err := redactAuditReasons(ctx, tx, "candidate", r.CandidateIDs); err != nil {
		return nil, err
	}
	// Skills drafted from what goes: deleted, or their versions redacted.
	if err := forgetSkills(ctx, tx, p); err != nil {
		return nil, err
	}
	// Candidates go, and their evidence links with them (ON DELETE CASCADE);
	// AUTOINCREMENT never hands their ids out again.
	if _, err := tx.ExecContext(ctx, `DELETE FROM candidates WHERE id IN (SELECT value FROM json_each(?))`, listArg(r.CandidateIDs)); err != nil {
		return nil, fmt.Errorf("store: forget candidates: %w", err)
	}
	if p.SubjectID != "" {
		// Every episode of the subject goes blank and takes the subject's
		// tombstones, in one statement (one pass of the recall index's
		// trigger, inside the bulk window).
		if _, err := tx.ExecContext(ctx, `
			UPDATE episodes SET summary = ?, updated_at = CASE WHEN summary = ? THEN updated_at ELSE ? END,
				session_id = mnemo_tombstone(?, ?, session_id), subject_id = ?
			WHERE project_id = ? AND subject_id = ?`,
			governance.RedactedText, governance.RedactedText, now, subjectKeyOf, forgetplan.SessionTombstone,
			forgetplan.Tombstone(subjectKeyOf, forgetplan.SubjectTombstone, p.SubjectID), p.ProjectID, p.SubjectID); err != nil {
			return nil, fmt.Errorf("store: blank episodes: %w", err)
		}
	} else {
		for _, e := range p.Episodes {
			if _, err := tx.ExecContext(ctx, `UPDATE episodes SET summary = ?, updated_at = ? WHERE id = ?`, e.Summary, now, e.Episode.ID); err != nil {
				return nil, fmt.Errorf("store: rewrite episode: %w", err)
			}
		}
	}
	// Events: hash their text first, then replace it; the FTS trigger
	// removes the old tokens (secure-delete).
	if p.Scope != nil {
		cond, args := eventScope(*p.Scope)
		if err := hashEvents(ctx, tx, h, `SELECT e.seq, e.text FROM events e WHERE `+cond+` ORDER BY e.seq`, args); err != nil {
			return nil, err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM events e WHERE `+cond, args...).Scan(&r.Events); err != nil {
			return nil, fmt.Errorf("store: count events: %w", err)
		}
		// One pass over the subject's events, those redacted earlier
		// included, and the events without a subject in its sessions (a
		// session's end): the text goes, and every identifier becomes a
		// tombstone (tombstone.go); tools and statuses are blanked. The
		// events are looked up by the subject's index and by its sessions
		// (CROSS JOIN and the unary + keep SQLite from scanning every
		// event of the project, or every one without a subject).
		key := subjectKeyOf
		fkey, err := forgetKey(ctx, tx, p.ProjectID)
		if err != nil {
			return nil, err
		}
		// A bulk forget rebuilds the word index below: its row trigger
		// stands aside meanwhile (migration 0037).
		if p.bulk {
			if err := setIndexBatch(ctx, tx, true); err != nil {
				return nil, err
			}
		}
		if _, err := tx.ExecContext(ctx, `
			UPDATE events SET id = mnemo_tombstone(?, ?, id), session_id = mnemo_tombstone(?, ?, session_id), subject_id = ?,
				tool = '', status = '', text = CASE WHEN redacted = 1 THEN text ELSE ? END, redacted = 1
			WHERE seq IN (SELECT seq FROM events WHERE project_id = ? AND subject_id = ?
				UNION ALL
				SELECT e.seq FROM sessions s CROSS JOIN events e ON e.project_id = s.project_id AND e.session_id = s.session_id
				WHERE s.project_id = ? AND s.subject_id = ? AND +e.subject_id = '')`,
			fkey, forgetplan.EventTombstone, key, forgetplan.SessionTombstone, forgetplan.Tombstone(key, forgetplan.SubjectTombstone, p.SubjectID), governance.RedactedText,
			p.ProjectID, p.SubjectID, p.ProjectID, p.SubjectID); err != nil {
			return nil, fmt.Errorf("store: redact events: %w", err)
		}
		if p.bulk {
			if err := setIndexBatch(ctx, tx, false); err != nil {
				return nil, err
			}
			// The trigger stood aside: the project's indexed terms changed
			// (term_stats.go reads this version).
			if _, err := tx.ExecContext(ctx, `INSERT INTO event_index_versions (project_id, version) VALUES (?, 1)
				ON CONFLICT (project_id) DO UPDATE SET version = version + 1`, p.ProjectID); err != nil {
				return nil, fmt.Errorf("store: event index version: %w", err)
			}
		}
	} else if len(p.Seqs) > 0 {
		seqs := listArg(p.Seqs)
		if err := hashEvents(ctx, tx, h, `SELECT e.seq, e.text FROM events e WHERE e.redacted = 0 AND e.seq IN (SELECT value FROM json_each(?)) ORDER BY e.seq`,
			[]any{seqs}); err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `UPDATE events SET text = ?, redacted = 1 WHERE redacted = 0 AND seq IN (SELECT value FROM json_each(?))`,
			governance.RedactedText, seqs)
		if err != nil {
			return nil, fmt.Errorf("store: redact events: %w", err)
		}
		n, _ := res.RowsAffected()
		r.Events = int(n)
	}
	// One forget raises each of its projects' forget generations once: a
	// writer carrying text it read before (the heartbeat) then drops its
	// work (migration 0015; 0026 moved this out of a per-event trigger).
	if r.Events > 0 {
		for _, id := range p.Projects() {
			if _, err := tx.ExecContext(ctx, `INSERT INTO forget_generations (project_id, generation) VALUES (?, 1)
				ON CONFLICT (project_id) DO UPDATE SET generation = generation + 1`, id); err != nil {
				return nil, fmt.Errorf("store: raise forget generation: %w", err)
			}
		}
	}
	// Suppressions: fingerprints only, so the heartbeat never learns it again.
	if err := p.Suppressions(func(projectID int64, fp, subject string) error {
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO suppressions (project_id, fingerprint, subject_id, created_at) VALUES (?, ?, ?, ?)`,
			projectID, fp, subject, now)
		if err != nil {
			return fmt.Errorf("store: write suppression: %w", err)
		}
		n, _ := res.RowsAffected()
		r.Suppressions += int(n)
		return nil
	}); err != nil {
		return nil, err
	}
	if !p.bulk {
		// A contentless index (content='', contentless_delete=1) cannot
		// look up a deleted row's terms: secure-delete only marks the row
		// deleted and its terms stay in the index's pages until a merge.
		// Every forget rewrites those indexes, which drops them (and
		// secure_delete zeroes the pages they were on). The bulk path
		// turned secure-delete off above and rewrites every index anyway.
		all, err := secureIndexes(ctx, tx)
		if err != nil {
			return nil, err
		}
		for _, ix := range all {
			if ix.contentless {
				rewrite = append(rewrite, ix)
			}
		}
	}
	if err := rewriteIndexes(ctx, tx, rewrite); err != nil {
		return nil, err
	}
	if err := setSecureDelete(ctx, tx, rewrite, true); err != nil {
		return nil, err
	}
	// Stored eval results may quote a rule (an eval checks recalled rules);
	// replace the quotes of every wording of every forgotten rule.
	var evalRows int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM eval_results LIMIT 1)`).Scan(&evalRows); err != nil {
		return nil, fmt.Errorf("store: scrub eval results: %w", err)
	}
	if evalRows > 0 {
		if err := p.EvalQuotes(func(table, column, text string) error {
			_, err := tx.ExecContext(ctx, `UPDATE `+table+` SET `+column+` = replace(`+column+`, ?1, ?2) WHERE instr(`+column+`, ?1) > 0`,
				text, governance.RedactedText)
			return err
		}); err != nil {
			return nil, fmt.Errorf("store: scrub eval results: %w", err)
		}
		if err := withholdEvalReads(ctx, tx, p); err != nil {
			return nil, err
		}
	}
	if err := scrubOutcomes(ctx, tx, p); err != nil {
		return nil, err
	}
	r.ContentHash = forgetplan.ContentHash(h)
	return r, nil
}

// withholdEvalReads withholds, when the forget removes what people said,
// what eval runs that read its projects (eval_reads, migration 0080)
// stored of it: their results' details, the reasons of those that did
// not pass (a failure quotes what was or was not recalled) and the rule
// texts of their summaries' compliance tables. Their counts and statuses
// stay.
func withholdEvalReads(ctx context.Context, tx *Tx, p *forgetPlan) error {
	if !p.RedactsEvents() {
		return nil
	}
	runs := `SELECT run_id FROM eval_reads WHERE project_id IN (SELECT value FROM json_each(?))`
	projects := listArg(p.Projects())
	if _, err := tx.ExecContext(ctx, `UPDATE eval_results SET detail = '{}',
			reason = CASE WHEN status = 'passed' THEN reason ELSE ? END
		WHERE run_id IN (`+runs+`) AND (detail <> '{}' OR status <> 'passed' AND reason <> ?)`,
		forgetplan.WithheldReason, projects, forgetplan.WithheldReason); err != nil {
		return fmt.Errorf("store: withhold eval results: %w", err)
	}
	type summary struct {
		id   int64
		text string
	}
	var summaries []summary
	if err := queryAll(ctx, tx, `SELECT id, summary FROM eval_runs WHERE id IN (`+runs+`) AND instr(summary, '"compliance"') > 0`,
		[]any{projects}, func(r scanner) error {
			var s summary
			err := r.Scan(&s.id, &s.text)
			summaries = append(summaries, s)
			return err
		}); err != nil {
		return fmt.Errorf("store: withhold eval summaries: %w", err)
	}
	for _, s := range summaries {
		if text, ok := forgetplan.WithholdSummary(s.text); ok {
			if _, err := tx.ExecContext(ctx, `UPDATE eval_runs SET summary = ? WHERE id = ?`, text, s.id); err != nil {
				return fmt.Errorf("store: withhold eval summaries: %w", err)
			}
		}
	}
	return nil
}

func hashEvents(ctx context.Context, tx *Tx, h hash.Hash, query string, args []any) error {
	return queryAll(ctx, tx, query, args, forgetplan.HashRows[scanner](h))
}

// setIndexBatch sets ingest_mode.batch, which makes the events' word-index
// row triggers stand aside (migrations 0017, 0037) while rows are indexed
// some other way: in one statement for an ingest batch (beginBatchIndex),
// by the rebuild of the whole index in a bulk forget. It is off again
// before the transaction commits.
func setIndexBatch(ctx context.Context, tx *Tx, on bool) error {
	v := 0
	if on {
		v = 1
	}
	if _, err := tx.ExecContext(ctx, `UPDATE ingest_mode SET batch = ? WHERE id = 1`, v); err != nil {
		return fmt.Errorf("store: index mode: %w", err)
	}
	return nil
}
