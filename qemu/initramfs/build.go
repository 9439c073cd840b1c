package initramfs

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/wire/bootabi"
)

// Boot describes the initramfs that boots a Debian kernel into a root
// filesystem with bootinit as /init.
type Boot struct {
	Kernel *kernel.Kernel
	// Modules are module names (e.g. "virtio_blk", "ext4"); their
	// dependencies are added by Kernel.ModuleClosure, which does not
	// follow soft dependencies, so name those too (e.g. "crc32c_generic"
	// before "ext4").
	Modules []string
	// Init is the host path of the static program stored as /init: one
	// whose main calls bootinit.Main.
	Init string
}

// Build writes the gzip-compressed initramfs of b to w and returns the
// module files it holds, in load order, as bootinit finds them listed in
// bootabi.ModuleList. The archive holds:
//
//	dev/ dev/console proc/ sys/ newroot/   (bootinit's mount points; the
//	                                        console gives /init its stdio)
//	etc/fsbench/modules                    (the list)
//	lib/modules/<release>/...              (the modules, decompressed)
//	init                                   (b.Init)
//
// Compressed modules (.ko.xz, .ko.zst, .ko.gz) are stored decompressed, so
// that bootinit's finit_module needs no in-kernel decompressor. The same
// Boot gives the same bytes: the entry order follows the module order,
// and the Writer adds no times or host metadata.
func Build(w io.Writer, b Boot) ([]string, error) {
	if b.Kernel == nil || b.Init == "" {
		return nil, fmt.Errorf("initramfs: Boot needs a Kernel and an Init")
	}
	rels, err := b.Kernel.ModuleClosure(b.Modules...)
	if err != nil {
		return nil, fmt.Errorf("initramfs: %w", err)
	}
	modDir := path.Join("lib/modules", b.Kernel.Release)
	var list []string
	for _, rel := range rels {
		list = append(list, "/"+path.Join(modDir, filepath.ToSlash(decompressedName(rel))))
	}

	cw := NewGzipWriter(w)
	cw.Dir("dev", 0o755)
	cw.CharDev("dev/console", 0o600, 5, 1)
	cw.Dir("proc", 0o555)
	cw.Dir("sys", 0o555)
	cw.Dir(strings.TrimPrefix(bootabi.NewRoot, "/"), 0o755)
	cw.Dir("etc", 0o755)
	cw.Dir("etc/fsbench", 0o755)
	cw.File(strings.TrimPrefix(bootabi.ModuleList, "/"), 0o644, []byte(joinLines(list)))
	dirs := map[string]bool{}
	for i, rel := range rels {
		data, err := moduleBytes(filepath.Join(b.Kernel.ModulesDir, rel))
		if err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(list[i], "/")
		addParents(cw, dirs, path.Dir(name))
		cw.File(name, 0o644, data)
	}
	cw.FileFrom("init", 0o755, b.Init)
	if err := cw.Close(); err != nil {
		return nil, err
	}
	return list, nil
}

// addParents adds dir and its missing ancestors, outermost first.
func addParents(w *Writer, done map[string]bool, dir string) {
	if dir == "." || done[dir] {
		return
	}
	addParents(w, done, path.Dir(dir))
	w.Dir(dir, 0o755)
	done[dir] = true
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// decompressedName is a module's file name once stored as plain ELF.
func decompressedName(rel string) string {
	for _, suf := range []string{".xz", ".zst", ".gz"} {
		if strings.HasSuffix(rel, ".ko"+suf) {
			return strings.TrimSuffix(rel, suf)
		}
	}
	return rel
}

// moduleBytes reads a module file, decompressing it by its suffix.
func moduleBytes(p string) ([]byte, error) {
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("initramfs: %w", err)
	}
	var r io.Reader
	switch {
	case strings.HasSuffix(p, ".ko.xz"):
		r, err = xz.NewReader(bytes.NewReader(raw))
	case strings.HasSuffix(p, ".ko.zst"):
		var d *zstd.Decoder
		d, err = zstd.NewReader(bytes.NewReader(raw))
		if err == nil {
			defer d.Close()
			r = d
		}
	case strings.HasSuffix(p, ".ko.gz"):
		r, err = gzip.NewReader(bytes.NewReader(raw))
	default:
		return raw, nil
	}
	if err != nil {
		return nil, fmt.Errorf("initramfs: decompressing %s: %w", p, err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("initramfs: decompressing %s: %w", p, err)
	}
	return out, nil
}
