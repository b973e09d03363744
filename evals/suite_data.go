package evals

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

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
