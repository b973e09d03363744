package evals

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/mnemo-console/mnemo/governance/evalrow"
)

// A benchmark uploaded on the Benchmarks page that is too large to be a
// suite body (a LongMemEval file) is kept beside its suite: the body names
// it (Benchmark.Stored, its SHA-256) and lists its questions, and the
// store keeps the file, gzip-compressed, in parts of SuiteDataPart bytes
// (SuiteStore.UpsertEvalSuiteData), which a run reads back one part at a
// time (RunStore.OpenEvalSuiteData).

// SuiteDataPart is the size of the parts a stored data file is kept in.
const SuiteDataPart = evalrow.SuiteDataPart

// WriteSuiteData is evalrow.WriteSuiteData: the stores keep the parts.
func WriteSuiteData(r io.Reader, put func(part int, b []byte) error) error {
	return evalrow.WriteSuiteData(r, put)
}

// ReadSuiteData is evalrow.ReadSuiteData.
func ReadSuiteData(parts int, get func(part int) ([]byte, error)) io.ReadCloser {
	return evalrow.ReadSuiteData(parts, get)
}

// storedFile is how an uploaded file is kept: gzip-compressed (through a
// temporary file when it is not already), with its SHA-256 as the suite's
// body names it. The file is read from open, a buffer at a time, twice
// when already compressed (once for the sum, once to store it). Close
// removes the temporary file.
func storedFile(open func() (io.ReadCloser, error)) (*stored, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		h := sha256.New()
		_, err := io.Copy(h, br)
		rc.Close()
		if err != nil {
			return nil, err
		}
		again, err := open()
		if err != nil {
			return nil, err
		}
		return &stored{ReadCloser: again, sum: "sha256:" + hex.EncodeToString(h.Sum(nil))}, nil
	}
	defer rc.Close()
	tmp, err := os.CreateTemp("", "mnemo-benchmark-*.json.gz")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*stored, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	h := sha256.New()
	zw := gzip.NewWriter(io.MultiWriter(tmp, h))
	if _, err := io.Copy(zw, br); err != nil {
		return fail(err)
	}
	if err := zw.Close(); err != nil {
		return fail(err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	return &stored{ReadCloser: tmp, sum: "sha256:" + hex.EncodeToString(h.Sum(nil)), temp: tmp.Name()}, nil
}

// stored reads a file as it is kept; sum is its SHA-256.
type stored struct {
	io.ReadCloser
	sum  string
	temp string // removed on Close
}

func (s *stored) Close() error {
	err := s.ReadCloser.Close()
	if s.temp != "" {
		os.Remove(s.temp)
	}
	return err
}

// errStoredChanged: the suite's data file was replaced after a run was
// queued.
func errStoredChanged(name string) error {
	return fmt.Errorf("the data file of suite %s changed after the run was queued; start a new run", name)
}
