package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mnemo-console/mnemo/governance"
)

// Problems a poll records for one file it does not read.
const (
	problemNotRegular = "not a regular file (a FIFO, socket or device); skipped"
	problemLeadsOut   = "a symbolic link that leads out of the followed directory; skipped"
)

// errOutsideRoots refuses a followed directory that no longer lies under a
// follow root (a directory on its path was replaced by a link since it
// was added).
var errOutsideRoots = errors.New("the directory no longer lies under a follow root")

// Within reports whether path lies in dir (or is dir); both are clean.
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// UnderRoot returns the root of roots that dir lies under once symbolic
// links are resolved ("" and false for none): a root that does not exist
// holds nothing.
func UnderRoot(dir string, roots []string) (string, bool) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	for _, root := range roots {
		r, err := filepath.EvalSymlinks(root)
		if err == nil && Within(r, real) {
			return r, true
		}
	}
	return "", false
}

// openDir opens the followed directory as an os.Root, so that every file
// of the poll is opened relative to it and no symbolic link, a file's or a
// directory's swapped in since, resolves outside it. A directory under a
// follow root (f.Roots) is opened through that root, so a directory on
// the path between the two that became a link cannot lead out either; a
// directory that lies under a root by its name but not once links are
// resolved is refused. It returns the directory's path with links
// resolved, which is where a database file is opened by name.
func (f *Follower) openDir() (*os.Root, string, error) {
	dir := filepath.Clean(f.Dir)
	if f.Roots != nil {
		if root, ok := UnderRoot(dir, f.Roots); ok {
			real, err := filepath.EvalSymlinks(dir)
			if err != nil {
				return nil, "", err
			}
			rel, err := filepath.Rel(root, real)
			if err != nil {
				return nil, "", err
			}
			r, err := os.OpenRoot(root)
			if err != nil {
				return nil, "", err
			}
			defer r.Close()
			d, err := r.OpenRoot(rel)
			return d, real, err
		}
		for _, root := range f.Roots {
			if Within(filepath.Clean(root), dir) {
				return nil, "", errOutsideRoots
			}
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, "", err
	}
	d, err := os.OpenRoot(real)
	return d, real, err
}

// openFollowed opens a followed file through the directory's root without
// blocking (a FIFO opens at once) and returns it if it is a regular file;
// otherwise it returns the problem that skips it.
func openFollowed(root *os.Root, rel string) (*os.File, governance.Text, error) {
	fh, err := root.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if isEscape(err) {
			return nil, governance.Say(problemLeadsOut), nil
		}
		return nil, governance.Text{ID: err.Error()}, nil
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, governance.Text{}, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, governance.Say(problemNotRegular), nil
	}
	return fh, governance.Text{}, nil
}

// isEscape reports whether an os.Root refused a path because it resolves
// outside the root.
func isEscape(err error) bool {
	var pe *os.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}

// realPath is where an open file lies, links resolved: the kernel's name
// for its descriptor where there is one, else its name resolved.
func realPath(fh *os.File, fallback string) (string, error) {
	if p, err := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fh.Fd()), 10)); err == nil && filepath.IsAbs(p) {
		return p, nil
	}
	p, err := filepath.EvalSymlinks(fallback)
	if err != nil {
		return "", fmt.Errorf("transcript: resolve %s: %w", fallback, err)
	}
	return p, nil
}
