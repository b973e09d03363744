package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/lifecycle"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
	"github.com/mnemo-console/mnemo/store/internal/rulerows"
)

var _ consolidate.HeartbeatStore = (*Store)(nil)

// Checkpoint returns a project's heartbeat checkpoint (0 before the first beat).
func (s *Store) FindCheckpoint(ctx context.Context, projectID int64) (int64, error) {
	var seq int64
	err := s.read.QueryRowContext(ctx, `SELECT seq FROM checkpoints WHERE project_id = ?`, projectID).Scan(&seq)
	if isNoRows(err) {
		return 0, nil
	}
	return seq, err
}

// LoadConsolidateInput gathers what one beat needs for a project: the ended
// sessions touched by events after the checkpoint (not yet consolidated up
// to their last event), the new checkpoint (held back before the first
// event of any session still open), and the merge state.
func (s *Store) LoadConsolidateInput(ctx context.Context, p *governance.Project, idle time.Duration) (*governance.ConsolidateInput, error) {
	now := s.Now().UTC()
	in := &governance.ConsolidateInput{
		Project: p, Now: now.Truncate(time.Second), Evidence: map[int64]*governance.Event{}, Suppressed: governance.Suppressions{},
	}
	// Read first: a forget committing after this point is seen by
	// ApplyBeatPlan, which then writes nothing.
	gen, err := forgetGeneration(ctx, s.read, p.ID)
	if err != nil {
		return nil, err
	}
	in.ForgetGeneration = gen
	// The checkpoint's version, read with it, tells ApplyBeatPlan whether
	// another beat of the project committed since.
	var cp, version int64
	err = s.read.QueryRowContext(ctx, `SELECT seq, version FROM checkpoints WHERE project_id = ?`, p.ID).Scan(&cp, &version)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: checkpoint: %w", err)
	}
	in.Checkpoint, in.BeatVersion = cp, strconv.FormatInt(version, 10)
	var maxSeq int64
	if err := s.read.QueryRowContext(ctx, `SELECT COALESCE(MAX(last_seq), 0) FROM sessions WHERE project_id = ?`, p.ID).Scan(&maxSeq); err != nil {
		return nil, fmt.Errorf("store: max seq: %w", err)
	}
	if maxSeq <= cp {
		in.NewCheckpoint = cp
		return in, nil
	}
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE seq > ? AND project_id = ?`, cp, p.ID).Scan(&in.NewEvents); err != nil {
		return nil, fmt.Errorf("store: count new events: %w", err)
	}
	touched, _, err := s.findTouchedSessions(ctx, p.ID, cp)
	if err != nil {
		return nil, err
	}
	episodes := map[string]int64{}
	if err := queryAll(ctx, s.read, `SELECT session_id, last_seq FROM episodes WHERE project_id = ?`, []any{p.ID}, rowscan.Keyed[scanner](episodes)); err != nil {
		return nil, err
	}
	newCP := maxSeq
	for _, si := range touched {
		ended := si.Ended || (idle > 0 && now.Sub(si.LastAt) > idle)
		if !ended {
			var first int64
			if err := s.read.QueryRowContext(ctx, `SELECT MIN(seq) FROM events WHERE project_id = ? AND session_id = ? AND seq > ?`,
				p.ID, si.SessionID, cp).Scan(&first); err != nil {
				return nil, fmt.Errorf("store: first open seq: %w", err)
			}
			newCP = min(newCP, first-1)
			continue
		}
		if last, ok := episodes[si.SessionID]; ok && last >= si.LastSeq {
			continue
		}
		sid := si.SessionID
		events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, SessionID: &sid})
		if err != nil {
			return nil, err
		}
		var msgs []*governance.Event
		for _, e := range events {
			if e.Kind == governance.KindMessage && !e.Redacted {
				msgs = append(msgs, e)
			}
		}
		known := map[string]bool{}
		if err := queryAll(ctx, s.read, `SELECT fingerprint FROM candidates WHERE project_id = ? AND session_id = ?`, []any{p.ID, sid}, func(r scanner) error {
			var fp string
			err := r.Scan(&fp)
			known[fp] = true
			return err
		}); err != nil {
			return nil, err
		}
		in.Sessions = append(in.Sessions, &governance.SessionWork{Session: si, Events: msgs, Known: known, Consolidated: episodes[sid]})
	}
	in.NewCheckpoint = max(cp, newCP)

	held, err := findCandidatesIn(ctx, s.read, `c.project_id = ? AND c.status = 'held'`, p.ID)
	if err != nil {
		return nil, err
	}
	in.Held = held
	classes, err := findRejectedClasses(ctx, s.read, p.ID, false)
	if err != nil {
		return nil, err
	}
	in.RejectedClasses = governance.StandingClasses(classes)
	var seqs []int64
	for _, c := range held {
		seqs = append(seqs, c.EvidenceSeqs...)
	}
	if err := s.eventsBySeq(ctx, seqs, in.Evidence); err != nil {
		return nil, err
	}
	in.Rules, _, err = s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID,
		Statuses: []governance.RuleStatus{governance.RuleProposed, governance.RuleActive}})
	if err != nil {
		return nil, err
	}
	if err := queryAll(ctx, s.read, `SELECT subject_id, fingerprint FROM suppressions WHERE project_id = ?`, []any{p.ID}, func(r scanner) error {
		var subject, fp string
		err := r.Scan(&subject, &fp)
		in.Suppressed.Add(subject, fp)
		return err
	}); err != nil {
		return nil, err
	}
	return in, nil
}

func (s *Store) findTouchedSessions(ctx context.Context, projectID, after int64) ([]*governance.SessionInfo, int, error) {
	var out []*governance.SessionInfo
	err := queryAll(ctx, s.read, `
		SELECT project_id, session_id, subject_id, events, failed, external, first_at, last_at, ended, last_seq
		FROM sessions WHERE project_id = ? AND last_seq > ? ORDER BY last_seq`, []any{projectID, after}, func(r scanner) error {
		var (
			si          governance.SessionInfo
			first, last string
		)
		if err := r.Scan(&si.ProjectID, &si.SessionID, &si.SubjectID, &si.Events, &si.Failed, &si.External,
			&first, &last, &si.Ended, &si.LastSeq); err != nil {
			return err
		}
		si.FirstAt, si.LastAt = parseTime(first), parseTime(last)
		out = append(out, &si)
		return nil
	})
	return out, len(out), err
}

// eventsBySeq loads the given events into m.
func (s *Store) eventsBySeq(ctx context.Context, seqs []int64, m map[int64]*governance.Event) error {
	if len(seqs) == 0 {
		return nil
	}
	return queryAll(ctx, s.read, `SELECT `+eventColumns+` FROM events e WHERE e.seq IN (SELECT value FROM json_each(?))`,
		[]any{listArg(seqs)}, func(r scanner) error {
			e, err := scanEvent(r)
			if err == nil {
				m[e.Seq] = e
			}
			return err
		})
}

// ApplyBeatPlan writes a beat's outputs and the new checkpoint in one
// transaction: a crash or error before commit leaves nothing behind, and
// the next beat redoes the same work.
func (s *Store) ApplyBeatPlan(ctx context.Context, plan *governance.BeatPlan) error {
	tx, err := s.begin(ctx, "ApplyBeatPlan")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// A forget that committed after the input was read wins: the plan may
	// carry the forgotten text, so nothing of it is written.
	gen, err := forgetGeneration(ctx, tx, plan.ProjectID)
	if err != nil {
		return err
	}
	if gen != plan.ForgetGeneration {
		return governance.ErrForgotMeanwhile
	}
	// Another instance's beat of this project that committed since the
	// input was read has done (some of) this plan's work: writing it too
	// would duplicate candidates and proposals. The write transaction is
	// immediate, so no beat commits between this read and the commit.
	var version int64
	err = tx.QueryRowContext(ctx, `SELECT version FROM checkpoints WHERE project_id = ?`, plan.ProjectID).Scan(&version)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("store: checkpoint version: %w", err)
	}
	if strconv.FormatInt(version, 10) != plan.BeatVersion {
		return governance.ErrBeatMeanwhile
	}
	now := formatTime(tx.now)
	for _, ep := range plan.Episodes {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (project_id, session_id) DO UPDATE SET summary = excluded.summary, first_seq = excluded.first_seq,
				last_seq = excluded.last_seq, event_count = excluded.event_count, extractor = excluded.extractor, updated_at = excluded.updated_at`,
			plan.ProjectID, ep.SessionID, ep.SubjectID, ep.Summary, ep.FirstSeq, ep.LastSeq, ep.EventCount, ep.Extractor, now, now); err != nil {
			return fmt.Errorf("store: write episode: %w", err)
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
		if id == 0 {
			return nil
		}
		return id
	}
	var gained []int64 // proposals that gain candidates, and their evidence
	for _, c := range plan.Candidates {
		findings, _ := json.Marshal(nonNil(c.Findings))
		res, err := tx.ExecContext(ctx, `
			INSERT INTO candidates (project_id, session_id, subject_id, type, statement, durable, extractor, status, status_reason,
				why_not_placed, group_id, rule_id, fingerprint, findings, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
			c.ProjectID, c.SessionID, c.SubjectID, c.Type, c.Statement, c.Durable, c.Extractor, c.Status, c.StatusReason,
			governance.StoreNotPlaced(c.WhyNotPlaced), mapRule(c.RuleID), c.Fingerprint, string(findings), now, now)
		if err != nil {
			return fmt.Errorf("store: write candidate: %w", err)
		}
		id, _ := res.LastInsertId()
		ids[c.ID] = id
		if r, ok := mapRule(c.RuleID).(int64); ok {
			gained = append(gained, r)
		}
		for _, seq := range c.EvidenceSeqs {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO evidence (candidate_id, event_seq) VALUES (?, ?)`, id, seq); err != nil {
				return fmt.Errorf("store: write evidence: %w", err)
			}
		}
	}
	// Once per beat, not once per evidence row (migration 0104).
	if len(gained) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE rules SET rank_score = NULL, rank_epoch = rank_epoch + 1
			WHERE status = 'proposed' AND id IN (SELECT DISTINCT value FROM json_each(?))`, listArg(gained)); err != nil {
			return fmt.Errorf("store: forget ranks: %w", err)
		}
	}
	mapCand := func(id int64) int64 {
		if id < 0 {
			return ids[id]
		}
		return id
	}
	for _, c := range plan.Candidates {
		if _, err := tx.ExecContext(ctx, `UPDATE candidates SET group_id = ? WHERE id = ?`, mapCand(c.GroupID), ids[c.ID]); err != nil {
			return fmt.Errorf("store: group candidate: %w", err)
		}
	}
	for _, c := range plan.Updates {
		if _, err := tx.ExecContext(ctx, `UPDATE candidates SET status = ?, status_reason = ?, why_not_placed = ?, group_id = ?, rule_id = ?, updated_at = ? WHERE id = ?`,
			c.Status, c.StatusReason, governance.StoreNotPlaced(c.WhyNotPlaced), mapCand(c.GroupID), mapRule(c.RuleID), now, c.ID); err != nil {
			return fmt.Errorf("store: update candidate: %w", err)
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
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO checkpoints (project_id, seq, updated_at, version) VALUES (?, ?, ?, 1)
		ON CONFLICT (project_id) DO UPDATE SET seq = MAX(seq, excluded.seq), updated_at = excluded.updated_at, version = version + 1`,
		plan.ProjectID, plan.Checkpoint, now); err != nil {
		return fmt.Errorf("store: write checkpoint: %w", err)
	}
	if s.BeforeCommit != nil {
		if err := s.BeforeCommit(ctx); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// InsertRule writes a new rule, its first version and the audit row.
func (tx ruleTx) InsertRule(ctx context.Context, r *governance.Rule, actor, reason string) (int64, error) {
	if err := governance.CheckRuleText(r.Text); err != nil {
		return 0, err
	}
	findings, _ := json.Marshal(nonNil(r.Findings))
	now := formatTime(tx.now)
	res, err := tx.ExecContext(ctx, `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, version, trust, expires_at, paused,
			supersedes, findings, fingerprint, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, 0, ?, ?, ?, ?, ?)`,
		r.ProjectID, r.SubjectID, r.Kind, r.Text, r.PromotionReason, r.Status, r.Trust, formatTimePtr(r.ExpiresAt),
		nullInt(r.Supersedes), string(findings), governance.Fingerprint(r.Text), now, now)
	if err != nil {
		return 0, fmt.Errorf("store: write rule: %w", err)
	}
	id, _ := res.LastInsertId()
	if _, err := tx.ExecContext(ctx, `INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES (?, 1, ?, ?, ?, ?, ?)`,
		id, r.Text, r.Kind, actor, reason, now); err != nil {
		return 0, fmt.Errorf("store: write rule version: %w", err)
	}
	if err := appendAudit(ctx, tx.Tx, rulerows.Written(actor, id, r)); err != nil {
		return 0, err
	}
	return id, nil
}

// StartBeat records the start of a beat.
func (s *Store) StartBeat(ctx context.Context, trigger string) (*governance.BeatRecord, error) {
	now := s.Now().UTC().Truncate(time.Second)
	res, err := s.exec(ctx, "StartBeat", `INSERT INTO beats (trigger, started_at) VALUES (?, ?)`, trigger, formatTime(now))
	if err != nil {
		return nil, fmt.Errorf("store: start beat: %w", err)
	}
	id, _ := res.LastInsertId()
	return &governance.BeatRecord{ID: id, Trigger: trigger, StartedAt: now}, nil
}

// FinishBeat records what a beat did.
func (s *Store) FinishBeat(ctx context.Context, b *governance.BeatRecord) error {
	_, err := s.exec(ctx, "FinishBeat", `
		UPDATE beats SET finished_at = ?, new_events = ?, episodes = ?, candidates = ?, proposals = ?, held = ?, blocked = ?,
			errors = ?, tokens = ?, next_beat_at = ? WHERE id = ?`,
		formatTimePtr(b.FinishedAt), b.NewEvents, b.Episodes, b.Candidates, b.Proposals, b.Held, b.Blocked,
		b.Errors, b.Tokens, formatTimePtr(b.NextBeatAt), b.ID)
	if err != nil {
		return fmt.Errorf("store: finish beat: %w", err)
	}
	return nil
}

// FindBeats lists the most recent beats, newest first.
func (s *Store) FindBeats(ctx context.Context, limit int) ([]*governance.BeatRecord, error) {
	var out []*governance.BeatRecord
	err := queryAll(ctx, s.read, `
		SELECT id, trigger, started_at, finished_at, new_events, episodes, candidates, proposals, held, blocked, errors, tokens, next_beat_at
		FROM beats ORDER BY id DESC`+pageSQL, pageArgs(nil, limit, 0), func(r scanner) error {
		var (
			b              governance.BeatRecord
			started        string
			finished, next NullTime
		)
		if err := r.Scan(&b.ID, &b.Trigger, &started, &finished, &b.NewEvents, &b.Episodes, &b.Candidates, &b.Proposals,
			&b.Held, &b.Blocked, &b.Errors, &b.Tokens, &next); err != nil {
			return err
		}
		b.StartedAt, b.FinishedAt, b.NextBeatAt = parseTime(started), finished.Time, next.Time
		out = append(out, &b)
		return nil
	})
	return out, err
}

// forgetGeneration is the project's forget generation (0 before any forget);
// the triggers of migration 0015 bump it in every forget's transaction.
// forgotSince is ErrForgotMeanwhile when gen is set and a forget in the
// project committed since it was read.
func forgotSince(ctx context.Context, q querier, projectID int64, gen *int64) error {
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

func forgetGeneration(ctx context.Context, q querier, projectID int64) (int64, error) {
	var gen int64
	err := q.QueryRowContext(ctx, `SELECT COALESCE((SELECT generation FROM forget_generations WHERE project_id = ?), 0)`, projectID).Scan(&gen)
	if err != nil {
		return 0, fmt.Errorf("store: forget generation: %w", err)
	}
	return gen, nil
}
