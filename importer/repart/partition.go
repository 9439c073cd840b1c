package repart

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/fsbench/fsbench/importer"
)

// part is one definition file as repart reads it
// (partition_read_definition), and the partition block it becomes.
type part struct {
	def                    *definition
	p                      *importer.Partition
	typ                    partType
	typeAt                 importer.Pos
	label                  string
	labelSet               bool // Label= given, even empty
	sizeMin, sizeMax       int64
	paddingMin, paddingMax int64
	weight, paddingWeight  int64
	at                     map[string]importer.Pos // where each option was last set
	format                 string
	verity                 string
	encrypt                bool
	readOnly, readOnlySet  bool
	copyFiles              []entry
}

// formats are Format= values and fsbench's filesystem for each.
var formats = map[string]string{"ext2": "ext2", "ext3": "ext3", "ext4": "ext4", "btrfs": "btrfs", "xfs": "xfs",
	"vfat": "vfat", "squashfs": "squashfs", "erofs": "erofs", "f2fs": "f2fs"}

// partition reads one definition file.
func (c *conv) partition(d *definition) (*part, error) {
	q := &part{def: d, sizeMin: unset, sizeMax: unset, paddingMin: unset, paddingMax: unset, weight: 1000, at: map[string]importer.Pos{}}
	q.p = &importer.Partition{At: d.header, Name: c.partName(d.file), Offset: -1}
	for _, e := range d.entries {
		if err := c.option(q, e); err != nil {
			return nil, err
		}
		q.at[e.key] = e.at
	}
	if q.typ.guid == "" {
		return nil, importer.Error(d.header, "Type= not defined: systemd-repart refuses the file too")
	}
	if q.sizeMin != unset && q.sizeMax != unset && q.sizeMin > q.sizeMax {
		return nil, importer.Error(d.header, "SizeMinBytes= larger than SizeMaxBytes=: systemd-repart refuses the file too")
	}
	q.p.What = fmt.Sprintf("%s, Type=%s", d.file, q.typ.name)
	if len(d.dropIns) > 0 {
		q.p.What += ", with " + strings.Join(d.dropIns, ", ")
	}
	q.p.Type = q.typ.name
	if q.typ.archNeutral {
		q.p.Type = strings.Replace(q.typ.name, "-"+hostArch, "", 1)
		c.s.Notef(q.typeAt, "Type=", "repart takes the type of the machine it runs on and names the partition after it; the spec's %q is the board's architecture (x86-64 without a board block), its label %s as repart on x86-64 writes it", q.p.Type, q.typ.name)
	}
	if growsByDefault(q.typ.name) && !q.readOnly {
		c.s.Notef(q.typeAt, "Type=", "repart sets GPT attribute bit 59 on a %s partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition", q.typ.name)
	}
	if strings.HasSuffix(q.typ.name, "-verity") && !q.readOnlySet {
		c.s.Errorf(q.typeAt, "Type=", "repart sets GPT attribute bit 60 (read-only) on a verity hash partition unless ReadOnly=no; fsbench sets no attribute bits: set it after the build (sgdisk -A N:set:60)")
	}
	c.filesystem(q)
	return q, nil
}

// option reads one assignment; an option the spec cannot say is reported
// at its line.
func (c *conv) option(q *part, e entry) error {
	switch e.key {
	case "Type":
		t, ok := lookupType(e.value)
		if !ok {
			return importer.Error(e.at, fmt.Sprintf("Type=%s: neither a partition type systemd knows nor a GUID; systemd-repart refuses the file too", e.value))
		}
		q.typ, q.typeAt = t, e.at
	case "Label":
		c.readLabel(q, e)
	case "UUID":
		c.readUUID(q, e)
	case "SizeMinBytes", "SizeMaxBytes", "PaddingMinBytes", "PaddingMaxBytes":
		return c.readSize(q, e)
	case "Weight", "PaddingWeight":
		n, err := strconv.ParseUint(e.value, 10, 32)
		if err != nil || n > maxWeight {
			c.s.Notef(e.at, e.key+"=", "%q is no weight from 0 to 1000000; repart ignores it, and so does the import", e.value)
			return nil
		}
		if e.key == "Weight" {
			q.weight = int64(n)
		} else {
			q.paddingWeight = int64(n)
		}
	case "Format":
		q.format = e.value
	case "CopyFiles":
		q.copyFiles = append(q.copyFiles, e)
	default:
		c.other(q, e)
	}
	return nil
}

// other reports the options that change the image in ways the spec
// cannot say, and notes those that do not change it.
func (c *conv) other(q *part, e entry) {
	yes, isBool := parseBool(e.value)
	switch {
	case strings.HasPrefix(e.key, "["):
		c.s.Notef(e.at, e.key, "systemd-repart reads only the [Partition] section and ignores this line, and so does the import")
	case e.key == "Priority":
		c.s.Notef(e.at, "Priority=", "repart drops the partitions of the highest priority that do not fit the disk; fsbench's build fails instead")
	case e.key == "FactoryReset", e.key == "SplitName", e.key == "VerityMatchKey":
		c.s.Notef(e.at, e.key+"=", "acts when repart runs again (--factory-reset), writes --split files or pairs verity partitions; the image is the same")
	case e.key == "GrowFileSystem":
		c.s.Notef(e.at, "GrowFileSystem=", "repart 252 sets GPT attribute bit 59 from the type (see Type=), whatever this says; fsbench sets no attribute bits")
	case e.key == "ReadOnly":
		q.readOnly, q.readOnlySet = yes, isBool
		if yes {
			c.s.Errorf(e.at, "ReadOnly=", "repart sets GPT attribute bit 60, which makes systemd mount the partition read-only; fsbench sets no attribute bits: set it after the build (sgdisk -A N:set:60), or mount it read-only with the filesystem's mount options")
		}
	case e.key == "NoAuto" && isBool && !yes, e.key == "Encrypt" && isBool && !yes, e.key == "Verity" && e.value == "off", e.key == "Flags" && e.value == "0":
	case e.key == "NoAuto":
		c.s.Errorf(e.at, "NoAuto=", "repart sets GPT attribute bit 63 (not mounted automatically); fsbench sets no attribute bits: set it after the build (sgdisk -A N:set:63)")
	case e.key == "Flags":
		c.s.Errorf(e.at, "Flags=", "GPT attribute bits %s: fsbench sets none but the legacy BIOS bootable one: set them after the build with sgdisk -A", e.value)
	case e.key == "Encrypt":
		q.encrypt = true
		c.s.Errorf(e.at, "Encrypt=", "fsbench makes no LUKS2 volume: encrypt the partition after the build, or test the filesystem unencrypted (repart also reserves %d MiB for LUKS2's metadata, which the spec keeps)", 16)
	case e.key == "Verity":
		q.verity = e.value
		c.s.Errorf(e.at, "Verity=", "fsbench writes no dm-verity hash tree or signature: make the %s partition with veritysetup after the build, or give it as a prebuilt image", e.value)
	case e.key == "CopyBlocks":
		c.s.Errorf(e.at, "CopyBlocks=", "repart sizes the partition to at least the copied file's or device's size, which the import cannot know: give the partition `image` with the file and a size")
	case e.key == "MakeDirectories":
		c.s.Errorf(e.at, "MakeDirectories=", "fsbench makes no empty directories of its own: put %s in the partition's contents directory", e.value)
	case e.key == "Minimize":
		c.s.Errorf(e.at, "Minimize=", "systemd 253's option: repart sizes the filesystem to its contents, which the import cannot know; fsbench's size is fixed: give SizeMinBytes= and SizeMaxBytes= the size")
	default:
		c.s.Errorf(e.at, e.key+"=", "systemd-repart 252 knows no option %s= in [Partition] (a later version's, or a typo): the import follows 252's rules and leaves it out", e.key)
	}
}

// readLabel takes Label= as config_parse_label does: specifiers expand
// on the machine repart runs on, and a label longer than the GPT's 36
// UTF-16 units is ignored with a warning. An empty label is a label.
func (c *conv) readLabel(q *part, e entry) {
	plain := regexp.MustCompile(`%.`).ReplaceAllString(e.value, "?") // a specifier gives one character at least
	if len(utf16.Encode([]rune(plain))) > 36 {
		c.s.Notef(e.at, "Label=", "%q is longer than a GPT name's 36 characters; repart ignores it, and so does the import", e.value)
		return
	}
	if strings.Contains(strings.ReplaceAll(e.value, "%%", ""), "%") {
		c.s.Errorf(e.at, "Label=", "%q has specifiers that repart expands on the machine it runs on (%%v the kernel, %%m the machine id, ...): write the label they give", e.value)
		return
	}
	v := strings.ReplaceAll(e.value, "%%", "%")
	if len(utf16.Encode([]rune(v))) > 36 {
		c.s.Notef(e.at, "Label=", "%q is longer than a GPT name's 36 characters; repart ignores it, and so does the import", v)
		return
	}
	if v == "" {
		c.s.Errorf(e.at, "Label=", "an empty GPT name; fsbench names every partition: give a label")
		return
	}
	q.label, q.labelSet = v, true
}

func (c *conv) readUUID(q *part, e entry) {
	switch {
	case e.value == "":
		q.p.UUID = ""
	case e.value == "null":
		c.s.Errorf(e.at, "UUID=", "the all-zero GUID; fsbench gives every partition a GUID of its own: leave UUID= out, or give one")
	default:
		g, ok := parseGUID(e.value)
		if !ok {
			c.s.Notef(e.at, "UUID=", "%q is no 128-bit id; repart ignores it, and so does the import", e.value)
			return
		}
		q.p.UUID = g
	}
}

// readSize reads the size options as config_parse_size4096 of systemd
// 252 does: to a multiple of 4 KiB, the minimums rounded down and the
// maximums up ("Rounded SizeMinBytes= size 10000 → 8192"; later versions
// round the other way, which TestRealRepart would show).
func (c *conv) readSize(q *part, e entry) error {
	n, err := parseSize(e.value)
	if err != nil {
		return importer.Error(e.at, fmt.Sprintf("%s=: %v; systemd-repart refuses the file too", e.key, err))
	}
	switch e.key {
	case "SizeMinBytes":
		q.sizeMin = roundDown(n, grain)
	case "SizeMaxBytes":
		q.sizeMax = roundUp(n, grain)
	case "PaddingMinBytes":
		q.paddingMin = roundDown(n, grain)
	case "PaddingMaxBytes":
		q.paddingMax = roundUp(n, grain)
	}
	if n%grain != 0 {
		c.s.Notef(e.at, e.key+"=", "%d bytes is no multiple of 4KiB; repart 252 rounds it as the spec says it", n)
	}
	return nil
}

// parseBool is systemd's parse_boolean.
func parseBool(v string) (yes, ok bool) {
	switch strings.ToLower(v) {
	case "1", "yes", "y", "true", "t", "on":
		return true, true
	case "0", "no", "n", "false", "f", "off":
		return false, true
	}
	return false, false
}

// filesystem sets the partition's filesystem from Format= and its
// contents from CopyFiles=; repart formats ext4 when CopyFiles= or
// Encrypt= is given without Format= (partition_read_definition).
func (c *conv) filesystem(q *part) {
	if q.format == "" && (len(q.copyFiles) > 0 || q.encrypt) {
		q.format = "ext4"
	}
	if q.format == "" {
		return
	}
	fsType, ok := formats[q.format]
	if !ok {
		what := "fsbench makes no " + q.format + " filesystem"
		if q.format == "swap" {
			what = "fsbench writes no swap signature: run mkswap on the partition after the build"
		}
		c.s.Errorf(q.at["Format"], "Format=", "%s; the partition is left without one", what)
		return
	}
	q.p.Filesystem = &importer.Filesystem{Type: fsType}
	for _, e := range q.copyFiles {
		c.copyFiles(q, e)
	}
}

// copyFiles places SOURCE[:TARGET] (config_parse_copy_files): SOURCE is
// a path in the root repart copies from (--root, --image), a directory's
// tree going to TARGET; the root's top becomes the contents' dir.
func (c *conv) copyFiles(q *part, e entry) {
	src, dst, _ := strings.Cut(e.value, ":")
	if dst == "" {
		dst = src
	}
	if strings.Contains(e.value, "%") {
		c.s.Errorf(e.at, "CopyFiles=", "%q has specifiers that repart expands on the machine it runs on: write the paths they give", e.value)
		return
	}
	if strings.Count(e.value, ":") > 1 || !path.IsAbs(src) || !path.IsAbs(dst) {
		c.s.Errorf(e.at, "CopyFiles=", "%q is not SOURCE[:TARGET] with absolute paths; repart ignores or refuses it", e.value)
		return
	}
	c.s.AddVariable(importer.Variable{Name: "root", Description: "the directory systemd-repart copies CopyFiles= from: its --root, the image --image names, the build's root filesystem (mkosi's, Yocto's IMAGE_ROOTFS)"})
	src, dst = path.Clean(src), path.Clean(dst)
	text := importer.Text{{Var: "root"}}
	if src != "/" {
		text = append(text, importer.Seg{Lit: src})
	}
	fs := q.p.Filesystem
	if dst != "/" {
		fs.Files = append(fs.Files, importer.File{At: e.at, Path: dst, Source: text})
		return
	}
	if !fs.Dir.IsZero() {
		c.s.Errorf(e.at, "CopyFiles=", "a second tree for the filesystem's top; fsbench's contents take one dir: merge %s into %s, or give each its own TARGET", src, fs.Dir)
		return
	}
	fs.Dir = text
}

// fsLabel gives the filesystem the partition's label, as repart's
// make_filesystem does, in the form each mkfs keeps: vfat's 11 upper-case
// characters, ext's 16, xfs's 12.
func (q *part) fsLabel() {
	fs := q.p.Filesystem
	if fs == nil || fs.Type == "squashfs" {
		return
	}
	l := q.label
	limit := map[string]int{"vfat": 11, "ext2": 16, "ext3": 16, "ext4": 16, "xfs": 12, "erofs": 16, "f2fs": 512}[fs.Type]
	if fs.Type == "vfat" {
		l = strings.ToUpper(l)
	}
	if limit > 0 && len(l) > limit {
		l = l[:limit]
	}
	fs.Label = l
}

// partName names the partition block after its file, less .conf.
func (c *conv) partName(file string) string {
	b := []byte(strings.TrimSuffix(file, ".conf"))
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '.' || ch == '-') {
			b[i] = '-'
		}
	}
	name := string(b)
	if name == "" || !(name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z' || name[0] >= '0' && name[0] <= '9') {
		name = "p" + name
	}
	if c.names == nil {
		c.names = map[string]bool{}
	}
	for base, n := name, 2; c.names[name]; n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	c.names[name] = true
	return name
}
