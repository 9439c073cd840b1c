package spec

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/wire/arch"
)

// Ranges remembers where each attribute of a block was written, so that a
// later phase can point at the attribute a problem stems from.
type Ranges struct {
	Decl  hcl.Range              // the block header
	Attrs map[string]hcl.Range   // attribute name -> expression range
	Elems map[string][]hcl.Range // list attribute written as [...] -> element ranges
}

// Of returns the range of attribute name, or the block header when the
// attribute was not written (a problem with a default value).
func (r Ranges) Of(name string) hcl.Range {
	if rng, ok := r.Attrs[name]; ok {
		return rng
	}
	return r.Decl
}

// OfElem returns the range of element i of a list attribute written
// literally, or the whole attribute's range.
func (r Ranges) OfElem(name string, i int) hcl.Range {
	if elems := r.Elems[name]; i >= 0 && i < len(elems) {
		return elems[i]
	}
	return r.Of(name)
}

// Variant is the spec evaluated for one combination of matrix values.
type Variant struct {
	Name   string
	Matrix []MatrixChoice // in declaration order
	Board  *Board
	Images []*Image
	Tests  []*Test
	// Verdict is the spec's verdict block, nil without one.
	Verdict *Verdict
}

// MatrixChoice is the value one matrix axis takes in a variant.
type MatrixChoice struct {
	Axis  string
	Key   string
	Value cty.Value
}

// Board describes the target.
type Board struct {
	Name       string
	Arch       arch.Arch
	Console    string
	Storage    string // how the target's kernel names the flash device: mmcblk1, vda, nvme0n1
	Init       string
	RootBy     string // partuuid | partlabel | device
	Bootloader string // extlinux | uboot | rpi | none
	KernelArgs []string
	// RootWait is how long a run lets a boot wait for its root device; 0
	// is the runner's default.
	RootWait time.Duration
	Boot     *BootFiles // nil: the image carries no kernel of its own
	LAVA     *LAVA      // nil: the spec names no LAVA device type
	// Endurance is what the flash is rated for; nil: the spec does not
	// say.
	Endurance *Endurance
	Ranges
}

// Image is one disk image: a partition table and what goes in it.
type Image struct {
	Name       string
	Table      string // gpt | mbr | none
	Size       int64
	Align      int64
	SectorSize int64
	DiskID     string // "" = derived from names
	// GPTLocation is the byte offset of the GPT entry array; 0 = sector 2.
	GPTLocation int64
	GPTBackup   bool     // the backup header and array at the end (default true)
	HybridMBR   []string // GPT partitions the MBR mirrors, in slot order
	// ExtendedSlot is the MBR entry of the extended partition, 1-4; 0 =
	// after the primary partitions declared before the first logical one.
	ExtendedSlot int
	// Fill is the byte written wherever no partition, raw region or
	// table lies: 0 leaves holes in a sparse image, 0xff is erased NOR
	// flash, as genimage's flash images are.
	Fill       byte
	Partitions []*Partition
	Raw        []*RawRegion
	Ranges
}

// RawRegion is a blob placed at a fixed offset outside the partition
// table, such as a boot ROM's first-stage loader.
type RawRegion struct {
	Name   string
	Offset int64
	Size   int64 // 0 = the file's size
	File   string
	Holes  []Hole // ranges of the file not written: the table's bytes lie there
	// SizePending: planning, the region's size comes from a file the
	// build has not made yet; Size is one sector until then.
	SizePending bool
	Ranges
}

// Hole is a range of a raw region's file, from the file's start.
type Hole struct {
	Offset, Size int64
}

// Partition is one entry of a partition table.
type Partition struct {
	Name       string
	Size       int64 // 0 when Grow
	Offset     int64 // -1 = placed after the previous partition
	Align      int64 // 0 = the image's
	Grow       bool
	Type       string // shortcut, GPT type GUID or MBR id as written; "" = from the filesystem
	Bootable   bool
	Label      string // GPT partition name; defaults to Name
	UUID       string // "" = derived from names
	Logical    bool   // MBR: inside the extended partition
	MBRType    string // the id of its hybrid MBR entry; "" = from its type
	Root       bool
	ImageFile  string // a prebuilt image written as the partition's content
	Filesystem *Filesystem
	Contents   *Contents
	// SizePending: planning, the partition's size comes from an image
	// the build has not made yet; Size is one alignment unit until then.
	SizePending bool
	Ranges
}

// Filesystem is how a partition is formatted and mounted.
type Filesystem struct {
	Type       string
	Label      string
	UUID       string // "" = derived from names
	BlockSize  int64
	Features   []string
	Journal    *bool
	Mount      []string
	Mountpoint string
	MkfsArgs   []string
	Geometry   *Geometry
	Tuning     map[string]any
	TuningAt   Ranges // ranges of the tuning block's attributes
	Ranges
}

// Geometry is the flash geometry mkfs tuning derives from.
type Geometry struct {
	EraseBlock int64
	PageSize   int64
	Ranges
}

// Contents is what goes into a filesystem. Paths are relative to the
// spec's directory and have been checked not to escape it.
type Contents struct {
	Dir      string
	Tar      string
	Userland string // a root filesystem fsbench assembles: "busybox"
	Files    []*File
	Ranges
}

// File is one file placed into a filesystem.
type File struct {
	Path    string // absolute path inside the filesystem
	Source  string // a file or a directory next to the spec, or
	Content *string
	// SourceDir: Source is a directory, whose tree goes to Path (as
	// genimage's vfat files list copies one).
	SourceDir bool
	Mode      uint32
	UID       int
	GID       int
	Ranges
}

// Test is one test block: a recipe and its parameters.
type Test struct {
	Recipe string
	Name   string
	On     string // partition name, "" for recipes that run on the root
	OnAt   hcl.Range
	Params map[string]any
	// Settle, when the block has one, repeats each case until its results
	// agree; it replaces the recipe's count.
	Settle *Settle
	Ranges
}

// Settle is a test's settle block: repeat each case until the 95%
// confidence interval of the mean of every metric in Metrics is within
// CI of the mean (a fraction: 0.05 for "5%"), after at least Min and at
// most Max iterations.
type Settle struct {
	CI       float64
	Min, Max int
	Metrics  []string
	Ranges
}
