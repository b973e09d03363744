package evalrow

import (
	"bytes"
	"io"
)

// A benchmark's data file too large to be a suite body is kept beside its
// suite in parts (the stores' eval_suite_data); these split it and read it
// back.

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
