package userland

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/fsbench/fsbench/wire/arch"
)

// libDirs are where Debian's packages for a put shared libraries, in the
// order the lookup tries them: the multiarch directories (named by a's
// triplet) first, as the loader does, then the plain ones, and lib64 for
// the x86-64 loader's link. The paths are relative to the root.
func libDirs(a arch.Arch) []string {
	return []string{"lib/" + a.Triplet(), "usr/lib/" + a.Triplet(), "lib", "usr/lib", "lib64", "usr/lib64"}
}

// elfDeps is what an ELF file asks of the dynamic loader.
type elfDeps struct {
	interp  string   // PT_INTERP, an absolute path; empty when static
	needed  []string // DT_NEEDED sonames, in the file's order
	runpath []string // DT_RUNPATH, else DT_RPATH, $ORIGIN expanded; relative to the root
}

// readELF returns what the file at host path p (at path rel in the target
// root) needs at run time, or nil for a file that is not ELF (a shell
// script). An ELF file for another machine is an error: a package of the
// wrong architecture would give a tree the board cannot run.
func readELF(p, rel string, a arch.Arch) (*elfDeps, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(fh, magic); err != nil || !bytes.Equal(magic, []byte(elf.ELFMAG)) {
		return nil, nil
	}
	f, err := elf.NewFile(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	if machine, class := a.ELF(); f.Machine != elf.Machine(machine) || f.Class != elf.Class(class) {
		return nil, fmt.Errorf("%s is %s %s, want %s %s", rel, f.Class, f.Machine, elf.Class(class), elf.Machine(machine))
	}
	d := &elfDeps{}
	for _, prog := range f.Progs {
		if prog.Type != elf.PT_INTERP {
			continue
		}
		b, err := io.ReadAll(prog.Open())
		if err != nil {
			return nil, fmt.Errorf("%s: PT_INTERP: %w", rel, err)
		}
		d.interp = strings.TrimRight(string(b), "\x00")
	}
	if d.needed, err = f.DynString(elf.DT_NEEDED); err != nil {
		return nil, fmt.Errorf("%s: DT_NEEDED: %w", rel, err)
	}
	rp, err := f.DynString(elf.DT_RUNPATH)
	if err == nil && len(rp) == 0 {
		rp, err = f.DynString(elf.DT_RPATH)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: DT_RUNPATH: %w", rel, err)
	}
	origin := path.Dir("/" + rel)
	for _, list := range rp {
		for _, dir := range strings.Split(list, ":") {
			dir = strings.ReplaceAll(strings.ReplaceAll(dir, "${ORIGIN}", origin), "$ORIGIN", origin)
			if path.IsAbs(dir) {
				d.runpath = append(d.runpath, strings.TrimPrefix(path.Clean(dir), "/"))
			}
		}
	}
	return d, nil
}
