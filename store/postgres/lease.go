package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"
)

// lockLeaderNamespace is the advisory-lock namespace of leases; the second
// key is a hash of the job's name.
const lockLeaderNamespace = 0x6d6e656c // "mnel"

// Lease is one instance's leadership of a singleton job (the heartbeat,
// the eval runner) among the console instances on the database: a
// session-level advisory lock held on a connection of its own, outside
// the pool. PostgreSQL releases it when that session ends — Release, the
// process dying, the connection breaking — and another instance's TryLead
// then succeeds. The holder checks Held before each unit of work and stops
// when it fails, so two instances never work as leader at once for longer
// than one unit.
type Lease struct {
	job  string
	key  int32
	conn *pgx.Conn
}

// ErrLeaseLost is returned by Held once the lease's session has ended.
var ErrLeaseLost = errors.New("postgres: lease lost")

// TryLead takes the lease on job without waiting. It returns nil, nil when
// another session holds it.
func (s *Store) TryLead(ctx context.Context, job string) (*Lease, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("postgres: lease connection: %w", err)
	}
	l := &Lease{job: job, key: jobKey(job), conn: conn}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, lockLeaderNamespace, l.key).Scan(&ok); err != nil || !ok {
		conn.Close(context.WithoutCancel(ctx))
		if err != nil {
			return nil, fmt.Errorf("postgres: lease %s: %w", job, err)
		}
		return nil, nil
	}
	// The leader listens for the "run now" requests other instances
	// forward (NotifyLeader), on the lease's own session.
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{leaseChannel(job)}.Sanitize()); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("postgres: lease %s: listen: %w", job, err)
	}
	return l, nil
}

// leaseChannel is the NOTIFY channel of job's leader.
func leaseChannel(job string) string { return "mnemo_lead_" + job }

// NotifyLeader forwards a request (its payload, e.g. a "run now" trigger)
// to whichever instance leads job; it is lost when none does (the next
// leader starts with a beat anyway).
func (s *Store) NotifyLeader(ctx context.Context, job, payload string) error {
	if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, leaseChannel(job), payload); err != nil {
		return fmt.Errorf("postgres: notify leader of %s: %w", job, err)
	}
	return nil
}

// Wait waits up to d for a request forwarded by NotifyLeader and returns
// its payload, or "" once d has passed and the lease is still held. An
// error means the lease is lost (its session ended: Wait notices a killed
// connection at once) or ctx ended.
func (l *Lease) Wait(ctx context.Context, d time.Duration) (string, error) {
	if l.conn.IsClosed() {
		return "", ErrLeaseLost
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	n, err := l.conn.WaitForNotification(wctx)
	switch {
	case err == nil:
		return n.Payload, nil
	case ctx.Err() != nil:
		return "", ctx.Err()
	case wctx.Err() != nil && !l.conn.IsClosed():
		// The wait timed out; the session must still answer.
		return "", l.Held(ctx)
	}
	l.conn.Close(context.WithoutCancel(ctx))
	return "", fmt.Errorf("%w: %s: %v", ErrLeaseLost, l.job, err)
}

// Held reports whether the lease is still held: its session answers (a
// session-level advisory lock lasts as long as its session). After an
// error the lease is gone for good; the caller stops leading and may
// TryLead again.
func (l *Lease) Held(ctx context.Context) error {
	if l.conn.IsClosed() {
		return ErrLeaseLost
	}
	if err := l.conn.Ping(ctx); err != nil {
		l.conn.Close(context.WithoutCancel(ctx))
		return fmt.Errorf("%w: %s: %v", ErrLeaseLost, l.job, err)
	}
	return nil
}

// Release gives the lease up (closing its session releases the lock).
func (l *Lease) Release(ctx context.Context) error {
	if l.conn.IsClosed() {
		return nil
	}
	return l.conn.Close(ctx)
}

// PID is the server process that holds the lease, for diagnostics
// (pg_stat_activity, pg_locks).
func (l *Lease) PID() uint32 { return l.conn.PgConn().PID() }

// jobKey is the lock's second key: the job name's FNV-32a hash.
func jobKey(job string) int32 {
	h := fnv.New32a()
	h.Write([]byte(job))
	return int32(h.Sum32())
}
