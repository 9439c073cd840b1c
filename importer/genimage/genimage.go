// Package genimage imports a genimage configuration (Buildroot's
// board/*/genimage.cfg): hdimage and flash images become images, their
// partitions partitions or raw regions, vfat and ext child images
// filesystems with contents, and every other file an input under the
// variable binaries, genimage's input path. It follows genimage's own
// arithmetic (image-hd.c, image-flash.c, util.c of genimage 19); where
// fsbench would place or size something differently, the spec says it
// explicitly. It never runs genimage and never reads an input.
package genimage

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// Import reads the configuration at file (and the files it includes).
func Import(file string) (*importer.Spec, error) {
	top, err := parseFile(file)
	if err != nil {
		return nil, err
	}
	c := &conv{s: &importer.Spec{Format: "genimage", Source: path.Base(file)}, images: map[string]*section{}, flash: map[string]*section{}}
	c.index(top)
	c.s.AddVariable(binariesVar)
	for _, img := range c.order {
		c.topImage(img)
	}
	return c.s, nil
}

// conv is one import under way.
type conv struct {
	s      *importer.Spec
	images map[string]*section // image sections by title
	order  []*section
	flash  map[string]*section // flash types by title
	used   map[string]bool     // images placed in another image
	names  map[string]bool     // image names given
}

// handlers are genimage's image types that a spec can say: the image
// types of whole images, and the filesystems fsbench makes itself.
var (
	tableTypes = []string{"hdimage", "flash"}
	fsTypes    = map[string]string{"vfat": "vfat", "ext2": "ext2", "ext3": "ext3", "ext4": "ext4"}
	// otherTypes are genimage's other image types: a spec takes their
	// output as a prebuilt file.
	otherTypes = []string{"android-sparse", "btrfs", "cpio", "cramfs", "custom", "erofs", "f2fs", "file", "fip", "fit", "iso", "jffs2", "mdraid", "qemu", "rauc", "squashfs", "tar", "ubi", "ubifs", "verity", "verity-sig"}
)

// index records the images and flash types, and reports what else the
// file's top holds.
func (c *conv) index(top *section) {
	c.used = map[string]bool{}
	c.names = map[string]bool{}
	for _, s := range top.secs {
		switch s.name {
		case "image":
			if _, dup := c.images[s.title]; dup {
				c.s.Errorf(s.at, "image "+s.title, "the configuration defines this image twice; genimage refuses it too: keep one")
				continue
			}
			c.images[s.title] = s
			c.order = append(c.order, s)
		case "flash":
			c.flash[s.title] = s
		case "config":
			c.s.Notef(s.at, "config", "genimage's paths and tool names are set on the command line of fsbench build (-var binaries=DIR) instead")
		default:
			c.s.Errorf(s.at, s.name, "genimage knows no section %q at the top of a configuration", s.name)
		}
	}
	for _, o := range top.opts {
		c.s.Errorf(o.at, o.name, "genimage knows no option %q at the top of a configuration", o.name)
	}
	for _, img := range c.order {
		for _, p := range sub(img, "partition") {
			if v, o := get(p, "image"); o != nil {
				if name, ok := v.plain(); ok {
					c.used[name] = true
				}
			}
		}
	}
}

// handler returns an image's type section.
func handler(img *section) *section {
	for _, s := range img.secs {
		if s.name != "partition" {
			return s
		}
	}
	return nil
}

// topImage imports an image that no other image places: an hdimage or
// flash image, or a lone filesystem image.
func (c *conv) topImage(img *section) {
	h := handler(img)
	switch {
	case h == nil:
		c.s.Errorf(img.at, "image "+img.title, "the image has no type section (hdimage, vfat, ...); genimage refuses it too")
	case h.name == "hdimage":
		c.hdimage(img, h)
	case h.name == "flash":
		c.flashImage(img, h)
	case c.used[img.title]:
		// placed by the partition that names it
	case fsTypes[h.name] != "":
		c.loneImage(img, h)
	default:
		c.s.Errorf(img.at, "image "+img.title, "a %s image of its own is not a disk layout: build it with genimage or the build system; fsbench imports the hdimage or flash image that places it", h.name)
	}
	c.commonOptions(img)
}

// commonOptions reports image options that change how genimage builds,
// not what the layout is.
func (c *conv) commonOptions(img *section) {
	for _, o := range img.opts {
		switch o.name {
		case "exec-pre", "exec-post":
			c.s.Errorf(o.at, o.name, "fsbench runs no command of the spec's; run it in the build system's post-image step, before or after fsbench build")
		case "name":
			c.s.Notef(o.at, o.name, "the output file is named after the image block, NAME.img")
		case "temporary":
			c.s.Notef(o.at, o.name, "fsbench keeps the filesystems it makes inside the image only")
		case "size", "mountpoint", "srcpath", "empty", "flashtype":
		default:
			c.s.Errorf(o.at, o.name, "genimage knows no image option %q", o.name)
		}
	}
}

// imageName is the name of the spec's image for genimage's image title:
// the title without its extension, made a valid name and unique.
func (c *conv) imageName(title string) string {
	base := strings.TrimSuffix(title, path.Ext(title))
	if base == "" {
		base = title
	}
	name := cleanName(base)
	for i := 2; c.names[name]; i++ {
		name = fmt.Sprintf("%s-%d", cleanName(base), i)
	}
	c.names[name] = true
	return name
}

// cleanName makes s a name the spec language takes: letters, digits,
// '_', '.' and '-', starting with a letter or digit, at most 64.
func cleanName(s string) string {
	b := []byte(s)
	for i, ch := range b {
		ok := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '.' || ch == '-'
		if !ok {
			b[i] = '-'
		}
	}
	out := string(b)
	if out == "" || !(out[0] >= 'a' && out[0] <= 'z' || out[0] >= 'A' && out[0] <= 'Z' || out[0] >= '0' && out[0] <= '9') {
		out = "p" + out
	}
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}

// uniquePartName names a partition within its image.
func uniquePartName(img *importer.Image, title string) string {
	name := cleanName(title)
	taken := func(n string) bool {
		return slices.ContainsFunc(img.Partitions, func(p *importer.Partition) bool { return p.Name == n }) ||
			slices.ContainsFunc(img.Raw, func(r *importer.Raw) bool { return r.Name == n })
	}
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("%s-%d", cleanName(title), i)
	}
	return name
}
