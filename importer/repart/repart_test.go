package repart

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/importer"
	"github.com/fsbench/fsbench/internal/golden"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

// slot is a partition as sfdisk -d prints it: first sector, sectors,
// GPT name.
type slot struct {
	start, sectors int64
	name           string
}

// repartAuto is where systemd-repart 252 (Debian 12's) puts each
// partition of a directory with --empty=create --size=auto, read back
// with sfdisk -d (CopyFiles= and MakeDirectories= left out, which change
// no size in 252). TestRealRepart checks these figures against the tool
// where it is installed.
var repartAuto = map[string][]slot{
	"fsbench-esp-root":    {{2048, 131072, "esp"}, {133120, 262144, "root-x86-64"}},
	"fsbench-fsmin":       {{2048, 524288, "home"}, {526336, 2048, "srv"}, {528384, 11264, "esp"}, {539648, 3145728, "var"}, {3685376, 16, "tmp"}},
	"fsbench-labels":      {{2048, 8192, "linux-generic"}, {10240, 8192, "linux-generic-2"}, {18432, 20480, "linux-generic-3"}},
	"fsbench-padding":     {{2048, 16384, "linux-generic"}, {24576, 32768, "swap"}, {59344, 65536, "boot"}},
	"fsbench-weights":     {{2048, 65536, "esp"}, {67584, 131072, "root-x86-64"}, {198656, 20480, "home"}},
	"systemd-basic":       {{2048, 20480, "home-first"}, {22528, 20480, "root-x86-64"}, {43008, 20480, "root-x86-64-2"}, {63488, 20480, "swap"}},
	"systemd-copy-blocks": {{2048, 20480, "esp"}, {22528, 20480, "root-x86-64"}, {43008, 20480, "usr-x86-64"}},
	"systemd-dropin":      {{2048, 20480, "label2"}},
	"systemd-extra":       {{2048, 20480, "custom_label"}, {22528, 20480, "ignored_label"}, {43008, 20480, "root-x86-64"}, {63488, 20480, "root-x86-64-2"}, {83968, 20480, "swap"}},
	"systemd-sector":      {{2048, 30720, "root-x86-64"}, {32768, 20480, "linux-generic"}, {53248, 20480, "linux-generic-2"}},
	"systemd-zero-uuid":   {{2048, 20480, "root-x86-64"}},
}

// repartSized is the same for the imports the spec says for any disk
// size, on a disk of the size given (--size=SIZE): the partition that
// grows takes the rest.
var repartSized = map[string]struct {
	size  string
	slots []slot
}{
	"fsbench-esp-root":  {"512MiB", []slot{{2048, 131072, "esp"}, {133120, 915416, "root-x86-64"}}},
	"fsbench-fsmin":     {"2GiB", []slot{{2048, 524288, "home"}, {526336, 2048, "srv"}, {528384, 11264, "esp"}, {539648, 3145728, "var"}, {3685376, 508888, "tmp"}}},
	"fsbench-labels":    {"64MiB", []slot{{2048, 8192, "linux-generic"}, {10240, 8192, "linux-generic-2"}, {18432, 112600, "linux-generic-3"}}},
	"fsbench-padding":   {"200MiB", []slot{{2048, 16384, "linux-generic"}, {24576, 32768, "swap"}, {59344, 65536, "boot"}}},
	"systemd-zero-uuid": {"100MiB", []slot{{2048, 202712, "root-x86-64"}}},
}

// dirs are the repart.d directories of testdata.
func dirs(t *testing.T) []string {
	ents, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != "golden" {
			out = append(out, e.Name())
		}
	}
	return out
}

// Every directory imports into its golden spec, whose partitions lie
// where systemd-repart puts them: at --size=auto, and at a larger size
// when the spec says one partition grows.
func TestRepartLayouts(t *testing.T) {
	checked := 0
	for _, name := range dirs(t) {
		t.Run(name, func(t *testing.T) {
			s, out := importDir(t, name)
			golden.Check(t, filepath.Join("testdata", "golden", name+".fsb.hcl"), out, *update)
			want, ok := repartAuto[name]
			if !ok {
				return // Verity=, Minimize=, drop-ins: repart needs what the import refuses
			}
			if got := layout(t, s, out, ""); !slices.Equal(got, want) {
				t.Errorf("at --size=auto fsbench places %v, systemd-repart %v", got, want)
			}
			checked++
			sized, ok := repartSized[name]
			if hasVar(s, "disk_size") != ok {
				t.Fatalf("the spec's disk_size variable: %v, a sized layout to check: %v", hasVar(s, "disk_size"), ok)
			}
			if got := layout(t, s, out, sized.size); ok && !slices.Equal(got, sized.slots) {
				t.Errorf("at --size=%s fsbench places %v, systemd-repart %v", sized.size, got, sized.slots)
			}
		})
	}
	if checked != len(repartAuto) {
		t.Errorf("%d of %d layouts checked", checked, len(repartAuto))
	}
}

func importDir(t *testing.T, name string) (*importer.Spec, []byte) {
	t.Helper()
	s, err := Import(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	out, err := importer.Write(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, out
}

func hasVar(s *importer.Spec, name string) bool {
	return slices.ContainsFunc(s.Variables, func(v importer.Variable) bool { return v.Name == name })
}

// layout plans the imported spec, with the disk's size when size is
// given, and returns each partition's place and GPT name.
func layout(t *testing.T, s *importer.Spec, src []byte, size string) []slot {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "imported.fsb.hcl")
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := spec.Options{Planning: true, Roots: []string{dir}}
	if hasVar(s, "root") {
		opts.Vars = append(opts.Vars, "root="+dir)
	}
	if size != "" {
		opts.Vars = append(opts.Vars, "disk_size="+size)
	}
	_, pl, diags := plan.Load(p, opts)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), src)
	}
	var out []slot
	for _, part := range pl.Variants[0].Images[0].Partitions {
		out = append(out, slot{part.StartSector, part.Sectors, part.Label})
	}
	return out
}

// toolSkips are the directories systemd-repart cannot run as the import
// reads them, and why.
var toolSkips = map[string]string{
	"particleos":       "Verity=signature needs a signing key, Minimize= is systemd 253's",
	"systemd-portable": "Verity= sizes follow the data, which the test has none of",
}

// The layouts agree with systemd-repart itself: each directory (less
// CopyFiles= and MakeDirectories=) goes through systemd-repart
// --empty=create --dry-run=no on a file, and sfdisk -J reads back the
// places, names and types the spec's plan has.
func TestRealRepart(t *testing.T) {
	testenv.Tools(t, "systemd-repart", "sfdisk", "mkfs.vfat", "mkfs.btrfs", "mke2fs")
	testenv.Root(t, "the loop devices systemd-repart formats through")
	for _, name := range dirs(t) {
		if why, ok := toolSkips[name]; ok {
			t.Logf("%s: not run: %s", name, why)
			continue
		}
		t.Run(name, func(t *testing.T) {
			s, out := importDir(t, name)
			sizes := []string{""}
			if hasVar(s, "disk_size") {
				sizes = append(sizes, repartSized[name].size)
			}
			for _, size := range sizes {
				want, wantSize := planned(t, s, out, size)
				got, gotSize := runRepart(t, filepath.Join("testdata", name), size)
				if !slices.Equal(got, want) || gotSize != wantSize {
					t.Errorf("--size=%s: systemd-repart writes %d bytes\n%v\nthe spec plans %d\n%v", size, gotSize, got, wantSize, want)
				}
			}
		})
	}
}

// entryOf is a GPT entry as both sides give it.
type entryOf struct {
	start, sectors int64
	name, typ      string
}

// planned is the spec's plan: its partitions, and the image's size.
func planned(t *testing.T, s *importer.Spec, src []byte, size string) ([]entryOf, int64) {
	dir := t.TempDir()
	p := filepath.Join(dir, "imported.fsb.hcl")
	os.WriteFile(p, src, 0o644)
	opts := spec.Options{Planning: true, Roots: []string{dir}, Vars: []string{"root=" + dir}}
	if !hasVar(s, "root") {
		opts.Vars = nil
	}
	if size != "" {
		opts.Vars = append(opts.Vars, "disk_size="+size)
	}
	_, pl, diags := plan.Load(p, opts)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var out []entryOf
	for _, part := range pl.Variants[0].Images[0].Partitions {
		out = append(out, entryOf{part.StartSector, part.Sectors, part.Label, part.Type})
	}
	return out, pl.Variants[0].Images[0].Size
}

// runRepart makes the image of dir with systemd-repart and reads its
// table back, and the file's size.
func runRepart(t *testing.T, dir, size string) ([]entryOf, int64) {
	defs := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(dir, "*.conf"))
	dropIns, _ := filepath.Glob(filepath.Join(dir, "*.conf.d", "*.conf"))
	for _, f := range append(files, dropIns...) {
		b, _ := os.ReadFile(f)
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "CopyFiles=") && !strings.HasPrefix(l, "MakeDirectories=") {
				keep = append(keep, l)
			}
		}
		rel, _ := filepath.Rel(dir, f)
		os.MkdirAll(filepath.Join(defs, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(defs, rel), []byte(strings.Join(keep, "\n")), 0o644)
	}
	img := filepath.Join(t.TempDir(), "disk.img")
	arg := "--size=auto"
	if size != "" {
		arg = "--size=" + strings.TrimSuffix(size, "iB")
	}
	cmd := exec.Command("systemd-repart", "--empty=create", arg, "--dry-run=no", "--definitions="+defs,
		"--seed=750b6cd5c4ae4012a15e7be3c29e6a47", img)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("systemd-repart: %v\n%s", err, b)
	}
	var dump struct {
		Table struct {
			Partitions []struct {
				Start, Size int64
				Type, Name  string
			}
		} `json:"partitiontable"`
	}
	if err := json.Unmarshal([]byte(testenv.Run(t, "", "sfdisk", "-J", img)), &dump); err != nil {
		t.Fatal(err)
	}
	var out []entryOf
	for _, p := range dump.Table.Partitions {
		out = append(out, entryOf{p.Start, p.Size, p.Name, strings.ToLower(p.Type)})
	}
	fi, err := os.Stat(img)
	if err != nil {
		t.Fatal(err)
	}
	return out, fi.Size()
}

func TestParseSize(t *testing.T) {
	for v, want := range map[string]int64{"10M": 10 << 20, "5.5M": 5767168, "1G 512M": 1536 << 20, "10000": 10000, "4 K": 4096, "1.25K": 1280} {
		if got, err := parseSize(v); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"", "M", "-1M", "1Q"} {
		if _, err := parseSize(v); err == nil {
			t.Errorf("parseSize(%q) accepted", v)
		}
	}
}

func TestTypes(t *testing.T) {
	for v, want := range map[string]string{
		"esp": "c12a7328-f81f-11d2-ba4b-00a0c93ec93b", "root-arm64": "b921b045-1df0-41c3-af44-4c6f280d3fae",
		"root": "4f68bce3-e8cd-4db1-96e7-fbcaf984b709", "usr-riscv64-verity": "8f1056be-9b05-47c4-81d6-be53128e5b54",
		"0FC63DAF84834772 8E793D69D8477DE4": "", "0FC63DAF84834772-8E793D69D8477DE4": "",
		"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf": "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf", "linux-generic": "0fc63daf-8483-4772-8e79-3d69d8477de4",
	} {
		got, ok := lookupType(v)
		if got.guid != want || ok != (want != "") {
			t.Errorf("lookupType(%q) = %+v, %v; want %s", v, got, ok, want)
		}
	}
	if n := nameOf("a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf"); n != "linux" {
		t.Errorf("an unknown GUID's label is %q, repart's is linux", n)
	}
}

// partition_min_size's cases, with what systemd-repart 252 made of them
// (--size=auto's image, minus its 1044 KiB of table).
func TestMinSizes(t *testing.T) {
	for _, c := range []struct {
		files map[string]string
		want  int64
	}{
		{map[string]string{"a.conf": "[Partition]\nType=home\nFormat=btrfs\n"}, 256 << 20},
		{map[string]string{"a.conf": "[Partition]\nType=home\nFormat=xfs\nSizeMinBytes=1M\n"}, 14 << 20},
		{map[string]string{"a.conf": "[Partition]\nType=home\nFormat=ext4\nSizeMinBytes=1M\n"}, 1 << 20},
		{map[string]string{"a.conf": "[Partition]\nType=home\nFormat=vfat\n"}, 10 << 20},
		{map[string]string{"a.conf": "[Partition]\nType=home\nEncrypt=yes\n"}, 17 << 20}, // 18.0M with the table
		{map[string]string{"a.conf": "[Partition]\nType=home\nSizeMinBytes=3000\n"}, 4096},
		{map[string]string{"a.conf": "[Partition]\nType=root-verity-sig\nVerity=signature\n"}, 16384},
	} {
		s, err := Import(writeDir(t, c.files))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Images[0].Partitions[0].Size; got != c.want && !s.Images[0].Partitions[0].Grow {
			t.Errorf("%q: %d bytes, repart's minimum is %d", c.files["a.conf"], got, c.want)
		}
		if got := *s.Variables[len(s.Variables)-1].Default; s.Images[0].Partitions[0].Grow && got != units.FormatSize(c.want+gptMetadata) {
			t.Errorf("%q: an image of %s, repart's --size=auto is %s", c.files["a.conf"], got, units.FormatSize(c.want+gptMetadata))
		}
	}
}
