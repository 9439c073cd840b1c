package spec

import (
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

var contentsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "dir"}, {Name: "tar"}, {Name: "userland"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "file", LabelNames: []string{"path"}}},
}

var fileSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "source"}, {Name: "content"}, {Name: "mode"}, {Name: "owner"}},
}

// Userlands are the root filesystems fsbench can assemble itself when a
// spec has no build system's rootfs: "busybox" is Debian's busybox-static
// with an init, a getty on the console and a shell.
var Userlands = []string{"busybox"}

func (d *decoder) contents(b *hcl.Block, paths *resolver) *Contents {
	c := d.content(b.Body, contentsSchema)
	ct := &Contents{Ranges: newRanges(b.DefRange, c.Attributes)}
	ct.Dir, _ = d.inputAttr(c.Attributes, "dir", "Invalid contents directory", "dir", ct.Of("dir"), paths, nil)
	ct.Tar, _ = d.inputAttr(c.Attributes, "tar", "Invalid contents tarball", "file", ct.Of("tar"), paths, nil)
	if _, ok := c.Attributes["userland"]; ok {
		ct.Userland = d.enum(c.Attributes, "userland", "", "Unsupported userland", Userlands...)
	}
	switch {
	case ct.Dir != "" && ct.Tar != "":
		d.errorf(ct.Of("tar"), "Conflicting contents", "A contents block takes a dir or a tar, not both: which would win for a file in both is not obvious.")
	case ct.Userland != "" && (ct.Dir != "" || ct.Tar != ""):
		d.errorf(ct.Of("userland"), "Conflicting contents", "A contents block takes a userland or a dir or a tar, not two: the userland is a whole root filesystem of its own.")
	}
	seen := map[string]bool{}
	for _, blk := range c.Blocks {
		f := d.file(blk, paths)
		if seen[f.Path] {
			d.errorf(blk.LabelRanges[0], "Duplicate file", "%s is already placed by another file block.", f.Path)
		}
		seen[f.Path] = true
		ct.Files = append(ct.Files, f)
	}
	if ct.Dir == "" && ct.Tar == "" && ct.Userland == "" && len(ct.Files) == 0 {
		d.errorf(b.DefRange, "Empty contents block", "A contents block needs a dir, a tar, a userland or file blocks.")
	}
	return ct
}

func (d *decoder) file(b *hcl.Block, paths *resolver) *File {
	c := d.content(b.Body, fileSchema)
	f := &File{Path: b.Labels[0], Mode: 0o644, Ranges: newRanges(b.DefRange, c.Attributes)}
	if err := targetPath(f.Path); err != nil {
		d.errorf(b.LabelRanges[0], "Invalid file path", "The file path %s.", err)
	}
	var pending bool
	f.Source, pending = d.inputAttr(c.Attributes, "source", "Invalid file source", "entry", f.Of("source"), paths, nil)
	if f.Source != "" && !pending {
		if real, err := paths.source(f.Source, "entry"); err == nil {
			if fi, err := os.Stat(real); err == nil && fi.IsDir() {
				f.SourceDir = true
			}
		}
	}
	if _, ok := c.Attributes["content"]; ok {
		s := d.str(c.Attributes, "content", "Invalid file content")
		f.Content = &s
	}
	switch {
	case f.Source != "" && f.Content != nil:
		d.errorf(f.Of("content"), "Conflicting file content", "A file takes source or content, not both.")
	case f.Source == "" && f.Content == nil:
		d.errorf(b.DefRange, "Missing file content", "File %s needs source (a file next to the spec) or content (inline text).", f.Path)
	}
	if f.SourceDir {
		for _, name := range []string{"mode", "owner"} {
			if _, ok := c.Attributes[name]; ok {
				d.errorf(f.Of(name), "Mode or owner of a directory source",
					"%s is a directory: its tree goes to %s with the modes it has on disk and owner 0:0, as a contents dir does. Leave out %s.", f.Source, f.Path, name)
			}
		}
	}
	if mode := d.str(c.Attributes, "mode", "Invalid file mode"); mode != "" {
		m, err := strconv.ParseUint(mode, 8, 32)
		if err != nil || m > 0o7777 {
			d.errorf(f.Of("mode"), "Invalid file mode", "mode is an octal string such as \"0644\" or \"0755\", not %q.", mode)
		} else {
			f.Mode = uint32(m)
		}
	}
	if owner := d.str(c.Attributes, "owner", "Invalid file owner"); owner != "" {
		uid, gid, ok := parseOwner(owner)
		if !ok {
			d.errorf(f.Of("owner"), "Invalid file owner",
				"owner is \"UID:GID\" in numbers, such as \"0:0\" or \"1000:1000\", not %q: names would depend on the build host's passwd.", owner)
		}
		f.UID, f.GID = uid, gid
	}
	return f
}

func parseOwner(s string) (uid, gid int, ok bool) {
	u, g, found := strings.Cut(s, ":")
	if !found {
		return 0, 0, false
	}
	a, err1 := strconv.ParseUint(u, 10, 31)
	b, err2 := strconv.ParseUint(g, 10, 31)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return int(a), int(b), true
}
