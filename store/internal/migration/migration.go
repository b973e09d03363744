// Package migration is what both stores decide about their numbered SQL
// migrations besides running them: each file's checksum, and whether the
// migrations a database applied are still the ones this version ships. A
// shipped migration is never edited or renumbered (a change goes into a
// new one); a database whose record says otherwise is refused at start,
// before anything is applied, with the file named.
package migration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// File is one shipped migration.
type File struct {
	// Name is its path in the embedded file system, as the database
	// records it ("migrations/0001_init.sql").
	Name string
	Body []byte
	// Sum is Checksum(Body).
	Sum string
}

// Checksum is the SHA-256 of a migration's text with its line ends made
// "\n", so a checkout that writes "\r\n" does not change it.
func Checksum(body []byte) string {
	sum := sha256.Sum256(bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n")))
	return hex.EncodeToString(sum[:])
}

// Files returns the files of fsys matching glob, sorted by name, with
// their checksums.
func Files(fsys fs.FS, glob string) ([]File, error) {
	names, err := fs.Glob(fsys, glob)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]File, 0, len(names))
	for _, name := range names {
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, File{Name: name, Body: body, Sum: Checksum(body)})
	}
	return out, nil
}

// Check compares what a database applied (name → recorded checksum, ""
// for a migration applied before checksums were recorded) with the
// shipped files. It returns the applied files whose checksum is to be
// recorded now (those with none), or an error naming the first migration
// that was edited after it was applied, or that the database applied but
// this version does not ship (renamed, renumbered or removed; or a
// database of a newer version).
func Check(applied map[string]string, shipped []File) (record []File, err error) {
	byName := make(map[string]File, len(shipped))
	for _, f := range shipped {
		byName[f.Name] = f
	}
	names := make([]string, 0, len(applied))
	for name := range applied {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		sum := applied[name]
		f, ok := byName[name]
		switch {
		case !ok:
			for _, g := range shipped {
				if _, done := applied[g.Name]; !done && sum != "" && g.Sum == sum {
					return nil, fmt.Errorf("migration %s, which this database applied, is shipped renamed as %s: "+
						"a shipped migration keeps its name; give it back its name", name, g.Name)
				}
			}
			return nil, fmt.Errorf("this database applied migration %s, which this version does not ship "+
				"(renamed, renumbered or removed, or the database belongs to a newer version)", name)
		case sum == "":
			record = append(record, f)
		case sum != f.Sum:
			return nil, fmt.Errorf("migration %s was changed after this database applied it "+
				"(checksum %s when applied, %s now): a shipped migration is never edited; restore it and put the change in a new migration",
				name, short(sum), short(f.Sum))
		}
	}
	return record, nil
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return strings.TrimSpace(sum)
}
