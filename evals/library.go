package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// SuiteStore is the part of the store that keeps suites and queues runs;
// *store.Store satisfies it.
type SuiteStore interface {
	UpsertEvalSuite(ctx context.Context, s *SuiteRow, actor string) error
	// UpsertEvalSuiteData is UpsertEvalSuite for a suite whose benchmark
	// file is kept beside it (suite_data.go): when the body changes, the
	// file read from data replaces the earlier one in the same step.
	UpsertEvalSuiteData(ctx context.Context, s *SuiteRow, data io.Reader, actor string) error
	FindEvalSuites(ctx context.Context) ([]*SuiteRow, error)
	FindEvalSuiteByID(ctx context.Context, id int64) (*SuiteRow, error)
	FindEvalSuiteByName(ctx context.Context, name string) (*SuiteRow, error)
	CreateEvalRun(ctx context.Context, run *RunRow) error
}

// SuiteInfo describes a stored suite for lists.
type SuiteInfo struct {
	ID          int64
	Name        string
	Origin      string
	Description string
	Cases       int
	Kinds       map[Kind]int
	Benchmark   bool
	// Format is a benchmark's data format.
	Format string
	// Problem is set when the stored body no longer validates; ProblemText
	// is the same as its formats and values.
	Problem     string
	ProblemText governance.Text
	UpdatedAt   time.Time
}

// KindList names the kinds with their counts, e.g. "2 recall, 1 ab".
func (s *SuiteInfo) KindList() string {
	var parts []string
	for _, k := range append(slices.Clone(Kinds), KindBenchmark) {
		if n := s.Kinds[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

// List names every stored suite, built-in first.
func List(ctx context.Context, st SuiteStore) ([]*SuiteInfo, error) {
	rows, err := st.FindEvalSuites(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*SuiteInfo, 0, len(rows))
	for _, row := range rows {
		out = append(out, Describe(row))
	}
	return out, nil
}

// Describe parses a stored suite for display.
func Describe(row *SuiteRow) *SuiteInfo {
	info := &SuiteInfo{ID: row.ID, Name: row.Name, Origin: row.Origin, UpdatedAt: row.UpdatedAt}
	s, err := ParseSuite(row.Name+".yaml", []byte(row.Body))
	if err != nil {
		info.Problem, info.ProblemText = err.Error(), governance.Text{ID: err.Error()}
		if ve, ok := IsValidation(err); ok {
			info.ProblemText = ve.Sentence()
		}
		return info
	}
	info.Description, info.Kinds, info.Benchmark = s.Description, s.KindCounts(), s.Benchmark != nil
	if s.Benchmark != nil {
		info.Format = s.Benchmark.Format
	}
	info.Cases = len(s.CaseIDs())
	return info
}

// InstallBuiltins stores the built-in suites (file name → YAML), replacing
// older versions of them. A built-in that does not validate is an error.
func InstallBuiltins(ctx context.Context, st SuiteStore, files map[string][]byte) error {
	names := slices.Sorted(mapKeys(files))
	for _, name := range names {
		s, err := ParseSuite(name, files[name])
		if err != nil {
			return fmt.Errorf("evals: built-in suite: %w", err)
		}
		if err := st.UpsertEvalSuite(ctx, &SuiteRow{Name: s.Name, Origin: OriginBuiltin, Body: string(files[name])}, "system"); err != nil {
			return fmt.Errorf("evals: install built-in suite %s: %w", s.Name, err)
		}
	}
	return nil
}

// Upload validates an uploaded suite (YAML, or a LoCoMo JSON file) and
// stores it under its name. Invalid files return a *ValidationError.
func Upload(ctx context.Context, st SuiteStore, filename string, body []byte, actor string) (*SuiteRow, error) {
	s, err := ParseSuite(filename, body)
	if err != nil {
		return nil, err
	}
	return Save(ctx, st, s, filename, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }, actor)
}

// Save stores suite s, parsed from filename, which open reads again
// (ParseSuiteFrom): a LongMemEval file is kept beside its suite,
// gzip-compressed, streamed from open to the store (compressed through a
// temporary file when it is not already), never held whole.
func Save(ctx context.Context, st SuiteStore, s *Suite, filename string, open func() (io.ReadCloser, error), actor string) (*SuiteRow, error) {
	var (
		stored []byte
		data   io.Reader
	)
	if b := s.Benchmark; b != nil && b.Format == FormatLongMemEval && b.Data == "" && b.open != nil {
		// The file is kept beside the suite, which names it and lists
		// its questions.
		f, err := storedFile(open)
		if err != nil {
			return nil, fmt.Errorf("evals: compress benchmark file: %w", err)
		}
		defer f.Close()
		data, b.Stored = f, f.sum
		b.File, b.open = "", nil
	}
	if yaml := strings.HasSuffix(strings.ToLower(filename), ".yaml") || strings.HasSuffix(strings.ToLower(filename), ".yml"); data != nil || (s.Benchmark != nil && !yaml) {
		var err error
		if stored, err = s.Marshal(); err != nil {
			return nil, fmt.Errorf("evals: encode benchmark suite: %w", err)
		}
	} else {
		body, err := readHead(open, MaxSuiteBytes+1)
		if err != nil {
			return nil, err
		}
		stored = body
	}
	row := &SuiteRow{Name: s.Name, Origin: OriginUploaded, Body: string(stored)}
	var err error
	if data != nil {
		err = st.UpsertEvalSuiteData(ctx, row, data, actor)
	} else {
		err = st.UpsertEvalSuite(ctx, row, actor)
	}
	if err != nil {
		return nil, err
	}
	return row, nil
}

// maxSnapshot is the largest suite body copied into a run's summary.
const maxSnapshot = 256 << 10

// Enqueue queues a run of a stored suite; the runner picks it up (nudge it
// to start at once). The suite is validated and snapshotted first.
func Enqueue(ctx context.Context, st SuiteStore, suiteID int64, actor string) (*RunRow, error) {
	row, err := st.FindEvalSuiteByID(ctx, suiteID)
	if err != nil {
		return nil, err
	}
	s, err := ParseSuite(row.Name+".yaml", []byte(row.Body))
	if err != nil {
		return nil, governance.Errorf(governance.EINVALID, "Suite %s is not valid: %v", row.Name, err)
	}
	sum := RunSummary{SuiteSHA256: bodyHash(row.Body)}
	if len(row.Body) <= maxSnapshot {
		sum.SuiteYAML = row.Body
	}
	body, _ := json.Marshal(sum)
	run := &RunRow{SuiteID: row.ID, Total: len(s.CaseIDs()), CreatedBy: actor, Summary: string(body), Reads: s.LiveProjects()}
	if err := st.CreateEvalRun(ctx, run); err != nil {
		return nil, err
	}
	return run, nil
}

// Find loads a suite by file path or, when no such file exists, by name
// from the store (the CLI's "eval run NAME|FILE").
func Find(ctx context.Context, st SuiteStore, nameOrFile string) (*Suite, error) {
	if fi, err := os.Stat(nameOrFile); err == nil && !fi.IsDir() {
		return LoadSuiteFile(nameOrFile)
	}
	row, err := st.FindEvalSuiteByName(ctx, nameOrFile)
	if err != nil {
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			return nil, fmt.Errorf("no suite file or stored suite named %q (see \"console eval list\")", nameOrFile)
		}
		return nil, err
	}
	return ParseSuite(row.Name+".yaml", []byte(row.Body))
}

// IsValidation reports whether err is a suite validation error and returns it.
func IsValidation(err error) (*ValidationError, bool) {
	var ve *ValidationError
	ok := errors.As(err, &ve)
	return ve, ok
}

// LiveProjects lists the slugs of the live projects a suite reads: the
// projects of its cases when it uses the live project, and the projects it
// copies events from. Viewing or running such a suite needs access to them.
func (s *Suite) LiveProjects() []string {
	var out []string
	add := func(slug string) {
		if slug != "" && !slices.Contains(out, slug) {
			out = append(out, slug)
		}
	}
	for _, slug := range s.Fixtures.CopyEvents {
		add(slug)
	}
	if s.Fixtures.UseLiveProject {
		add(s.Project)
		for _, c := range s.Cases {
			if readsShared(c.Kind) {
				add(cmpOr(c.Project, s.Project))
			}
			if c.Foreign != nil {
				add(c.Foreign.Project)
			}
		}
	}
	slices.Sort(out)
	return out
}

// LiveProjectsOf lists the live projects a stored suite body reads, from the
// suite as ParseSuite decodes it — never from a look at the raw text, which
// YAML escapes ("use\x5flive\x5fproject"), anchors or flow style would
// fool. A body that does not parse names the unknown project "?", which no
// reviewer has: only admins may see it.
func LiveProjectsOf(body string) []string {
	if strings.HasPrefix(strings.TrimSpace(body), "[") {
		// ParseSuite reads any such body as a benchmark (a LoCoMo file,
		// possibly megabytes), which has scratch fixtures only.
		return nil
	}
	s, err := ParseSuite("stored.yaml", []byte(body))
	if err != nil {
		return []string{"?"}
	}
	return s.LiveProjects()
}
