package userland

import (
	"archive/tar"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/wire/arch"
)

// entry is one file or symlink of the tools layer.
type entry struct {
	typ  byte   // tar.TypeReg or tar.TypeSymlink
	src  string // a regular file's data in the cache
	mode int64
	link string
	// final is a symlink's real target, relative to the root: where the
	// link is pointed when its own text does not resolve in the layer.
	final string
	pkg   *pkgTree
}

// layerBuilder collects the layer's entries from the fetched packages.
type layerBuilder struct {
	ps      *packages
	arch    arch.Arch
	entries map[string]*entry // by path relative to the root
	used    map[string]debpkg.Package
	scan    []string          // regular files still to read as ELF
	interps map[string]string // PT_INTERP (relative) -> the loader's real path
}

// addPrograms adds each program from its package and the data files it
// reads, and returns where each is.
func (b *layerBuilder) addPrograms(names []string) (map[string]string, error) {
	type found struct {
		rel, final string
		links      []string
	}
	var progs []found
	direct := map[string]bool{}
	var pkgs []string
	for _, name := range names {
		pkg, _ := ToolPackage(name)
		pkgs = append(pkgs, pkg)
	}
	if err := b.ps.show(pkgs, false); err != nil {
		return nil, err
	}
	for _, name := range names {
		pkg, _ := ToolPackage(name)
		t, err := b.ps.fetch(pkg)
		if err != nil {
			return nil, err
		}
		rel := ""
		for _, dir := range programDirs() {
			if _, err := lstatIn(t.root, dir+"/"+name); err == nil {
				rel = dir + "/" + name
				break
			}
		}
		if rel == "" {
			return nil, fmt.Errorf("%s has no %s in %s", t.pkg, name, strings.ReplaceAll(Path, ":", ", "))
		}
		final, links, err := b.ps.resolve(rel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		progs = append(progs, found{rel, final, links})
		if len(links) == 0 {
			direct[rel] = true
		}
	}
	where := map[string]string{}
	for i, p := range progs {
		var err error
		switch {
		case len(p.links) == 0:
			err = b.addReal(p.final, p.final)
		case direct[p.final]:
			// mkfs.ext4 -> mke2fs with mke2fs asked for too: keep the
			// package's link.
			for _, l := range p.links {
				if err = b.addLink(l, p.final); err != nil {
					break
				}
			}
		default:
			// The link's target is not wanted on its own: the program
			// takes its place. These programs read their name from
			// argv[0], which a copy keeps.
			err = b.addReal(p.final, p.rel)
		}
		if err != nil {
			return nil, err
		}
		where[names[i]] = "/" + p.rel
		for _, d := range toolData(names[i]) {
			if _, err := b.addPath(d); err != nil {
				return nil, fmt.Errorf("%s reads /%s: %w", names[i], d, err)
			}
		}
	}
	return where, nil
}

// addLibraries reads every ELF file of the layer, including the libraries
// it adds on the way, and adds the loader and the libraries each names.
func (b *layerBuilder) addLibraries() error {
	for i := 0; i < len(b.scan); i++ {
		at := b.scan[i]
		e := b.entries[at]
		deps, err := readELF(e.src, at, b.arch)
		if err != nil {
			return fmt.Errorf("%s: %w", e.pkg.pkg, err)
		}
		if deps == nil {
			continue
		}
		for _, so := range deps.needed {
			if err := b.addLib(at, e.pkg, so, deps.runpath); err != nil {
				return err
			}
		}
		if deps.interp != "" {
			if err := b.addInterp(at, e.pkg, deps.interp); err != nil {
				return err
			}
		}
	}
	return nil
}

// addLib adds the library soname that the file at needs, looked up as the
// loader looks it up: DT_RUNPATH, then Debian's library directories.
func (b *layerBuilder) addLib(at string, from *pkgTree, soname string, runpath []string) error {
	dirs := append(append([]string(nil), runpath...), libDirs(b.arch)...)
	look := func() (string, bool, error) {
		for _, dir := range dirs {
			rel := path.Join(dir, soname)
			if _, _, err := b.ps.resolve(rel); errors.Is(err, errNotFound) {
				continue
			} else if err != nil {
				return "", false, err
			}
			final, err := b.addPath(rel)
			return final, true, err
		}
		return "", false, nil
	}
	_, err := b.ps.search(from, sonamePackage(soname), look)
	if errors.Is(err, errNotFound) {
		return fmt.Errorf("/%s needs %s, and neither %s nor its dependencies provide it in /%s",
			at, soname, from.pkg, strings.Join(dirs, ", /"))
	}
	return err
}

// addInterp adds the dynamic loader the file at names. A package may
// install it elsewhere than that path (a merged-/usr libc6 has
// /usr/lib64/ld-linux-x86-64.so.2 and leaves /lib64 to base-files'
// symlink); then it is looked up by name in the library directories, and
// settle links the path to it.
func (b *layerBuilder) addInterp(at string, from *pkgTree, interp string) error {
	rel := strings.TrimPrefix(path.Clean(interp), "/")
	if _, ok := b.interps[rel]; ok {
		return nil
	}
	look := func() (string, bool, error) {
		cands := []string{rel}
		for _, dir := range libDirs(b.arch) {
			cands = append(cands, path.Join(dir, path.Base(rel)))
		}
		for _, c := range cands {
			if _, _, err := b.ps.resolve(c); errors.Is(err, errNotFound) {
				continue
			} else if err != nil {
				return "", false, err
			}
			final, err := b.addPath(c)
			return final, true, err
		}
		return "", false, nil
	}
	final, err := b.ps.search(from, "", look)
	if errors.Is(err, errNotFound) {
		return fmt.Errorf("/%s needs the loader %s, and neither %s nor its dependencies provide it", at, interp, from.pkg)
	}
	if err != nil {
		return err
	}
	b.interps[rel] = final
	return nil
}

// addPath adds rel with the symlinks at its end as the packages have them,
// and the file they lead to, and returns that file's real path.
func (b *layerBuilder) addPath(rel string) (string, error) {
	final, links, err := b.ps.resolve(rel)
	if err != nil {
		return "", err
	}
	for _, l := range links {
		if err := b.addLink(l, final); err != nil {
			return "", err
		}
	}
	return final, b.addReal(final, final)
}

// addReal adds the regular file at real path rel of the packages, at path
// at of the layer, and queues it for the ELF scan. Modes are reduced to
// 0755 and 0644, so that the host's umask when the cache was filled does
// not reach the image.
func (b *layerBuilder) addReal(rel, at string) error {
	if _, ok := b.entries[at]; ok {
		return nil
	}
	t, fi := b.ps.lookup(rel)
	if t == nil {
		return fmt.Errorf("/%s: %w", rel, errNotFound)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("/%s in %s is not a regular file", rel, t.pkg)
	}
	mode := int64(0o644)
	if fi.Mode()&0o111 != 0 {
		mode = 0o755
	}
	b.entries[at] = &entry{typ: tar.TypeReg, src: filepath.Join(t.root, rel), mode: mode, pkg: t}
	b.used[t.pkg.Name] = t.pkg
	b.scan = append(b.scan, at)
	return nil
}

// addLink adds the symlink rel as its package has it.
func (b *layerBuilder) addLink(rel, final string) error {
	if _, ok := b.entries[rel]; ok {
		return nil
	}
	t, _ := b.ps.lookup(rel)
	if t == nil {
		return fmt.Errorf("/%s: %w", rel, errNotFound)
	}
	target, err := os.Readlink(filepath.Join(t.root, rel))
	if err != nil {
		return err
	}
	b.entries[rel] = &entry{typ: tar.TypeSymlink, link: target, final: final, pkg: t}
	b.used[t.pkg.Name] = t.pkg
	return nil
}

// settle makes the layer's paths resolve by themselves, once extracted
// over the busybox userland, whose bin, sbin, usr/bin and usr/sbin are
// plain directories: a symlink whose text went through a directory link
// of the packages points at its real target instead, and each loader path
// the programs name leads to the loader.
func (b *layerBuilder) settle(progs map[string]string) error {
	for _, p := range slices.Sorted(maps.Keys(b.entries)) {
		if e := b.entries[p]; e.typ == tar.TypeSymlink && b.resolveInLayer(p) != e.final {
			e.link = "/" + e.final
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(b.interps)) {
		final := b.interps[rel]
		if b.resolveInLayer(rel) == final {
			continue
		}
		if _, ok := b.entries[rel]; ok {
			return fmt.Errorf("/%s is in the layer but does not lead to the loader /%s", rel, final)
		}
		b.entries[rel] = &entry{typ: tar.TypeSymlink, link: "/" + final, final: final}
	}
	dirs := parentDirs(b.entries)
	for _, p := range slices.Sorted(maps.Keys(b.entries)) {
		if dirs[p] {
			return fmt.Errorf("/%s is both a file and a directory of the layer", p)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(progs)) {
		if b.resolveInLayer(strings.TrimPrefix(progs[name], "/")) == "" {
			return fmt.Errorf("%s at %s does not resolve in the layer", name, progs[name])
		}
	}
	return nil
}

// resolveInLayer follows rel through the layer's own entries and returns
// the regular file it reaches, or "" when it reaches none.
func (b *layerBuilder) resolveInLayer(rel string) string {
	parts := splitPath(rel)
	done := ""
	for hops := 0; len(parts) > 0; {
		next := path.Join(done, parts[0])
		parts = parts[1:]
		e := b.entries[next]
		switch {
		case e == nil:
			// A directory the layer implies, or nothing.
			done = next
		case e.typ == tar.TypeSymlink:
			if hops++; hops > 40 {
				return ""
			}
			target := e.link
			if !path.IsAbs(target) {
				target = path.Join("/", done, target)
			}
			parts = append(splitPath(path.Clean(target)), parts...)
			done = ""
		case len(parts) > 0:
			return ""
		default:
			done = next
		}
	}
	if e := b.entries[done]; e == nil || e.typ != tar.TypeReg {
		return ""
	}
	return done
}
