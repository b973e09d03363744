package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strconv"
	"sync"
)

// codeVersion counts changes to what the gate's Go code finds or masks
// (the entropy test of a bare token, the readings of normalisation):
// bump it with such a change. Changes to the pattern files need no bump,
// Version digests them.
const codeVersion = 1

// Version names what the gate finds and masks: its code version and a
// digest of its pattern files. Work done once with the gate (the masking
// of stored skill versions at start) is redone when it changes, and only
// then.
var Version = sync.OnceValue(func() string {
	h := sha256.New()
	err := fs.WalkDir(patternFiles, "patterns", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := patternFiles.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path + "\x00"))
		h.Write(data)
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		panic(err)
	}
	return strconv.Itoa(codeVersion) + "-" + hex.EncodeToString(h.Sum(nil))[:16]
})
