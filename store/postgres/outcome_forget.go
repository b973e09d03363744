package postgres

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/outcome"
)

// What a forget does to outcomes, as the SQLite store does it
// (store/outcome_forget.go): a subject's reports and regression cases go,
// a forgotten rule's reports lose their notes and tasks, and the
// forgotten wordings are replaced where reports, regression suites and
// their runs quote them. Each statement goes through the plan's exec, so
// the tables it changed are rewritten after the commit.

// forgetSubjectOutcomes runs inside a subject forget, before its traces go.
func forgetSubjectOutcomes(ctx context.Context, tx *Tx, p *forgetPlan, projectID int64, subjectID string) error {
	tag, err := tx.Exec(ctx, `DELETE FROM recall_outcomes WHERE project_id = $1 AND (subject_id = $2
		OR trace_id IN (SELECT id FROM recall_traces WHERE project_id = $1 AND subject_id = $2))`, projectID, subjectID)
	if err != nil {
		return fmt.Errorf("postgres: delete subject outcomes: %w", err)
	}
	if tag.RowsAffected() > 0 {
		p.changed["recall_outcomes"] = true
		if err := recountRuleOutcomes(ctx, tx, projectID); err != nil {
			return err
		}
	}
	var (
		suiteID int64
		body    string
	)
	err = tx.QueryRow(ctx, `SELECT s.id, s.body FROM eval_suites s JOIN projects p ON s.name = $3 || p.slug
		WHERE p.id = $1 AND s.origin = $2 FOR UPDATE OF s`, projectID, evals.OriginRegression, evals.RegressionSuiteName("")).Scan(&suiteID, &body)
	if isNoRows(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("postgres: regression suite: %w", err)
	}
	kept, tasks := outcome.DropSubjectCases(body, subjectID)
	if len(tasks) == 0 && kept == body {
		return nil
	}
	if err := p.exec(ctx, tx, "eval_suites", `UPDATE eval_suites SET body = $1, updated_at = $2 WHERE id = $3`, kept, tx.now, suiteID); err != nil {
		return fmt.Errorf("postgres: drop subject regression cases: %w", err)
	}
	var quotes []string
	for _, t := range tasks {
		quotes = append(quotes, outcome.Variants(t)...)
	}
	return scrubRegressionRuns(ctx, tx, p, quotes)
}

// recountRuleOutcomes rebuilds a project's per-rule counts from its reports.
func recountRuleOutcomes(ctx context.Context, tx *Tx, projectID int64) error {
	for _, q := range []string{
		`DELETE FROM rule_outcomes WHERE project_id = $1`,
		`INSERT INTO rule_outcomes (rule_id, project_id, helped, not_used, misled, conflicted)
			SELECT rule_id, $1, count(*) FILTER (WHERE verdict = 'helped'), count(*) FILTER (WHERE verdict = 'not_used'),
				count(*) FILTER (WHERE verdict = 'misled'), count(*) FILTER (WHERE verdict = 'conflicted_with_current')
			FROM recall_outcomes WHERE project_id = $1 AND rule_id IS NOT NULL GROUP BY rule_id`,
	} {
		if _, err := tx.Exec(ctx, q, projectID); err != nil {
			return fmt.Errorf("postgres: recount rule outcomes: %w", err)
		}
	}
	return nil
}

// scrubOutcomes runs inside every forget (applyForget).
func scrubOutcomes(ctx context.Context, tx *Tx, p *forgetPlan) error {
	if ids := p.RuleIDs(); len(ids) > 0 {
		if err := p.exec(ctx, tx, "recall_outcomes", `UPDATE recall_outcomes SET note = '', task = ''
			WHERE rule_id = ANY($1) AND (note <> '' OR task <> '')`, ids); err != nil {
			return fmt.Errorf("postgres: forget outcomes of rules: %w", err)
		}
		if err := p.exec(ctx, tx, "outcome_reviews", `UPDATE outcome_reviews SET reason = $2 WHERE reason <> ''
			AND (rule_id = ANY($1) OR replacement_id = ANY($1))`, ids, governance.RedactedText); err != nil {
			return fmt.Errorf("postgres: forget review reasons: %w", err)
		}
	}
	var quotes []string
	for _, t := range p.QuotedTexts() {
		quotes = append(quotes, outcome.Variants(t)...)
	}
	for _, q := range quotes {
		if err := p.exec(ctx, tx, "recall_outcomes", `UPDATE recall_outcomes SET note = replace(note, $1, $2), task = replace(task, $1, $2)
			WHERE strpos(note, $1) > 0 OR strpos(task, $1) > 0`, q, governance.RedactedText); err != nil {
			return fmt.Errorf("postgres: scrub outcome notes: %w", err)
		}
		if err := p.exec(ctx, tx, "eval_suites", `UPDATE eval_suites SET body = replace(body, $1, $2) WHERE origin = $3 AND strpos(body, $1) > 0`,
			q, governance.RedactedText, evals.OriginRegression); err != nil {
			return fmt.Errorf("postgres: scrub regression suites: %w", err)
		}
	}
	return scrubRegressionRuns(ctx, tx, p, quotes)
}

// scrubRegressionRuns replaces quotes in the runs of regression suites:
// their copies of the suite (the summary) and their results.
func scrubRegressionRuns(ctx context.Context, tx *Tx, p *forgetPlan, quotes []string) error {
	for _, q := range quotes {
		if err := p.exec(ctx, tx, "eval_runs", `UPDATE eval_runs SET summary = replace(summary, $1, $2)
			WHERE suite_id IN (SELECT id FROM eval_suites WHERE origin = $3) AND strpos(summary, $1) > 0`,
			q, governance.RedactedText, evals.OriginRegression); err != nil {
			return fmt.Errorf("postgres: scrub regression runs: %w", err)
		}
		if err := p.exec(ctx, tx, "eval_results", `UPDATE eval_results SET detail = replace(detail, $1, $2), reason = replace(reason, $1, $2)
			WHERE run_id IN (SELECT r.id FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id WHERE s.origin = $3)
				AND (strpos(detail, $1) > 0 OR strpos(reason, $1) > 0)`,
			q, governance.RedactedText, evals.OriginRegression); err != nil {
			return fmt.Errorf("postgres: scrub regression results: %w", err)
		}
	}
	return nil
}

// deleteProjectOutcomes deletes a project's outcome rows (deleteProjectRows).
var deleteProjectOutcomes = []string{
	`DELETE FROM recall_outcomes WHERE project_id = $1`,
	`DELETE FROM rule_outcomes WHERE project_id = $1`,
	`DELETE FROM outcome_reviews WHERE project_id = $1`,
	`DELETE FROM outcome_policies WHERE project_id = $1`,
}
