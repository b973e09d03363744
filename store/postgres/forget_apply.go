package postgres

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// Applying a forget plan inside its transaction: content replaced or
// deleted, events redacted, suppressions written, and the full-text
// entries (the words columns) emptied with the text, so no index keeps a
// term of what went. The old row versions stay in the table and index
// files until VACUUM, which the store runs after the commit (vacuum.go).

// applyForget removes the planned content and returns the report.
func applyForget(ctx context.Context, tx *Tx, p *forgetPlan) (*governance.ForgetReport, error) {
	h := sha256.New()
	r := p.Report(h)
	// What eval runs copied of these projects' events goes with them.
	if !p.mirror {
		if err := forgetCopies(ctx, tx, p); err != nil {
			return nil, err
		}
	}

	// Rules keep their ids, scope and history of who did what, not their words.
	if err := p.exec(ctx, tx, "rules", `
		UPDATE rules SET text = $1, status = 'forgotten', findings = '[]', checks = '[]', paused = false, updated_at = $2,
			words = ''::tsvector
		WHERE id = ANY($3)`, governance.RedactedText, tx.now, r.RuleIDs); err != nil {
		return nil, fmt.Errorf("postgres: forget rules: %w", err)
	}
	if err := p.exec(ctx, tx, "rule_versions", `UPDATE rule_versions SET text = $1, reason = '' WHERE rule_id = ANY($2)`,
		governance.RedactedText, r.RuleIDs); err != nil {
		return nil, fmt.Errorf("postgres: forget rule versions: %w", err)
	}
	// Reasons people gave on these rules and candidates may quote them.
	for kind, ids := range map[string][]int64{"rule": r.RuleIDs, "candidate": r.CandidateIDs} {
		n, err := redactAuditReasons(ctx, tx, kind, ids)
		if err != nil {
			return nil, err
		}
		p.changed["audit_reasons"] = p.changed["audit_reasons"] || n > 0
	}
	// Skills drafted from what goes: deleted, or their versions redacted.
	if err := forgetSkills(ctx, tx, p); err != nil {
		return nil, err
	}
	// Candidates go, and their evidence links with them (ON DELETE CASCADE);
	// the identity sequence never hands their ids out again.
	if err := p.exec(ctx, tx, "candidates", `DELETE FROM candidates WHERE id = ANY($1)`, r.CandidateIDs); err != nil {
		return nil, fmt.Errorf("postgres: forget candidates: %w", err)
	}
	if p.SubjectID != "" {
		// Every episode of the subject goes blank, in one statement.
		if err := p.exec(ctx, tx, "episodes", `UPDATE episodes SET summary = $1, words = ''::tsvector, updated_at = $2
			WHERE project_id = $3 AND subject_id = $4 AND summary <> $1`,
			governance.RedactedText, tx.now, p.ProjectID, p.SubjectID); err != nil {
			return nil, fmt.Errorf("postgres: blank episodes: %w", err)
		}
	} else {
		for _, e := range p.Episodes {
			if err := p.exec(ctx, tx, "episodes", `UPDATE episodes SET summary = $1, words = $2::tsvector, updated_at = $3 WHERE id = $4`,
				e.Summary, tsvectorOf(e.Summary), tx.now, e.Episode.ID); err != nil {
				return nil, fmt.Errorf("postgres: rewrite episode: %w", err)
			}
		}
	}
	// Events: hash their text first, then replace it and empty their words.
	// Redacting bumps the project's forget generation (a trigger), so a beat
	// that read the old text drops its work.
	redact := func(cond string, args []any) error {
		if err := hashEvents(ctx, tx, h, `SELECT e.seq, e.text FROM events e WHERE `+cond+` ORDER BY e.seq`, args); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE events e SET text = $1, redacted = true, words = ''::tsvector WHERE `+renumber(cond, 1),
			append([]any{governance.RedactedText}, args...)...)
		if err != nil {
			return fmt.Errorf("postgres: redact events: %w", err)
		}
		r.Events = int(tag.RowsAffected())
		p.changed["events"] = r.Events > 0
		return nil
	}
	if p.Scope != nil {
		w := eventScope(*p.Scope)
		if err := redact(w.String(), w.args); err != nil {
			return nil, err
		}
	} else if len(p.Seqs) > 0 {
		if err := redact(`NOT e.redacted AND e.seq = ANY($1)`, []any{p.Seqs}); err != nil {
			return nil, err
		}
	}
	if p.SubjectID != "" {
		if err := tombstoneEvents(ctx, tx, p); err != nil {
			return nil, err
		}
	}
	// Suppressions: fingerprints only, so the heartbeat never learns it again.
	if err := p.Suppressions(func(projectID int64, fp, subject string) error {
		tag, err := tx.Exec(ctx, `INSERT INTO suppressions (project_id, fingerprint, subject_id, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, projectID, fp, subject, tx.now)
		if err != nil {
			return fmt.Errorf("postgres: write suppression: %w", err)
		}
		r.Suppressions += int(tag.RowsAffected())
		return nil
	}); err != nil {
		return nil, err
	}
	// Stored eval results may quote a rule (an eval checks recalled rules);
	// replace the quotes of every wording of every forgotten rule.
	if err := p.EvalQuotes(func(table, column, text string) error {
		return p.exec(ctx, tx, table, `UPDATE `+table+` SET `+column+` = replace(`+column+`, $1, $2) WHERE strpos(`+column+`, $1) > 0`,
			text, governance.RedactedText)
	}); err != nil {
		return nil, fmt.Errorf("postgres: scrub eval results: %w", err)
	}
	if err := scrubOutcomes(ctx, tx, p); err != nil {
		return nil, err
	}
	if err := withholdEvalReads(ctx, tx, p); err != nil {
		return nil, err
	}
	r.ContentHash = forgetplan.ContentHash(h)
	return r, nil
}

// withholdEvalReads withholds, when the forget removes what people said,
// what eval runs that read its projects (eval_reads, migration 0060)
// stored of it: their results' details, the reasons of those that did
// not pass and the rule texts of their summaries' compliance tables
// (SQLite's withholdEvalReads).
func withholdEvalReads(ctx context.Context, tx *Tx, p *forgetPlan) error {
	if !p.RedactsEvents() {
		return nil
	}
	projects := p.Projects()
	if err := p.exec(ctx, tx, "eval_results", `UPDATE eval_results SET detail = '{}',
			reason = CASE WHEN status = 'passed' THEN reason ELSE $1 END
		WHERE run_id IN (SELECT run_id FROM eval_reads WHERE project_id = ANY($2))
			AND (detail <> '{}' OR status <> 'passed' AND reason <> $1)`, forgetplan.WithheldReason, projects); err != nil {
		return fmt.Errorf("postgres: withhold eval results: %w", err)
	}
	type summary struct {
		id   int64
		text string
	}
	var summaries []summary
	rows, err := tx.Query(ctx, `SELECT id, summary FROM eval_runs
		WHERE id IN (SELECT run_id FROM eval_reads WHERE project_id = ANY($1)) AND strpos(summary, '"compliance"') > 0`, projects)
	if err != nil {
		return fmt.Errorf("postgres: withhold eval summaries: %w", err)
	}
	for rows.Next() {
		var s summary
		if err := rows.Scan(&s.id, &s.text); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: withhold eval summaries: %w", err)
		}
		summaries = append(summaries, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: withhold eval summaries: %w", err)
	}
	for _, s := range summaries {
		if text, ok := forgetplan.WithholdSummary(s.text); ok {
			if err := p.exec(ctx, tx, "eval_runs", `UPDATE eval_runs SET summary = $1 WHERE id = $2`, text, s.id); err != nil {
				return fmt.Errorf("postgres: withhold eval summaries: %w", err)
			}
		}
	}
	return nil
}

// exec runs one statement of the forget and records table as changed
// when it changed a row.
func (p *forgetPlan) exec(ctx context.Context, tx *Tx, table, query string, args ...any) error {
	tag, err := tx.Exec(ctx, query, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() > 0 {
		p.changed[table] = true
	}
	return nil
}

// renumber shifts the $n placeholders of cond by k (cond's arguments come
// after k others).
func renumber(cond string, k int) string {
	out := make([]byte, 0, len(cond)+8)
	for i := 0; i < len(cond); i++ {
		if cond[i] != '$' {
			out = append(out, cond[i])
			continue
		}
		j := i + 1
		for j < len(cond) && cond[j] >= '0' && cond[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(cond[i+1 : j])
		if err != nil {
			out = append(out, cond[i])
			continue
		}
		out = append(out, '$')
		out = strconv.AppendInt(out, int64(n+k), 10)
		i = j - 1
	}
	return string(out)
}

func hashEvents(ctx context.Context, tx *Tx, h hash.Hash, query string, args []any) error {
	return queryAll(ctx, tx, query, args, forgetplan.HashRows[pgx.Row](h))
}

// redactAuditReasons blanks the reasons given on the audit rows about
// these objects (a reviewer's reason may quote what is forgotten) and
// returns how many it blanked.
func redactAuditReasons(ctx context.Context, tx *Tx, objectType string, ids []int64) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	objectIDs := make([]string, len(ids))
	for i, id := range ids {
		objectIDs[i] = strconv.FormatInt(id, 10)
	}
	tag, err := tx.Exec(ctx, `UPDATE audit_reasons SET reason = $1 WHERE reason <> $1 AND audit_id IN (
		SELECT id FROM audit WHERE object_type = $2 AND object_id = ANY($3))`,
		governance.RedactedText, objectType, objectIDs)
	if err != nil {
		return 0, fmt.Errorf("postgres: redact audit reasons: %w", err)
	}
	return tag.RowsAffected(), nil
}

// tombstoneEvents leaves tombstones for the identifiers of a forgotten
// subject's events and episodes (tombstone.go): the subject's events,
// those redacted earlier included, and the events without a subject in
// its sessions (a session's end) lose their text, tool and status, and
// their ids become tombstones — event ids under the project's key (so
// ingest recognises one sent again), session and subject ids under the
// subject's. Its episodes take the same session and subject tombstones.
func tombstoneEvents(ctx context.Context, tx *Tx, p *forgetPlan) error {
	skey, err := subjectKey(ctx, tx, p.ProjectID, p.SubjectID)
	if err != nil {
		return err
	}
	fkey, err := forgetKey(ctx, tx, p.ProjectID)
	if err != nil {
		return err
	}
	subject := forgetplan.Tombstone(skey, forgetplan.SubjectTombstone, p.SubjectID)
	n, err := rewriteRows(ctx, tx, "events", "seq", "bigint", []rewriteCol{
		tombstoneOf("id", fkey, forgetplan.EventTombstone),
		tombstoneOf("session_id", skey, forgetplan.SessionTombstone),
		fixed("subject_id", subject),
		{name: "text", value: func(string) string { return governance.RedactedText }, assign: "CASE WHEN t.redacted THEN t.text ELSE %s END"},
	}, `tool = '', status = '', redacted = true, words = ''::tsvector`,
		`t.project_id = $1 AND (t.subject_id = $2 OR t.subject_id = '' AND t.session_id IN (
			SELECT session_id FROM sessions WHERE project_id = $1 AND subject_id = $2))`, p.ProjectID, p.SubjectID)
	if err != nil {
		return err
	}
	p.changed["events"] = p.changed["events"] || n > 0
	n, err = rewriteRows(ctx, tx, "episodes", "id", "bigint", []rewriteCol{
		tombstoneOf("session_id", skey, forgetplan.SessionTombstone), fixed("subject_id", subject),
	}, "", `t.project_id = $1 AND t.subject_id = $2`, p.ProjectID, p.SubjectID)
	if err != nil {
		return err
	}
	p.changed["episodes"] = p.changed["episodes"] || n > 0
	return nil
}
