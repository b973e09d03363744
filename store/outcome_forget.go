package store

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/outcome"
)

// What a forget does to outcomes (docs/outcomes.md): the notes and tasks
// agents sent with their reports are text, so they go with what they are
// about. A subject forget deletes the subject's reports and drops the
// subject's cases from the project's regression suite; a rule forget
// blanks the notes and tasks of the reports about the rule and the
// reasons of its reviews; every forget replaces the forgotten wordings
// where reports, regression suites and their runs quote them.

// forgetSubjectOutcomes runs inside a subject forget, before its traces go.
func forgetSubjectOutcomes(ctx context.Context, tx *Tx, projectID int64, subjectID string) error {
	res, err := tx.ExecContext(ctx, `DELETE FROM recall_outcomes WHERE project_id = ?1 AND (subject_id = ?2
		OR trace_id IN (SELECT id FROM recall_traces WHERE project_id = ?1 AND subject_id = ?2))`, projectID, subjectID)
	if err != nil {
		return fmt.Errorf("store: delete subject outcomes: %w", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		if err := recountRuleOutcomes(ctx, tx, projectID); err != nil {
			return err
		}
	}
	var slug string
	if err := tx.QueryRowContext(ctx, `SELECT slug FROM projects WHERE id = ?`, projectID).Scan(&slug); err != nil {
		return fmt.Errorf("store: forget subject outcomes: %w", err)
	}
	var (
		suiteID int64
		body    string
	)
	err = tx.QueryRowContext(ctx, `SELECT id, body FROM eval_suites WHERE name = ? AND origin = ?`,
		evals.RegressionSuiteName(slug), evals.OriginRegression).Scan(&suiteID, &body)
	if isNoRows(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: regression suite: %w", err)
	}
	kept, tasks := outcome.DropSubjectCases(body, subjectID)
	if len(tasks) == 0 && kept == body {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE eval_suites SET body = ?, updated_at = ? WHERE id = ?`, kept, formatTime(tx.now), suiteID); err != nil {
		return fmt.Errorf("store: drop subject regression cases: %w", err)
	}
	var quotes []string
	for _, t := range tasks {
		quotes = append(quotes, outcome.Variants(t)...)
	}
	return scrubRegressionRuns(ctx, tx, quotes)
}

// recountRuleOutcomes rebuilds a project's per-rule counts from its reports.
func recountRuleOutcomes(ctx context.Context, tx *Tx, projectID int64) error {
	for _, q := range []string{
		`DELETE FROM rule_outcomes WHERE project_id = ?1`,
		`INSERT INTO rule_outcomes (rule_id, project_id, helped, not_used, misled, conflicted)
			SELECT rule_id, ?1, SUM(verdict = 'helped'), SUM(verdict = 'not_used'), SUM(verdict = 'misled'),
				SUM(verdict = 'conflicted_with_current')
			FROM recall_outcomes WHERE project_id = ?1 AND rule_id IS NOT NULL GROUP BY rule_id`,
	} {
		if _, err := tx.ExecContext(ctx, q, projectID); err != nil {
			return fmt.Errorf("store: recount rule outcomes: %w", err)
		}
	}
	return nil
}

// scrubOutcomes runs inside every forget (applyForget).
func scrubOutcomes(ctx context.Context, tx *Tx, p *forgetPlan) error {
	if ids := p.RuleIDs(); len(ids) > 0 {
		for _, q := range []string{
			`UPDATE recall_outcomes SET note = '', task = '' WHERE rule_id IN (SELECT value FROM json_each(?1)) AND (note <> '' OR task <> '')`,
			`UPDATE outcome_reviews SET reason = '` + governance.RedactedText + `' WHERE reason <> ''
				AND (rule_id IN (SELECT value FROM json_each(?1)) OR replacement_id IN (SELECT value FROM json_each(?1)))`,
		} {
			if _, err := tx.ExecContext(ctx, q, listArg(ids)); err != nil {
				return fmt.Errorf("store: forget outcomes of rules: %w", err)
			}
		}
	}
	var quotes []string
	for _, t := range p.QuotedTexts() {
		quotes = append(quotes, outcome.Variants(t)...)
	}
	if len(quotes) == 0 {
		return nil
	}
	for _, q := range quotes {
		if _, err := tx.ExecContext(ctx, `UPDATE recall_outcomes SET note = replace(note, ?1, ?2), task = replace(task, ?1, ?2)
			WHERE instr(note, ?1) > 0 OR instr(task, ?1) > 0`, q, governance.RedactedText); err != nil {
			return fmt.Errorf("store: scrub outcome notes: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE eval_suites SET body = replace(body, ?1, ?2) WHERE origin = ?3 AND instr(body, ?1) > 0`,
			q, governance.RedactedText, evals.OriginRegression); err != nil {
			return fmt.Errorf("store: scrub regression suites: %w", err)
		}
	}
	return scrubRegressionRuns(ctx, tx, quotes)
}

// scrubRegressionRuns replaces quotes in the runs of regression suites:
// their copies of the suite (the summary) and their results.
func scrubRegressionRuns(ctx context.Context, tx *Tx, quotes []string) error {
	for _, q := range quotes {
		if _, err := tx.ExecContext(ctx, `UPDATE eval_runs SET summary = replace(summary, ?1, ?2)
			WHERE suite_id IN (SELECT id FROM eval_suites WHERE origin = ?3) AND instr(summary, ?1) > 0`,
			q, governance.RedactedText, evals.OriginRegression); err != nil {
			return fmt.Errorf("store: scrub regression runs: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE eval_results SET detail = replace(detail, ?1, ?2), reason = replace(reason, ?1, ?2)
			WHERE run_id IN (SELECT r.id FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id WHERE s.origin = ?3)
				AND (instr(detail, ?1) > 0 OR instr(reason, ?1) > 0)`,
			q, governance.RedactedText, evals.OriginRegression); err != nil {
			return fmt.Errorf("store: scrub regression results: %w", err)
		}
	}
	return nil
}

// deleteProjectOutcomes deletes a project's outcome rows (deleteProjectRows).
var deleteProjectOutcomes = []string{
	`DELETE FROM recall_outcomes WHERE project_id = ?`,
	`DELETE FROM rule_outcomes WHERE project_id = ?`,
	`DELETE FROM outcome_reviews WHERE project_id = ?`,
	`DELETE FROM outcome_policies WHERE project_id = ?`,
}
