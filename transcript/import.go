package transcript

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sync"

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
		rep, err := pipe(ctx, parse, emit)
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
// SQLite reads files, not streams, and removes it afterwards. The upload
// comes from outside (an API token, an admin's browser): the copy is
// marked as a rollback-journal database, so that reading it read-only
// creates no -wal or -shm file beside it (an upload has no log: all of it
// is in the file). Like every whole Hermes import, it must pass SQLite's
// quick_check before a row is read (parseHermes).
func importViaTempFile(ctx context.Context, sink Sink, actor string, projectID int64, r io.Reader, opts Options) (*Result, error) {
	f, err := os.CreateTemp("", "mnemo-import-*.db")
	if err != nil {
		return nil, fmt.Errorf("transcript: temp file: %w", err)
	}
	defer func() {
		for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
			os.Remove(f.Name() + suffix)
		}
	}()
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return nil, fmt.Errorf("transcript: copy upload: %w", err)
	}
	if err := markRollbackJournal(f); err != nil {
		f.Close()
		return nil, err
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

// Pipelining: events travel from the parser to the store in batches of
// pipeBatch, at most pipeDepth batches ahead of the store.
const (
	pipeBatch = 256
	pipeDepth = 4
)

// pipe runs parse in a goroutine of its own and hands its events to store
// in file order, so decoding the next lines overlaps with writing the last
// ones (the store's transaction stays on the calling goroutine). At most
// pipeBatch×(pipeDepth+2) events are in flight, so memory stays bounded.
// A store error stops the parse; a parse error is returned after every
// event emitted before it was stored (the caller's transaction then rolls
// them back, as it would without the pipe).
func pipe(ctx context.Context, parse func(Emit) (*Report, error), store Emit) (*Report, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []*governance.Event, pipeDepth)
	var (
		rep  *Report
		perr error
		wg   sync.WaitGroup
	)
	wg.Go(func() {
		defer close(batches)
		batch := make([]*governance.Event, 0, pipeBatch)
		send := func() error {
			select {
			case batches <- batch:
				batch = make([]*governance.Event, 0, pipeBatch)
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		rep, perr = parse(func(e *governance.Event) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			batch = append(batch, e)
			if len(batch) == pipeBatch {
				return send()
			}
			return nil
		})
		if len(batch) > 0 {
			if err := send(); err != nil && perr == nil {
				perr = err
			}
		}
	})
	var serr error
	for b := range batches {
		for _, e := range b {
			if serr != nil {
				break // drain what is in flight; the parse is stopping
			}
			if serr = store(e); serr != nil {
				cancel()
			}
		}
	}
	wg.Wait()
	if serr != nil {
		return rep, serr
	}
	return rep, perr
}
