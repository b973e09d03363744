package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// Config is the console's whole configuration, from flags and MNEMO_* variables.
type Config struct {
	Addr    string
	DataDir string
	// Database is a PostgreSQL URL (postgres://…); empty keeps the SQLite
	// file in DataDir. Several instances may share one PostgreSQL database.
	Database string
	// BeatInterval, when set, is the fixed time between heartbeat beats
	// (default: adaptive, 60 s to 15 min) and how often an instance that
	// does not lead tries for the lease (default 60 s).
	BeatInterval time.Duration
	// MetricsToken lets a Prometheus scraper read /metrics (Authorization:
	// Bearer …); administrators' sessions may read it too. Only from the
	// environment (MNEMO_METRICS_TOKEN), like the model API key.
	MetricsToken string
	NoDemo       bool
	// NoPageScrub opens the SQLite database without the page scrub
	// (store.NoPageScrub; docs/forget.md, "Page scrubbing").
	NoPageScrub bool
	LogFormat   string
	LogLevel    string
	// SessionIdle is how long a session without an end event must be quiet
	// before the heartbeat consolidates it.
	SessionIdle time.Duration
	// SecureCookies marks the session cookie Secure; on by default with TLS.
	SecureCookies bool
	TLSCert       string
	TLSKey        string
	// TrustProxy takes client addresses from X-Forwarded-For (behind a proxy you run).
	TrustProxy bool
	// Heartbeat runs the background heartbeat (off only in tests and tools).
	Heartbeat bool
	// Size limits: an uploaded import file, the body of POST /api/v1/events,
	// and one JSON Lines record (import file, NDJSON body, CLI import).
	// Anything over a limit is refused with an error naming it, never cut.
	MaxImportBytes int64
	// MaxBenchmarkBytes bounds a benchmark file an administrator uploads
	// on the Benchmarks page.
	MaxBenchmarkBytes int64
	MaxEventsBytes    int64
	MaxLineBytes      int

	LLMBaseURL string
	LLMAPIKey  string
	LLMModel   string
	LLMTimeout time.Duration
	// LLMPriceIn and LLMPriceOut price a million prompt and completion
	// tokens, so eval runs report what their model calls cost.
	LLMPriceIn  float64
	LLMPriceOut float64
	// EmbedModel, when set, turns recall's semantic channel on: the
	// heartbeat embeds memories with this model at the LLM endpoint and
	// recall fuses the closest with the words' ranking.
	EmbedModel string
	// FollowRoots are the directories under which an administrator may
	// follow agent session files from the browser (the Sources page); by
	// default the agents' own session directories in the home directory.
	// console watch, run on the machine, is not limited by them.
	FollowRoots []string
	// AuditKeyFile holds the key the audit chain is sealed with (HMAC-
	// SHA256; docs/security.md): by default audit.key in DataDir, made on
	// first start. AuditKey, only from the environment (MNEMO_AUDIT_KEY,
	// hex), gives the key itself instead. Every instance on one database
	// needs the same key.
	AuditKeyFile string
	AuditKey     string
}

// defaultFollowRoots are the directories Claude Code, Codex CLI and Hermes
// Agent write their sessions to, in the home directory.
func defaultFollowRoots() []string {
	home, err := os.UserHomeDir()
	if err != nil {
		return []string{}
	}
	return []string{filepath.Join(home, ".claude", "projects"), filepath.Join(home, ".codex", "sessions"), filepath.Join(home, ".hermes")}
}

// rootsFlag is a repeatable --follow-root: its first use replaces the
// roots from the defaults or the environment.
type rootsFlag struct {
	dst *[]string
	set bool
}

func (f *rootsFlag) String() string {
	if f.dst == nil {
		return ""
	}
	return strings.Join(*f.dst, string(filepath.ListSeparator))
}

func (f *rootsFlag) Set(v string) error {
	if !f.set {
		*f.dst, f.set = []string{}, true
	}
	if v != noRoots {
		*f.dst = append(*f.dst, v)
	}
	return nil
}

// noRoots as a root ("--follow-root none") lets the browser follow no
// directory at all.
const noRoots = "none"

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		Addr:        "localhost:8080",
		DataDir:     "./data",
		LogFormat:   "text",
		LogLevel:    "info",
		SessionIdle: 30 * time.Minute,
		Heartbeat:   true,
		LLMModel:    "gpt-4o-mini",
		LLMTimeout:  60 * time.Second,

		MaxImportBytes:    web.DefaultMaxImportBytes,
		MaxBenchmarkBytes: web.DefaultMaxBenchmarkBytes,
		MaxEventsBytes:    web.APIMaxEventsBytes,
		MaxLineBytes:      governance.MaxImportLineBytes,
		FollowRoots:       defaultFollowRoots(),
	}
}

// LLMConfigured reports whether a model endpoint is set.
func (c Config) LLMConfigured() bool { return c.LLMBaseURL != "" || c.LLMAPIKey != "" }

// Validate fails fast on values that cannot work.
func (c Config) Validate() error {
	var errs []error
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, errorf("--addr %q: want host:port, such as localhost:8080", c.Addr))
	}
	if c.DataDir == "" {
		errs = append(errs, errorf("--data must not be empty"))
	}
	if c.Database != "" && !isPostgresURL(c.Database) {
		errs = append(errs, errorf("--database %q: want a postgres:// URL (leave it empty for SQLite in --data)", redactURL(c.Database)))
	}
	if c.MetricsToken != "" && len(c.MetricsToken) < 16 {
		errs = append(errs, errorf("MNEMO_METRICS_TOKEN must have at least 16 characters"))
	}
	if c.BeatInterval < 0 {
		errs = append(errs, errorf("--beat-interval must not be negative"))
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, errorf("--log-format %q: want text or json", c.LogFormat))
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.LogLevel)); err != nil {
		errs = append(errs, errorf("--log-level %q: want debug, info, warn or error", c.LogLevel))
	}
	if c.MaxImportBytes <= 0 || c.MaxBenchmarkBytes <= 0 || c.MaxEventsBytes <= 0 || c.MaxLineBytes <= 0 {
		errs = append(errs, errorf("--max-import-bytes, --max-benchmark-bytes, --max-events-bytes and --max-line-bytes must be positive"))
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errorf("--tls-cert and --tls-key go together"))
	}
	if c.SessionIdle < 0 {
		errs = append(errs, errorf("--session-idle must not be negative"))
	}
	if c.LLMPriceIn < 0 || c.LLMPriceOut < 0 {
		errs = append(errs, errorf("--llm-price-in and --llm-price-out must not be negative"))
	}
	if c.EmbedModel != "" && !c.LLMConfigured() {
		errs = append(errs, errorf("--embed-model needs a model endpoint (--llm-base-url or an API key)"))
	}
	for _, r := range c.FollowRoots {
		if !filepath.IsAbs(r) {
			errs = append(errs, errorf("--follow-root %q: want an absolute path", r))
		}
	}
	return errors.Join(errs...)
}

// String prints the configuration with secrets redacted.
func (c Config) String() string {
	key := ""
	if c.LLMAPIKey != "" {
		key = "[redacted]"
	}
	db := "sqlite"
	if c.Database != "" {
		db = redactURL(c.Database)
	}
	return fmt.Sprintf("addr=%s data=%s database=%s no_demo=%t no_page_scrub=%t session_idle=%s llm_base_url=%s llm_model=%s llm_price=%g/%g llm_api_key=%s embed_model=%s",
		c.Addr, c.DataDir, db, c.NoDemo, c.NoPageScrub, c.SessionIdle, c.LLMBaseURL, c.LLMModel, c.LLMPriceIn, c.LLMPriceOut, key, c.EmbedModel)
}

// bindFlags registers the shared flags on fs with defaults taken from the
// environment (flags win over environment, environment over defaults).
func (c *Config) bindFlags(fs *flag.FlagSet, getenv func(string) string) error {
	var errs []error
	env := func(name string, dst *string) {
		if v := getenv(name); v != "" {
			*dst = v
		}
	}
	envBool := func(name string, dst *bool) {
		if v := getenv(name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, errorf("%s=%q: want true or false", name, v))
			}
			*dst = b
		}
	}
	envFloat := func(name string, dst *float64) {
		if v := getenv(name); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				errs = append(errs, errorf("%s=%q: not a number", name, v))
			}
			*dst = f
		}
	}
	envDur := func(name string, dst *time.Duration) {
		if v := getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				errs = append(errs, errorf("%s=%q: not a duration (such as 90s, 5m or 1h30m)", name, v))
			}
			*dst = d
		}
	}
	env("MNEMO_ADDR", &c.Addr)
	env("MNEMO_DATA_DIR", &c.DataDir)
	env("MNEMO_DATABASE_URL", &c.Database)
	envDur("MNEMO_BEAT_INTERVAL", &c.BeatInterval)
	env("MNEMO_METRICS_TOKEN", &c.MetricsToken)
	envBool("MNEMO_NO_DEMO", &c.NoDemo)
	envBool("MNEMO_NO_PAGE_SCRUB", &c.NoPageScrub)
	env("MNEMO_LOG_FORMAT", &c.LogFormat)
	env("MNEMO_LOG_LEVEL", &c.LogLevel)
	envDur("MNEMO_SESSION_IDLE", &c.SessionIdle)
	envBool("MNEMO_SECURE_COOKIES", &c.SecureCookies)
	envBool("MNEMO_TRUST_PROXY", &c.TrustProxy)
	env("MNEMO_TLS_CERT", &c.TLSCert)
	env("MNEMO_TLS_KEY", &c.TLSKey)
	env("MNEMO_LLM_BASE_URL", &c.LLMBaseURL)
	env("OPENAI_API_KEY", &c.LLMAPIKey)
	env("MNEMO_LLM_API_KEY", &c.LLMAPIKey)
	env("MNEMO_LLM_MODEL", &c.LLMModel)
	envDur("MNEMO_LLM_TIMEOUT", &c.LLMTimeout)
	envFloat("MNEMO_LLM_PRICE_IN", &c.LLMPriceIn)
	envFloat("MNEMO_LLM_PRICE_OUT", &c.LLMPriceOut)
	env("MNEMO_EMBED_MODEL", &c.EmbedModel)
	env("MNEMO_AUDIT_KEY_FILE", &c.AuditKeyFile)
	env("MNEMO_AUDIT_KEY", &c.AuditKey)
	if v := getenv("MNEMO_FOLLOW_ROOTS"); v != "" {
		c.FollowRoots = []string{}
		for _, r := range filepath.SplitList(v) {
			if r = strings.TrimSpace(r); r != "" && r != noRoots {
				c.FollowRoots = append(c.FollowRoots, r)
			}
		}
	}
	envInt := func(name string, dst *int64) {
		if v := getenv(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				errs = append(errs, errorf("%s=%q: not a positive number of bytes", name, v))
			}
			*dst = n
		}
	}
	maxLine := int64(c.MaxLineBytes)
	envInt("MNEMO_MAX_IMPORT_BYTES", &c.MaxImportBytes)
	envInt("MNEMO_MAX_BENCHMARK_BYTES", &c.MaxBenchmarkBytes)
	envInt("MNEMO_MAX_EVENTS_BYTES", &c.MaxEventsBytes)
	envInt("MNEMO_MAX_LINE_BYTES", &maxLine)
	c.MaxLineBytes = int(maxLine)

	fs.StringVar(&c.Addr, "addr", c.Addr, "listen address (MNEMO_ADDR)")
	fs.StringVar(&c.DataDir, "data", c.DataDir, "data directory holding the SQLite database (MNEMO_DATA_DIR)")
	fs.StringVar(&c.Database, "database", c.Database, "PostgreSQL URL (postgres://user@host/db); empty: SQLite in --data. Prefer the environment variable when the URL holds a password (MNEMO_DATABASE_URL)")
	fs.DurationVar(&c.BeatInterval, "beat-interval", c.BeatInterval, "fixed time between heartbeat beats, and between an instance's tries for the leader lease; 0 adapts (MNEMO_BEAT_INTERVAL)")
	fs.BoolVar(&c.NoDemo, "no-demo", c.NoDemo, "start an empty database without the demo data (MNEMO_NO_DEMO)")
	fs.BoolVar(&c.NoPageScrub, "no-page-scrub", c.NoPageScrub, "SQLite: do not zero moved rows' old bytes in the database's pages; a forget may then leave such copies in unused page space (MNEMO_NO_PAGE_SCRUB)")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "log format: text or json (MNEMO_LOG_FORMAT)")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "log level: debug, info, warn, error (MNEMO_LOG_LEVEL)")
	fs.DurationVar(&c.SessionIdle, "session-idle", c.SessionIdle, "quiet time after which a session without an end event is consolidated (MNEMO_SESSION_IDLE)")
	fs.BoolVar(&c.SecureCookies, "secure-cookies", c.SecureCookies, "mark cookies Secure, e.g. behind a TLS proxy; on with --tls-cert (MNEMO_SECURE_COOKIES)")
	fs.BoolVar(&c.TrustProxy, "trust-proxy", c.TrustProxy, "take client addresses from X-Forwarded-For, for logs and login rate limits; only behind a proxy you run (MNEMO_TRUST_PROXY)")
	fs.StringVar(&c.TLSCert, "tls-cert", c.TLSCert, "TLS certificate file to serve HTTPS (MNEMO_TLS_CERT)")
	fs.StringVar(&c.TLSKey, "tls-key", c.TLSKey, "TLS key file (MNEMO_TLS_KEY)")
	fs.StringVar(&c.LLMBaseURL, "llm-base-url", c.LLMBaseURL, "OpenAI-compatible endpoint; empty uses the offline heuristic extractor (MNEMO_LLM_BASE_URL)")
	fs.StringVar(&c.LLMModel, "llm-model", c.LLMModel, "model name (MNEMO_LLM_MODEL)")
	fs.DurationVar(&c.LLMTimeout, "llm-timeout", c.LLMTimeout, "timeout of one model call (MNEMO_LLM_TIMEOUT)")
	fs.Float64Var(&c.LLMPriceIn, "llm-price-in", c.LLMPriceIn, "price of a million prompt tokens, for eval cost figures (MNEMO_LLM_PRICE_IN)")
	fs.Float64Var(&c.LLMPriceOut, "llm-price-out", c.LLMPriceOut, "price of a million completion tokens (MNEMO_LLM_PRICE_OUT)")
	fs.StringVar(&c.EmbedModel, "embed-model", c.EmbedModel, "embeddings model at the LLM endpoint; empty: recall ranks by words alone (MNEMO_EMBED_MODEL)")
	fs.Int64Var(&c.MaxImportBytes, "max-import-bytes", c.MaxImportBytes, "largest file uploaded on the Import page (MNEMO_MAX_IMPORT_BYTES)")
	fs.Int64Var(&c.MaxBenchmarkBytes, "max-benchmark-bytes", c.MaxBenchmarkBytes, "largest benchmark file an administrator uploads on the Benchmarks page; other accounts, a suite's 16 MiB (MNEMO_MAX_BENCHMARK_BYTES)")
	fs.Int64Var(&c.MaxEventsBytes, "max-events-bytes", c.MaxEventsBytes, "largest body of POST /api/v1/events (MNEMO_MAX_EVENTS_BYTES)")
	fs.Var(&rootsFlag{dst: &c.FollowRoots}, "follow-root", "a directory under which administrators may follow session files from the browser; repeat for several, or none for no directory; default: ~/.claude/projects, ~/.codex/sessions and ~/.hermes (MNEMO_FOLLOW_ROOTS, separated by colons)")
	fs.StringVar(&c.AuditKeyFile, "audit-key-file", c.AuditKeyFile, "file holding the audit chain's key (hex); default audit.key in --data, made on first start; every instance on one database needs the same (MNEMO_AUDIT_KEY_FILE, or the key itself in MNEMO_AUDIT_KEY)")
	fs.IntVar(&c.MaxLineBytes, "max-line-bytes", c.MaxLineBytes, "longest record of an NDJSON body of POST /api/v1/events; a longer one is an error (MNEMO_MAX_LINE_BYTES)")
	// The API key is read only from MNEMO_LLM_API_KEY or OPENAI_API_KEY, never
	// from a flag, so it does not show in process listings.
	return errors.Join(errs...)
}

func (c Config) logger(w io.Writer) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(strings.ToLower(c.LogLevel)))
	opts := &slog.HandlerOptions{Level: lvl}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
