package main

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/transcript"
)

// Store is everything the console's wiring hands a store to: the use cases
// (app.Store), the heartbeat, the eval runner and its services, seeding,
// imports and followed sources, plus startup repair and Close. Both
// backends satisfy it: *store.Store (SQLite, the default) and
// *postgres.Store (--database postgres://…). It is declared here, at its
// one consumer (docs/store.md).
type Store interface {
	app.Store
	consolidate.HeartbeatStore
	consolidate.OutcomeReviewStore
	evals.MemoryStore
	evals.RunStore
	evals.SuiteStore
	seed.Store
	transcript.Sink
	transcript.FollowStore
	// SetPasswordHash sets an account's password ("console user passwd").
	SetPasswordHash(ctx context.Context, accountID int64, hash string) error
	// RepairInterrupted closes the beats a stopped leader left running.
	RepairInterrupted(ctx context.Context) (int64, error)
	// The semantic channel (--embed-model): the heartbeat's backfill
	// writes the vectors, recall reads them once SetEmbedder is called.
	governance.EmbedStore
	SetEmbedder(e governance.Embedder)
	// The audit chain's key and head (docs/security.md).
	auditKeyed
	AuditHead(ctx context.Context) (governance.AuditHead, error)
	AuditLast(ctx context.Context) (int64, string, error)
	VerifyAuditHead(ctx context.Context, expect *governance.AuditHead) (*governance.AuditVerification, error)
	Close() error
}

// Both backends satisfy Store.
var (
	_ Store = (*store.Store)(nil)
	_ Store = (*postgres.Store)(nil)
)

// isPostgresURL reports whether the --database value names PostgreSQL.
func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// redactURL hides the password of a database URL for logs and --help.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "[unparsable]"
	}
	return u.Redacted()
}

// openStore opens the configured backend: PostgreSQL when --database names
// one, else the SQLite file in the data directory. The elector it returns
// decides which instance runs the heartbeat and the eval runner.
func openStore(ctx context.Context, cfg Config) (Store, elector, error) {
	if cfg.Database != "" {
		pg, err := postgres.Open(ctx, cfg.Database)
		if err != nil {
			return nil, nil, err
		}
		return pg, pgElector{pg}, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, nil, errorf("data directory: %v", err)
	}
	var opts []store.Option
	if cfg.NoPageScrub {
		opts = append(opts, store.NoPageScrub())
	}
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "mnemo.db"), opts...)
	if err != nil {
		return nil, nil, err
	}
	return st, soleElector{}, nil
}

// leaderJob is the name of the one lease the heartbeat and the eval runner
// run under.
const leaderJob = "leader"

// elector decides which console instance on a database leads the
// singleton background work (the heartbeat and the eval runner).
type elector interface {
	// TryLead takes the lease without waiting; nil, nil when another
	// instance holds it.
	TryLead(ctx context.Context, job string) (lease, error)
	// Forward hands a "run now" request to the instance that leads job.
	Forward(ctx context.Context, job, trigger string) error
}

// lease is one instance's leadership.
type lease interface {
	// Wait returns a "run now" trigger forwarded by another instance, or
	// "" after d has passed; an error means the lease is lost.
	Wait(ctx context.Context, d time.Duration) (string, error)
	// Held reports whether the lease is still held.
	Held(ctx context.Context) error
	Release(ctx context.Context) error
}

// soleElector is SQLite's: one console process serves a data directory,
// so it always leads.
type soleElector struct{}

func (soleElector) TryLead(context.Context, string) (lease, error) { return soleLease{}, nil }

func (soleElector) Forward(context.Context, string, string) error {
	return errorf("no other instance to forward to")
}

type soleLease struct{}

func (soleLease) Wait(ctx context.Context, d time.Duration) (string, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-t.C:
		return "", nil
	}
}

func (soleLease) Held(context.Context) error    { return nil }
func (soleLease) Release(context.Context) error { return nil }

// pgElector elects the leader with a PostgreSQL session advisory lock
// (postgres.Store.TryLead) and forwards "run now" with NOTIFY.
type pgElector struct{ st *postgres.Store }

func (e pgElector) TryLead(ctx context.Context, job string) (lease, error) {
	l, err := e.st.TryLead(ctx, job)
	if l == nil || err != nil {
		return nil, err
	}
	return l, nil
}

func (e pgElector) Forward(ctx context.Context, job, trigger string) error {
	return e.st.NotifyLeader(ctx, job, trigger)
}

// logDatabase says which backend the console runs on (the URL without its
// password).
func logDatabase(logger *slog.Logger, cfg Config) {
	if cfg.Database != "" {
		logger.Info("database: PostgreSQL", slog.String("url", redactURL(cfg.Database)))
		return
	}
	logger.Info("database: SQLite", slog.String("file", filepath.Join(cfg.DataDir, "mnemo.db")))
}
