// Package plan resolves evaluated spec variants into the plan that image
// generation and the target runner consume: partitions placed in sectors,
// partition types and ids, the exact mkfs and populate command lines,
// mount options, kernel command line, expanded test cases, and a
// fingerprint of every input. The plan is plain data, versioned by
// Format; it holds no HCL. Resolving never runs a tool and never writes.
package plan

import (
	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/wire/arch"
)

// Format names the plan's JSON schema. Readers check it; a change that
// breaks them bumps the number.
const Format = "fsbench-plan/1"

// Plan is a whole resolved spec.
type Plan struct {
	Format      string    `json:"format"`
	Spec        string    `json:"spec"`
	Fingerprint string    `json:"fingerprint"`
	Inputs      []Input   `json:"inputs"`
	Variants    []Variant `json:"variants"`
}

// Input is one file the plan depends on, with its digest.
type Input struct {
	Role   string `json:"role"` // spec, var-file, include, contents-dir, contents-tar, file, raw, partition-image, kernel, dtb, initramfs
	Path   string `json:"path"` // as written, relative to the spec's directory
	SHA256 string `json:"sha256"`
	// Pending: the build provides the input (spec.Pending), which a
	// planning load did not find; it has no digest yet.
	Pending bool `json:"pending,omitempty"`
}

// Variant is one matrix combination.
type Variant struct {
	Name     string            `json:"name"`
	Matrix   map[string]string `json:"matrix,omitempty"` // axis -> choice key
	Board    Board             `json:"board"`
	Images   []Image           `json:"images"`
	Bootargs []string          `json:"bootargs"`
	Tests    []Test            `json:"tests"`
}

// Board is the target.
type Board struct {
	Name       string    `json:"name"`
	Arch       arch.Arch `json:"arch"`
	Console    string    `json:"console"`
	Storage    string    `json:"storage"`
	Init       string    `json:"init"`
	RootBy     string    `json:"root_by"`
	Bootloader string    `json:"bootloader"`
	KernelArgs []string  `json:"kernel_args,omitempty"`
	// RootWait is how long a run lets a boot wait for its root device
	// ("" = the default), as time.Duration prints it.
	RootWait string `json:"root_wait,omitempty"`
	Boot     *Boot  `json:"boot,omitempty"`
	// LAVA is how a LAVA lab knows the board; nil when the spec does not
	// say.
	LAVA *LAVA `json:"lava,omitempty"`
	// Endurance is what the board's flash is rated for; nil when the
	// spec does not say.
	Endurance *Endurance `json:"endurance,omitempty"`
}

// LAVA is the board's device type and tags in a LAVA lab.
type LAVA struct {
	DeviceType string   `json:"device_type"`
	Tags       []string `json:"tags,omitempty"`
}

// Endurance is the board's flash rating, for the flash-wear model's
// lifetime projection (see spec.Endurance).
type Endurance struct {
	Capacity         int64   `json:"capacity"` // user capacity, bytes
	PECycles         int64   `json:"pe_cycles"`
	OverProvisioning float64 `json:"over_provisioning"` // a share of Capacity: 0.07 for 7%
	// WritesPerDay is the host bytes a day; 0 takes what the endurance
	// test measures.
	WritesPerDay int64 `json:"writes_per_day,omitempty"`
}

// Boot is what build puts into the image for the bootloader: the
// kernel, its device tree and initramfs, and extlinux/extlinux.conf or
// boot.scr, in Dir of the partition Partition of the image the board
// boots.
type Boot struct {
	Image     string `json:"image"`
	Partition string `json:"partition"`
	Dir       string `json:"dir"` // "/boot" on the root partition, "/" on one of its own
	// Kernel, DTB and Initramfs are input paths as written. Kernel "" is
	// Debian's kernel for the board's architecture, with fsbench's own
	// initramfs.
	Kernel string `json:"kernel,omitempty"`
	DTB    string `json:"dtb,omitempty"`
	// FDTDir is a directory of device trees, copied to dtbs/ beside the
	// kernel, from which U-Boot loads its ${fdtfile}.
	FDTDir    string `json:"fdtdir,omitempty"`
	Initramfs string `json:"initramfs,omitempty"`
	// ConfigTxt are the spec's lines for the Raspberry Pi firmware's
	// config.txt (bootloader "rpi").
	ConfigTxt []string `json:"config_txt,omitempty"`
}

// Image is one disk image.
type Image struct {
	Name       string      `json:"name"`
	File       string      `json:"file"`
	Table      string      `json:"table"` // gpt | mbr | none
	Size       int64       `json:"size"`
	SectorSize int64       `json:"sector_size"`
	Align      int64       `json:"align"`
	DiskID     string      `json:"disk_id"`
	Extended   *Extended   `json:"extended,omitempty"`
	GPT        *GPT        `json:"gpt,omitempty"`
	Partitions []Partition `json:"partitions"`
	Raw        []Raw       `json:"raw,omitempty"`
	// Fill is the byte where nothing else lies: 0 (holes) or 0xff
	// (erased NOR flash).
	Fill byte `json:"fill,omitempty"`
}

// Extended is the MBR extended partition, in sectors.
type Extended struct {
	StartSector int64  `json:"start_sector"`
	Sectors     int64  `json:"sectors"`
	Type        string `json:"type"` // also the type of the links between EBRs
	Slot        int    `json:"slot"` // its entry in the MBR, 1-4
}

// GPT is where a GPT table's own structures lie, in sectors. The primary
// header is always at sector 1.
type GPT struct {
	// EntriesSector is the first sector of the partition entry array:
	// 2 unless the spec moves it (gpt_location).
	EntriesSector int64 `json:"entries_sector"`
	// EntriesSectors is the array's length: 128 entries of 128 bytes.
	EntriesSectors int64 `json:"entries_sectors"`
	// FirstUsable and LastUsable, inclusive, as the header records them:
	// no partition lies outside, and nothing a partitioning tool would
	// reuse (the array, a bootloader before the first partition) inside.
	FirstUsable int64 `json:"first_usable"`
	LastUsable  int64 `json:"last_usable"`
	// Backup is false when the spec leaves out the backup header and
	// array at the end of the image (gpt_backup = false).
	Backup bool `json:"backup"`
	// Hybrid lists the partitions the MBR mirrors, in MBR slot order,
	// before its protective 0xEE entry. Empty: a protective MBR only.
	Hybrid []HybridEntry `json:"hybrid_mbr,omitempty"`
}

// HybridEntry is a GPT partition mirrored in a hybrid MBR.
type HybridEntry struct {
	Partition string `json:"partition"`
	Type      string `json:"type"` // MBR id, "0x0c"
	Bootable  bool   `json:"bootable,omitempty"`
}

// ExtendedType is the MBR id of the extended partition: 0x0f, the LBA
// form, since images are addressed by LBA only.
const ExtendedType = "0x0f"

// Raw is a blob at a fixed offset outside the table.
type Raw struct {
	Name   string `json:"name"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
	File   string `json:"file"`
	// Holes are byte ranges of the file, from its start, that are not
	// written: there the partition table's bytes lie.
	Holes []Hole `json:"holes,omitempty"`
}

// Hole is a range of bytes, Size long from Offset.
type Hole struct {
	Offset int64 `json:"offset"`
	Size   int64 `json:"size"`
}

// Partition is one placed partition.
type Partition struct {
	Name        string      `json:"name"`
	Number      int         `json:"number"`
	StartSector int64       `json:"start_sector"`
	EndSector   int64       `json:"end_sector"` // inclusive, as sfdisk and parted print it
	Sectors     int64       `json:"sectors"`
	Offset      int64       `json:"offset"`
	Size        int64       `json:"size"`
	Type        string      `json:"type"`
	TypeName    string      `json:"type_name,omitempty"`
	Bootable    bool        `json:"bootable,omitempty"`
	Label       string      `json:"label"`
	UUID        string      `json:"uuid"`
	Logical     bool        `json:"logical,omitempty"`
	EBRSector   int64       `json:"ebr_sector,omitempty"`
	Root        bool        `json:"root,omitempty"`
	Image       string      `json:"image,omitempty"`
	Filesystem  *Filesystem `json:"filesystem,omitempty"`
}

// Filesystem is a partition's filesystem with its command lines.
type Filesystem struct {
	Type       string                   `json:"type"`
	Label      string                   `json:"label,omitempty"`
	UUID       string                   `json:"uuid"`
	BlockSize  int64                    `json:"block_size,omitempty"`
	EraseBlock int64                    `json:"erase_block,omitempty"` // the geometry block's, bytes; 0: none
	PageSize   int64                    `json:"page_size,omitempty"`   // the geometry block's, bytes; 0: none
	Features   []string                 `json:"features,omitempty"`
	Journal    *bool                    `json:"journal,omitempty"`
	Mount      []string                 `json:"mount,omitempty"`
	Mountpoint string                   `json:"mountpoint,omitempty"`
	RootFlags  string                   `json:"rootflags,omitempty"`
	VFSFlags   []string                 `json:"vfs_flags,omitempty"`
	ReadOnly   bool                     `json:"read_only,omitempty"`
	Derived    []filesystems.Derivation `json:"derived,omitempty"`
	Mkfs       filesystems.Command      `json:"mkfs"`
	Populate   []filesystems.Command    `json:"populate,omitempty"`
	Check      *filesystems.Command     `json:"check,omitempty"`
	// Cleaner is the garbage collector the runner starts beside the
	// mounts a test writes to (filesystems.Type.Cleaner): nilfs2's
	// nilfs_cleanerd.
	Cleaner []string `json:"cleaner,omitempty"`
	// CleanerPeriod gives the cleaner a protection period
	// (filesystems.Type.CleanerPeriod).
	CleanerPeriod []string `json:"cleaner_period,omitempty"`
	Deterministic bool     `json:"deterministic"`
	Note          string   `json:"note,omitempty"`
	// Varying are the paths (directories) whose bytes differ between
	// two builds of the same epoch, the rest being the same: a test's
	// images of a filesystem whose mkfs is not deterministic.
	Varying  []string  `json:"varying,omitempty"`
	Contents *Contents `json:"contents,omitempty"`
}

// Contents is what goes into a filesystem.
type Contents struct {
	Dir      string `json:"dir,omitempty"`
	Tar      string `json:"tar,omitempty"`
	Userland string `json:"userland,omitempty"`
	Files    []File `json:"files,omitempty"`
}

// File is one placed file.
type File struct {
	Path   string `json:"path"`
	Source string `json:"source,omitempty"`
	// Dir: Source is a directory, whose tree goes to Path.
	Dir     bool    `json:"dir,omitempty"`
	Content *string `json:"content,omitempty"`
	Mode    string  `json:"mode"`
	UID     int     `json:"uid"`
	GID     int     `json:"gid"`
}

// Test is one test with its cases expanded.
type Test struct {
	Recipe string         `json:"recipe"`
	Name   string         `json:"name"`
	On     string         `json:"on,omitempty"`
	Params map[string]any `json:"params"`
	// Settle repeats each case until its results agree (see spec.Settle);
	// the recipe's count is then absent from Params.
	Settle *Settle        `json:"settle,omitempty"`
	Cases  []recipes.Case `json:"cases"`
}

// Settle is a test's settle rule: each case runs until the 95% confidence
// interval of the mean of every metric is within CI of the mean (0.05 for
// 5%), at least Min and at most Max times.
type Settle struct {
	CI      float64  `json:"ci"`
	Min     int      `json:"min"`
	Max     int      `json:"max"`
	Metrics []string `json:"metrics"`
}
