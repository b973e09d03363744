package main

import (
	"context"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/ops"
	"github.com/mnemo-console/mnemo/store"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// observedStore is the store as the console uses it when serving: every
// call goes to the backend, and the operations operators watch — recall,
// ingest and import, forget, beats, eval runs — are also measured
// (ops.Metrics) and traced (one span each, a child of the request's or
// the beat's span). Both backends are observed the same way, since this
// sits in front of either.
type observedStore struct {
	Store
	metrics *ops.Metrics
	tracer  trace.Tracer

	beatMu    sync.Mutex
	beatSpans map[int64]beatSpan
}

type beatSpan struct {
	span  trace.Span
	ctx   context.Context
	start time.Time
}

func observe(st Store, m *ops.Metrics, t *ops.Tracing) *observedStore {
	return &observedStore{Store: st, metrics: m, tracer: t.Tracer(), beatSpans: map[int64]beatSpan{}}
}

// end closes span with err's status.
func end(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, governance.ErrorMessage(err))
	}
	span.End()
}

// Recall: the span says whether memory was used for the agent's call (how
// many items, which trace to open in the console), never the task's text.
func (s *observedStore) Recall(ctx context.Context, actor string, req governance.RecallRequest) (*governance.RecallPackage, error) {
	ctx, span := s.tracer.Start(ctx, "mnemo.recall", trace.WithAttributes(
		attribute.Int64("mnemo.project_id", req.ProjectID),
		attribute.Bool("mnemo.recall.preview", req.Preview),
		attribute.Bool("mnemo.recall.subject", req.SubjectID != "")))
	start := time.Now()
	pkg, err := s.Store.Recall(ctx, actor, req)
	items := 0
	if pkg != nil {
		items = len(pkg.Items)
		span.SetAttributes(attribute.Int("mnemo.recall.items", items), attribute.Int("mnemo.recall.used_tokens", pkg.Used),
			attribute.Int64("mnemo.recall.trace_id", pkg.Trace.ID))
	}
	s.metrics.ObserveRecall(items, err, time.Since(start))
	end(span, err)
	return pkg, err
}

func (s *observedStore) ingested(ctx context.Context, path string, projectID int64, do func(ctx context.Context) (*governance.ImportResult, error)) (*governance.ImportResult, error) {
	ctx, span := s.tracer.Start(ctx, "mnemo.ingest", trace.WithAttributes(
		attribute.String("mnemo.ingest.path", path), attribute.Int64("mnemo.project_id", projectID)))
	res, err := do(ctx)
	if err == nil && res != nil {
		s.metrics.Ingested(path, res.Inserted)
		span.SetAttributes(attribute.Int("mnemo.ingest.inserted", res.Inserted), attribute.Int("mnemo.ingest.skipped", res.Skipped))
	}
	end(span, err)
	return res, err
}

func (s *observedStore) IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	return s.ingested(ctx, "ingest", projectID, func(ctx context.Context) (*governance.ImportResult, error) {
		return s.Store.IngestEvents(ctx, projectID, events)
	})
}

func (s *observedStore) ImportStream(ctx context.Context, actor string, projectID int64, produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error) {
	return s.ingested(ctx, "import", projectID, func(ctx context.Context) (*governance.ImportResult, error) {
		return s.Store.ImportStream(ctx, actor, projectID, produce)
	})
}

func (s *observedStore) ImportChunk(ctx context.Context, projectID, sourceID int64, path string, cp governance.FollowCheckpoint, reopen, problem string,
	produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error) {
	return s.ingested(ctx, "follow", projectID, func(ctx context.Context) (*governance.ImportResult, error) {
		return s.Store.ImportChunk(ctx, projectID, sourceID, path, cp, reopen, problem, produce)
	})
}

// forgot traces and counts one forget; the span holds ids and counts, as
// the audit row does, never the forgotten content.
func (s *observedStore) forgot(ctx context.Context, kind string, do func(ctx context.Context) (*governance.ForgetReport, error)) (*governance.ForgetReport, error) {
	ctx, span := s.tracer.Start(ctx, "mnemo.forget", trace.WithAttributes(attribute.String("mnemo.forget.kind", kind)))
	rep, err := do(ctx)
	if err == nil && rep != nil {
		s.metrics.Forgot(kind)
		span.SetAttributes(attribute.Int64("mnemo.project_id", rep.ProjectID), attribute.Int("mnemo.forget.rules", len(rep.RuleIDs)),
			attribute.Int("mnemo.forget.candidates", len(rep.CandidateIDs)), attribute.Int("mnemo.forget.events_redacted", rep.Events))
	}
	end(span, err)
	return rep, err
}

func (s *observedStore) ForgetRule(ctx context.Context, actor string, ruleID int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.forgot(ctx, "rule", func(ctx context.Context) (*governance.ForgetReport, error) {
		return s.Store.ForgetRule(ctx, actor, ruleID, withEvents)
	})
}

func (s *observedStore) ForgetRules(ctx context.Context, actor string, ids []int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.forgot(ctx, "rules", func(ctx context.Context) (*governance.ForgetReport, error) {
		return s.Store.ForgetRules(ctx, actor, ids, withEvents)
	})
}

func (s *observedStore) ForgetCandidate(ctx context.Context, actor string, candidateID int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.forgot(ctx, "candidate", func(ctx context.Context) (*governance.ForgetReport, error) {
		return s.Store.ForgetCandidate(ctx, actor, candidateID, withEvents)
	})
}

func (s *observedStore) ForgetSubject(ctx context.Context, actor string, projectID int64, subjectID string) (*governance.ForgetReport, error) {
	return s.forgot(ctx, "subject", func(ctx context.Context) (*governance.ForgetReport, error) {
		return s.Store.ForgetSubject(ctx, actor, projectID, subjectID)
	})
}

// A beat is one span from StartBeat to FinishBeat; the per-project reads
// and writes between them are its children (beats are single-flight in a
// process, and the heartbeat passes the beat's id to neither, so the open
// beat is their parent).
func (s *observedStore) StartBeat(ctx context.Context, trigger string) (*governance.BeatRecord, error) {
	bctx, span := s.tracer.Start(ctx, "mnemo.beat", trace.WithAttributes(attribute.String("mnemo.beat.trigger", trigger)))
	rec, err := s.Store.StartBeat(ctx, trigger)
	if err != nil {
		end(span, err)
		return rec, err
	}
	span.SetAttributes(attribute.Int64("mnemo.beat.id", rec.ID))
	s.beatMu.Lock()
	s.beatSpans[rec.ID] = beatSpan{span: span, ctx: bctx, start: time.Now()}
	s.beatMu.Unlock()
	return rec, nil
}

// openBeat is the context of the beat running now (ctx when none).
func (s *observedStore) openBeat(ctx context.Context) context.Context {
	s.beatMu.Lock()
	defer s.beatMu.Unlock()
	for _, b := range s.beatSpans {
		return trace.ContextWithSpan(ctx, b.span)
	}
	return ctx
}

func (s *observedStore) LoadConsolidateInput(ctx context.Context, p *governance.Project, idle time.Duration) (*governance.ConsolidateInput, error) {
	ctx, span := s.tracer.Start(s.openBeat(ctx), "mnemo.beat.load", trace.WithAttributes(attribute.String("mnemo.project", p.Slug)))
	in, err := s.Store.LoadConsolidateInput(ctx, p, idle)
	if in != nil {
		span.SetAttributes(attribute.Int("mnemo.beat.new_events", in.NewEvents), attribute.Int("mnemo.beat.sessions", len(in.Sessions)))
	}
	end(span, err)
	return in, err
}

func (s *observedStore) ApplyBeatPlan(ctx context.Context, plan *governance.BeatPlan) error {
	ctx, span := s.tracer.Start(s.openBeat(ctx), "mnemo.beat.apply", trace.WithAttributes(
		attribute.Int("mnemo.beat.candidates", plan.Stats.Candidates), attribute.Int("mnemo.beat.proposals", plan.Stats.Proposals)))
	err := s.Store.ApplyBeatPlan(ctx, plan)
	end(span, err)
	return err
}

func (s *observedStore) FinishBeat(ctx context.Context, b *governance.BeatRecord) error {
	err := s.Store.FinishBeat(ctx, b)
	s.beatMu.Lock()
	open, ok := s.beatSpans[b.ID]
	delete(s.beatSpans, b.ID)
	s.beatMu.Unlock()
	if !ok {
		return err
	}
	failed := b.Errors != ""
	s.metrics.ObserveBeat(failed, time.Since(open.start))
	open.span.SetAttributes(attribute.Int("mnemo.beat.new_events", b.NewEvents), attribute.Int("mnemo.beat.episodes", b.Episodes),
		attribute.Int("mnemo.beat.candidates", b.Candidates), attribute.Int("mnemo.beat.proposals", b.Proposals))
	if failed {
		open.span.SetStatus(codes.Error, "the beat ended with errors")
	}
	end(open.span, err)
	return err
}

func (s *observedStore) FinishEvalRun(ctx context.Context, id int64, status evals.RunStatus, summary, errMsg string) (bool, error) {
	ok, err := s.Store.FinishEvalRun(ctx, id, status, summary, errMsg)
	if err == nil && ok {
		s.metrics.EvalRunFinished(string(status))
	}
	return ok, err
}

// queues are the depths /metrics reads at scrape time; the SQLite store
// also reports its writer and heavy-read queues.
func (m *Main) queues(backend Store) ops.Queues {
	var waiting map[string]func() int
	if sq, ok := backend.(*store.Store); ok {
		waiting = map[string]func() int{}
		for _, q := range []store.Queue{store.QueueWriter, store.QueueHeavy} {
			waiting[string(q)] = func() int { return sq.QueueWaiting(q) }
		}
	}
	return ops.Queues{
		StoreWaiting: waiting,
		Proposals:    func(ctx context.Context) (int, error) { return m.Store.CountProposals(ctx, nil) },
		EvalRuns: func(ctx context.Context) (int, error) {
			_, n, err := m.Store.FindEvalRuns(ctx, evals.RunFilter{Statuses: []evals.RunStatus{evals.RunQueued}, Limit: 1})
			return n, err
		},
		Leading: m.leading.Load,
	}
}

// observeQueues has the SQLite store report each turn of its writer and
// heavy-read queues to the metrics (PostgreSQL has no such queues).
func observeQueues(backend Store, m *ops.Metrics) {
	if sq, ok := backend.(*store.Store); ok {
		sq.ObserveQueues(func(t store.QueueTurn) { m.ObserveQueueTurn(string(t.Queue), t.Op, t.Waited, t.Held) })
	}
}
