// Package static embeds the console's CSS and JavaScript (htmx 2 and Pico CSS
// 2, vendored from npm, plus app.css) and serves them with a cache-busting
// version query.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"sort"
	"strings"
)

//go:embed *.css *.js *.svg
var files embed.FS

// FS is the embedded asset tree.
var FS fs.FS = files

// Version is a hash of every embedded file; it changes whenever an asset
// does, so browsers may cache versioned URLs forever.
var Version = func() string {
	names, _ := fs.Glob(files, "*")
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, _ := files.ReadFile(n)
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}()

// Prefix is the URL path under which assets are served.
const Prefix = "/static/"

// Path returns the versioned URL of an asset, e.g. /static/htmx.min.js?v=….
func Path(name string) string {
	return Prefix + name + "?v=" + Version
}

// Handler serves the assets under Prefix. A request carrying the current
// version is cached for a year; anything else must revalidate.
func Handler() http.Handler {
	fileServer := http.StripPrefix(Prefix, http.FileServer(http.FS(files)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		if r.URL.Query().Get("v") == Version {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		fileServer.ServeHTTP(w, r)
	})
}
