package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/postgres/postgrestest"
)

// TestMain stops the throwaway PostgreSQL server (started only by a test
// that asks for a database) after the tests.
func TestMain(m *testing.M) { os.Exit(postgrestest.Main(m)) }

func TestDatabaseConfig(t *testing.T) {
	t.Run("EnvironmentAndFlag", func(t *testing.T) {
		cfg := DefaultConfig()
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		if err := cfg.bindFlags(fs, env(map[string]string{"MNEMO_DATABASE_URL": "postgres://mnemo:s3cret@db.internal/mnemo",
			"MNEMO_BEAT_INTERVAL": "2s"})); err != nil {
			t.Fatal(err)
		}
		if cfg.Database != "postgres://mnemo:s3cret@db.internal/mnemo" || cfg.BeatInterval.String() != "2s" {
			t.Fatalf("cfg = %+v", cfg)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		if s := cfg.String(); strings.Contains(s, "s3cret") || !strings.Contains(s, "db.internal") {
			t.Fatalf("String() = %s: want the host, not the password", s)
		}
	})
	t.Run("HelpHidesThePassword", func(t *testing.T) {
		var out bytes.Buffer
		err := run(context.Background(), []string{"--help"}, env(map[string]string{"MNEMO_DATABASE_URL": "postgres://u:s3cret@h/db"}), nil, &out, &out)
		if !errors.Is(err, flag.ErrHelp) {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "s3cret") || !strings.Contains(out.String(), "MNEMO_DATABASE_URL") {
			t.Fatalf("--help:\n%s", out.String())
		}
	})
	t.Run("NotPostgres", func(t *testing.T) {
		var out bytes.Buffer
		err := run(context.Background(), []string{"user", "list", "--database", "mysql://u:s3cret@h/db"}, env(nil), nil, &out, &out)
		if err == nil || !strings.Contains(err.Error(), "postgres://") || strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("err = %v, want the postgres:// hint without the password", err)
		}
	})
	t.Run("SQLiteStaysTheDefault", func(t *testing.T) {
		dir := t.TempDir()
		var out bytes.Buffer
		if err := run(context.Background(), []string{"user", "list", "--data", dir}, env(nil), nil, &out, &out); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "mnemo.db")); err != nil {
			t.Fatalf("no SQLite file in the data directory: %v", err)
		}
	})
}

// TestPostgresDatabase: --database postgres://… opens PostgreSQL for the
// CLI commands: an account made with "user add" is listed by "user list",
// and nothing is written to the data directory.
func TestPostgresDatabase(t *testing.T) {
	dbURL := postgrestest.NewDatabase(t)
	dir := filepath.Join(t.TempDir(), "data")
	cmd := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := run(context.Background(), append(args, "--database", dbURL, "--data", dir), env(nil), nil, &out, &out); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		return out.String()
	}
	cmd("user", "add", "rita", "--admin")
	if out := cmd("user", "list"); !strings.Contains(out, "rita") {
		t.Fatalf("user list on PostgreSQL:\n%s", out)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the data directory was made on PostgreSQL: %v", err)
	}
}

// testConsole starts a console on a free port: on PostgreSQL when dbURL is
// set, else on SQLite in dataDir. The heartbeat runs only when beat is set.
func testConsole(t *testing.T, dbURL, dataDir string, beat bool, cfgs ...func(*Config)) *Main {
	t.Helper()
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.Database, cfg.Heartbeat, cfg.LogLevel, cfg.NoDemo = "127.0.0.1:0", dataDir, dbURL, beat, "error", true
	for _, f := range cfgs {
		f(&cfg)
	}
	m, err := openMain(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Open(ctx, io.Discard); err != nil {
		m.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// signIn signs username in on the console at base through the login form
// and returns the client holding the session cookie.
func signIn(t *testing.T, base, username, password string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	token := csrfFrom(t, c, base+"/login")
	resp, err := c.PostForm(base+"/login", url.Values{"csrf": {token}, "username": {username}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in = %d, want 303", resp.StatusCode)
	}
	return c
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrfFrom GETs page (expecting 200) and returns the form's CSRF token.
func csrfFrom(t *testing.T, c *http.Client, page string) string {
	t.Helper()
	resp, err := c.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d", page, resp.StatusCode)
	}
	m := csrfInput.FindSubmatch(body)
	if m == nil {
		t.Fatalf("GET %s: no CSRF token in the page", page)
	}
	return string(m[1])
}

// TestSessionAcrossInstances: the cookie and CSRF keys live in the
// database, so a reviewer signed in on instance A is signed in on B, and a
// form B renders posts on B (and one A rendered posts on B too).
func TestSessionAcrossInstances(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dbURL, dir := "", t.TempDir()
			if backend == "postgres" {
				dbURL = postgrestest.NewDatabase(t)
			}
			a := testConsole(t, dbURL, dir, false)
			b := testConsole(t, dbURL, dir, false)
			ctx := context.Background()
			hash, err := auth.HashPassword("correct horse battery")
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Store.CreateAccount(ctx, &governance.Account{Username: "rita", IsAdmin: true, PasswordHash: hash}); err != nil {
				t.Fatal(err)
			}
			c := signIn(t, a.URL(), "rita", "correct horse battery")
			tokenA := csrfFrom(t, c, a.URL()+"/heartbeat")
			tokenB := csrfFrom(t, c, b.URL()+"/heartbeat") // signed in on B: 200, not the login page
			for i, token := range []string{tokenB, tokenA} {
				resp, err := c.PostForm(b.URL()+"/heartbeat/run", url.Values{"csrf": {token}})
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/heartbeat" {
					t.Fatalf("post %d on B = %d → %q, want 303 → /heartbeat", i, resp.StatusCode, resp.Header.Get("Location"))
				}
			}
			resp, err := c.PostForm(b.URL()+"/heartbeat/run", url.Values{"csrf": {"forged"}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("post with a wrong token = %d, want 403", resp.StatusCode)
			}
			rows, _, err := b.Store.FindAudit(ctx, governance.AuditFilter{Action: "heartbeat.run"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 2 || rows[0].Actor != "account:rita" {
				t.Fatalf("audit = %d heartbeat.run rows, want 2 by account:rita", len(rows))
			}
		})
	}
}
