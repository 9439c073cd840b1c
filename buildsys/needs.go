package buildsys

import (
	"slices"
	"sort"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/recipes"
)

// Needs is what the variants of a plan ask of the build system, merged
// over every variant: one kernel and one build configuration serve all
// the images of a spec.
type Needs struct {
	Spec     string
	Variants []string
	Boards   []plan.Board
	// RootFS are the types some variant mounts as its root filesystem;
	// OtherFS the types only ever used for other partitions.
	RootFS, OtherFS []string
	// Features are the mkfs features switched on per type (a feature
	// written "^name", switched off, is not listed).
	Features map[string][]string
	// Compressors are the compressors the mkfs commands name, per type
	// (mksquashfs -comp, mkfs.erofs -z).
	Compressors map[string][]string
	Tables      []string // "gpt", "mbr"
	Recipes     []string // the test recipes used
	// TargetFS are the types whose own tools (mkfs, fsck) the runner calls
	// on the target, because a test that re-makes or checks its partition
	// runs on one of that type; FSTools are the recipes of those tests.
	TargetFS, FSTools []string
	// Programs are the other programs the tests run on the target, or
	// prefer to a built-in engine (fio, sqlite3).
	Programs []string
	// Kernel are the kernel features the tests use, one per reason, in
	// the order of the recipes' names.
	Kernel []recipes.KernelNeed
	// HasTests says whether the images get the runner at all.
	HasTests bool
}

// Analyze merges what every variant of p needs.
func Analyze(p *plan.Plan) *Needs {
	n := &Needs{Spec: p.Spec, Features: map[string][]string{}, Compressors: map[string][]string{}}
	root, other := map[string]bool{}, map[string]bool{}
	for _, v := range p.Variants {
		n.Variants = append(n.Variants, v.Name)
		if !slices.ContainsFunc(n.Boards, func(b plan.Board) bool { return sameBoard(b, v.Board) }) {
			n.Boards = append(n.Boards, v.Board)
		}
		for _, img := range v.Images {
			n.Tables = addOnce(n.Tables, img.Table)
			for _, pt := range img.Partitions {
				if pt.Filesystem == nil {
					continue
				}
				n.addFilesystem(pt.Filesystem)
				if pt.Root {
					root[pt.Filesystem.Type] = true
				} else {
					other[pt.Filesystem.Type] = true
				}
			}
		}
		for _, t := range v.Tests {
			n.HasTests = true
			n.Recipes = addOnce(n.Recipes, t.Recipe)
			rec, ok := recipes.Lookup(t.Recipe)
			if !ok {
				continue
			}
			// The filesystem's package also carries its cleaner
			// (nilfs_cleanerd), which the runner starts beside a
			// test's mount.
			if pt, ok := v.TestPartition(t.On); ok && pt.Filesystem != nil &&
				(rec.Needs.Checker || rec.Needs.Mkfs || (len(pt.Filesystem.Cleaner) > 0 && !rec.ReadOnly)) {
				n.TargetFS = addOnce(n.TargetFS, pt.Filesystem.Type)
				n.FSTools = addOnce(n.FSTools, t.Recipe)
			}
			progs := append(slices.Clone(rec.Needs.Programs), rec.Needs.Prefers...)
			if rec.Needs.CasePrograms != nil {
				for _, c := range t.Cases {
					progs = append(progs, rec.Needs.CasePrograms(c.Params)...)
				}
			}
			for _, p := range progs {
				n.Programs = addOnce(n.Programs, p)
			}
		}
	}
	sort.Strings(n.Recipes)
	for _, name := range n.Recipes {
		if rec, ok := recipes.Lookup(name); ok {
			for _, k := range rec.Needs.Kernel {
				if !slices.ContainsFunc(n.Kernel, func(h recipes.KernelNeed) bool { return h.Why == k.Why }) {
					n.Kernel = append(n.Kernel, k)
				}
			}
		}
	}
	for t := range root {
		n.RootFS = append(n.RootFS, t)
	}
	for t := range other {
		if !root[t] {
			n.OtherFS = append(n.OtherFS, t)
		}
	}
	for _, s := range [][]string{n.RootFS, n.OtherFS, n.Tables, n.TargetFS, n.FSTools, n.Programs} {
		sort.Strings(s)
	}
	for t := range n.Features {
		sort.Strings(n.Features[t])
	}
	for t := range n.Compressors {
		sort.Strings(n.Compressors[t])
	}
	return n
}

// addFilesystem records the features and compressors of one filesystem.
func (n *Needs) addFilesystem(f *plan.Filesystem) {
	for _, feat := range f.Features {
		if !strings.HasPrefix(feat, "^") {
			n.Features[f.Type] = addOnce(n.Features[f.Type], feat)
		}
	}
	ft, ok := filesystems.Lookup(f.Type)
	if !ok || ft.Kernel.CompressorFlag == "" {
		return
	}
	argv := f.Mkfs.Argv
	if i := slices.Index(argv, ft.Kernel.CompressorFlag); i >= 0 && i+1 < len(argv) {
		// mkfs.erofs -z takes "lz4hc,12": the level is not the
		// compressor's name.
		name, _, _ := strings.Cut(argv[i+1], ",")
		n.Compressors[f.Type] = addOnce(n.Compressors[f.Type], name)
	}
}

// Filesystems returns every type in use, root or not, sorted.
func (n *Needs) Filesystems() []string {
	all := append(slices.Clone(n.RootFS), n.OtherFS...)
	sort.Strings(all)
	return all
}

// Watchdog reports whether a test arms the board's hardware watchdog.
func (n *Needs) Watchdog() bool {
	return slices.ContainsFunc(n.Kernel, func(k recipes.KernelNeed) bool { return k.Watchdog })
}

func sameBoard(a, b plan.Board) bool {
	return a.Name == b.Name && a.Arch == b.Arch && a.Console == b.Console && a.Storage == b.Storage
}

func addOnce(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// isQEMU reports whether a board is one of QEMU's machines, whose devices
// (virtio and NVMe disks, the SDHCI controller, the i6300esb watchdog) are
// known; a real board is named after itself.
func isQEMU(b plan.Board) bool { return strings.HasPrefix(b.Name, "qemu") }
