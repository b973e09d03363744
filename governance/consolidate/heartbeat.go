package consolidate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// HeartbeatStore is what the heartbeat needs from persistence.
type HeartbeatStore interface {
	FindProjects(ctx context.Context) ([]*governance.Project, error)
	// LoadConsolidateInput gathers new events, ended sessions and merge state.
	LoadConsolidateInput(ctx context.Context, p *governance.Project, idle time.Duration) (*governance.ConsolidateInput, error)
	// ApplyBeatPlan writes the plan and the checkpoint in one transaction.
	ApplyBeatPlan(ctx context.Context, plan *governance.BeatPlan) error
	StartBeat(ctx context.Context, trigger string) (*governance.BeatRecord, error)
	FinishBeat(ctx context.Context, b *governance.BeatRecord) error
}

// maxBackoff bounds the interval after failed beats.
const maxBackoff = 30 * time.Minute

// Heartbeat consolidates new events in the background. Beats are
// single-flight: a "run now" during a beat waits for it and never runs a
// second one at the same time.
type Heartbeat struct {
	Store        HeartbeatStore
	Consolidator *Consolidator
	Logger       *slog.Logger
	// Idle is how long a session without an end event must be quiet before
	// it counts as ended.
	Idle time.Duration
	// Skip leaves projects out of full beats (eval scratch projects, which
	// their runs consolidate themselves through BeatProject).
	Skip func(*governance.Project) bool
	// Now and After are the heartbeat's clock and timer (time.Now and a
	// time.Timer when nil): the next beat is due at Now plus the interval,
	// and Run waits for it on After, so both run on one clock.
	Now   func() time.Time
	After func(d time.Duration) <-chan time.Time
	// Embedder and Embeddings, when both are set, turn the semantic channel
	// on: each beat embeds every project's memories that have no vector
	// yet, in at most EmbedBatches calls of EmbedBatch items per project
	// (0: the defaults), so a backlog is worked off over several beats.
	Embedder     governance.Embedder
	Embeddings   governance.EmbedStore
	EmbedBatch   int
	EmbedBatches int
	// Every, when set, is the fixed time between beats instead of the
	// adaptive NextInterval (and the shortest backoff after a failure).
	Every time.Duration
	// Hold, when set, is asked before a beat and before each project of
	// it; an error (this instance no longer leads: docs/operations.md,
	// "Leader election") ends the beat there, so two instances never work
	// as leader at once for longer than one project.
	Hold func(ctx context.Context) error
	// Outcomes, when set, runs the outcome step on each project a full
	// beat visits (reviewOutcomes, outcome.go).
	Outcomes OutcomeReviewStore
	// Procedures, when set, is handed each project's input once its plan
	// is written: the skills' part of a beat (drafts from procedures that
	// repeat, app.Skills.LearnProcedures). Its failure is logged; the
	// beat's plan stands.
	Procedures func(ctx context.Context, in *governance.ConsolidateInput) error

	mu       sync.Mutex // held for the whole beat
	state    sync.Mutex // guards the fields below
	running  bool
	progress governance.BeatProgress
	last     *governance.BeatRecord
	next     time.Time
	failures int
	wake     chan struct{}
	// nudgedBy is the trigger of the beat a NudgeBy asked for.
	nudgedBy string
}

// Status returns whether a beat runs, the last one and when the next is due.
func (h *Heartbeat) Status() governance.HeartbeatStatus {
	h.state.Lock()
	defer h.state.Unlock()
	return governance.HeartbeatStatus{Running: h.running, Progress: h.progress, Last: h.last, Next: h.next}
}

// Beat runs one beat over every project now, waiting for a running beat to
// finish first. Errors of one project are recorded and do not stop the
// others; a cancelled ctx (a shutdown) stops it before the next project.
// Each error is logged once, where it happens: a returned error Run need
// not log again is a loggedError.
func (h *Heartbeat) Beat(ctx context.Context, trigger string) (*governance.BeatRecord, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.Hold != nil {
		if err := h.Hold(ctx); err != nil {
			return nil, err
		}
	}
	h.setRunning(true)
	defer h.setRunning(false)

	rec, err := h.Store.StartBeat(ctx, trigger)
	if err != nil {
		return nil, err
	}
	var errs []error
	projects, err := h.Store.FindProjects(ctx)
	if err != nil && ctx.Err() == nil {
		h.log().Error("heartbeat could not list the projects", slog.Any("error", err))
		errs = append(errs, err)
	}
	if h.Skip != nil {
		projects = slices.DeleteFunc(projects, h.Skip)
	}
	for i, p := range projects {
		if ctx.Err() != nil {
			break
		}
		if h.Hold != nil {
			if err := h.Hold(ctx); err != nil {
				h.log().Warn("heartbeat beat stopped: this instance no longer leads", slog.String("before_project", p.Slug), slog.Any("error", err))
				errs = append(errs, err)
				break
			}
		}
		h.state.Lock()
		h.progress = governance.BeatProgress{Project: p.Slug, ProjectsDone: i, ProjectsTotal: len(projects)}
		h.state.Unlock()
		stats, err := h.beatProject(ctx, p)
		switch {
		case ctx.Err() != nil:
			// Interrupted: said once below, for the whole beat.
		case err != nil:
			h.log().Error("heartbeat failed for a project; checkpoint unchanged",
				slog.String("project", p.Slug), slog.Any("error", err))
			errs = append(errs, fmt.Errorf("%s: %w", p.Slug, err))
		default:
			rec.BeatStats.Add(stats)
		}
		if ctx.Err() != nil {
			break
		}
		if err := h.embed(ctx, p); err != nil && ctx.Err() == nil {
			errs = append(errs, fmt.Errorf("%s: embeddings: %w", p.Slug, err))
		}
		if err := h.reviewOutcomes(ctx, p); err != nil {
			h.log().Error("outcome step failed for a project", slog.String("project", p.Slug), slog.Any("error", err))
			errs = append(errs, fmt.Errorf("%s: outcomes: %w", p.Slug, err))
		}
	}
	if ctx.Err() != nil {
		h.log().Info("heartbeat beat interrupted", slog.Any("cause", context.Cause(ctx)))
		errs = append(errs, fmt.Errorf("interrupted: %w", context.Cause(ctx)))
	}
	now := h.now()
	interval, shortest := governance.NextInterval(rec.NewEvents), governance.IntervalBusy
	if h.Every > 0 {
		interval, shortest = h.Every, h.Every
	}
	h.state.Lock()
	if len(errs) > 0 {
		h.failures++
		interval = min(maxBackoff, shortest<<min(h.failures, 5))
		rec.Errors = errors.Join(errs...).Error()
	} else {
		h.failures = 0
	}
	next := now.Add(interval)
	h.next = next
	h.state.Unlock()
	rec.FinishedAt, rec.NextBeatAt = &now, &next
	// The record is closed even when ctx was cancelled (a shutdown): with
	// the cancelled context it would stay "running" forever.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := h.Store.FinishBeat(fctx, rec); err != nil {
		return rec, err
	}
	h.state.Lock()
	h.last = rec
	h.state.Unlock()
	if len(errs) > 0 {
		return rec, loggedError{errors.Join(errs...)}
	}
	return rec, nil
}

// loggedError is the errors of a beat, each logged already where it
// happened.
type loggedError struct{ error }

func (e loggedError) Unwrap() error { return e.error }

// BeatProject consolidates one project now (eval scratch projects, tests),
// single-flight with full beats; it records no beat row.
func (h *Heartbeat) BeatProject(ctx context.Context, p *governance.Project) (governance.BeatStats, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	stats, err := h.beatProject(ctx, p)
	if err != nil {
		return stats, err
	}
	return stats, h.embed(ctx, p)
}

// embed backfills the project's vectors when the semantic channel is on.
// A failed model call leaves the embedding checkpoint where the last saved
// batch put it; the next beat goes on from there.
func (h *Heartbeat) embed(ctx context.Context, p *governance.Project) error {
	if h.Embedder == nil || h.Embeddings == nil {
		return nil
	}
	n, err := Backfill(ctx, h.Embeddings, h.Embedder, p.ID, h.EmbedBatch, h.EmbedBatches)
	if err != nil && ctx.Err() == nil {
		h.log().Error("embedding backfill failed for a project; checkpoint unchanged",
			slog.String("project", p.Slug), slog.Int("embedded", n), slog.Any("error", err))
		return err
	}
	if n > 0 {
		h.log().Info("embedded memories", slog.String("project", p.Slug), slog.Int("embedded", n))
	}
	return nil
}

// forgetRetries bounds how often one project's beat starts again because of
// forgets committed meanwhile.
const forgetRetries = 3

func (h *Heartbeat) beatProject(ctx context.Context, p *governance.Project) (governance.BeatStats, error) {
	for attempt := 0; ; attempt++ {
		in, err := h.Store.LoadConsolidateInput(ctx, p, h.Idle)
		if err != nil {
			return governance.BeatStats{}, err
		}
		if in.NewCheckpoint <= in.Checkpoint && len(in.Sessions) == 0 {
			return governance.BeatStats{}, nil
		}
		plan, err := h.Consolidator.Plan(ctx, in)
		if err != nil {
			return governance.BeatStats{}, err
		}
		err = h.Store.ApplyBeatPlan(ctx, plan)
		if errors.Is(err, governance.ErrForgotMeanwhile) && attempt < forgetRetries {
			h.log().Info("a forget committed during the beat; consolidating again", slog.String("project", p.Slug))
			continue
		}
		if errors.Is(err, governance.ErrBeatMeanwhile) && attempt < forgetRetries {
			h.log().Info("another beat of the project committed meanwhile; consolidating again", slog.String("project", p.Slug))
			continue
		}
		if err != nil {
			return governance.BeatStats{}, err
		}
		if h.Procedures != nil {
			if err := h.Procedures(ctx, in); err != nil && ctx.Err() == nil {
				h.log().Error("skill drafts failed for a project", slog.String("project", p.Slug), slog.Any("error", err))
			}
		}
		return plan.Stats, nil
	}
}

// Run beats at once, then at the adaptive interval, until ctx is cancelled.
// RunNow wakes it early.
func (h *Heartbeat) Run(ctx context.Context) {
	h.wakeCh()
	for {
		h.state.Lock()
		trigger := "schedule"
		if h.nudgedBy != "" {
			trigger, h.nudgedBy = h.nudgedBy, ""
		}
		h.state.Unlock()
		var logged loggedError
		if _, err := h.Beat(ctx, trigger); err != nil && ctx.Err() == nil && !errors.As(err, &logged) {
			h.log().Warn("heartbeat beat failed", slog.Any("error", err))
		}
		floor := time.Second
		if h.Every > 0 {
			floor = min(floor, h.Every)
		}
		due, stop := h.after(max(h.untilNext(), floor))
		select {
		case <-ctx.Done():
			stop()
			return
		case <-due:
		case <-h.wakeCh():
			stop()
		}
	}
}

// untilNext is how long until the next beat is due, on the heartbeat's
// clock (the one that set it).
func (h *Heartbeat) untilNext() time.Duration {
	h.state.Lock()
	next := h.next
	h.state.Unlock()
	return next.Sub(h.now())
}

// after is After(d), or a timer of d; stop releases the timer.
func (h *Heartbeat) after(d time.Duration) (<-chan time.Time, func()) {
	if h.After != nil {
		return h.After(d), func() {}
	}
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// RunNow runs a beat now and waits for it (waiting first for a running one).
func (h *Heartbeat) RunNow(ctx context.Context, trigger string) (*governance.BeatRecord, error) {
	return h.Beat(ctx, trigger)
}

// Nudge asks the background loop to beat soon without waiting.
func (h *Heartbeat) Nudge() {
	h.NudgeBy("")
}

// NudgeBy is Nudge recording why the next beat runs (its trigger, e.g.
// "manual:account:alice"); "" keeps "schedule".
func (h *Heartbeat) NudgeBy(trigger string) {
	if trigger != "" {
		h.state.Lock()
		h.nudgedBy = trigger
		h.state.Unlock()
	}
	select {
	case h.wakeCh() <- struct{}{}:
	default:
	}
}

func (h *Heartbeat) wakeCh() chan struct{} {
	h.state.Lock()
	defer h.state.Unlock()
	if h.wake == nil {
		h.wake = make(chan struct{}, 1)
	}
	return h.wake
}

func (h *Heartbeat) setRunning(v bool) {
	h.state.Lock()
	h.running = v
	h.progress = governance.BeatProgress{}
	h.state.Unlock()
}

func (h *Heartbeat) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

func (h *Heartbeat) log() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}
