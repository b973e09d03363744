package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
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
// one consumer (docs/ARCHITECTURE.md, Store backends).
type Store interface {
	app.Store
	governance.HeartbeatStore
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
	Close() error
}

// The SQLite store is the reference backend: it must satisfy Store at
// compile time. (PostgreSQL is checked by TestPostgresIsStore.)
var _ Store = (*store.Store)(nil)

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
		st, err := asStore(pg)
		if err != nil {
			pg.Close()
			return nil, nil, err
		}
		return st, pgElector{pg}, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("data directory: %w", err)
	}
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "mnemo.db"))
	if err != nil {
		return nil, nil, err
	}
	return st, soleElector{}, nil
}

// asStore returns v as a Store, or an error naming the methods v lacks.
// The assertion is made at run time so that a backend still growing
// toward Store builds (and fails to open with a clear message) instead of
// breaking the build.
func asStore(v any) (Store, error) {
	if st, ok := v.(Store); ok {
		return st, nil
	}
	missing := missingMethods(v, reflect.TypeFor[Store]())
	return nil, fmt.Errorf("this build's %T does not implement the console's store yet; missing %d method(s): %s",
		v, len(missing), strings.Join(missing, ", "))
}

// missingMethods lists the methods of iface that v's type lacks (or has
// with another signature).
func missingMethods(v any, iface reflect.Type) []string {
	t := reflect.TypeOf(v)
	var missing []string
	for i := range iface.NumMethod() {
		want := iface.Method(i)
		got, ok := t.MethodByName(want.Name)
		// got.Type includes the receiver; compare the rest of the signature.
		if !ok || !sameSignature(got.Type, want.Type) {
			missing = append(missing, want.Name)
		}
	}
	sort.Strings(missing)
	return missing
}

func sameSignature(method, want reflect.Type) bool {
	if method.NumIn()-1 != want.NumIn() || method.NumOut() != want.NumOut() || method.IsVariadic() != want.IsVariadic() {
		return false
	}
	for i := range want.NumIn() {
		if method.In(i+1) != want.In(i) {
			return false
		}
	}
	for i := range want.NumOut() {
		if method.Out(i) != want.Out(i) {
			return false
		}
	}
	return true
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
	return errors.New("no other instance to forward to")
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
