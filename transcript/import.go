package transcript

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/mnemo-console/mnemo/governance"
)

// Sink stores a stream of events all or nothing (store.Store implements it).
type Sink interface {
	ImportStream(ctx context.Context, actor string, projectID int64, produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error)
}

// Result is what an import read and what it wrote.
type Result struct {
	Report
	Inserted   int      `json:"inserted"`
	Skipped    int      `json:"skipped"`
	SkippedIDs []string `json:"skipped_ids,omitempty"`
}

// Import parses r and stores its events in one transaction. A rejected file
// (a *governance.ImportError) writes nothing; the returned Result still
// carries the report so the caller can show every malformed line.
func Import(ctx context.Context, sink Sink, actor string, projectID int64, r io.Reader, opts Options) (*Result, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(16)
	if opts.Format == FormatHermes || opts.Format == FormatAuto && IsSQLite(head) {
		return importViaTempFile(ctx, sink, actor, projectID, br, opts)
	}
	return run(ctx, sink, actor, projectID, opts, func(emit Emit) (*Report, error) {
		return Parse(ctx, br, opts, emit)
	})
}

// ImportFile is Import for a file on disk (any format, Hermes included).
func ImportFile(ctx context.Context, sink Sink, actor string, projectID int64, path string, opts Options) (*Result, error) {
	return run(ctx, sink, actor, projectID, opts, func(emit Emit) (*Report, error) {
		return ParseFile(ctx, path, opts, emit)
	})
}

func run(ctx context.Context, sink Sink, actor string, projectID int64, opts Options, parse func(Emit) (*Report, error)) (*Result, error) {
	res := &Result{}
	ir, err := sink.ImportStream(ctx, actor, projectID, func(emit func(*governance.Event) error) error {
		rep, err := parse(emit)
		if rep != nil {
			res.Report = *rep
		}
		return err
	})
	if err != nil {
		return res, err
	}
	res.Inserted, res.Skipped, res.SkippedIDs = ir.Inserted, ir.Skipped, ir.SkippedIDs
	return res, nil
}

// importViaTempFile copies a database upload to a temporary file, since
// SQLite reads files, not streams, and removes it afterwards.
func importViaTempFile(ctx context.Context, sink Sink, actor string, projectID int64, r io.Reader, opts Options) (*Result, error) {
	f, err := os.CreateTemp("", "mnemo-import-*.db")
	if err != nil {
		return nil, fmt.Errorf("transcript: temp file: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return nil, fmt.Errorf("transcript: copy upload: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("transcript: copy upload: %w", err)
	}
	opts.Format = FormatHermes
	if opts.Name == "" {
		opts.Name = "state.db"
	}
	return ImportFile(ctx, sink, actor, projectID, f.Name(), opts)
}
