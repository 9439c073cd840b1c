package userland

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/wire/arch"
)

// otherPrograms names the Debian package of each program a test plan may
// run on the target that is no filesystem's: the programs recipes prefer
// to their built-in engines, or run. A filesystem's own programs (its
// checker and mkfs, which the reliability tests run between power cuts
// and fsck_time times, its cleaner) are in the filesystems catalogue.
var otherPrograms = map[string]string{"sqlite3": "sqlite3", "fio": "fio",
	"rauc": "rauc", "swupdate": "swupdate", "dbus-daemon": "dbus-daemon", "fw_setenv": "libubootenv-tool", "fw_printenv": "libubootenv-tool"}

// ToolPackage returns the Debian package that provides program, a name
// on the PATH such as "e2fsck".
func ToolPackage(program string) (string, bool) {
	if p, ok := otherPrograms[program]; ok {
		return p, true
	}
	p, ok := filesystems.TargetProgram(program)
	return p.Debian, ok
}

// toolData are the files program reads at run time besides its
// libraries, relative to "/".
func toolData(program string) []string {
	p, _ := filesystems.TargetProgram(program)
	return p.Data
}

// KnownTools lists the programs ToolPackage knows, sorted.
func KnownTools() []string {
	names := append(filesystems.TargetPrograms(), slices.Collect(maps.Keys(otherPrograms))...)
	sort.Strings(names)
	return names
}

// Tools is the layer of real programs that a busybox userland carries for
// a test plan: each program from its Debian package for the board's
// architecture, the shared libraries it links, found from the ELF files
// themselves, and the dynamic loader, each at the path Debian installs it.
type Tools struct {
	Arch string // Debian architecture
	// Packages are the packages the layer's files come from, by name:
	// the programs' and those of the libraries they need.
	Packages []debpkg.Package
	// Programs maps each requested program to its absolute path in the
	// layer, a directory on Path.
	Programs map[string]string
	entries  map[string]*entry
}

// FetchTools fetches the Debian packages for arch (the spec's board arch)
// that provide programs, and those of their shared libraries, from
// cacheDir or downloaded into it, and lays out the layer. A program
// ToolPackage does not know is an error.
func FetchTools(ctx context.Context, log logrus.FieldLogger, cacheDir string, a arch.Arch, programs []string) (*Tools, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("target tools: no Debian architecture for %q", a)
	}
	da := a.Debian()
	names := slices.Clone(programs)
	slices.Sort(names)
	names = slices.Compact(names)
	for _, n := range names {
		if _, ok := ToolPackage(n); !ok {
			return nil, fmt.Errorf("target tools: no Debian package known for %q; known programs: %s",
				n, strings.Join(KnownTools(), ", "))
		}
	}
	key := memoKey(append([]string{cacheDir, da}, names...)...)
	if t, ok := toolsMemo.Load(key); ok {
		return t.(*Tools), nil
	}
	if err := debpkg.CheckArch(ctx, da); err != nil {
		return nil, fmt.Errorf("target tools: %w", err)
	}
	b := &layerBuilder{
		ps: &packages{ctx: ctx, log: log, cacheDir: cacheDir, da: da,
			byName: map[string]*pkgTree{}, failed: map[string]error{}, shown: map[string]map[string]string{}},
		arch:    a,
		entries: map[string]*entry{},
		used:    map[string]debpkg.Package{},
		interps: map[string]string{},
	}
	progs, err := b.addPrograms(names)
	if err != nil {
		return nil, fmt.Errorf("target tools: %w", err)
	}
	if err := b.addLibraries(); err != nil {
		return nil, fmt.Errorf("target tools: %w", err)
	}
	if err := b.settle(progs); err != nil {
		return nil, fmt.Errorf("target tools: %w", err)
	}
	t := &Tools{Arch: da, Programs: progs, entries: b.entries}
	for _, p := range b.used {
		t.Packages = append(t.Packages, p)
	}
	sort.Slice(t.Packages, func(i, j int) bool { return t.Packages[i].Name < t.Packages[j].Name })
	log.Infof("target tools %s: %d files from %d packages", strings.Join(names, ", "), len(b.entries), len(t.Packages))
	toolsMemo.Store(key, t)
	return t, nil
}

// PackageNames are the packages in apt's name:arch=version form.
func (t *Tools) PackageNames() []string {
	out := make([]string, len(t.Packages))
	for i, p := range t.Packages {
		out[i] = p.String()
	}
	return out
}

// WriteTar writes the layer as a tar archive to extract over the busybox
// userland: directories, then files and symlinks, in path order, owners
// 0:0, every mtime at epoch, so the same packages give the same bytes.
func (t *Tools) WriteTar(w io.Writer, epoch int64) error {
	dirs := parentDirs(t.entries)
	names := make([]string, 0, len(dirs)+len(t.entries))
	for d := range dirs {
		names = append(names, d)
	}
	for p := range t.entries {
		names = append(names, p)
	}
	sort.Strings(names)
	mtime := time.Unix(epoch, 0)
	tw := tar.NewWriter(w)
	for _, name := range names {
		h := &tar.Header{Name: name, ModTime: mtime, Uname: "root", Gname: "root", Format: tar.FormatPAX}
		e := t.entries[name]
		switch {
		case e == nil:
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, name+"/", 0o755
		case e.typ == tar.TypeSymlink:
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, e.link, 0o777
		default:
			h.Typeflag, h.Mode = tar.TypeReg, e.mode
		}
		if err := writeEntry(tw, h, e); err != nil {
			return fmt.Errorf("target tools: /%s: %w", name, err)
		}
	}
	return tw.Close()
}

func writeEntry(tw *tar.Writer, h *tar.Header, e *entry) error {
	if h.Typeflag != tar.TypeReg {
		return tw.WriteHeader(h)
	}
	f, err := os.Open(e.src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	h.Size = fi.Size()
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// parentDirs are the directories above the entries.
func parentDirs(entries map[string]*entry) map[string]bool {
	dirs := map[string]bool{}
	for p := range entries {
		for d := path.Dir(p); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	return dirs
}

// programDirs are the directories on Path, relative to the root: where
// a program must lie for the runner to find it.
func programDirs() []string {
	var dirs []string
	for _, d := range strings.Split(Path, ":") {
		dirs = append(dirs, strings.TrimPrefix(d, "/"))
	}
	return dirs
}
