package userland

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/debpkg"
)

// pkgTree is one fetched package: its unpacked files in the cache and the
// packages it depends on.
type pkgTree struct {
	pkg  debpkg.Package
	root string
	deps []string // Pre-Depends, then Depends; first alternatives
}

// packages are the fetched packages seen as the one tree they would make
// once installed: a path is looked up in each in fetch order, symlinks
// are followed across them, and nothing is ever read from the host's own
// root.
type packages struct {
	ctx      context.Context
	log      logrus.FieldLogger
	cacheDir string
	da       string
	list     []*pkgTree
	byName   map[string]*pkgTree
	failed   map[string]error
	shown    map[string]map[string]string // apt's fields, by name
}

// maxLookup bounds how many packages a search for one missing library
// may fetch, so that a library no dependency provides ends with an error
// rather than with half the archive in the cache.
const maxLookup = 64

// fetch returns the package called name, fetching it first.
func (ps *packages) fetch(name string) (*pkgTree, error) {
	if t := ps.byName[name]; t != nil {
		return t, nil
	}
	if err := ps.failed[name]; err != nil {
		return nil, err
	}
	t, err := ps.download(name)
	if err != nil {
		ps.failed[name] = err
		return nil, err
	}
	ps.list = append(ps.list, t)
	ps.byName[name] = t
	return t, nil
}

// show asks apt at once about those of names it was not asked about yet.
// With final, a name apt does not know fails for good: a dependency that
// is a purely virtual package. Without, fetch asks again through
// debpkg.Show, which fetches the package lists first when apt has none.
func (ps *packages) show(names []string, final bool) error {
	var ask []string
	for _, n := range names {
		if ps.byName[n] == nil && ps.shown[n] == nil && ps.failed[n] == nil && !slices.Contains(ask, n+":"+ps.da) {
			ask = append(ask, n+":"+ps.da)
		}
	}
	got, err := debpkg.ShowMany(ps.ctx, ps.cacheDir, ask)
	if err != nil {
		return err
	}
	for _, a := range ask {
		name, _, _ := strings.Cut(a, ":")
		if f := got[name]; f != nil {
			ps.shown[name] = f
		} else if final {
			ps.failed[name] = fmt.Errorf("apt knows no package %s", a)
		}
	}
	return nil
}

func (ps *packages) download(name string) (*pkgTree, error) {
	f := ps.shown[name]
	if f == nil {
		// Show runs apt-get update when apt knows no such package, as
		// on a machine that never fetched the package lists.
		var err error
		if f, err = debpkg.Show(ps.ctx, ps.log, ps.cacheDir, name+":"+ps.da); err != nil {
			return nil, err
		}
	}
	if f["Version"] == "" {
		return nil, fmt.Errorf("apt shows no version of %s:%s", name, ps.da)
	}
	arch := ps.da
	if f["Architecture"] == "all" {
		arch = "all"
	}
	p := debpkg.Package{Name: name, Version: f["Version"], Arch: arch}
	root, err := debpkg.Fetch(ps.ctx, ps.log, ps.cacheDir, p, nil)
	if err != nil {
		return nil, err
	}
	deps := append(dependsNames(f["Pre-Depends"]), dependsNames(f["Depends"])...)
	return &pkgTree{pkg: p, root: root, deps: deps}, nil
}

// lookup finds rel, a path without symlinks in its parents, in the first
// package that has it. It never follows a symlink: one that points
// outside the package would reach the host's files.
func (ps *packages) lookup(rel string) (*pkgTree, fs.FileInfo) {
	for _, t := range ps.list {
		if fi, err := lstatIn(t.root, rel); err == nil {
			return t, fi
		}
	}
	return nil, nil
}

// lstatIn is Lstat of root/rel that fails when a parent is anything but
// a directory.
func lstatIn(root, rel string) (fs.FileInfo, error) {
	parts := strings.Split(rel, "/")
	cur := root
	var fi fs.FileInfo
	for i, p := range parts {
		cur = filepath.Join(cur, p)
		var err error
		if fi, err = os.Lstat(cur); err != nil {
			return nil, err
		}
		if i < len(parts)-1 && !fi.IsDir() {
			return nil, fs.ErrNotExist
		}
	}
	return fi, nil
}

// errNotFound is a path that no fetched package has.
var errNotFound = errors.New("not in the fetched packages")

// resolve follows the symlinks in rel (relative to the root) through the
// packages and returns the real path it names and the symlinks met at
// the end of the path on the way there, in order: for
// lib64/ld-linux-x86-64.so.2 that is the link itself, and the real path
// lib/x86_64-linux-gnu/ld-linux-x86-64.so.2.
func (ps *packages) resolve(rel string) (final string, links []string, err error) {
	parts := splitPath(rel)
	done, hops := "", 0
	for len(parts) > 0 {
		next := path.Join(done, parts[0])
		parts = parts[1:]
		t, fi := ps.lookup(next)
		switch {
		case t == nil:
			return "", nil, fmt.Errorf("/%s: %w", next, errNotFound)
		case fi.Mode()&fs.ModeSymlink != 0:
			if hops++; hops > 40 {
				return "", nil, fmt.Errorf("/%s: too many levels of symbolic links", rel)
			}
			target, err := os.Readlink(filepath.Join(t.root, next))
			if err != nil {
				return "", nil, err
			}
			if len(parts) == 0 {
				links = append(links, next)
			}
			if !path.IsAbs(target) {
				target = path.Join("/", done, target)
			}
			// Cleaning an absolute path stops ".." at the root, as the
			// kernel does.
			parts = append(splitPath(path.Clean(target)), parts...)
			done = ""
		case len(parts) > 0 && !fi.IsDir():
			return "", nil, fmt.Errorf("/%s is not a directory: %w", next, errNotFound)
		default:
			done = next
		}
	}
	if done == "" {
		return "", nil, fmt.Errorf("/%s names the root directory", rel)
	}
	return done, links, nil
}

func splitPath(p string) []string {
	var parts []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			parts = append(parts, s)
		}
	}
	return parts
}

// search looks for something a file of package from needs (look says
// whether the packages fetched so far provide it) and fetches packages
// until it appears: first the one named first, when from depends on it
// (the library's package by Debian's naming policy), then from's
// dependencies breadth first. It returns look's answer.
func (ps *packages) search(from *pkgTree, first string, look func() (string, bool, error)) (string, error) {
	if got, ok, err := look(); ok || err != nil {
		return got, err
	}
	queue := []string{}
	if first != "" && slices.Contains(from.deps, first) {
		queue = append(queue, first)
	}
	queue = append(queue, from.deps...)
	seen := map[string]bool{}
	fetched := 0
	for i := 0; i < len(queue) && fetched < maxLookup; i++ {
		name := queue[i]
		if seen[name] {
			continue
		}
		seen[name] = true
		if ps.byName[name] == nil && ps.shown[name] == nil && ps.failed[name] == nil {
			// One apt call for the rest of the queue, which is mostly
			// this level of the dependencies.
			if err := ps.show(queue[i:], true); err != nil {
				return "", err
			}
		}
		fresh := ps.byName[name] == nil
		t, err := ps.fetch(name)
		if err != nil {
			if errors.Is(err, debpkg.ErrUnreachable) || ps.ctx.Err() != nil {
				return "", err
			}
			// A virtual package, or one apt cannot offer: its
			// alternatives may still be found elsewhere.
			ps.log.Debugf("skipping dependency %s of %s: %v", name, from.pkg.Name, err)
			continue
		}
		queue = append(queue, t.deps...)
		if !fresh {
			continue
		}
		fetched++
		if got, ok, err := look(); ok || err != nil {
			return got, err
		}
	}
	return "", errNotFound
}
