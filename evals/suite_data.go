package evals

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

// A benchmark uploaded on the Benchmarks page that is too large to be a
// suite body (a LongMemEval file) is kept beside its suite: the body names
// it (Benchmark.Stored, its SHA-256) and lists its questions, and the
// store keeps the file, gzip-compressed, in parts of SuiteDataPart bytes
// (SuiteStore.UpsertEvalSuiteData), which a run reads back one part at a
// time (RunStore.OpenEvalSuiteData).

// SuiteDataPart is the size of the parts a stored data file is kept in.
const SuiteDataPart = 1 << 20

// WriteSuiteData reads a data file from r and hands it to put in parts of
// at most SuiteDataPart bytes, numbered from 0.
func WriteSuiteData(r io.Reader, put func(part int, b []byte) error) error {
	buf := make([]byte, SuiteDataPart)
	for part := 0; ; part++ {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if err := put(part, bytes.Clone(buf[:n])); err != nil {
				return err
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ReadSuiteData reads a stored data file of parts parts back, fetching
// each with get when the reader reaches it.
func ReadSuiteData(parts int, get func(part int) ([]byte, error)) io.ReadCloser {
	return &suiteData{parts: parts, get: get}
}

type suiteData struct {
	parts, next int
	get         func(int) ([]byte, error)
	buf         []byte
}

func (d *suiteData) Read(p []byte) (int, error) {
	for len(d.buf) == 0 {
		if d.next >= d.parts {
			return 0, io.EOF
		}
		b, err := d.get(d.next)
		if err != nil {
			return 0, err
		}
		d.buf, d.next = b, d.next+1
	}
	n := copy(p, d.buf)
	d.buf = d.buf[n:]
	return n, nil
}

func (d *suiteData) Close() error { return nil }

// storedData is how an uploaded file is kept: gzip-compressed (compressed
// here when it is not already), and its SHA-256 as the body names it.
func storedData(body []byte) ([]byte, string, error) {
	if !bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write(body); err != nil {
			return nil, "", err
		}
		if err := zw.Close(); err != nil {
			return nil, "", err
		}
		body = b.Bytes()
	}
	sum := sha256.Sum256(body)
	return body, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// errStoredChanged: the suite's data file was replaced after a run was
// queued.
func errStoredChanged(name string) error {
	return fmt.Errorf("the data file of suite %s changed after the run was queued; start a new run", name)
}
