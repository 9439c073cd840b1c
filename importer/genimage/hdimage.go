package genimage

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// hdimage imports an hdimage: a disk image with an MBR, a GPT, a hybrid
// MBR or no table.
func (c *conv) hdimage(img, hd *section) {
	out := &importer.Image{At: img.at, Title: img.title, What: "image " + img.title + " (hdimage)", Name: c.imageName(img.title)}
	out.Size = c.size(img, "size", 0)
	table := c.tableType(hd)
	out.Table = map[string]string{"mbr": "mbr", "gpt": "gpt", "hybrid": "gpt", "none": "none"}[table]
	align := c.size(hd, "align", 0)
	if align == 0 {
		align = 512 // genimage's, for a table; 1 without, which fsbench's sectors cannot say
	}
	if align%512 != 0 {
		_, o := get(hd, "align")
		c.s.Errorf(o.at, "align", "fsbench places partitions on 512-byte sectors; %d is not a multiple of 512", align)
	}
	out.Align = align
	c.hdOptions(hd, out, table)
	c.partitions(img, hd, out, table)
	c.s.Images = append(c.s.Images, out)
}

// tableType is genimage's partition-table-type, with its deprecated
// forms.
func (c *conv) tableType(hd *section) string {
	t := "mbr"
	if v, o := get(hd, "partition-table-type"); o != nil {
		t, _ = v.plain()
		if t == "dos" {
			t = "mbr"
		}
	}
	if v, o := get(hd, "partition-table"); o != nil {
		if b, _ := parseBool(first(v)); b {
			t = "mbr"
		} else {
			t = "none"
		}
	}
	if v, o := get(hd, "gpt"); o != nil {
		if b, _ := parseBool(first(v)); b {
			t = "gpt"
		} else {
			t = "mbr"
		}
	}
	switch t {
	case "mbr", "gpt", "hybrid", "none":
		return t
	}
	_, o := get(hd, "partition-table-type")
	c.s.Errorf(o.at, "partition-table-type", "%q is not a partition table genimage knows (mbr, dos, gpt, hybrid, none); genimage refuses it too", t)
	return "mbr"
}

func first(v value) string { s, _ := v.plain(); return s }

// hdOptions reads the hdimage options other than the table and the
// alignment.
func (c *conv) hdOptions(hd *section, out *importer.Image, table string) {
	for _, o := range hd.opts {
		v := last(o)
		s, plain := v.plain()
		switch o.name {
		case "partition-table-type", "partition-table", "gpt", "align", "extended-partition":
		case "disk-signature":
			switch {
			case table != "mbr" && table != "hybrid":
				c.s.Errorf(o.at, o.name, "a disk signature belongs to an MBR; genimage refuses it on a %s table too", table)
			case s == "random":
				c.s.Notef(o.at, o.name, "fsbench derives the signature from the names instead of drawing one, so that the image is the same on every build")
			case !plain || hasVars(v):
				c.s.Errorf(o.at, o.name, "a signature written in by a script or the environment: give the spec disk_id = \"0x........\" yourself")
			default:
				n, ok := parseCInt(s)
				if !ok || n > 0xffffffff {
					c.s.Errorf(o.at, o.name, "%q is not a 32-bit number", s)
					break
				}
				out.DiskID = fmt.Sprintf("0x%08x", n)
			}
		case "disk-uuid":
			if table == "mbr" || table == "none" || !plain || !importer.IsGUID(s) {
				c.s.Errorf(o.at, o.name, "a disk GUID belongs to a GPT, given as a literal GUID; genimage refuses %q too", s)
				break
			}
			out.DiskID = strings.ToLower(s)
		case "gpt-location":
			out.GPTLocation = c.sizeOf(o, v)
		case "gpt-no-backup":
			b, _ := parseBool(s)
			out.NoGPTBackup = b
		case "fill":
			// fsbench's image always has its whole size.
		default:
			c.s.Errorf(o.at, o.name, "genimage knows no hdimage option %q", o.name)
		}
	}
	if table == "hybrid" && strings.HasPrefix(out.DiskID, "0x") {
		_, o := get(hd, "disk-signature")
		c.s.Errorf(o.at, o.name, "fsbench writes no disk signature into a hybrid MBR of its own; the GPT's disk GUID names the disk")
		out.DiskID = ""
	}
	if table == "mbr" && out.DiskID == "" {
		if _, o := get(hd, "disk-signature"); o == nil {
			out.DiskID = "0x00000000" // genimage's default
		}
	}
	if table == "none" {
		out.DiskID = ""
	}
}

// size reads a size option of sec, def when it is absent; genimage reads
// 0 as unset.
func (c *conv) size(sec *section, name string, def int64) int64 {
	v, o := get(sec, name)
	if o == nil {
		return def
	}
	return c.sizeOf(o, v)
}

func (c *conv) sizeOf(o *option, v value) int64 {
	s, ok := v.plain()
	if !ok || hasVars(v) {
		c.s.Errorf(o.at, o.name, "a size written in by a script or the environment (%s): import the configuration that script writes, or give the size", v)
		return 0
	}
	if strings.HasSuffix(s, "%") {
		c.s.Errorf(o.at, o.name, "a size in percent: give the size in bytes")
		return 0
	}
	n, ok := parseSize(s)
	if !ok {
		c.s.Errorf(o.at, o.name, "%q is not a size genimage reads (a number with k, K, M, G or s)", s)
		return 0
	}
	return n
}

// loneImage imports a filesystem image that no disk image places (a
// lone ext4 image): an image without a table, the filesystem its only
// partition.
func (c *conv) loneImage(img, h *section) {
	size := c.size(img, "size", 0)
	if size == 0 {
		c.s.Errorf(img.at, "size", "a filesystem image needs a size; genimage refuses it too")
		return
	}
	out := &importer.Image{At: img.at, Title: img.title, What: fmt.Sprintf("image %s (%s), on its own", img.title, h.name), Name: c.imageName(img.title), Table: "none", Align: 512}
	p := &importer.Partition{At: img.at, What: "the filesystem, the whole image", Name: cleanName(out.Name), Offset: 0, Size: size}
	if size%512 != 0 {
		c.s.Errorf(img.at, "size", "fsbench makes images of whole 512-byte sectors; %d bytes is not", size)
	}
	p.Filesystem = c.filesystem(img, h)
	out.Partitions = append(out.Partitions, p)
	c.s.Images = append(c.s.Images, out)
}

// filesystem imports a vfat or ext child image as the filesystem of the
// partition that places it.
func (c *conv) filesystem(img, h *section) *importer.Filesystem {
	fs := &importer.Filesystem{Type: fsTypes[h.name]}
	for _, o := range h.opts {
		v := last(o)
		s, _ := v.plain()
		switch o.name {
		case "label":
			fs.Label = s
		case "files":
			c.vfatFiles(fs, o)
		case "extraargs":
			if strings.TrimSpace(s) != "" {
				c.s.Errorf(o.at, o.name, "fsbench makes the filesystem with its own mkfs options: say them with the filesystem block's typed settings (block_size, features, tuning)")
			}
		case "features":
			for _, f := range strings.Split(s, ",") {
				if f = strings.TrimSpace(f); f != "" {
					fs.Features = append(fs.Features, f)
				}
			}
		case "use-mke2fs":
			if b, _ := parseBool(s); !b {
				c.s.Notef(o.at, o.name, "fsbench makes ext filesystems with mke2fs -d; genimage's genext2fs path is not followed")
			}
		case "fs-timestamp":
			c.s.Notef(o.at, o.name, "fsbench stamps the filesystem with SOURCE_DATE_EPOCH")
		case "root-owner":
			if s != "0:0" {
				c.s.Errorf(o.at, o.name, "fsbench's root directory belongs to 0:0; give the tree the owner with a contents tar")
			}
		default:
			c.s.Errorf(o.at, o.name, "the %s option %q has no counterpart in fsbench's filesystem block", h.name, o.name)
		}
	}
	for _, f := range sub(h, "file") {
		c.vfatFile(fs, f)
	}
	for _, s := range h.secs {
		if s.name != "file" {
			c.s.Errorf(s.at, s.name, "the %s section %q has no counterpart in fsbench", h.name, s.name)
		}
	}
	if len(fs.Files) == 0 {
		c.rootContents(img, fs)
	}
	return fs
}

// rootContents fills a filesystem without files from genimage's root
// path (Buildroot gives genimage an empty one), as genimage does, unless
// the image is empty.
func (c *conv) rootContents(img *section, fs *importer.Filesystem) {
	if v, o := get(img, "empty"); o != nil {
		if b, _ := parseBool(first(v)); b {
			return
		}
	}
	root := importer.Variable{Name: "rootpath", Description: "genimage's root path, whose tree (under an image's mountpoint) fills a filesystem without files: Buildroot's genimage.sh passes an empty directory"}
	c.s.AddVariable(root)
	fs.Dir = importer.Text{{Var: "rootpath"}}
	if v, o := get(img, "srcpath"); o != nil {
		fs.Dir = inputPath(c.s, v)
		return
	}
	if v, o := get(img, "mountpoint"); o != nil {
		fs.Dir = append(fs.Dir, importer.Seg{Lit: "/" + strings.Trim(first(v), "/")})
	}
}

// vfatFiles imports a vfat files list: each input goes to the top of the
// filesystem under its own name, a directory with its tree.
func (c *conv) vfatFiles(fs *importer.Filesystem, o *option) {
	for _, v := range o.values {
		s, _ := v.plain()
		if hasVars(v) || s == "" {
			c.s.Errorf(v.at, "files", "an entry written in by a script or the environment (%s): import the configuration that script writes", v)
			continue
		}
		fs.Files = append(fs.Files, importer.File{At: v.at, Path: "/" + baseName(s), Source: inputPath(c.s, v)})
	}
}

// vfatFile imports file NAME { image = ... }: the input at the path NAME.
func (c *conv) vfatFile(fs *importer.Filesystem, f *section) {
	v, o := get(f, "image")
	if o == nil {
		c.s.Errorf(f.at, "file "+f.title, "a file section without image; genimage refuses it too")
		return
	}
	if hasVars(v) {
		c.s.Errorf(o.at, "image", "an input written in by a script or the environment (%s): import the configuration that script writes", v)
		return
	}
	name, _ := v.plain()
	if child, ok := c.images[name]; ok {
		c.used[name] = true
		c.s.Errorf(o.at, "image", "image %s, made by genimage and copied into the vfat: fsbench copies files, so give the file it makes (%s)", child.title, name)
		return
	}
	fs.Files = append(fs.Files, importer.File{At: f.at, Path: "/" + strings.Trim(f.title, "/"), Source: inputPath(c.s, v)})
}

// baseName is the last element of a relative path, as mcopy names the
// copy of a file given without a target.
func baseName(s string) string {
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}
