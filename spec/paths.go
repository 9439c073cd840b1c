package spec

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// resolver turns paths written in a spec into host paths. Relative paths
// count from the spec's directory and must stay inside it; absolute paths
// must lie inside the spec's directory or one of the extra roots the caller
// allows (such as Buildroot's BINARIES_DIR). Symlinks are followed before
// the check, so a link cannot lead a spec out of its roots.
//
// It also carries how the spec is loaded: planning (Options.Planning),
// where a missing input is recorded as pending instead of refused, and
// noPayload (Options.NoPayload).
type resolver struct {
	specDir string
	roots   []string // cleaned, absolute, symlinks resolved

	planning, noPayload bool
	pending             map[string]Pending // by position and path
}

// errPending is source's answer, planning, for an input that does not
// exist yet.
var errPending = errors.New("the build provides it")

func newResolver(specDir string, extra []string) (*resolver, error) {
	r := &resolver{specDir: specDir}
	for _, dir := range append([]string{specDir}, extra...) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		r.roots = append(r.roots, abs)
	}
	return r, nil
}

// source resolves a host input path and checks that it exists with the
// wanted kind ("file", "dir", or "entry" for either). The returned path is the one to open;
// the caller records the path as written.
func (r *resolver) source(p, kind string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("the path is empty")
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(r.specDir, p)
	}
	abs, err := filepath.Abs(full)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if !os.IsNotExist(err) {
			return "", err
		}
		if !r.planning {
			return "", fmt.Errorf("%s does not exist", p)
		}
		// Planning: the path must still lead inside the roots, as far as
		// it exists.
		if !r.inside(realPrefix(abs)) {
			return "", fmt.Errorf("%s lies outside %s; add its directory with -root DIR if it is meant to be read", p, r.describeRoots())
		}
		return abs, errPending
	}
	if !r.inside(real) {
		return "", fmt.Errorf("%s lies outside %s; add its directory with -root DIR if it is meant to be read", p, r.describeRoots())
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	switch {
	case kind == "dir" && !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", p)
	case kind == "file" && !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file", p)
	case kind == "entry" && !fi.Mode().IsRegular() && !fi.IsDir():
		return "", fmt.Errorf("%s is neither a regular file nor a directory", p)
	}
	return real, nil
}

func (r *resolver) describeRoots() string {
	if len(r.roots) > 1 {
		return "the spec's directory and the -root directories"
	}
	return "the spec's directory"
}

// realPrefix resolves the symlinks of the longest part of abs that
// exists, and appends the rest: where abs will be once it is made.
func realPrefix(abs string) string {
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// addPending records an input the build provides.
func (r *resolver) addPending(p Pending) {
	if r.pending == nil {
		r.pending = map[string]Pending{}
	}
	key := fmt.Sprintf("%s:%d:%d\x00%s", p.At.Filename, p.At.Start.Line, p.At.Start.Column, p.Path)
	r.pending[key] = p
}

// pendingInputs are the recorded inputs, sorted by position.
func (r *resolver) pendingInputs() []Pending {
	out := make([]Pending, 0, len(r.pending))
	for _, p := range r.pending {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].At, out[j].At
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Start.Byte != b.Start.Byte {
			return a.Start.Byte < b.Start.Byte
		}
		return out[i].Path < out[j].Path
	})
	return out
}

func (r *resolver) inside(p string) bool {
	for _, root := range r.roots {
		rel, err := filepath.Rel(root, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// targetPath checks a path inside a filesystem being built: absolute,
// already clean, not the root itself.
func targetPath(p string) error {
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%q must be an absolute path inside the filesystem, such as /etc/fstab", p)
	}
	if path.Clean(p) != p {
		return fmt.Errorf("%q is not a clean path (no //, /./, /../ or trailing slash); write %q", p, path.Clean(p))
	}
	if p == "/" {
		return fmt.Errorf("%q names the filesystem's root, not a file", p)
	}
	if len(p) >= 4096 {
		return fmt.Errorf("is %d bytes long; Linux takes paths up to 4095 (PATH_MAX)", len(p))
	}
	for _, c := range strings.Split(p[1:], "/") {
		if len(c) > 255 {
			return fmt.Errorf("has a name of %d bytes (%.20q...); Linux filesystems take names up to 255 (NAME_MAX)", len(c), c)
		}
	}
	return nil
}
