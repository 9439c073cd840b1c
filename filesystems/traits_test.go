package filesystems

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// optionalFields are the fields of Type a type may leave at their zero
// value, each with what the zero value means. Every other exported field
// must be set by every type: a new field is thus filled in for every type,
// or listed here with its reason.
var optionalFields = map[string]string{
	"Checker":          "no checker; NoChecker says why",
	"NoChecker":        "the type has a checker",
	"Cleaner":          "the kernel does the type's background work",
	"CleanerPeriod":    "the cleaner takes no protection period, or there is none",
	"ReadOnly":         "the type is writable",
	"Journal":          "JournalNone is a value",
	"Populate":         "PopulateNone is a value",
	"MaxLabel":         "the tool sets no label",
	"SetsUUID":         "mkfs cannot set the UUID",
	"DefaultBlockSize": "the tool chooses",
	"Features":         "the tool has no feature list",
	"Tuning":           "the tool has no tuning knob fsbench types",
	"Deterministic":    "the build is not reproducible; Note says why",
	"Loses":            "the populate step keeps everything",
	"Names":            "the populate step keeps every name Linux allows",
	"SetsInodes":       "no step sets owners and times after mkfs",
	"NoOwners":         "the type keeps owners",
	"BootFiles":        "U-Boot does not read boot files from it",
}

func TestEveryTypeIsComplete(t *testing.T) {
	for _, name := range Names() {
		typ, _ := Lookup(name)
		for _, p := range incomplete(typ) {
			t.Errorf("%s: %s", name, p)
		}
	}
}

// The check has teeth: a type that lacks a trait, or a program of its
// tools, fails it.
func TestCompletenessCatchesAMissingTrait(t *testing.T) {
	typ, _ := Lookup("ext4")
	typ.Kernel = Kernel{}
	typ.Programs = typ.Programs[1:] // mke2fs, the mkfs tool
	typ.ReadBack = ReadBack{Method: ReadMount}
	got := strings.Join(incomplete(typ), "\n")
	for _, want := range []string{"Kernel is not set", "host tool mke2fs is not among Programs", "read-back"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q among the problems:\n%s", want, got)
		}
	}
}

// incomplete lists what typ lacks.
func incomplete(typ *Type) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	tt, v := reflect.TypeOf(*typ), reflect.ValueOf(*typ)
	for i := 0; i < tt.NumField(); i++ {
		f := tt.Field(i)
		if _, ok := optionalFields[f.Name]; f.IsExported() && !ok && v.Field(i).IsZero() {
			bad("%s is not set (set it, or list it in optionalFields with what its zero value means)", f.Name)
		}
	}
	if (typ.Checker == nil) == (typ.NoChecker == "") {
		bad("give either Checker or NoChecker: %q %q", typ.Checker, typ.NoChecker)
	}
	if typ.Kernel.Module == "" || len(typ.Kernel.Config) == 0 {
		bad("the kernel's driver is not named: %+v", typ.Kernel)
	}
	if (typ.Kernel.CompressorFlag == "") != (len(typ.Kernel.Compressors) == 0) {
		bad("CompressorFlag and Compressors go together: %+v", typ.Kernel)
	}
	if len(typ.Target.Buildroot) == 0 || len(typ.Target.Yocto) == 0 {
		bad("no target packages: %+v", typ.Target)
	}
	if typ.ReadBack.Method == 0 || (typ.ReadBack.Method == ReadMount) != (typ.ReadBack.MountOptions != "") {
		bad("read-back %+v", typ.ReadBack)
	}
	return append(out, programProblems(typ)...)
}

// programProblems: every program a build runs on the host and every
// program a test may run on the target has its packages.
func programProblems(typ *Type) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range typ.Programs {
		if seen[p.Name] {
			out = append(out, "program "+p.Name+" listed twice")
		}
		seen[p.Name] = true
		if p.Debian == "" {
			out = append(out, "program "+p.Name+" has no Debian package")
		}
	}
	for _, tool := range typ.Tools {
		if !seen[tool] {
			out = append(out, "host tool "+tool+" is not among Programs")
		}
	}
	if !slices.Contains(typ.Tools, typ.Tool) {
		out = append(out, "the mkfs tool "+typ.Tool+" is not among Tools")
	}
	for _, argv := range [][]string{typ.Checker, typ.Cleaner} {
		if len(argv) > 0 && !seen[argv[0]] {
			out = append(out, argv[0]+", which the target runs, is not among Programs")
		}
	}
	if p, ok := typ.Program(typ.Tool); ok && p.Debian != typ.Package {
		out = append(out, fmt.Sprintf("%s comes from %s, but Package says %s", typ.Tool, p.Debian, typ.Package))
	}
	return out
}

func TestTargetProgram(t *testing.T) {
	for prog, pkg := range map[string]string{"e2fsck": "e2fsprogs", "fsck.ext4": "e2fsprogs", "mcopy": "mtools",
		"nilfs_cleanerd": "nilfs-tools", "xfs_repair": "xfsprogs", "btrfs": "btrfs-progs"} {
		if p, ok := TargetProgram(prog); !ok || p.Debian != pkg {
			t.Errorf("TargetProgram(%s) = %+v, %v; want package %s", prog, p, ok, pkg)
		}
	}
	if p, ok := TargetProgram("mke2fs"); !ok || !slices.Contains(p.Data, "etc/mke2fs.conf") {
		t.Errorf("mke2fs: %+v", p)
	}
	if _, ok := TargetProgram("fio"); ok {
		t.Error("fio is no filesystem's program")
	}
	if names := TargetPrograms(); !slices.IsSorted(names) || !slices.Contains(names, "mkfs.nilfs2") {
		t.Errorf("TargetPrograms: %v", names)
	}
}
