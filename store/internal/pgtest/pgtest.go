// Package pgtest runs a throwaway PostgreSQL server for a package's tests:
// initdb into a temporary directory, the postgres server listening only on
// a unix socket in that directory, one database per test cloned from a
// prepared template, and the server stopped (and its directory removed)
// when the test binary ends.
//
// A package uses it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, prepare)) }
//
// and each test asks for a database with NewDatabase(t). The server starts
// on the first NewDatabase, so a run that selects no PostgreSQL test starts
// nothing. The server binaries come from $MNEMO_PG_BIN, else the newest
// /usr/lib/postgresql/*/bin, else the directory of "postgres" on PATH.
// Without them a test skips, except when $CI is set: CI must run them.
//
// PostgreSQL refuses to run as root. When the tests run as root (CI does),
// initdb and the server run as the unprivileged "postgres" system user,
// created with useradd when absent, and the data directory belongs to it.
// The server gets the parent-death signal SIGQUIT (an immediate shutdown),
// so it goes away even when the test binary panics or is killed.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Prepare sets up the template database every test database is cloned
// from (migrations, extensions); url names the template.
type Prepare func(ctx context.Context, url string) error

const (
	superuser = "postgres"
	template  = "mnemo_template"
	port      = 5432 // the socket's name; nothing listens on TCP

	startTimeout = 60 * time.Second
	stopTimeout  = 15 * time.Second
)

var (
	prepare  Prepare
	once     sync.Once
	srv      *server
	startErr error
	dbSeq    atomic.Int64
)

// Main runs the package's tests (m.Run) and stops the server afterwards.
// prepare, when not nil, runs once on the template database. A failed run
// prints the tail of the server's log.
func Main(m *testing.M, p Prepare) int {
	prepare = p
	code := m.Run()
	if srv != nil {
		if code != 0 {
			fmt.Fprintf(os.Stderr, "pgtest: server log (%s), last lines:\n%s\n", srv.logPath, srv.logTail(40))
		}
		if err := srv.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stop: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// NewDatabase returns the URL of a new database for tb, a copy of the
// prepared template. It is not dropped: the server and its directory go
// at the end of the run, and a failed test's data stays inspectable until
// then. It skips tb when no PostgreSQL server
// binaries are installed, unless $CI is set, where it fails.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	serve(tb)
	return createDatabase(tb, template)
}

// NewEmptyDatabase returns the URL of a new database with no migration
// applied (a copy of template0), for tests of migrations themselves.
func NewEmptyDatabase(tb testing.TB) string {
	tb.Helper()
	serve(tb)
	return createDatabase(tb, "template0")
}

// serve starts the server on first use, and skips or fails tb without one.
func serve(tb testing.TB) {
	tb.Helper()
	once.Do(func() { srv, startErr = start() })
	if errors.Is(startErr, errNoBinaries) {
		if os.Getenv("CI") != "" {
			tb.Fatalf("pgtest: %v (CI runs the PostgreSQL tests: install Debian's postgresql packages or set MNEMO_PG_BIN)", startErr)
		}
		tb.Skipf("pgtest: %v; skipping the PostgreSQL tests (install postgresql or set MNEMO_PG_BIN)", startErr)
	}
	if startErr != nil {
		tb.Fatalf("pgtest: %v", startErr)
	}
}

// state is a database holding one starting state, built at most once.
type state struct {
	once sync.Once
	db   string
	err  error
}

var (
	statesMu sync.Mutex
	states   = map[string]*state{}
)

// NewDatabaseFrom returns the URL of a new database for tb in the state
// build leaves a fresh database in (given its URL; build must close every
// connection it opened). name identifies the state: its first caller
// builds it, in a copy of the prepared template, once per test binary;
// every caller gets its own copy of that database, which serves as the
// template (it accepts no connections once built, so nothing is open on
// it while it is copied). It skips or fails as NewDatabase does.
func NewDatabaseFrom(tb testing.TB, name string, build func(ctx context.Context, url string) error) string {
	tb.Helper()
	serve(tb)
	statesMu.Lock()
	st, ok := states[name]
	if !ok {
		st = &state{}
		states[name] = st
	}
	statesMu.Unlock()
	st.once.Do(func() {
		url := createDatabase(tb, template)
		st.db = dbName(url)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if err := build(ctx, url); err != nil {
			st.err = fmt.Errorf("build: %w", err)
			return
		}
		st.err = srv.admin(ctx, `ALTER DATABASE `+st.db+` WITH ALLOW_CONNECTIONS false`)
	})
	if st.db == "" {
		tb.Fatalf("pgtest: state %q was not built (its first test stopped early)", name)
	}
	if st.err != nil {
		tb.Fatalf("pgtest: state %q: %v", name, st.err)
	}
	return createDatabase(tb, st.db)
}

// dbName is the database a URL of srv names.
func dbName(url string) string {
	rest := url[strings.Index(url, "@/")+2:]
	return rest[:strings.Index(rest, "?")]
}

// createDatabase creates a new database as a copy of from.
func createDatabase(tb testing.TB, from string) string {
	tb.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// FILE_COPY copies the template's files (with fsync off its checkpoints
	// cost little): 0.4 s a database against 1–3 s for the default
	// WAL_LOG, which writes every block of the template to the WAL. Servers
	// before 15 know no strategy and only copy files.
	create := `CREATE DATABASE ` + name + ` TEMPLATE ` + from
	var err error
	for {
		err = srv.admin(ctx, create+` STRATEGY FILE_COPY`)
		if err != nil && !strings.Contains(err.Error(), "being accessed by other users") {
			err = srv.admin(ctx, create)
		}
		// The server refuses to copy a database while a session on it
		// is still ending (it waits 5 s): the sessions that built a state
		// may outlive their closed pool on a loaded machine. Try again
		// until the deadline.
		if err == nil || !strings.Contains(err.Error(), "being accessed by other users") || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	return srv.url(name)
}

// Tool runs one of the client programs installed beside the server
// (pg_dump, pg_restore, psql) from the server's binary directory, as the
// user the server runs as, with stdin as its input, and returns its
// standard output; it fails tb when the program fails. Tests of backups
// use it: pg_dump -Fc writes the dump to standard output and pg_restore
// reads it from standard input, so no file needs to be shared with the
// server's user.
func Tool(tb testing.TB, stdin []byte, name string, args ...string) []byte {
	tb.Helper()
	serve(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := srv.command(ctx, name, args...)
	cmd.Env = append(cmd.Env, "HOME="+srv.dir) // not the caller's ~/.pgpass
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		tb.Fatalf("pgtest: %s %s: %v\n%s", name, strings.Join(args, " "), err, errOut.String())
	}
	return out.Bytes()
}

var errNoBinaries = errors.New("no PostgreSQL server binaries found")

// BinDir finds the directory holding initdb and postgres.
func BinDir() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if dir := os.Getenv("MNEMO_PG_BIN"); dir != "" {
		if !has(dir) {
			return "", fmt.Errorf("MNEMO_PG_BIN=%s holds no initdb and postgres", dir)
		}
		return dir, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, dir := range dirs {
		if has(dir) {
			return dir, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && has(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
	}
	return "", errNoBinaries
}

// version reads the major version out of /usr/lib/postgresql/<v>/bin.
func version(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

type server struct {
	bin     string
	dir     string // temporary root: data/, the socket, the log
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{}
	cred    *syscall.Credential // the user the server runs as (nil: ours)
}

func (s *server) socketDir() string { return s.dir }

func (s *server) url(db string) string {
	return fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable", superuser, db, s.socketDir(), port)
}

func start() (*server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	s := &server{bin: bin, exited: make(chan struct{})}
	if os.Geteuid() == 0 {
		if s.cred, err = unprivileged(); err != nil {
			return nil, err
		}
	}
	if s.dir, err = tempRoot(); err != nil {
		return nil, err
	}
	s.logPath = filepath.Join(s.dir, "server.log")
	if err := os.WriteFile(filepath.Join(s.dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			os.RemoveAll(s.dir)
			return nil, fmt.Errorf("chown %s: %w", s.dir, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := s.initdb(ctx); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	if err := s.run(); err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	if err := s.waitReady(ctx); err != nil {
		s.stop()
		return nil, fmt.Errorf("%w\nserver log:\n%s", err, s.logTail(40))
	}
	if err := s.admin(ctx, `CREATE DATABASE `+template); err != nil {
		s.stop()
		return nil, fmt.Errorf("create template: %w", err)
	}
	if prepare != nil {
		if err := prepare(ctx, s.url(template)); err != nil {
			s.stop()
			return nil, fmt.Errorf("prepare template: %w", err)
		}
	}
	return s, nil
}

// unprivileged returns the credentials of the "postgres" system user,
// creating it when absent.
func unprivileged() (*syscall.Credential, error) {
	u, err := user.Lookup(superuser)
	if err != nil {
		out, aerr := exec.Command("useradd", "--system", "--user-group", "--no-create-home",
			"--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", superuser).CombinedOutput()
		if aerr != nil {
			return nil, fmt.Errorf("running as root and no %q user: useradd: %v: %s", superuser, aerr, out)
		}
		if u, err = user.Lookup(superuser); err != nil {
			return nil, err
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// tempRoot makes the server's directory where an unprivileged user can
// reach it: $TMPDIR when every parent is traversable by others, else /tmp.
func tempRoot() (string, error) {
	base := os.TempDir()
	// The socket's path (base/mnemo-pg-NNNNNNNNNN/.s.PGSQL.5432) must fit
	// the 107 bytes of sun_path.
	if !traversable(base) || len(base) > 70 {
		base = "/tmp"
	}
	removeStale(base)
	return os.MkdirTemp(base, "mnemo-pg-")
}

// removeStale removes the directories of servers whose test binary died
// before it could (their server got the parent-death signal and stopped):
// the owner file names the test binary's process, which no longer exists.
// A directory without one is being created, or is not ours to judge.
func removeStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, "mnemo-pg-*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err == nil && pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			os.RemoveAll(dir)
		}
	}
}

// ownerFile holds the pid of the test binary that made the directory.
const ownerFile = "owner.pid"

func traversable(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

func (s *server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "LANG=C.UTF-8")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	return cmd
}

func (s *server) initdb(ctx context.Context) error {
	cmd := s.command(ctx, "initdb", "-D", filepath.Join(s.dir, "data"), "-U", superuser,
		"--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	return nil
}

// run starts postgres in the foreground as our child. The child gets
// SIGQUIT when the thread that started it ends, so the starting goroutine
// keeps its thread until the server exits: the server dies with the test
// binary, panics and kills included.
func (s *server) run() error {
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		defer close(s.exited)
		defer logf.Close()
		s.cmd = s.command(context.Background(), "postgres",
			"-D", filepath.Join(s.dir, "data"),
			"-k", s.socketDir(), "-p", strconv.Itoa(port),
			"-c", "listen_addresses=",
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
			"-c", "max_connections=200", "-c", "shared_buffers=32MB",
			"-c", "log_min_messages=warning", "-c", "log_min_error_statement=error")
		s.cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
		s.cmd.SysProcAttr.Setpgid = true // a ^C to the test binary is ours to handle
		s.cmd.Stdout, s.cmd.Stderr = logf, logf
		if err := s.cmd.Start(); err != nil {
			started <- fmt.Errorf("start postgres: %w", err)
			return
		}
		started <- nil
		s.cmd.Wait()
	}()
	return <-started
}

func (s *server) waitReady(ctx context.Context) error {
	var last error
	for {
		conn, err := pgx.Connect(ctx, s.url("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		last = err
		select {
		case <-s.exited:
			return fmt.Errorf("postgres exited during start-up: %v", last)
		case <-ctx.Done():
			return fmt.Errorf("postgres not ready within %s: %v", startTimeout, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// admin runs one statement on the maintenance database.
func (s *server) admin(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// stop shuts the server down (fast, then immediate, then kill) and removes
// its directory.
func (s *server) stop() error {
	defer os.RemoveAll(s.dir)
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGKILL} {
		if err := s.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("signal postgres: %w", err)
		}
		select {
		case <-s.exited:
			return nil
		case <-time.After(stopTimeout / 3):
		}
	}
	return fmt.Errorf("postgres (pid %d) did not exit", s.cmd.Process.Pid)
}

func (s *server) logTail(n int) string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(string(bytes.TrimRight(b, "\n")), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
