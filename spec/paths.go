package spec

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// resolver turns paths written in a spec into host paths. Relative paths
// count from the spec's directory and must stay inside it; absolute paths
// must lie inside the spec's directory or one of the extra roots the caller
// allows (such as Buildroot's BINARIES_DIR). Symlinks are followed before
// the check, so a link cannot lead a spec out of its roots.
type resolver struct {
	specDir string
	roots   []string // cleaned, absolute, symlinks resolved
}

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
// wanted kind ("file" or "dir"). The returned path is the one to open;
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
		if os.IsNotExist(err) {
			return "", fmt.Errorf("%s does not exist", p)
		}
		return "", err
	}
	if !r.inside(real) {
		where := "the spec's directory"
		if len(r.roots) > 1 {
			where += " and the -root directories"
		}
		return "", fmt.Errorf("%s lies outside %s; add its directory with -root DIR if it is meant to be read", p, where)
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
	}
	return real, nil
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
	return nil
}
