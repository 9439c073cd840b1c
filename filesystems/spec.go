package filesystems

// Geometry is the flash geometry in bytes; zero means unknown.
type Geometry struct {
	EraseBlock int64
	PageSize   int64
}

// Spec is one filesystem as the spec resolved it.
type Spec struct {
	Type  string
	Label string
	// UUID is canonical text (8-4-4-4-12 hex). The caller derives one from
	// names when the spec gives none; vfat turns it into its 32-bit volume
	// id.
	UUID      string
	BlockSize int64    // 0 = the type's default
	Features  []string // e.g. ext4 "^has_journal", btrfs "no-holes"
	Journal   *bool    // nil = the type's default
	Size      int64    // bytes the filesystem occupies (the partition size)
	Geometry  Geometry
	// Tuning holds values already converted by fields.Field.Convert
	// (int64, float64, bool, string, []any).
	Tuning map[string]any
	Mount  []string // mount options as written
	// ExtraArgs are raw mkfs arguments, passed verbatim after the derived
	// ones; fsbench does not check them.
	ExtraArgs   []string
	HasContents bool // a populate step is needed
	// Files are the paths the spec itself places (contents file blocks),
	// whose names Resolve checks; one that ends in "/" is a directory
	// (a file block whose source is one). The names of a contents tree
	// are the build's to check.
	Files []string
}

// Problem is one thing wrong with a Spec, phrased for the user.
type Problem struct {
	// Field is the spec attribute at fault, as a path: "label",
	// "block_size", "features", "journal", "geometry.erase_block",
	// "tuning.stride", "mount", "size", "contents", "files", ...
	Field string
	// Index is the element index for list fields (mount, features,
	// files), -1 otherwise.
	Index   int
	Summary string // short, e.g. "ext4 stride too large"
	Detail  string // a full sentence with the numbers and the fix
}

// Command is one program to run without a shell. Argv and Env may contain
// the placeholders described in the package documentation.
type Command struct {
	Argv []string
	Env  []string
}

// Derivation records one value fsbench chose for the user, so that `plan`
// can explain the tuning. Value is nil when nothing could be derived and From
// says why.
type Derivation struct {
	Name  string
	Value any
	From  string
}

// Resolved is everything a build needs for one filesystem.
type Resolved struct {
	Derived  []Derivation
	Mkfs     Command
	Populate []Command // steps after Mkfs; empty without contents
	Check    Command   // empty Argv when the type has no checker
	// MountOptions are the options as written, trimmed, without duplicates.
	MountOptions []string
	// RootFlags holds only filesystem-specific options, comma-joined, for
	// the kernel's rootflags=. The VFS flags (ro, noatime, nodev, ...) are
	// mount(2) flags, not data: the kernel refuses most of them in the data
	// string (fs/fs_context.c forbidden_sb_flag), so they go to VFSFlags for
	// fstab or a remount.
	RootFlags     string
	VFSFlags      []string
	Deterministic bool
	Note          string
}
