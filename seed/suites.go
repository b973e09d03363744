package seed

import (
	"embed"
	"io/fs"
	"path"
)

//go:embed suites/*.yaml
var suitesFS embed.FS

// BuiltinSuites returns the built-in eval suites, file name → YAML. They are
// installed into the database at start (evals.InstallBuiltins) and listed
// next to uploaded suites.
func BuiltinSuites() map[string][]byte {
	out := map[string][]byte{}
	names, _ := fs.Glob(suitesFS, "suites/*.yaml")
	for _, name := range names {
		body, err := suitesFS.ReadFile(name)
		if err == nil {
			out[path.Base(name)] = body
		}
	}
	return out
}
