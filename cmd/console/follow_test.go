package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// TestServeFollowsPastAFIFO: a FIFO named like a session file in one
// followed directory neither stops another directory's lines (read by
// console watch and then by the server) nor the server's shutdown, which
// ends within 5 s.
func TestServeFollowsPastAFIFO(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the server")
	}
	data := t.TempDir()
	piped, flowing := filepath.Join(t.TempDir(), "piped"), filepath.Join(t.TempDir(), "flowing")
	os.MkdirAll(piped, 0o755)
	os.MkdirAll(flowing, 0o755)
	if err := syscall.Mkfifo(filepath.Join(piped, "session.jsonl"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	line := func(id, text string) string {
		return `{"id":"` + id + `","session_id":"s1","turn":1,"role":"user","text":"` + text + `","occurred_at":"2026-06-01T10:00:00Z"}` + "\n"
	}
	file := filepath.Join(flowing, "session.jsonl")
	os.WriteFile(file, []byte(line("f1", "first line")), 0o644)
	ctx := context.Background()
	for _, dir := range []string{piped, flowing} {
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"watch", dir, "--project", "p", "--create", "--once", "--data", data, "--no-demo"}, env(nil), nil, &out, &out)
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("watch %s: %v\n%s", dir, err, out.String())
			}
		case <-time.After(time.Minute):
			t.Fatalf("watch --once of %s never returned", dir)
		}
		if dir == piped && !strings.Contains(out.String(), "not a regular file") {
			t.Errorf("watch does not say why the FIFO is skipped:\n%s", out.String())
		}
	}

	serveCtx, cancel := context.WithCancel(ctx)
	out, logs := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(serveCtx, []string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--no-demo"}, env(nil), strings.NewReader(""), out, logs)
	}()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("the server did not shut down within 5 s")
		}
	}()
	waitFor(t, time.Minute, "the server to start", func() bool {
		return regexp.MustCompile(`Mnemo console: http://`).MatchString(out.String())
	})
	fh, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(line("f2", "appended while serving"))
	fh.Close()
	st, err := store.Open(ctx, filepath.Join(data, "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	waitFor(t, time.Minute, "the appended line to be followed", func() bool {
		_, n, err := st.FindEvents(ctx, governance.EventFilter{Limit: 1})
		return err == nil && n == 2
	})
	// The server logs the audit chain's head, for a witness outside.
	head, err := st.AuditHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "the audit head in the log", func() bool { return strings.Contains(logs.String(), head.String()) })
}
