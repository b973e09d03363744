package transcript_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
	"github.com/mnemo-console/mnemo/transcript"
)

// TestHermesUploadUntrusted sends state.db files as an API client or an
// admin's upload would: a database in WAL mode, and damaged ones. An
// upload is a file from outside: a damaged one is refused with a clear
// error before any row is read, nothing is written, and no copy of the
// upload (nor a -wal or -shm file of it) stays in the temporary directory.
func TestHermesUploadUntrusted(t *testing.T) {
	ctx := context.Background()
	s := sqlitetest.Open(t)
	p := &governance.Project{Slug: "up", Name: "up"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	upload := func(t *testing.T, body []byte) (*transcript.Result, error) {
		t.Helper()
		res, err := transcript.Import(ctx, s, "cli", p.ID, bytes.NewReader(body), transcript.Options{SkipMalformed: true})
		left, _ := filepath.Glob(filepath.Join(tmp, "mnemo-import-*"))
		if len(left) > 0 {
			t.Errorf("the upload left %v in the temporary directory", left)
		}
		return res, err
	}
	count := func() int {
		_, n, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("WAL", func(t *testing.T) {
		path := mustHermesDB(t)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`PRAGMA journal_mode = WAL`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := upload(t, body)
		if err != nil || res.Inserted != 9 {
			t.Fatalf("WAL upload = %+v, %v", res, err)
		}
	})
	// damaged returns a state.db whose messages table's root page (a leaf:
	// the table is small) is changed by damage.
	damaged := func(t *testing.T, damage func(page []byte)) []byte {
		path := mustHermesDB(t)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		var root, size int
		err = db.QueryRow(`SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_master WHERE name = 'messages'`).Scan(&root, &size)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		damage(body[(root-1)*size : root*size])
		return body
	}
	for _, tc := range []struct {
		name string
		body func(t *testing.T) []byte
	}{
		// The page's cell count (bytes 3–4 of a leaf's header) says more
		// cells than the page holds.
		{"CellCount", func(t *testing.T) []byte { return damaged(t, func(p []byte) { p[3], p[4] = 0x0f, 0xff }) }},
		// The first cell pointer points past the page.
		{"CellPointer", func(t *testing.T) []byte { return damaged(t, func(p []byte) { p[8], p[9] = 0xff, 0xf0 }) }},
		// Not a b-tree page at all.
		{"PageType", func(t *testing.T) []byte { return damaged(t, func(p []byte) { p[0] = 0x07 }) }},
		{"Truncated", func(t *testing.T) []byte {
			body, err := os.ReadFile(mustHermesDB(t))
			if err != nil {
				t.Fatal(err)
			}
			return body[:len(body)-len(body)/3]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := count()
			res, err := upload(t, tc.body(t))
			if governance.ErrorCode(err) != governance.EINVALID {
				t.Fatalf("damaged upload = %+v, %v; want EINVALID", res, err)
			}
			if n := count(); n != before {
				t.Fatalf("a damaged upload wrote %d events", n-before)
			}
		})
	}
}
