package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAuditVerifyExpectHead: the console keys the audit chain with a key
// file it makes (readable by its owner only), audit verify prints the
// head, and given that head it detects rows cut from the end, which the
// chain alone cannot show.
func TestAuditVerifyExpectHead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cli := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, append(args, "--data", dir, "--no-demo"), env(nil), nil, &out, &out)
		return out.String(), err
	}
	for _, name := range []string{"ann", "bob"} {
		if out, err := cli("user", "add", name); err != nil {
			t.Fatalf("user add: %v\n%s", err, out)
		}
	}
	st, err := os.Stat(filepath.Join(dir, "audit.key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("audit key file: %v, %v; want one readable by its owner only", st, err)
	}
	out, err := cli("audit", "verify")
	head := regexp.MustCompile(`Head: (\d+:[0-9a-f]{64})`).FindStringSubmatch(out)
	if err != nil || head == nil {
		t.Fatalf("audit verify: %v\n%s", err, out)
	}
	if printed, err := cli("audit", "head"); err != nil || strings.TrimSpace(printed) != head[1] {
		t.Fatalf("audit head = %q, %v; want %s", printed, err, head[1])
	}
	if out, err := cli("audit", "verify", "--expect-head", head[1]); err != nil || !strings.Contains(out, "intact") {
		t.Fatalf("verify against its own head: %v\n%s", err, out)
	}
	// Someone with the file cuts the last row.
	db, err := sql.Open("sqlite", filepath.Join(dir, "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TRIGGER audit_no_delete`, `DELETE FROM audit WHERE id = (SELECT max(id) FROM audit)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if out, err := cli("audit", "verify", "--expect-head", head[1]); err == nil || !strings.Contains(out, "BROKEN") || !strings.Contains(out, "removed") {
		t.Fatalf("a cut chain verifies against the head kept before: %v\n%s", err, out)
	}
}
