package spec

import "github.com/hashicorp/hcl/v2"

// InputRef is a file or a directory the spec's variants read.
type InputRef struct {
	// Role says what the input is: kernel, dtb, initramfs, fdtdir, raw,
	// partition-image, contents-dir, contents-tar, file.
	Role string
	// Path is as written, relative to the spec's directory; for a path a
	// planning load could not evaluate, as the spec writes it
	// ("${var.binaries}/MLO").
	Path string
	At   hcl.Range
	Dir  bool
}

// Inputs lists every input of every variant, once each, in the order the
// variants read them.
func (s *Spec) Inputs() []InputRef {
	var out []InputRef
	seen := map[string]bool{}
	add := func(role, p string, at hcl.Range, dir bool) {
		key := role + "\x00" + p
		if seen[key] || p == "" {
			return
		}
		seen[key] = true
		out = append(out, InputRef{Role: role, Path: p, At: at, Dir: dir})
	}
	for _, v := range s.Variants {
		if bf := v.Board.Boot; bf != nil {
			add("kernel", bf.Kernel, bf.Of("kernel"), false)
			add("dtb", bf.DTB, bf.Of("dtb"), false)
			add("initramfs", bf.Initramfs, bf.Of("initramfs"), false)
			add("fdtdir", bf.FDTDir, bf.Of("fdtdir"), true)
		}
		for _, img := range v.Images {
			for _, r := range img.Raw {
				add("raw", r.File, r.Of("file"), false)
			}
			for _, p := range img.Partitions {
				add("partition-image", p.ImageFile, p.Of("image"), false)
				ct := p.Contents
				if ct == nil {
					continue
				}
				add("contents-dir", ct.Dir, ct.Of("dir"), true)
				add("contents-tar", ct.Tar, ct.Of("tar"), false)
				for _, f := range ct.Files {
					add("file", f.Source, f.Of("source"), f.SourceDir)
				}
			}
		}
	}
	return out
}
