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
	// Burst attempts are allowed at once, then one every Every.
	Burst int
	Every time.Duration
	// MaxKeys bounds memory: beyond it, idle entries are evicted.
	MaxKeys int
	// Now is the clock; time.Now when nil (tests replace it).
	Now func() time.Time
}

// DefaultLimitConfig allows 5 attempts, then one every 10 seconds, per client
// IP and per username.
var DefaultLimitConfig = LimitConfig{Burst: 5, Every: 10 * time.Second, MaxKeys: 10000}

// LoginLimiter rate-limits login attempts per client IP and per username, in
// memory. Entries that have refilled completely are evicted lazily, so no
// goroutine is needed.
type LoginLimiter struct {
	cfg LimitConfig
	now func() time.Time

	mu      sync.Mutex
	byIP    map[string]*limitEntry
	byUser  map[string]*limitEntry
	lastGC  time.Time
	refill  time.Duration // time for an empty bucket to refill completely
	gcEvery time.Duration
}

type limitEntry struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewLoginLimiter returns a limiter; zero fields of cfg take the defaults.
func NewLoginLimiter(cfg LimitConfig) *LoginLimiter {
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultLimitConfig.Burst
	}
	if cfg.Every <= 0 {
		cfg.Every = DefaultLimitConfig.Every
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = DefaultLimitConfig.MaxKeys
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	refill := cfg.Every * time.Duration(cfg.Burst)
	return &LoginLimiter{
		cfg:     cfg,
		now:     cfg.Now,
		byIP:    map[string]*limitEntry{},
		byUser:  map[string]*limitEntry{},
		refill:  refill,
		gcEvery: max(refill, time.Minute),
	}
}

// Attempt is one login attempt that the limiter let through.
type Attempt struct {
	l        *LoginLimiter
	ip, user *rate.Reservation
	// at is when the attempt was reserved; cancelling "at" that instant
	// is what lets rate.Reservation give the token back after the
	// password check took its time.
	at        time.Time
	succeeded bool
}

// Allow records one login attempt from ip for username. When the attempt
// may not proceed it returns nil and how long to wait. An attempt refused by
// one key does not use up the other key's allowance.
func (l *LoginLimiter) Allow(ip, username string) (*Attempt, time.Duration) {
	username = strings.ToLower(strings.TrimSpace(username))
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.gc(now)
	ipRes := l.entry(l.byIP, ip, now).lim.ReserveN(now, 1)
	userRes := l.entry(l.byUser, username, now).lim.ReserveN(now, 1)
	if wait := max(ipRes.DelayFrom(now), userRes.DelayFrom(now)); wait > 0 {
		ipRes.CancelAt(now)
		userRes.CancelAt(now)
		return nil, wait
	}
	return &Attempt{l: l, ip: ipRes, user: userRes, at: now}, 0
}

// Succeeded gives the attempt back: only failed attempts count, so people
// signing in correctly (many behind one address) are never slowed down.
func (a *Attempt) Succeeded() {
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	if a.succeeded {
		return
	}
	a.succeeded = true
	a.ip.CancelAt(a.at)
	a.user.CancelAt(a.at)
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

// gc drops entries idle long enough to have refilled: forgetting them changes
// nothing. It runs every gcEvery, or at once when a map is over MaxKeys.
func (l *LoginLimiter) gc(now time.Time) {
	if now.Sub(l.lastGC) < l.gcEvery && len(l.byIP) < l.cfg.MaxKeys && len(l.byUser) < l.cfg.MaxKeys {
		return
	}
	l.lastGC = now
	for _, m := range []map[string]*limitEntry{l.byIP, l.byUser} {
		for k, e := range m {
			if now.Sub(e.seen) >= l.refill {
				delete(m, k)
			}
		}
		// Still over the bound (an attack from many addresses): drop the
		// oldest half rather than grow without limit.
		if len(m) >= l.cfg.MaxKeys {
			cutoff := oldestHalf(m)
			for k, e := range m {
				if !e.seen.After(cutoff) {
					delete(m, k)
				}
			}
		}
	}
}

func oldestHalf(m map[string]*limitEntry) time.Time {
	times := make([]time.Time, 0, len(m))
	for _, e := range m {
		times = append(times, e.seen)
	}
	slices.SortFunc(times, time.Time.Compare)
	return times[len(times)/2]
}

// Len is the number of keys held, for tests and metrics.
func (l *LoginLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.byIP) + len(l.byUser)
}
