package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
)

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, func(ctx context.Context, url string) error {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `CREATE TABLE prepared (n integer); INSERT INTO prepared VALUES (1)`)
		return err
	}))
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// Each test gets its own database, cloned from the prepared template, and
// a write in one is invisible in another.
func TestNewDatabase(t *testing.T) {
	ctx := context.Background()
	a, b := connect(t, pgtest.NewDatabase(t)), connect(t, pgtest.NewDatabase(t))
	if _, err := a.Exec(ctx, `INSERT INTO prepared VALUES (2)`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		conn *pgx.Conn
		want int
	}{{a, 2}, {b, 1}} {
		var n int
		if err := c.conn.QueryRow(ctx, `SELECT count(*) FROM prepared`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("rows = %d; want %d", n, c.want)
		}
	}
}

// The server never runs as root: as root it runs as the postgres user.
func TestServerUser(t *testing.T) {
	conn := connect(t, pgtest.NewDatabase(t))
	var pid int
	if err := conn.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat("/proc/" + itoa(pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	uid := statUID(fi)
	if uid == 0 {
		t.Errorf("server backend %d runs as root", pid)
	}
	if os.Geteuid() != 0 && uid != uint32(os.Geteuid()) {
		t.Errorf("server backend uid = %d; want ours, %d", uid, os.Geteuid())
	}
}
