package auth

import (
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// LimitConfig sets how many login attempts are allowed.
type LimitConfig struct {
	// Burst failed attempts are allowed at once for one account from one
	// client address; after that the address must wait Every before its
	// next try for that account, then twice as long after each further
	// failure, up to MaxBackoff. A success clears the count.
	Burst      int
	Every      time.Duration
	MaxBackoff time.Duration
	// Each client address also has a budget across all accounts: Burst
	// attempts, then one every Every (stops one address trying many names).
	// MaxKeys bounds memory: beyond it, idle entries are evicted.
	MaxKeys int
	// Now is the clock; time.Now when nil (tests replace it).
	Now func() time.Time
}

// DefaultLimitConfig allows 5 failed attempts per account and client
// address, then one after 10 s, 20 s, 40 s … up to 15 minutes; and 5
// attempts per address, then one every 10 s, across accounts.
var DefaultLimitConfig = LimitConfig{Burst: 5, Every: 10 * time.Second, MaxBackoff: 15 * time.Minute, MaxKeys: 10000}

// LoginLimiter rate-limits login attempts in memory, keyed by account and
// client address together, so failures from one address never lock the
// account's owner out of another; plus a budget per address across
// accounts. Idle entries are evicted lazily, so no goroutine is needed.
type LoginLimiter struct {
	cfg LimitConfig
	now func() time.Time

	mu      sync.Mutex
	byIP    map[string]*limitEntry
	byPair  map[string]*pairEntry
	lastGC  time.Time
	refill  time.Duration // time for an idle entry to be forgettable
	gcEvery time.Duration
}

type limitEntry struct {
	lim  *rate.Limiter
	seen time.Time
}

// pairEntry counts the failures of one account from one address.
type pairEntry struct {
	failures int
	next     time.Time // no attempt before this
	seen     time.Time
}

// NewLoginLimiter returns a limiter; zero fields of cfg take the defaults.
func NewLoginLimiter(cfg LimitConfig) *LoginLimiter {
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultLimitConfig.Burst
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultLimitConfig.Every
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = max(DefaultLimitConfig.MaxBackoff, cfg.Every)
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = DefaultLimitConfig.MaxKeys
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	refill := max(cfg.Every*time.Duration(cfg.Burst), cfg.MaxBackoff)
	return &LoginLimiter{
		cfg:     cfg,
		now:     cfg.Now,
		byIP:    map[string]*limitEntry{},
		byPair:  map[string]*pairEntry{},
		refill:  refill,
		gcEvery: max(refill, time.Minute),
	}
}

// Attempt is one login attempt that the limiter let through. It counts as a
// failure unless Succeeded is called.
type Attempt struct {
	l    *LoginLimiter
	ip   *rate.Reservation
	pair string
	// at is when the attempt was reserved; cancelling "at" that instant
	// is what lets rate.Reservation give the token back after the
	// password check took its time.
	at        time.Time
	succeeded bool
}

// Allow records one login attempt from ip for username. When the attempt
// may not proceed it returns nil and how long to wait. A refused attempt
// uses up nothing.
func (l *LoginLimiter) Allow(ip, username string) (*Attempt, time.Duration) {
	username = strings.ToLower(strings.TrimSpace(username))
	pairKey := username + "\x00" + ip
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.gc(now)
	p, ok := l.byPair[pairKey]
	if ok {
		p.seen = now
		if wait := p.next.Sub(now); wait > 0 {
			return nil, wait
		}
	}
	ipRes := l.entry(l.byIP, ip, now).lim.ReserveN(now, 1)
	if wait := ipRes.DelayFrom(now); wait > 0 {
		ipRes.CancelAt(now)
		return nil, wait
	}
	// Only an attempt the address's budget lets through gets an entry:
	// names tried in a flood the budget refuses take no room, so they
	// cannot crowd out an account's backoff.
	if !ok {
		p = &pairEntry{seen: now}
		l.byPair[pairKey] = p
	}
	// Counted as failed until Succeeded: concurrent attempts cannot
	// overtake the budget while their passwords are being checked.
	p.failures++
	if over := p.failures - l.cfg.Burst; over >= 0 {
		p.next = now.Add(l.backoff(over))
	}
	return &Attempt{l: l, ip: ipRes, pair: pairKey, at: now}, 0
}

// backoff is the wait after the n-th failure past the budget (0-based):
// Every, 2×Every, 4×Every … up to MaxBackoff.
func (l *LoginLimiter) backoff(n int) time.Duration {
	d := l.cfg.Every
	for range n {
		if d >= l.cfg.MaxBackoff {
			break
		}
		d *= 2
	}
	return min(d, l.cfg.MaxBackoff)
}

// Succeeded gives the attempt back and clears the account's failures from
// this address: only failed attempts count, so people signing in correctly
// (many behind one address) are never slowed down.
func (a *Attempt) Succeeded() {
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	if a.succeeded {
		return
	}
	a.succeeded = true
	a.ip.CancelAt(a.at)
	if p, ok := a.l.byPair[a.pair]; ok {
		p.failures, p.next = 0, time.Time{}
	}
}

func (l *LoginLimiter) entry(m map[string]*limitEntry, key string, now time.Time) *limitEntry {
	e, ok := m[key]
	if !ok {
		e = &limitEntry{lim: rate.NewLimiter(rate.Every(l.cfg.Every), l.cfg.Burst)}
		m[key] = e
	}
	e.seen = now
	return e
}

// gc drops entries idle long enough to have refilled (or whose backoff
// ran out long ago): forgetting them changes nothing. It runs every gcEvery,
// or at once when a map is over MaxKeys.
func (l *LoginLimiter) gc(now time.Time) {
	if now.Sub(l.lastGC) < l.gcEvery && len(l.byIP) < l.cfg.MaxKeys && len(l.byPair) < l.cfg.MaxKeys {
		return
	}
	l.lastGC = now
	for k, e := range l.byIP {
		if now.Sub(e.seen) >= l.refill {
			delete(l.byIP, k)
		}
	}
	for k, p := range l.byPair {
		if now.Sub(p.seen) >= l.refill && !p.next.After(now) {
			delete(l.byPair, k)
		}
	}
	// Still over the bound (an attack from many addresses): drop the
	// oldest half rather than grow without limit.
	if len(l.byIP) >= l.cfg.MaxKeys {
		dropOldest(l.byIP, func(e *limitEntry) time.Time { return e.seen })
	}
	if len(l.byPair) >= l.cfg.MaxKeys {
		// An account still backing off goes last (ranked by when its
		// backoff ends): flooding the limiter with other names must not
		// reset it.
		dropOldest(l.byPair, func(p *pairEntry) time.Time {
			if p.next.After(now) {
				return p.next
			}
			return p.seen
		})
	}
}

func dropOldest[E any](m map[string]E, seen func(E) time.Time) {
	times := make([]time.Time, 0, len(m))
	for _, e := range m {
		times = append(times, seen(e))
	}
	slices.SortFunc(times, time.Time.Compare)
	cutoff := times[len(times)/2]
	for k, e := range m {
		if !seen(e).After(cutoff) {
			delete(m, k)
		}
	}
}

// Len is the number of keys held, for tests and metrics.
func (l *LoginLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.byIP) + len(l.byPair)
}
