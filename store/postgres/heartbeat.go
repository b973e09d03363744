package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/lifecycle"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

var _ consolidate.HeartbeatStore = (*Store)(nil)

// InterruptedMessage is recorded on a beat the console stopped in the
// middle of (a shutdown or a crash), as the SQLite store records it.
const InterruptedMessage = "interrupted: the console stopped before this finished"

// FindCheckpoint returns a project's heartbeat checkpoint (0 before the first beat).
func (s *Store) FindCheckpoint(ctx context.Context, projectID int64) (int64, error) {
	return findCheckpoint(ctx, s.pool, projectID)
}

func findCheckpoint(ctx context.Context, q dbtx, projectID int64) (int64, error) {
	var seq int64
	err := q.QueryRow(ctx, `SELECT seq FROM checkpoints WHERE project_id = $1`, projectID).Scan(&seq)
	if isNoRows(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: checkpoint: %w", err)
	}
	return seq, nil
}

// LoadConsolidateInput gathers what one beat needs for a project: the ended
// sessions touched by events after the checkpoint (not yet consolidated up
// to their last event), the new checkpoint (held back before the first
// event of any session still open), and the merge state. Everything is
// read in one REPEATABLE READ snapshot, so the parts agree with each other
// and with the forget generation read first: a forget committing later is
// seen by ApplyBeatPlan, which then writes nothing.
func (s *Store) LoadConsolidateInput(ctx context.Context, p *governance.Project, idle time.Duration) (*governance.ConsolidateInput, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("postgres: begin snapshot: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	now := s.Now().UTC()
	in := &governance.ConsolidateInput{
		Project: p, Now: now.Truncate(time.Second), Evidence: map[int64]*governance.Event{}, Suppressed: governance.Suppressions{},
	}
	if in.ForgetGeneration, err = forgetGeneration(ctx, tx, p.ID); err != nil {
		return nil, err
	}
	// The checkpoint row's version (xmin: every applied beat rewrites the
	// row) tells ApplyBeatPlan whether another beat committed since.
	var cp int64
	err = tx.QueryRow(ctx, `SELECT seq, xmin::text FROM checkpoints WHERE project_id = $1`, p.ID).Scan(&cp, &in.BeatVersion)
	if err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("postgres: checkpoint: %w", err)
	}
	in.Checkpoint = cp
	var maxSeq int64
	if err := tx.QueryRow(ctx, `SELECT COALESCE(max(last_seq), 0) FROM sessions WHERE project_id = $1`, p.ID).Scan(&maxSeq); err != nil {
		return nil, fmt.Errorf("postgres: max seq: %w", err)
	}
	if maxSeq <= cp {
		in.NewCheckpoint = cp
		return in, nil
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM events WHERE project_id = $1 AND seq > $2`, p.ID, cp).Scan(&in.NewEvents); err != nil {
		return nil, fmt.Errorf("postgres: count new events: %w", err)
	}
	touched, err := findTouchedSessions(ctx, tx, p.ID, cp)
	if err != nil {
		return nil, err
	}
	episodes := map[string]int64{}
	if err := queryAll(ctx, tx, `SELECT session_id, last_seq FROM episodes WHERE project_id = $1`, []any{p.ID}, rowscan.Keyed[pgx.Row](episodes)); err != nil {
		return nil, err
	}
	newCP := maxSeq
	for _, si := range touched {
		ended := si.Ended || (idle > 0 && now.Sub(si.LastAt) > idle)
		if !ended {
			var first int64
			if err := tx.QueryRow(ctx, `SELECT min(seq) FROM events WHERE project_id = $1 AND session_id = $2 AND seq > $3`,
				p.ID, si.SessionID, cp).Scan(&first); err != nil {
				return nil, fmt.Errorf("postgres: first open seq: %w", err)
			}
			newCP = min(newCP, first-1)
			continue
		}
		if last, ok := episodes[si.SessionID]; ok && last >= si.LastSeq {
			continue
		}
		var msgs []*governance.Event
		if err := queryAll(ctx, tx, `SELECT `+eventColumns+` FROM events e
			WHERE e.project_id = $1 AND e.session_id = $2 AND e.kind = 'message' AND NOT e.redacted ORDER BY e.turn, e.seq`,
			[]any{p.ID, si.SessionID}, rowscan.AppendV[pgx.Row](scanEvent, &msgs)); err != nil {
			return nil, err
		}
		known := map[string]bool{}
		if err := queryAll(ctx, tx, `SELECT fingerprint FROM candidates WHERE project_id = $1 AND session_id = $2`,
			[]any{p.ID, si.SessionID}, func(r pgx.Row) error {
				var fp string
				err := r.Scan(&fp)
				known[fp] = true
				return err
			}); err != nil {
			return nil, err
		}
		in.Sessions = append(in.Sessions, &governance.SessionWork{Session: si, Events: msgs, Known: known, Consolidated: episodes[si.SessionID]})
	}
	in.NewCheckpoint = max(cp, newCP)

	held := &where{}
	held.add("c.project_id = ?", p.ID)
	held.add("c.status = 'held'")
	if in.Held, err = findCandidatesIn(ctx, tx, held, ""); err != nil {
		return nil, err
	}
	classes, err := findRejectedClasses(ctx, tx, p.ID, false)
	if err != nil {
		return nil, err
	}
	in.RejectedClasses = governance.StandingClasses(classes)
	var seqs []int64
	for _, c := range in.Held {
		seqs = append(seqs, c.EvidenceSeqs...)
	}
	if err := eventsBySeq(ctx, tx, []int64{p.ID}, seqs, in.Evidence); err != nil {
		return nil, err
	}
	if in.Rules, _, err = findRules(ctx, tx, governance.RuleFilter{ProjectID: &p.ID,
		Statuses: []governance.RuleStatus{governance.RuleProposed, governance.RuleActive}}); err != nil {
		return nil, err
	}
	if err := queryAll(ctx, tx, `SELECT subject_id, fingerprint FROM suppressions WHERE project_id = $1`, []any{p.ID}, func(r pgx.Row) error {
		var subject, fp string
		err := r.Scan(&subject, &fp)
		in.Suppressed.Add(subject, fp)
		return err
	}); err != nil {
		return nil, err
	}
	return in, nil
}

// findTouchedSessions lists a project's sessions with events after seq,
// in the order of their last event.
func findTouchedSessions(ctx context.Context, q dbtx, projectID, after int64) ([]*governance.SessionInfo, error) {
	var out []*governance.SessionInfo
	err := queryAll(ctx, q, `
		SELECT project_id, session_id, subject_id, events, failed, external, first_at, last_at, ended, last_seq
		FROM sessions WHERE project_id = $1 AND last_seq > $2 ORDER BY last_seq`, []any{projectID, after}, func(r pgx.Row) error {
		var si governance.SessionInfo
		if err := r.Scan(&si.ProjectID, &si.SessionID, &si.SubjectID, &si.Events, &si.Failed, &si.External,
			&si.FirstAt, &si.LastAt, &si.Ended, &si.LastSeq); err != nil {
			return err
		}
		si.FirstAt, si.LastAt = si.FirstAt.UTC(), si.LastAt.UTC()
		out = append(out, &si)
		return nil
	})
	return out, err
}

// ApplyBeatPlan writes a beat's outputs and the new checkpoint in one
// transaction: a crash or error before commit leaves nothing behind, and
// the next beat redoes the same work. It first locks the project's forget
// generation (lockForgetGeneration): a forget that committed after the
// input was read wins (the plan may carry the forgotten text, so nothing
// of it is written), and one still running makes the beat wait for it.
// Holding that lock, it refuses a plan read before another beat of the
// project committed (governance.ErrBeatMeanwhile): two instances that
// beat at once (a leader change in flight) write each session's work once.
func (s *Store) ApplyBeatPlan(ctx context.Context, plan *governance.BeatPlan) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	gen, err := lockForgetGeneration(ctx, tx, plan.ProjectID)
	if err != nil {
		return err
	}
	if gen != plan.ForgetGeneration {
		return governance.ErrForgotMeanwhile
	}
	// Another instance's beat of this project that committed since the
	// input was read has done (some of) this plan's work: writing it too
	// would duplicate candidates and proposals.
	var version string
	err = tx.QueryRow(ctx, `SELECT xmin::text FROM checkpoints WHERE project_id = $1 FOR UPDATE`, plan.ProjectID).Scan(&version)
	if err != nil && !isNoRows(err) {
		return fmt.Errorf("postgres: checkpoint version: %w", err)
	}
	if version != plan.BeatVersion {
		return governance.ErrBeatMeanwhile
	}
	for _, ep := range plan.Episodes {
		if _, err := tx.Exec(ctx, `
			INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor,
				created_at, updated_at, words)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10::tsvector)
			ON CONFLICT (project_id, session_id) DO UPDATE SET summary = excluded.summary, first_seq = excluded.first_seq,
				last_seq = excluded.last_seq, event_count = excluded.event_count, extractor = excluded.extractor,
				updated_at = excluded.updated_at, words = excluded.words`,
			plan.ProjectID, ep.SessionID, ep.SubjectID, ep.Summary, ep.FirstSeq, ep.LastSeq, ep.EventCount, ep.Extractor,
			tx.now, tsvectorOf(ep.Summary)); err != nil {
			return fmt.Errorf("postgres: write episode: %w", err)
		}
	}
	ids := map[int64]int64{} // temporary id → real id, for candidates and rules alike
	ruleIDs, err := lifecycle.BeatRules(ctx, ruleTx{tx}, plan)
	if err != nil {
		return err
	}
	mapRule := func(id int64) any {
		if id < 0 {
			return ruleIDs[id]
		}
		return nullInt(id)
	}
	var gained []int64 // proposals that gain candidates, and their evidence
	for _, c := range plan.Candidates {
		var id int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO candidates (project_id, session_id, subject_id, type, statement, durable, extractor, status, status_reason,
				why_not_placed, group_id, rule_id, fingerprint, findings, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, $11, $12, $13, $14, $14) RETURNING id`,
			c.ProjectID, c.SessionID, c.SubjectID, string(c.Type), c.Statement, c.Durable, c.Extractor, string(c.Status), c.StatusReason,
			governance.StoreNotPlaced(c.WhyNotPlaced), mapRule(c.RuleID), c.Fingerprint, jsonList(c.Findings), tx.now).Scan(&id); err != nil {
			return fmt.Errorf("postgres: write candidate: %w", err)
		}
		ids[c.ID] = id
		if r, ok := mapRule(c.RuleID).(int64); ok {
			gained = append(gained, r)
		}
		if len(c.EvidenceSeqs) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO evidence (candidate_id, event_seq) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING`,
				id, c.EvidenceSeqs); err != nil {
				return fmt.Errorf("postgres: write evidence: %w", err)
			}
		}
	}
	// Once per beat, not once per evidence row (migration 0095).
	if len(gained) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE rules SET rank_score = NULL, rank_epoch = rank_epoch + 1
			WHERE status = 'proposed' AND id = ANY($1::bigint[])`, gained); err != nil {
			return fmt.Errorf("postgres: forget ranks: %w", err)
		}
	}
	mapCand := func(id int64) int64 {
		if id < 0 {
			return ids[id]
		}
		return id
	}
	for _, c := range plan.Candidates {
		if _, err := tx.Exec(ctx, `UPDATE candidates SET group_id = $1 WHERE id = $2`, mapCand(c.GroupID), ids[c.ID]); err != nil {
			return fmt.Errorf("postgres: group candidate: %w", err)
		}
	}
	for _, c := range plan.Updates {
		if _, err := tx.Exec(ctx, `UPDATE candidates SET status = $1, status_reason = $2, why_not_placed = $3, group_id = $4, rule_id = $5, updated_at = $6 WHERE id = $7`,
			string(c.Status), c.StatusReason, governance.StoreNotPlaced(c.WhyNotPlaced), mapCand(c.GroupID), mapRule(c.RuleID), tx.now, c.ID); err != nil {
			return fmt.Errorf("postgres: update candidate: %w", err)
		}
	}
	for candID, ruleID := range plan.Attach {
		if err := appendAudit(ctx, tx, &governance.AuditEntry{
			Actor: "heartbeat", Action: "rule.evidence", ObjectType: "rule", ObjectID: fmt.Sprint(ruleID), ProjectID: plan.ProjectID,
			Details: fmt.Sprintf(`{"candidate_id":%d}`, mapCand(candID)),
		}); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO checkpoints (project_id, seq, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (project_id) DO UPDATE SET seq = GREATEST(checkpoints.seq, excluded.seq), updated_at = excluded.updated_at`,
		plan.ProjectID, plan.Checkpoint, tx.now); err != nil {
		return fmt.Errorf("postgres: write checkpoint: %w", err)
	}
	if s.BeforeCommit != nil {
		if err := s.BeforeCommit(ctx); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// forgetGeneration is the project's forget generation (0 before any
// forget); the triggers of migration 0006 bump it in every forget's
// transaction.
// forgotSince is ErrForgotMeanwhile when gen is set and a forget in the
// project committed since it was read.
func forgotSince(ctx context.Context, q dbtx, projectID int64, gen *int64) error {
	if gen == nil {
		return nil
	}
	now, err := forgetGeneration(ctx, q, projectID)
	if err != nil {
		return err
	}
	if now != *gen {
		return governance.ErrForgotMeanwhile
	}
	return nil
}

func forgetGeneration(ctx context.Context, q dbtx, projectID int64) (int64, error) {
	var gen int64
	if err := q.QueryRow(ctx, `SELECT COALESCE((SELECT generation FROM forget_generations WHERE project_id = $1), 0)`,
		projectID).Scan(&gen); err != nil {
		return 0, fmt.Errorf("postgres: forget generation: %w", err)
	}
	return gen, nil
}

// lockForgetGeneration locks the project's forget generation row until tx
// ends and returns the generation. Beats and forgets of one project take
// turns through it: ApplyBeatPlan calls it first, and so must a forget
// (before it reads what it forgets), so a beat never commits text a forget
// running at the same time has already planned around.
func lockForgetGeneration(ctx context.Context, tx *Tx, projectID int64) (int64, error) {
	if _, err := tx.Exec(ctx, `INSERT INTO forget_generations (project_id, generation) VALUES ($1, 0) ON CONFLICT (project_id) DO NOTHING`,
		projectID); err != nil {
		return 0, fmt.Errorf("postgres: forget generation: %w", err)
	}
	var gen int64
	if err := tx.QueryRow(ctx, `SELECT generation FROM forget_generations WHERE project_id = $1 FOR UPDATE`, projectID).Scan(&gen); err != nil {
		return 0, fmt.Errorf("postgres: lock forget generation: %w", err)
	}
	return gen, nil
}

// StartBeat records the start of a beat.
func (s *Store) StartBeat(ctx context.Context, trigger string) (*governance.BeatRecord, error) {
	now := utc(s.Now())
	var id int64
	if err := s.pool.QueryRow(ctx, `INSERT INTO beats (trigger, started_at) VALUES ($1, $2) RETURNING id`, trigger, now).Scan(&id); err != nil {
		return nil, fmt.Errorf("postgres: start beat: %w", err)
	}
	return &governance.BeatRecord{ID: id, Trigger: trigger, StartedAt: now}, nil
}

// FinishBeat records what a beat did.
func (s *Store) FinishBeat(ctx context.Context, b *governance.BeatRecord) error {
	if _, err := s.pool.Exec(ctx, `
		UPDATE beats SET finished_at = $1, new_events = $2, episodes = $3, candidates = $4, proposals = $5, held = $6, blocked = $7,
			errors = $8, tokens = $9, next_beat_at = $10 WHERE id = $11`,
		utcSecond(b.FinishedAt), b.NewEvents, b.Episodes, b.Candidates, b.Proposals, b.Held, b.Blocked,
		b.Errors, b.Tokens, utcSecond(b.NextBeatAt), b.ID); err != nil {
		return fmt.Errorf("postgres: finish beat: %w", err)
	}
	return nil
}

// utcSecond stores an optional time as the SQLite store does: UTC, whole
// seconds, NULL when unset.
func utcSecond(t *time.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	u := utc(*t)
	return &u
}

// FindBeats lists the most recent beats, newest first.
func (s *Store) FindBeats(ctx context.Context, limit int) ([]*governance.BeatRecord, error) {
	var out []*governance.BeatRecord
	clause, args := page(nil, limit, 0)
	err := queryAll(ctx, s.pool, `
		SELECT id, trigger, started_at, finished_at, new_events, episodes, candidates, proposals, held, blocked, errors, tokens, next_beat_at
		FROM beats ORDER BY id DESC`+clause, args, func(r pgx.Row) error {
		var (
			b              governance.BeatRecord
			finished, next *time.Time
		)
		if err := r.Scan(&b.ID, &b.Trigger, &b.StartedAt, &finished, &b.NewEvents, &b.Episodes, &b.Candidates, &b.Proposals,
			&b.Held, &b.Blocked, &b.Errors, &b.Tokens, &next); err != nil {
			return err
		}
		b.StartedAt, b.FinishedAt, b.NextBeatAt = b.StartedAt.UTC(), utcPtr(finished), utcPtr(next)
		out = append(out, &b)
		return nil
	})
	return out, err
}

// RepairInterrupted closes the records a crash left open: beats without a
// finish time are finished and marked interrupted (eval runs left running
// are resumed by the runner; imports and forgets are single transactions),
// and the scratch projects no live eval run owns are removed
// (RemoveOrphanScratch, as SQLite's). The rewrites of forgets whose
// process stopped after their commit are finished (finishScrubs, as
// SQLite's finishes a forget's WAL checkpoint). It also re-chains the audit of
// subjects forgotten before migration 0014. With several instances, call
// it only in the heartbeat's leader, before its first beat: another
// instance's beat in progress also has no finish time. It returns how many
// beats it closed, runs it removed scratch projects of and rewrites it
// finished.
func (s *Store) RepairInterrupted(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `
		UPDATE beats SET finished_at = $1, errors = CASE WHEN errors = '' THEN $2 ELSE errors || '; ' || $2 END
		WHERE finished_at IS NULL`, utc(s.Now()), InterruptedMessage)
	if err != nil {
		return 0, fmt.Errorf("postgres: repair interrupted beats: %w", err)
	}
	total := tag.RowsAffected()
	// Subjects forgotten before keyed audit references still have their
	// id in their forget's audit row (audit_rechain.go).
	if _, err := s.rechainForgottenSubjects(ctx); err != nil {
		return total, err
	}
	removed, err := s.RemoveOrphanScratch(ctx)
	total += removed
	if err != nil {
		return total, err
	}
	// A process killed after a forget's commit and before its rewrite
	// left the forgotten rows' old versions in the table files: rewrite
	// them now (pending_scrubs, vacuum.go).
	scrubbed, err := s.finishScrubs(ctx)
	total += scrubbed
	return total, err
}
