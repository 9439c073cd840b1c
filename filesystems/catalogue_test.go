package filesystems

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/units"
)

func TestNames(t *testing.T) {
	want := []string{"btrfs", "erofs", "ext2", "ext3", "ext4", "f2fs", "nilfs2", "squashfs", "vfat", "xfs"}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if !sort.StringsAreSorted(Names()) {
		t.Error("Names() is not sorted")
	}
	if _, ok := Lookup("ext5"); ok {
		t.Error("Lookup(ext5) succeeded")
	}
	// Lookup finds a type by the name its catalogue entry gives; the
	// type must carry the same name.
	for _, name := range Names() {
		if typ, ok := Lookup(name); !ok || typ.Name != name {
			t.Errorf("Lookup(%q) = %v, %v; want the type of that name", name, typ, ok)
		}
	}
}

// TestLookupReturnsACopy: a caller changing its Type must not change what
// the next caller sees.
func TestLookupReturnsACopy(t *testing.T) {
	a, _ := Lookup("ext4")
	a.MaxLabel = 99
	a.Tuning[0].Name = "changed"
	b, _ := Lookup("ext4")
	if b.MaxLabel != 16 || b.Tuning[0].Name == "changed" {
		t.Errorf("Lookup shares state between callers: %d %q", b.MaxLabel, b.Tuning[0].Name)
	}
}

func TestEveryTypeHasTheVFSOptions(t *testing.T) {
	for _, name := range Names() {
		typ, _ := Lookup(name)
		for _, v := range vfsOptions() {
			o, ok := typ.MountOption(v.Name)
			if !ok || !o.VFS {
				t.Errorf("%s: VFS option %s missing or not marked VFS", name, v.Name)
			}
		}
		for _, g := range []string{"ro", "rw", "noatime", "relatime", "strictatime", "lazytime", "nodiratime",
			"sync", "async", "dirsync", "nodev", "nosuid", "noexec"} {
			if _, ok := typ.MountOption(g); !ok {
				t.Errorf("%s: generic option %s missing", name, g)
			}
		}
	}
}

func TestCatalogueTablesAreWellFormed(t *testing.T) {
	for _, name := range Names() {
		typ, _ := Lookup(name)
		seen := map[string]bool{}
		for _, o := range typ.MountOptions {
			if seen[o.Name] {
				t.Errorf("%s: mount option %s listed twice", name, o.Name)
			}
			seen[o.Name] = true
			if o.Doc == "" {
				t.Errorf("%s: mount option %s has no Doc", name, o.Name)
			}
			if o.Status != Supported && o.Reason == "" {
				t.Errorf("%s: mount option %s is not supported and says not why", name, o.Name)
			}
			if o.Value == EnumValue && len(o.Enum) == 0 {
				t.Errorf("%s: mount option %s has no choices", name, o.Name)
			}
		}
		fields := map[string]bool{}
		for _, f := range typ.Tuning {
			if fields[f.Name] || f.Doc == "" {
				t.Errorf("%s: tuning %s repeated or undocumented", name, f.Name)
			}
			fields[f.Name] = true
		}
		if typ.Tool == "" || typ.Package == "" || len(typ.Tools) == 0 || typ.Tools[0] != typ.Tool {
			t.Errorf("%s: tool %q, package %q, tools %v", name, typ.Tool, typ.Package, typ.Tools)
		}
		if (typ.Checker == nil) != (name == "nilfs2") {
			t.Errorf("%s: checker %v", name, typ.Checker)
		}
		if typ.DefaultBlockSize != 0 && !contains64(typ.BlockSizes, typ.DefaultBlockSize) {
			t.Errorf("%s: default block size %d not among %v", name, typ.DefaultBlockSize, typ.BlockSizes)
		}
		if !typ.Deterministic && typ.Note == "" {
			t.Errorf("%s: not deterministic and no note says why", name)
		}
	}
}

func contains64(xs []int64, x int64) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func TestDeterminismClaims(t *testing.T) {
	want := map[string]bool{"ext2": true, "ext3": true, "ext4": true, "btrfs": false, "f2fs": true,
		"xfs": false, "nilfs2": false, "vfat": true, "squashfs": true, "erofs": true}
	for name, det := range want {
		typ, _ := Lookup(name)
		if typ.Deterministic != det {
			t.Errorf("%s: Deterministic %t, want %t", name, typ.Deterministic, det)
		}
	}
}

// TestDefaultSpecsResolveCleanly: the plain spec of every type, and the ELC
// flash tuning with contents and noatime, have no problems at 512MiB.
func TestDefaultSpecsResolveCleanly(t *testing.T) {
	for _, name := range Names() {
		typ, _ := Lookup(name)
		if typ.MinSize > 512*units.MiB {
			t.Errorf("%s: MinSize %s above 512MiB", name, size(typ.MinSize))
		}
		plain := Spec{Type: name, UUID: testUUID, Size: 512 * units.MiB}
		if r, probs := Resolve(plain); len(probs) > 0 || len(r.Mkfs.Argv) == 0 {
			t.Errorf("%s: plain spec: %+v, argv %q", name, probs, r.Mkfs.Argv)
		}
		tuned := plain
		tuned.Geometry = Geometry{EraseBlock: 4 * units.MiB, PageSize: 16 * units.KiB}
		tuned.HasContents = typ.Populate != PopulateNone
		tuned.Mount = []string{"noatime"}
		if _, probs := Resolve(tuned); len(probs) > 0 {
			t.Errorf("%s: tuned spec: %+v", name, probs)
		}
	}
}

func TestELCDerivations(t *testing.T) {
	for _, c := range []struct {
		typ, name string
		value     any
	}{
		{"ext4", "stride", int64(1024)}, {"ext4", "stripe_width", int64(1024)},
		{"ext2", "stride", int64(1024)},
		{"f2fs", "segs_per_section", int64(2)}, {"f2fs", "sections_per_zone", int64(1)},
		{"nilfs2", "blocks_per_segment", int64(1024)},
		{"xfs", "su", int64(4 * units.MiB)}, {"xfs", "sw", int64(1)}, {"xfs", "agcount", int64(4)},
		{"btrfs", "nodesize", int64(4096)}, {"btrfs", "erase_block", nil},
	} {
		s := Spec{Type: c.typ, UUID: testUUID, Size: 512 * units.MiB, Geometry: Geometry{EraseBlock: 4 * units.MiB}}
		r, _ := Resolve(s)
		found := false
		for _, d := range r.Derived {
			if d.Name == c.name {
				found = true
				if !reflect.DeepEqual(d.Value, c.value) || d.From == "" {
					t.Errorf("%s %s derived %v from %q, want %v", c.typ, c.name, d.Value, d.From, c.value)
				}
			}
		}
		if !found {
			t.Errorf("%s: no derivation of %s in %+v", c.typ, c.name, r.Derived)
		}
	}
}

// TestExplicitTuningOverridesDerived: a value in tuning wins over the one
// derived from the erase block.
func TestExplicitTuningOverridesDerived(t *testing.T) {
	s := Spec{Type: "ext4", UUID: testUUID, Size: 512 * units.MiB, Geometry: Geometry{EraseBlock: 4 * units.MiB},
		Tuning: map[string]any{"stride": int64(16)}}
	r, probs := Resolve(s)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	e := strings.Join(r.Mkfs.Argv, " ")
	if !strings.Contains(e, "stride=16,stripe_width=1024") {
		t.Errorf("argv %s", e)
	}
	s = Spec{Type: "f2fs", UUID: testUUID, Size: 512 * units.MiB, Geometry: Geometry{EraseBlock: 4 * units.MiB},
		Tuning: map[string]any{"segs_per_section": int64(4)}}
	r, _ = Resolve(s)
	if e := strings.Join(r.Mkfs.Argv, " "); !strings.Contains(e, "-s 4 -z 1") {
		t.Errorf("argv %s", e)
	}
}

func TestRootFlagsHoldOnlyFilesystemOptions(t *testing.T) {
	s := Spec{Type: "ext4", UUID: testUUID, Size: 512 * units.MiB,
		Mount: []string{" noatime ", "data=writeback", "ro", "commit=60", "nodev"}}
	r, probs := Resolve(s)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if r.RootFlags != "data=writeback,commit=60" {
		t.Errorf("RootFlags %q", r.RootFlags)
	}
	if !reflect.DeepEqual(r.VFSFlags, []string{"noatime", "ro", "nodev"}) {
		t.Errorf("VFSFlags %q", r.VFSFlags)
	}
	if !reflect.DeepEqual(r.MountOptions, []string{"noatime", "data=writeback", "ro", "commit=60", "nodev"}) {
		t.Errorf("MountOptions %q", r.MountOptions)
	}
}

func TestCommandsCarryPlaceholders(t *testing.T) {
	for _, name := range Names() {
		typ, _ := Lookup(name)
		s := Spec{Type: name, UUID: testUUID, Size: 512 * units.MiB, HasContents: typ.Populate != PopulateNone}
		r, _ := Resolve(s)
		all := strings.Join(r.Mkfs.Argv, " ")
		for _, p := range r.Populate {
			all += " " + strings.Join(p.Argv, " ")
		}
		if !strings.Contains(all, "{image}") {
			t.Errorf("%s: no {image} in %s", name, all)
		}
		if s.HasContents && typ.Populate != PopulateVM && !strings.Contains(all, "{root") && !strings.Contains(all, "{protofile}") {
			t.Errorf("%s: contents, but no {root}, {root_entries} or {protofile} in %s", name, all)
		}
		if r.Check.Argv != nil && r.Check.Argv[len(r.Check.Argv)-1] != "{image}" {
			t.Errorf("%s: checker %q does not end in {image}", name, r.Check.Argv)
		}
	}
}

func TestExtraArgsComeAfterDerivedOnes(t *testing.T) {
	s := Spec{Type: "ext4", UUID: testUUID, Size: 512 * units.MiB, ExtraArgs: []string{"-N", "4096"}}
	r, _ := Resolve(s)
	a := r.Mkfs.Argv
	if a[len(a)-3] != "-N" || a[len(a)-2] != "4096" || a[len(a)-1] != "{image}" {
		t.Errorf("argv %q", a)
	}
}

func TestUUIDs(t *testing.T) {
	u, err := parseUUID(testUUID)
	if err != nil || formatUUID(u) != testUUID {
		t.Fatalf("round trip: %v %s", err, formatUUID(u))
	}
	for _, bad := range []string{"", "0b5c2a445d0e4e8f9a613c7d2b9e4f10", "0b5c2a44-5d0e-4e8f-9a61-3c7d2b9e4fzz"} {
		if _, err := parseUUID(bad); err == nil {
			t.Errorf("parseUUID(%q) succeeded", bad)
		}
	}
	seed := formatUUID(deriveUUID(u, "ext hash_seed"))
	if seed != formatUUID(deriveUUID(u, "ext hash_seed")) || seed == testUUID {
		t.Errorf("hash seed %s not stable or not distinct", seed)
	}
	if seed[14] != '8' {
		t.Errorf("derived UUID %s is not version 8", seed)
	}
	if id := fatVolumeID(u); len(id) != 8 || id != fatVolumeID(u) {
		t.Errorf("volume id %q", id)
	}
}
