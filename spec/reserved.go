package spec

import (
	"path"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/wire/runplan"
)

// checkFilePlaces refuses contents files that the build could not place:
// a file where another file of the same contents needs a directory, and
// a file where the build lays its own files over the partition, the
// runner's payload on the root (unless the build leaves it out) and the
// boot files on their partition. The build would stop there, or silently
// replace one with the other.
func (d *decoder) checkFilePlaces(bd *Board, images []*Image, tests []*Test, noPayload bool) {
	for _, img := range images {
		for _, p := range img.Partitions {
			if p.Contents == nil {
				continue
			}
			reserved := map[string]string{}
			if p.Root && len(tests) > 0 && !noPayload {
				dirs, files := runplan.PayloadLayout(bd.Init)
				for _, f := range append(dirs, files...) {
					reserved[f] = "the runner's payload"
				}
			}
			if bf := bd.Boot; bf != nil && img == images[BootImage(images)] &&
				((bf.Partition == "" && p.Root) || bf.Partition == p.Name) {
				for _, f := range bootFileNames(bd, p.Root) {
					reserved[f] = "the boot block's files"
				}
			}
			d.checkFiles(p, reserved)
		}
	}
}

func (d *decoder) checkFiles(p *Partition, reserved map[string]string) {
	files := p.Contents.Files
	for _, f := range files {
		fp := path.Clean("/" + f.Path)
		if what, ok := reserved[fp]; ok {
			d.errorf(f.Decl, "A file the build writes",
				"%s is where the build puts %s in partition %q: the file would replace it, or stop the build. Give the file another path.", fp, what, p.Name)
			continue
		}
		for _, g := range files {
			if f.SourceDir {
				break // a directory's tree may hold the other file's directory
			}
			if gp := path.Clean("/" + g.Path); strings.HasPrefix(gp, fp+"/") {
				d.errorf(f.Decl, "A file where a directory must be",
					"File %s is also the directory of file %s (line %d): give one of them another path.", fp, gp, g.Decl.Start.Line)
				break
			}
		}
	}
}

// bootFileNames are the paths the boot block writes in its partition:
// under /boot on the root, at the top of a partition of its own. The
// Raspberry Pi's cmdline.txt and config.txt have a check of their own
// (checkBootFiles).
func bootFileNames(bd *Board, onRoot bool) []string {
	dir := "/"
	var out []string
	if onRoot {
		dir = "/boot"
		out = append(out, dir)
	}
	names := []string{bd.Arch.KernelImage(), "initramfs.cpio.gz", "extlinux", "extlinux/extlinux.conf", "boot.cmd", "boot.scr", "dtbs"}
	if bd.Boot.DTB != "" {
		names = append(names, path.Base(bd.Boot.DTB))
	}
	for _, n := range names {
		if p := path.Join(dir, n); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
