package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Leader election (docs/operations.md, "Leader election"): of the console
// instances on one database, the one holding the lease runs the heartbeat,
// the eval runner and the followed sources; the others serve pages and the
// API and try for the lease every lease interval. On SQLite the one
// process always leads.

// errNotLeader stops a beat on an instance that lost the lease.
var errNotLeader = governance.Errorf(governance.ECONFLICT, "This console instance no longer leads the heartbeat; the leading instance beats.")

// leaseInterval is how often a follower tries for the lease and a leader
// checks that it still holds it: the beat interval when one is set, else
// the heartbeat's shortest (60 s).
func (m *Main) leaseInterval() time.Duration {
	if m.Config.BeatInterval > 0 {
		return m.Config.BeatInterval
	}
	return governance.IntervalBusy
}

// lead runs the leader's work while l (when not nil) is held, then tries
// for the lease every lease interval until ctx ends.
func (m *Main) lead(ctx context.Context, l lease) {
	for {
		if l != nil {
			m.leadWith(ctx, l)
		}
		t := time.NewTimer(m.leaseInterval())
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		var err error
		if l, err = m.elector.TryLead(ctx, leaderJob); err != nil && ctx.Err() == nil {
			m.Logger.Warn("leader lease: try failed", slog.Any("error", err))
		}
		if l != nil {
			if err := m.takeLead(ctx, l); err != nil {
				if ctx.Err() == nil {
					m.Logger.Error("leader: closing interrupted work failed", slog.Any("error", err))
				}
				l = nil
			}
		}
	}
}

// takeLead starts leading on l: beats the previous leader left "running"
// (it stopped or died) are closed as interrupted before this instance
// beats (eval runs resume). On an error the lease is released.
func (m *Main) takeLead(ctx context.Context, l lease) error {
	n, err := m.Store.RepairInterrupted(ctx)
	if err != nil {
		_ = l.Release(context.WithoutCancel(ctx))
		return err
	}
	if n > 0 {
		m.Logger.Warn("closed work left running by an earlier stop", slog.Int64("rows", n))
	}
	m.leaseMu.Lock()
	m.lease = l
	m.leaseMu.Unlock()
	m.leading.Store(true)
	return nil
}

// currentLease is the lease this instance leads on, nil when it does not.
func (m *Main) currentLease() lease {
	m.leaseMu.Lock()
	defer m.leaseMu.Unlock()
	return m.lease
}

// leadWith runs the heartbeat, the eval runner and the followed sources
// until the lease is lost or ctx ends, then stops them and releases it.
// Meanwhile it hands "run now" requests forwarded by other instances to
// the heartbeat.
func (m *Main) leadWith(ctx context.Context, l lease) {
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = l.Release(rctx)
	}()
	m.Logger.Info("leading: this instance runs the heartbeat, the eval runner and the followed sources")
	work, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if m.Config.Heartbeat {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Heartbeat.Run(work)
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		m.followSources(work, time.Second)
	}()
	go func() {
		defer wg.Done()
		if err := m.Evals.Run(work); err != nil && work.Err() == nil {
			m.Logger.Error("eval runner stopped", slog.Any("error", err))
		}
	}()
	for {
		trigger, err := l.Wait(ctx, m.leaseInterval())
		if err != nil {
			if ctx.Err() == nil {
				m.Logger.Warn("leader lease lost: stopping the heartbeat and the eval runner", slog.Any("error", err))
			}
			break
		}
		if trigger != "" {
			m.Heartbeat.NudgeBy(trigger)
		}
	}
	m.leading.Store(false)
	m.leaseMu.Lock()
	m.lease = nil
	m.leaseMu.Unlock()
	stop()
	wg.Wait()
}

// hold is the heartbeat's check before each unit of work.
func (m *Main) hold(context.Context) error {
	if !m.leading.Load() {
		return errNotLeader
	}
	return nil
}

// exclusive runs fn while holding the lease on job, waiting for it (other
// instances starting at the same time): first-start seeding runs once.
func (m *Main) exclusive(ctx context.Context, job string, fn func() error) error {
	for {
		l, err := m.elector.TryLead(ctx, job)
		if err != nil {
			return err
		}
		if l != nil {
			defer l.Release(context.WithoutCancel(ctx))
			return fn()
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// clusterHeartbeat is the heartbeat as the web pages see it on any
// instance: the local status, and "run now" handed to the leader — run
// here when this instance leads, else forwarded to the instance that does
// (it beats next, never beside a running beat). With no leader at that
// moment (a failover), the request is dropped; the next leader beats as
// soon as it takes over.
type clusterHeartbeat struct{ m *Main }

func (c clusterHeartbeat) Status() governance.HeartbeatStatus { return c.m.Heartbeat.Status() }

func (c clusterHeartbeat) NudgeBy(trigger string) {
	if c.m.leading.Load() {
		c.m.Heartbeat.NudgeBy(trigger)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.m.elector.Forward(ctx, leaderJob, trigger); err != nil {
		c.m.Logger.Warn("heartbeat: forwarding run now to the leader failed", slog.Any("error", err))
	}
}

// leadOnce runs fn as the leader when no other instance leads (the CLI's
// "heartbeat --once"); when one does, it forwards trigger to it and
// reports forwarded.
func (m *Main) leadOnce(ctx context.Context, trigger string, fn func() error) (forwarded bool, err error) {
	l, err := m.elector.TryLead(ctx, leaderJob)
	if err != nil {
		return false, err
	}
	if l == nil {
		return true, m.elector.Forward(ctx, leaderJob, trigger)
	}
	defer l.Release(context.WithoutCancel(ctx))
	m.leading.Store(true)
	defer m.leading.Store(false)
	return false, fn()
}
