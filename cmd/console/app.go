package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/ops"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/transcript"
	"github.com/mnemo-console/mnemo/web"
	"github.com/sashabaranov/go-openai"
)

// Main is the wired console: configuration, store, heartbeat and server.
type Main struct {
	Config    Config
	Logger    *slog.Logger
	Store     Store
	App       *app.App
	Heartbeat *consolidate.Heartbeat
	Evals     *evals.Runner
	EvalDeps  evals.Deps
	// Messages is the language of what Open prints (English when nil).
	Messages *locale.Localizer
	// Metrics and Tracing observe the store's recalls, ingests, forgets,
	// beats and eval runs, and the HTTP requests (observe.go).
	Metrics *ops.Metrics
	Tracing *ops.Tracing

	server   *http.Server
	listener net.Listener
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	// elector picks the instance that runs the heartbeat, the eval runner
	// and the followed sources (leader.go); leading says it is this one.
	elector elector
	leading atomic.Bool
	leaseMu sync.Mutex
	lease   lease
}

// openMain opens the configured store (SQLite in the data directory, or
// PostgreSQL with --database) and builds the heartbeat.
func openMain(ctx context.Context, cfg Config, logw io.Writer) (*Main, error) {
	tracing, err := ops.NewTracing(ctx, os.Getenv)
	if err != nil {
		return nil, err
	}
	return openMainWith(ctx, cfg, logw, tracing)
}

// openMainWith is openMain with the given tracer provider (tests record
// spans in memory).
func openMainWith(ctx context.Context, cfg Config, logw io.Writer, tracing *ops.Tracing) (*Main, error) {
	logger := cfg.logger(logw)
	backend, el, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := keyAudit(ctx, backend, cfg, logger); err != nil {
		backend.Close()
		return nil, err
	}
	m := &Main{Config: cfg, Logger: logger, Tracing: tracing, elector: el}
	m.Metrics = ops.NewMetrics(m.queues(backend))
	observeQueues(backend, m.Metrics)
	st := observe(backend, m.Metrics, tracing)
	m.Store, m.App = st, app.New(st)
	m.Heartbeat = &consolidate.Heartbeat{
		Store:        st,
		Consolidator: newConsolidator(cfg, logger),
		Logger:       logger,
		Idle:         cfg.SessionIdle,
		// Eval runs beat their own scratch projects synchronously.
		Skip:     func(p *governance.Project) bool { return p.Scratch },
		Every:    cfg.BeatInterval,
		Hold:     m.hold,
		Outcomes: st,
	}
	// What agents write beside events (outcome notes, skills) is read by
	// the heartbeat's classifier: the pattern gate, and the model beside it
	// when one is configured.
	m.App.SetClassifier(m.Heartbeat.Consolidator.Classifier)
	if cfg.LLMConfigured() {
		m.App.SetSkillDrafter(model.New(model.Config{BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel,
			Timeout: cfg.LLMTimeout, MaxRetries: 3}, logger))
	}
	m.Heartbeat.Procedures = func(ctx context.Context, in *governance.ConsolidateInput) error {
		_, err := m.App.Skills.LearnProcedures(ctx, in)
		return err
	}
	if cfg.EmbedModel != "" {
		emb := model.New(model.Config{BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.EmbedModel,
			Timeout: cfg.LLMTimeout, MaxRetries: 3}, logger)
		backend.SetEmbedder(emb)
		m.App.SetEmbedder(emb)
		m.Heartbeat.Embedder, m.Heartbeat.Embeddings = emb, backend
	}
	m.EvalDeps = m.evalDeps()
	m.Evals = evals.NewRunner(st, m.EvalDeps, logger)
	return m, nil
}

// evalDeps wires the eval runner to the product: the store, one-project
// beats serialised with the heartbeat, the complete forget, and the model
// endpoint when one is configured.
func (m *Main) evalDeps() evals.Deps {
	svc := &evals.Services{
		Store: m.Store,
		Beat: func(ctx context.Context, projectID int64) error {
			p, err := m.Store.FindProjectByID(ctx, projectID)
			if err != nil {
				return err
			}
			_, err = m.Heartbeat.BeatProject(ctx, p)
			return err
		},
		// The runner forgets through the same use case as every surface,
		// as an administrator named actor (its audit name).
		Forget: func(ctx context.Context, ruleID int64, actor string) error {
			_, err := m.App.Forget.Rule(ctx, governance.AccountActor(&governance.Account{Username: actor, IsAdmin: true}), ruleID, false)
			return err
		},
	}
	deps := evals.Deps{Memory: svc, Logger: m.Logger,
		Price: evals.Price{InputPerMTok: m.Config.LLMPriceIn, OutputPerMTok: m.Config.LLMPriceOut}}
	if m.Config.LLMConfigured() {
		oc := openai.DefaultConfig(m.Config.LLMAPIKey)
		if m.Config.LLMBaseURL != "" {
			oc.BaseURL = m.Config.LLMBaseURL
		}
		deps.Model, deps.ModelName = openai.NewClientWithConfig(oc), m.Config.LLMModel
		judge := model.New(model.Config{BaseURL: m.Config.LLMBaseURL, APIKey: m.Config.LLMAPIKey, Model: m.Config.LLMModel,
			Timeout: m.Config.LLMTimeout, MaxRetries: 3}, m.Logger)
		deps.Judge = judge
	}
	return deps
}

// serve runs "console serve": first-start seeding, the heartbeat and the
// HTTP server until ctx ends, then a graceful shutdown.
func (e *cmdEnv) serve(args []string) error {
	fs, cfg, envErr := e.flags("serve", "[serve] [flags]")
	fs.Usage = func() {
		fmt.Fprint(e.stderr, e.usage())
		fmt.Fprintln(e.stderr)
		e.say(e.stderr, "Flags (environment variables in brackets):")
		e.printFlags(e.stderr, fs)
	}
	if _, err := e.parse(fs, cfg, envErr, args); err != nil {
		return err
	}
	m, err := openMain(e.ctx, *cfg, e.stderr)
	if err != nil {
		return err
	}
	m.Messages = e.loc
	if err := m.Open(e.ctx, e.stdout); err != nil {
		m.Close()
		return err
	}
	<-e.ctx.Done()
	m.Logger.Info("shutting down")
	return m.Close()
}

// Open seeds an empty database, starts the heartbeat and starts serving.
func (m *Main) Open(ctx context.Context, out io.Writer) error {
	logDatabase(m.Logger, m.Config)
	var creds []seed.Credential
	// Instances starting together on one empty database seed it once.
	err := m.exclusive(ctx, "seed", func() error {
		var err error
		creds, err = seed.Load(ctx, m.Store, seed.Options{Hash: auth.HashPassword, Generate: auth.GeneratePassword, Demo: !m.Config.NoDemo,
			Skills: m.seedSkills})
		if err != nil {
			return errorf("first start: %v", err)
		}
		if err := evals.InstallBuiltins(ctx, m.Store, seed.BuiltinSuites()); err != nil {
			return errorf("built-in eval suites: %v", err)
		}
		// Skill versions stored before the console masked credentials.
		n, err := m.App.Skills.MaskStored(ctx)
		if err != nil {
			return errorf("masking credentials in stored skills: %v", err)
		}
		if n > 0 {
			m.Logger.Warn("masked credentials in skill versions stored before masking", slog.Int("versions", n))
		}
		return nil
	})
	if err != nil {
		return err
	}
	secure := m.Config.SecureCookies || m.Config.TLSCert != ""
	m.App.RestrictFollowRoots(m.Config.FollowRoots)
	srv, err := web.NewServer(web.Config{SecureCookies: secure, TrustProxy: m.Config.TrustProxy, Heartbeat: clusterHeartbeat{m},
		MaxImportBytes: m.Config.MaxImportBytes, MaxBenchmarkBytes: m.Config.MaxBenchmarkBytes, MaxEventsBytes: m.Config.MaxEventsBytes, MaxLineBytes: m.Config.MaxLineBytes,
		Metrics: m.Metrics.Handler(), MetricsToken: m.Config.MetricsToken,
		ObserveRequest: func(ctx context.Context, method, route string, status int, d time.Duration) {
			m.Metrics.ObserveRequest(method, route, status, d)
			ops.NameRequestSpan(ctx, method, route, status)
		}}, m.App, m.Logger)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", m.Config.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return errorf("cannot listen on %s: the address is in use (is another console running?)", m.Config.Addr)
	}
	if err != nil {
		return errorf("cannot listen on %s: %v", m.Config.Addr, err)
	}
	// Lead at once when no other instance does (on SQLite, always), so the
	// interrupted work is closed before the server answers.
	l, err := m.elector.TryLead(ctx, leaderJob)
	if err == nil && l != nil {
		err = m.takeLead(ctx, l)
	}
	if err != nil {
		ln.Close()
		return errorf("leader lease: %v", err)
	}
	m.listener = ln
	m.server = &http.Server{Handler: m.Tracing.TraceHTTP(srv.Handler()), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn)}

	bg, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	// The heartbeat, the eval runner and the followed sources run on the
	// one instance that leads (always this one on SQLite).
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.lead(bg, l)
	}()
	// Every instance logs the audit chain's head as it changes, for an
	// outside witness (docs/security.md).
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.logAuditHead(bg, time.Second)
	}()
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		var err error
		if m.Config.TLSCert != "" {
			err = m.server.ServeTLS(ln, m.Config.TLSCert, m.Config.TLSKey)
		} else {
			err = m.server.Serve(ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.Logger.Error("server stopped", slog.Any("error", err))
		}
	}()

	scheme := "http"
	if m.Config.TLSCert != "" {
		scheme = "https"
	}
	loc := m.Messages
	if loc == nil {
		loc = locale.For(locale.English)
	}
	fmt.Fprintln(out, loc.Phrasef("Mnemo console: %s://%s/", scheme, ln.Addr().String()))
	if len(creds) > 0 {
		fmt.Fprintln(out, loc.Phrasef("First start: these accounts were created. The passwords are shown only this once:"))
		for _, c := range creds {
			fmt.Fprintf(out, "  %-12s %-24s %s\n", c.Username, c.Password, loc.Enum("account_role", c.Role))
		}
		fmt.Fprintln(out, loc.Phrasef(`Change them with "console user passwd NAME".`))
	}
	m.Logger.Info("console started", slog.String("addr", ln.Addr().String()), slog.String("config", m.Config.String()))
	return nil
}

// URL is the address the console listens on.
func (m *Main) URL() string {
	if m.listener == nil {
		return ""
	}
	return "http://" + m.listener.Addr().String()
}

// Close shuts down in order: HTTP, then background work, then the store.
func (m *Main) Close() error {
	var errs []error
	if m.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		errs = append(errs, m.server.Shutdown(ctx))
		cancel()
	}
	if m.cancel != nil {
		m.cancel()
	}
	m.wg.Wait()
	if m.Tracing != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, m.Tracing.Shutdown(ctx))
		cancel()
	}
	if m.Store != nil {
		errs = append(errs, m.Store.Close())
	}
	return errors.Join(errs...)
}

// logAuditHead logs the audit chain's head (rows and last hash) at once
// and then whenever it changed, looking every interval until ctx ends: a
// log kept elsewhere then shows a chain cut or rewritten later
// (console audit verify --expect-head).
func (m *Main) logAuditHead(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var (
		lastID   int64 = -1
		lastHash string
	)
	for {
		id, hash, err := m.Store.AuditLast(ctx)
		if err == nil && (id != lastID || hash != lastHash) {
			var head governance.AuditHead
			if head, err = m.Store.AuditHead(ctx); err == nil {
				lastID, lastHash = id, hash
				m.Logger.Info("audit head", slog.Int("rows", head.Rows), slog.String("hash", head.Hash), slog.String("head", head.String()))
			}
		}
		if err != nil && ctx.Err() == nil {
			m.Logger.Warn("audit head: read failed", slog.Any("error", err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// newConsolidator picks the extractor: the model when an endpoint is
// configured, else the offline heuristic; merging falls back to the heuristic.
func newConsolidator(cfg Config, logger *slog.Logger) *consolidate.Consolidator {
	c := heuristic.NewConsolidator(logger)
	if cfg.LLMConfigured() {
		mc := model.New(model.Config{BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel,
			Timeout: cfg.LLMTimeout, MaxRetries: 3}, logger)
		// A reply that is no extraction (a refusal, no JSON) is extracted
		// offline instead; the candidates say which extractor made them.
		c.ExtractFallback = c.Extractor
		c.Extractor, c.Merger = mc, mc
		// A finding from either counts; the model reads only what the
		// gate found nothing in, with credentials already masked.
		c.Classifier = governance.Beside(c.Classifier, mc)
	}
	return c
}

// followSources polls every followed directory (the Sources page) each
// interval until ctx is cancelled. Problems are kept per file in the
// database and shown on the Sources page; other errors are logged.
func (m *Main) followSources(ctx context.Context, interval time.Duration) {
	skills := followedSkills{}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sources, err := m.Store.FindSources(ctx)
		if err != nil {
			if ctx.Err() == nil {
				m.Logger.Error("follow: list sources failed", slog.Any("error", err))
			}
			continue
		}
		for _, src := range sources {
			format, _ := transcript.ParseFormat(src.Format)
			f := &transcript.Follower{Store: m.Store, SourceID: src.ID, ProjectID: src.ProjectID, Dir: src.Dir,
				Roots: m.App.Sources.Roots(), Options: transcript.Options{Format: format, Project: src.Project, Subject: src.SubjectID},
				Skills: skills.follow(m, src)}
			if _, err := f.Poll(ctx); err != nil && ctx.Err() == nil {
				m.Logger.Warn("follow: poll failed", slog.String("dir", src.Dir), slog.Any("error", err))
				_ = m.Store.SetSourceFileError(ctx, src.ID, ".", err.Error())
			}
		}
	}
}
