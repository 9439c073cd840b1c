package plan

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/wire/arch"
)

func TestResolvePartType(t *testing.T) {
	for _, c := range []struct {
		table, in, want string
		err             bool
	}{
		{"gpt", "esp", "c12a7328-f81f-11d2-ba4b-00a0c93ec93b", false},
		{"mbr", "esp", "0xef", false},
		{"mbr", "83", "0x83", false},
		{"mbr", "0x05", "", true},
		{"mbr", "bios-boot", "", true},
		{"gpt", "0x83", "", true},
		{"mbr", "0fc63daf-8483-4772-8e79-3d69d8477de4", "", true},
		{"gpt", "0FC63DAF-8483-4772-8E79-3D69D8477DE4", "0fc63daf-8483-4772-8e79-3d69d8477de4", false},
		{"gpt", "00000000-0000-0000-0000-000000000000", "", true},
		{"gpt", "linuxx", "", true},
		{"gpt", "barebox-state", "4778ed65-bf42-45fa-9c5b-287a1dc4aab1", false},
		{"gpt", "u-boot-env", "3de21764-95bd-54bd-a5c3-4abe786f38a8", false},
		{"mbr", "u-boot-env", "", true},
		{"gpt", "root-ppc64-le-verity-sig", "d4a236e7-e873-4c07-bf1d-bf6cf7f1c3c6", false},
		{"mbr", "usr-riscv32", "0x83", false},
		{"mbr", "swap", "0x82", false},
		{"mbr", "F", "0x0c", false},
		{"mbr", "fat16", "0x0e", false},
		{"mbr", "lvm", "0x8e", false},
		{"mbr", "R", "0xfd", false},
		{"mbr", "xbootldr", "0xea", false},
		{"mbr", "user-home", "0x83", false},
	} {
		got, err := resolvePartType(c.table, c.in, arch.X86_64)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("resolvePartType(%s, %s) = %q, %v", c.table, c.in, got, err)
		}
	}
}

// TestPartTypeCase: shortcuts match in any case, as in genimage; the plan
// names the type as the table spells it.
func TestPartTypeCase(t *testing.T) {
	for _, in := range []string{"esp", "ESP", "Esp", "u", "U", "UEFI", "efi"} {
		got, err := resolvePartType("gpt", in, arch.X86_64)
		if err != nil || got != guidESP {
			t.Errorf("resolvePartType(gpt, %s) = %q, %v; want %s", in, got, err, guidESP)
		}
	}
	for _, in := range []string{"l", "L", "LINUX", "Linux-Generic"} {
		if got, err := resolvePartType("mbr", in, arch.ARM); err != nil || got != "0x83" {
			t.Errorf("resolvePartType(mbr, %s) = %q, %v; want 0x83", in, got, err)
		}
	}
	for in, want := range map[string]string{"ESP": "esp", "l": "L", "Root-ARM64-Verity": "root-arm64-verity", "ROOT": "root", "Barebox-State": "barebox-state"} {
		if got, ok := knownPartType(in); !ok || got != want {
			t.Errorf("knownPartType(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if n, ok := knownPartType("linuxx"); ok {
		t.Errorf("knownPartType(linuxx) = %q, true", n)
	}
}

// TestPartTypeArchRelative: root, usr and their verity forms follow the
// board's architecture.
func TestPartTypeArchRelative(t *testing.T) {
	want := map[arch.Arch]map[string]string{
		arch.X86_64: {
			"root": "4f68bce3-e8cd-4db1-96e7-fbcaf984b709", "usr": "8484680c-9521-48c6-9c11-b0720656f69e",
			"root-verity": "2c7357ed-ebd2-46d9-aec1-23d437ec2bf5", "usr-verity-sig": "e7bb33fb-06cf-4e81-8273-e543b413e2e2",
		},
		arch.ARM: {
			"root": "69dad710-2ce4-4e3c-b16c-21a1d49abed3", "usr": "7d0359a3-02b3-4f0a-865c-654403e70625",
			"root-verity": "7386cdf2-203c-47a9-a498-f2ecce45a2d6", "usr-verity-sig": "d7ff812f-37d1-4902-a810-d76ba57b975a",
		},
		arch.ARM64: {
			"root": "b921b045-1df0-41c3-af44-4c6f280d3fae", "usr": "b0e01050-ee5f-4390-949a-9101b17104e9",
			"root-verity": "df3300ce-d69f-4c92-978c-9bfb0f38d820", "usr-verity-sig": "c23ce4ff-44bd-4b00-b2d4-b41b3419e02a",
		},
		arch.RISCV64: {
			"root": "72ec70a6-cf74-40e6-bd49-4bda08e8f224", "usr": "beaec34b-8442-439b-a40b-984381ed097d",
			"root-verity": "b6ed5582-440b-4209-b8da-5ff7c419ea3d", "usr-verity-sig": "d2f9000a-7a18-453f-b5cd-4d32f77a7b32",
		},
	}
	for _, a := range arch.All() {
		w, ok := want[a]
		if !ok {
			t.Errorf("no expectation for architecture %s", a)
			continue
		}
		for name, guid := range w {
			if got, err := resolvePartType("gpt", name, a); err != nil || got != guid {
				t.Errorf("%s: resolvePartType(gpt, %s) = %q, %v; want %s", a, name, got, err, guid)
			}
		}
		// Every relative name is the full name for the board's architecture.
		kinds, _, _, board := DiscoverablePartTypes()
		for _, k := range kinds {
			first, rest, _ := strings.Cut(k, "-")
			full := first + "-" + board[a]
			if rest != "" {
				full += "-" + rest
			}
			rel, err1 := resolvePartType("gpt", strings.ToUpper(k), a)
			abs, err2 := resolvePartType("gpt", full, a)
			if err1 != nil || err2 != nil || rel != abs {
				t.Errorf("%s: %s = %q, %v; %s = %q, %v", a, k, rel, err1, full, abs, err2)
			}
		}
		if got, err := resolvePartType("mbr", "root", a); err != nil || got != "0x83" {
			t.Errorf("%s: resolvePartType(mbr, root) = %q, %v", a, got, err)
		}
	}
	if _, err := resolvePartType("gpt", "root", ""); err == nil || !strings.Contains(err.Error(), "root-ARCH") {
		t.Errorf("root without an architecture: %v", err)
	}
}

// TestPartTypeGPTOnlyOnMBR: a type with no MBR id is refused on MBR, by name.
func TestPartTypeGPTOnlyOnMBR(t *testing.T) {
	for _, in := range []string{"bios-boot", "barebox-state", "Barebox-Env", "u-boot-env"} {
		_, err := resolvePartType("mbr", in, arch.ARM)
		if err == nil || !strings.Contains(err.Error(), `"`+in+`" has no MBR id`) || !strings.Contains(err.Error(), "GPT only") {
			t.Errorf("resolvePartType(mbr, %s): %v", in, err)
		}
	}
}

// TestPartTypeInPlan: the board's arch reaches the partition type, the plan
// names the type as the table spells it, and a misspelt name gets a
// suggestion.
func TestPartTypeInPlan(t *testing.T) {
	p := resolve(t, `
board "b" {
  arch    = "riscv64"
  storage = "mmcblk0"
}
image "d" {
  size = "64MiB"
  partition "root" {
    size = "32MiB"
    type = "ROOT"
    root = true
    filesystem { type = "ext4" }
  }
  partition "env" {
    size = "1MiB"
    type = "U-Boot-Env"
  }
}
`)
	parts := p.Variants[0].Images[0].Partitions
	if parts[0].Type != "72ec70a6-cf74-40e6-bd49-4bda08e8f224" || parts[0].TypeName != "root" {
		t.Errorf("root partition type %s (%s)", parts[0].Type, parts[0].TypeName)
	}
	if parts[1].Type != "3de21764-95bd-54bd-a5c3-4abe786f38a8" || parts[1].TypeName != "u-boot-env" {
		t.Errorf("env partition type %s (%s)", parts[1].Type, parts[1].TypeName)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "t.fsb.hcl")
	os.WriteFile(path, []byte(`image "d" {
  size = "64MiB"
  partition "a" {
    size = "16MiB"
    type = "barebox-stat"
    filesystem { type = "ext4" }
  }
}
`), 0o644)
	_, _, diags := LoadSealed(path, spec.Options{})
	if msg := diags.Error(); !strings.Contains(msg, `"barebox-stat" is not a partition type shortcut`) || !strings.Contains(msg, `Did you mean "barebox-state"?`) {
		t.Errorf("unknown type: %s", msg)
	}
}

// TestPartTypeNames: every name is listed once, sorted regardless of case,
// and resolves.
func TestPartTypeNames(t *testing.T) {
	names := PartTypeNames()
	seen := map[string]bool{}
	for i, n := range names {
		if seen[strings.ToLower(n)] {
			t.Errorf("%s listed twice", n)
		}
		seen[strings.ToLower(n)] = true
		if i > 0 && strings.ToLower(names[i-1]) > strings.ToLower(n) {
			t.Errorf("%s before %s", names[i-1], n)
		}
		if _, err := resolvePartType("gpt", n, arch.ARM64); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	// 19 architectures times 6 kinds, the 6 relative kinds, and the fixed
	// shortcuts.
	fixed := 0
	for _, s := range PartTypeShortcuts() {
		fixed += len(s.Names)
	}
	if want := 19*6 + 6 + fixed; len(names) != want {
		t.Errorf("%d names, want %d", len(names), want)
	}
}

// utilLinuxName is util-linux's name for each fixed shortcut's type, as
// `sfdisk --label gpt -T` prints it; "" for the types it does not list.
var utilLinuxName = map[string]string{
	"linux": "Linux filesystem", "L": "Linux filesystem", "linux-generic": "Linux filesystem",
	"esp": "EFI System", "efi": "EFI System", "U": "EFI System", "uefi": "EFI System",
	"fat32": "Microsoft basic data", "F": "Microsoft basic data", "basic-data": "Microsoft basic data",
	"fat16": "Microsoft basic data",
	"swap":  "Linux swap", "S": "Linux swap",
	"home": "Linux home", "H": "Linux home", "linux-home": "Linux home",
	"srv": "Linux server data", "var": "Linux variable data", "tmp": "Linux temporary data",
	"user-home": "Linux user's home",
	"lvm":       "Linux LVM", "V": "Linux LVM",
	"raid": "Linux RAID", "R": "Linux RAID",
	"xbootldr":      "Linux extended boot",
	"bios-boot":     "BIOS boot",
	"barebox-state": "", "barebox-env": "", "u-boot-env": "",
	"linux-root-x86-64": "Linux root (x86-64)", "linux-root-arm64": "Linux root (ARM-64)",
	"linux-root-arm": "Linux root (ARM)", "linux-root-riscv64": "Linux root (RISC-V-64)",
}

// utilLinuxArch is util-linux's name for each Discoverable Partitions
// architecture. util-linux 2.38 lacks parisc; later releases call it
// HPPA/PARISC.
var utilLinuxArch = map[string]string{
	"alpha": "Alpha", "arc": "ARC", "arm": "ARM", "arm64": "ARM-64", "ia64": "IA-64",
	"loongarch64": "LoongArch-64", "mips-le": "MIPS-32 LE", "mips64-le": "MIPS-64 LE",
	"parisc": "HPPA/PARISC", "ppc": "PPC", "ppc64": "PPC64", "ppc64-le": "PPC64LE",
	"riscv32": "RISC-V-32", "riscv64": "RISC-V-64", "s390": "S390", "s390x": "S390X",
	"tilegx": "TILE-Gx", "x86": "x86", "x86-64": "x86-64",
}

// utilLinuxKind is util-linux's name for each Discoverable Partitions kind.
var utilLinuxKind = map[string]string{
	"root": "Linux root", "usr": "Linux /usr",
	"root-verity": "Linux root verity", "usr-verity": "Linux /usr verity",
	"root-verity-sig": "Linux root verity sign.", "usr-verity-sig": "Linux /usr verity sign.",
}

// TestPartTypesMatchUtilLinux: every shortcut's GUID is the one util-linux
// gives the type.
func TestPartTypesMatchUtilLinux(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	out, err := exec.Command("sfdisk", "--label", "gpt", "-T").Output()
	if err != nil {
		t.Fatalf("sfdisk --label gpt -T: %v", err)
	}
	line := regexp.MustCompile(`^\s*([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})\s+(.+?)\s*$`)
	ul := map[string]string{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		if m := line.FindStringSubmatch(sc.Text()); m != nil {
			ul[m[2]] = strings.ToLower(m[1])
		}
	}
	if len(ul) < 50 {
		t.Fatalf("sfdisk --label gpt -T listed only %d types:\n%s", len(ul), out)
	}
	check := func(name, ulName string, missingOK bool) {
		t.Helper()
		got, err := resolvePartType("gpt", name, arch.X86_64)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		want, ok := ul[ulName]
		switch {
		case !ok && missingOK:
			t.Logf("this util-linux does not list %q; %s not checked", ulName, name)
		case !ok:
			t.Errorf("%s: util-linux lists no %q", name, ulName)
		case got != want:
			t.Errorf("%s = %s; util-linux's %q is %s", name, got, ulName, want)
		}
	}
	checked := map[string]bool{}
	for _, s := range PartTypeShortcuts() {
		for _, n := range s.Names {
			ulName, ok := utilLinuxName[n]
			if !ok {
				t.Errorf("%s: no util-linux name in the test", n)
			} else if ulName != "" {
				check(n, ulName, false)
			}
			checked[strings.ToLower(n)] = true
		}
	}
	kinds, patterns, arches, _ := DiscoverablePartTypes()
	for _, a := range arches {
		ua, ok := utilLinuxArch[a]
		if !ok {
			t.Errorf("architecture %s: no util-linux name in the test", a)
			continue
		}
		for i, k := range kinds {
			n := strings.Replace(patterns[i], "ARCH", a, 1)
			check(n, utilLinuxKind[k]+" ("+ua+")", a == "parisc")
			checked[n] = true
		}
	}
	for _, k := range kinds {
		checked[k] = true // follow the architecture: TestPartTypeArchRelative
	}
	for _, n := range PartTypeNames() {
		if !checked[strings.ToLower(n)] {
			t.Errorf("%s not checked against util-linux", n)
		}
	}
}

// Every filesystem's default partition type is a shortcut the tables know.
func TestCatalogueDefaultPartTypesAreKnown(t *testing.T) {
	for _, name := range filesystems.Names() {
		if _, ok := knownPartType(defaultPartType(name)); !ok {
			t.Errorf("%s: default partition type %q is no shortcut", name, defaultPartType(name))
		}
	}
	if defaultPartType("vfat") != "fat32" || defaultPartType("ext4") != "linux" || defaultPartType("") != "linux" {
		t.Errorf("defaults: vfat %q, ext4 %q, none %q", defaultPartType("vfat"), defaultPartType("ext4"), defaultPartType(""))
	}
}
