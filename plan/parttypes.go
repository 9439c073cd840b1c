package plan

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/wire/arch"
)

// partType is a partition type shortcut with its GPT type GUID and MBR id.
type partType struct {
	GPT string
	MBR byte // 0 = no MBR equivalent: the type exists on GPT only
}

// PartTypeShortcut is one row of the partition type shortcuts: the names
// that all mean one type, the usual one first.
type PartTypeShortcut struct {
	Names []string
	GPT   string // lower-case type GUID
	MBR   byte   // 0 = GPT only
	About string // what the type is for
}

// Type GUIDs that several rows share.
const (
	guidLinux     = "0fc63daf-8483-4772-8e79-3d69d8477de4"
	guidESP       = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
	guidBasicData = "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"
)

// shortcuts are the partition types a spec may write as `type`, besides the
// per-architecture ones of dpsArches. The names are fsbench's, genimage's
// (image-hd.c, gpt_partition_type_shortcuts, and its README: the one-letter
// forms, linux-generic, uefi, the barebox and U-Boot environments) and the
// UAPI Discoverable Partitions Specification's
// (https://uapi-group.org/specifications/specs/discoverable_partitions_specification/).
// GUIDs are util-linux's (`sfdisk --label gpt -T`) and agree with
// genimage's; barebox-state, barebox-env and u-boot-env, which util-linux
// does not list, are genimage's. MBR ids are the conventional ones fdisk
// shows (`sfdisk --label dos -T`). Names match regardless of case, as in
// genimage.
var shortcuts = []PartTypeShortcut{
	{[]string{"linux", "L", "linux-generic"}, guidLinux, 0x83, "Linux filesystem data"},
	{[]string{"esp", "efi", "U", "uefi"}, guidESP, 0xef, "EFI system partition"},
	{[]string{"fat32", "F", "basic-data"}, guidBasicData, 0x0c, "FAT (Microsoft basic data; MBR: FAT32 LBA)"},
	{[]string{"fat16"}, guidBasicData, 0x0e, "FAT (Microsoft basic data; MBR: FAT16 LBA)"},
	{[]string{"swap", "S"}, "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f", 0x82, "Linux swap"},
	{[]string{"home", "H", "linux-home"}, "933ac7e1-2eb4-4f13-b844-0e14e2aef915", 0x83, "/home, the users' home directories"},
	{[]string{"srv"}, "3b8f8425-20e0-4f3b-907f-1a25a76f98e8", 0x83, "/srv, server data"},
	{[]string{"var"}, "4d21b016-b534-45c2-a9fb-5c16e091fd2d", 0x83, "/var, variable data"},
	{[]string{"tmp"}, "7ec6f557-3bc5-4aca-b293-16ef5df639d1", 0x83, "/var/tmp, temporary data"},
	{[]string{"user-home"}, "773f91ef-66d4-49b5-bd83-d683bf40ad16", 0x83, "a user's home directory (systemd-homed)"},
	{[]string{"lvm", "V"}, "e6d6d379-f507-44c2-a23c-238f2a3df928", 0x8e, "Linux LVM physical volume"},
	{[]string{"raid", "R"}, "a19d880f-05fc-4d3b-a006-743f0f84911e", 0xfd, "Linux software RAID member"},
	{[]string{"xbootldr"}, "bc13c2ff-59e6-4262-a352-b275fd6f7172", 0xea, "extended boot loader partition"},
	{[]string{"bios-boot"}, "21686148-6449-6e6f-744e-656564454649", 0, "GRUB's core image on a BIOS machine"},
	{[]string{"barebox-state"}, "4778ed65-bf42-45fa-9c5b-287a1dc4aab1", 0, "barebox state"},
	{[]string{"barebox-env"}, "6c3737f2-07f8-45d1-ad45-15d260aab24d", 0, "barebox environment"},
	{[]string{"u-boot-env"}, "3de21764-95bd-54bd-a5c3-4abe786f38a8", 0, "U-Boot environment"},
	// fsbench's first names for the root types of its own architectures.
	{[]string{"linux-root-x86-64"}, "4f68bce3-e8cd-4db1-96e7-fbcaf984b709", 0x83, "same as `root-x86-64`"},
	{[]string{"linux-root-arm64"}, "b921b045-1df0-41c3-af44-4c6f280d3fae", 0x83, "same as `root-arm64`"},
	{[]string{"linux-root-arm"}, "69dad710-2ce4-4e3c-b16c-21a1d49abed3", 0x83, "same as `root-arm`"},
	{[]string{"linux-root-riscv64"}, "72ec70a6-cf74-40e6-bd49-4bda08e8f224", 0x83, "same as `root-riscv64`"},
}

// dpsKinds are the per-architecture types of the Discoverable Partitions
// Specification, in the order of dpsArches' GUIDs. A kind's full name puts
// the architecture after the first word: root-ARCH-verity.
var dpsKinds = []struct{ first, rest string }{
	{"root", ""}, {"usr", ""},
	{"root", "-verity"}, {"usr", "-verity"},
	{"root", "-verity-sig"}, {"usr", "-verity-sig"},
}

// dpsArches are the Discoverable Partitions Specification's architectures,
// by its names, with their GUIDs: root, usr; root-verity, usr-verity;
// root-verity-sig, usr-verity-sig. All are on MBR 0x83. They are util-linux
// 2.38's ("Linux root (ARM-64)", "Linux /usr verity sign. (ARM-64)"),
// cross-checked against genimage's, except parisc's, which util-linux 2.38
// lacks and which are genimage's. genimage's big-endian mips and mips64,
// which util-linux does not list, are not taken.
var dpsArches = []struct {
	name string
	guid [6]string
}{
	{"alpha", [6]string{
		"6523f8ae-3eb1-4e2a-a05a-18b695ae656f", "e18cf08c-33ec-4c0d-8246-c6c6fb3da024",
		"fc56d9e9-e6e5-4c06-be32-e74407ce09a5", "8cce0d25-c0d0-4a44-bd87-46331bf1df67",
		"d46495b7-a053-414f-80f7-700c99921ef8", "5c6e1c76-076a-457a-a0fe-f3b4cd21ce6e"}},
	{"arc", [6]string{
		"d27f46ed-2919-4cb8-bd25-9531f3c16534", "7978a683-6316-4922-bbee-38bff5a2fecc",
		"24b2d975-0f97-4521-afa1-cd531e421b8d", "fca0598c-d880-4591-8c16-4eda05c7347c",
		"143a70ba-cbd3-4f06-919f-6c05683a78bc", "94f9a9a1-9971-427a-a400-50cb297f0f35"}},
	{"arm", [6]string{
		"69dad710-2ce4-4e3c-b16c-21a1d49abed3", "7d0359a3-02b3-4f0a-865c-654403e70625",
		"7386cdf2-203c-47a9-a498-f2ecce45a2d6", "c215d751-7bcd-4649-be90-6627490a4c05",
		"42b0455f-eb11-491d-98d3-56145ba9d037", "d7ff812f-37d1-4902-a810-d76ba57b975a"}},
	{"arm64", [6]string{
		"b921b045-1df0-41c3-af44-4c6f280d3fae", "b0e01050-ee5f-4390-949a-9101b17104e9",
		"df3300ce-d69f-4c92-978c-9bfb0f38d820", "6e11a4e7-fbca-4ded-b9e9-e1a512bb664e",
		"6db69de6-29f4-4758-a7a5-962190f00ce3", "c23ce4ff-44bd-4b00-b2d4-b41b3419e02a"}},
	{"ia64", [6]string{
		"993d8d3d-f80e-4225-855a-9daf8ed7ea97", "4301d2a6-4e3b-4b2a-bb94-9e0b2c4225ea",
		"86ed10d5-b607-45bb-8957-d350f23d0571", "6a491e03-3be7-4545-8e38-83320e0ea880",
		"e98b36ee-32ba-4882-9b12-0ce14655f46a", "8de58bc2-2a43-460d-b14e-a76e4a17b47f"}},
	{"loongarch64", [6]string{
		"77055800-792c-4f94-b39a-98c91b762bb6", "e611c702-575c-4cbe-9a46-434fa0bf7e3f",
		"f3393b22-e9af-4613-a948-9d3bfbd0c535", "f46b2c26-59ae-48f0-9106-c50ed47f673d",
		"5afb67eb-ecc8-4f85-ae8e-ac1e7c50e7d0", "b024f315-d330-444c-8461-44bbde524e99"}},
	{"mips-le", [6]string{
		"37c58c8a-d913-4156-a25f-48b1b64e07f0", "0f4868e9-9952-4706-979f-3ed3a473e947",
		"d7d150d2-2a04-4a33-8f12-16651205ff7b", "46b98d8d-b55c-4e8f-aab3-37fca7f80752",
		"c919cc1f-4456-4eff-918c-f75e94525ca5", "3e23ca0b-a4bc-4b4e-8087-5ab6a26aa8a9"}},
	{"mips64-le", [6]string{
		"700bda43-7a34-4507-b179-eeb93d7a7ca3", "c97c1f32-ba06-40b4-9f22-236061b08aa8",
		"16b417f8-3e06-4f57-8dd2-9b5232f41aa6", "3c3d61fe-b5f3-414d-bb71-8739a694a4ef",
		"904e58ef-5c65-4a31-9c57-6af5fc7c5de7", "f2c2c7ee-adcc-4351-b5c6-ee9816b66e16"}},
	{"parisc", [6]string{
		"1aacdb3b-5444-4138-bd9e-e5c2239b2346", "dc4a4480-6917-4262-a4ec-db9384949f25",
		"d212a430-fbc5-49f9-a983-a7feef2b8d0e", "5843d618-ec37-48d7-9f12-cea8e08768b2",
		"15de6170-65d3-431c-916e-b0dcd8393f25", "450dd7d1-3224-45ec-9cf2-a43a346d71ee"}},
	{"ppc", [6]string{
		"1de3f1ef-fa98-47b5-8dcd-4a860a654d78", "7d14fec5-cc71-415d-9d6c-06bf0b3c3eaf",
		"98cfe649-1588-46dc-b2f0-add147424925", "df765d00-270e-49e5-bc75-f47bb2118b09",
		"1b31b5aa-add9-463a-b2ed-bd467fc857e7", "7007891d-d371-4a80-86a4-5cb875b9302e"}},
	{"ppc64", [6]string{
		"912ade1d-a839-4913-8964-a10eee08fbd2", "2c9739e2-f068-46b3-9fd0-01c5a9afbcca",
		"9225a9a3-3c19-4d89-b4f6-eeff88f17631", "bdb528a5-a259-475f-a87d-da53fa736a07",
		"f5e2c20c-45b2-4ffa-bce9-2a60737e1aaf", "0b888863-d7f8-4d9e-9766-239fce4d58af"}},
	{"ppc64-le", [6]string{
		"c31c45e6-3f39-412e-80fb-4809c4980599", "15bb03af-77e7-4d4a-b12b-c0d084f7491c",
		"906bd944-4589-4aae-a4e4-dd983917446a", "ee2b9983-21e8-4153-86d9-b6901a54d1ce",
		"d4a236e7-e873-4c07-bf1d-bf6cf7f1c3c6", "c8bfbd1e-268e-4521-8bba-bf314c399557"}},
	{"riscv32", [6]string{
		"60d5a7fe-8e7d-435c-b714-3dd8162144e1", "b933fb22-5c3f-4f91-af90-e2bb0fa50702",
		"ae0253be-1167-4007-ac68-43926c14c5de", "cb1ee4e3-8cd0-4136-a0a4-aa61a32e8730",
		"3a112a75-8729-4380-b4cf-764d79934448", "c3836a13-3137-45ba-b583-b16c50fe5eb4"}},
	{"riscv64", [6]string{
		"72ec70a6-cf74-40e6-bd49-4bda08e8f224", "beaec34b-8442-439b-a40b-984381ed097d",
		"b6ed5582-440b-4209-b8da-5ff7c419ea3d", "8f1056be-9b05-47c4-81d6-be53128e5b54",
		"efe0f087-ea8d-4469-821a-4c2a96a8386a", "d2f9000a-7a18-453f-b5cd-4d32f77a7b32"}},
	{"s390", [6]string{
		"08a7acea-624c-4a20-91e8-6e0fa67d23f9", "cd0f869b-d0fb-4ca0-b141-9ea87cc78d66",
		"7ac63b47-b25c-463b-8df8-b4a94e6c90e1", "b663c618-e7bc-4d6d-90aa-11b756bb1797",
		"3482388e-4254-435a-a241-766a065f9960", "17440e4f-a8d0-467f-a46e-3912ae6ef2c5"}},
	{"s390x", [6]string{
		"5eead9a9-fe09-4a1e-a1d7-520d00531306", "8a4f5770-50aa-4ed3-874a-99b710db6fea",
		"b325bfbe-c7be-4ab8-8357-139e652d2f6b", "31741cc4-1a2a-4111-a581-e00b447d2d06",
		"c80187a5-73a3-491a-901a-017c3fa953e9", "3f324816-667b-46ae-86ee-9b0c0c6c11b4"}},
	{"tilegx", [6]string{
		"c50cdd70-3862-4cc3-90e1-809a8c93ee2c", "55497029-c7c1-44cc-aa39-815ed1558630",
		"966061ec-28e4-4b2e-b4a5-1f0a825a1d84", "2fb4bf56-07fa-42da-8132-6b139f2026ae",
		"b3671439-97b0-4a53-90f7-2d5a8f3ad47b", "4ede75e2-6ccc-4cc8-b9c7-70334b087510"}},
	{"x86", [6]string{
		"44479540-f297-41b2-9af7-d131d5f0458a", "75250d76-8cc6-458e-bd66-bd47cc81a812",
		"d13c5d3b-b5d1-422a-b29f-9454fdc89d76", "8f461b0d-14ee-4e81-9aa9-049b6fb97abd",
		"5996fc05-109c-48de-808b-23fa0830b676", "974a71c0-de41-43c3-be5d-5c5ccd1ad2c0"}},
	{"x86-64", [6]string{
		"4f68bce3-e8cd-4db1-96e7-fbcaf984b709", "8484680c-9521-48c6-9c11-b0720656f69e",
		"2c7357ed-ebd2-46d9-aec1-23d437ec2bf5", "77ff5f63-e7b6-4633-acf4-1565b864c0e6",
		"41092b05-9fc8-4523-994f-2def0408b176", "e7bb33fb-06cf-4e81-8273-e543b413e2e2"}},
}

// dpsArch is the Discoverable Partitions Specification's name for each
// architecture fsbench builds for.
var dpsArch = map[arch.Arch]string{
	arch.X86_64:  "x86-64",
	arch.ARM:     "arm",
	arch.ARM64:   "arm64",
	arch.RISCV64: "riscv64",
}

// partTypes holds every shortcut, by its lower-case name; partTypeNames its
// spelling in the tables; archRelative the kinds written without an
// architecture ("root", "usr-verity").
var partTypes, partTypeNames, archRelative = func() (map[string]partType, map[string]string, map[string]int) {
	types, names, rel := map[string]partType{}, map[string]string{}, map[string]int{}
	add := func(name string, t partType) {
		key := strings.ToLower(name)
		if _, dup := names[key]; dup {
			panic("plan: partition type shortcut " + name + " twice")
		}
		types[key], names[key] = t, name
	}
	for _, s := range shortcuts {
		for _, n := range s.Names {
			add(n, partType{s.GPT, s.MBR})
		}
	}
	for _, a := range dpsArches {
		for i, k := range dpsKinds {
			add(k.first+"-"+a.name+k.rest, partType{a.guid[i], 0x83})
		}
	}
	for i, k := range dpsKinds {
		name := k.first + k.rest
		if _, dup := names[name]; dup {
			panic("plan: partition type shortcut " + name + " twice")
		}
		rel[name], names[name] = i, name
	}
	return types, names, rel
}()

// PartTypeShortcuts lists the shortcuts that name one type whatever the
// board, in the order the reference shows them. The per-architecture ones
// are described by DiscoverablePartTypes.
func PartTypeShortcuts() []PartTypeShortcut { return shortcuts }

// DiscoverablePartTypes describes the Discoverable Partitions
// Specification's per-architecture types: the kinds as written without an
// architecture ("root", "root-verity"), the pattern of each full name
// ("root-ARCH", "root-ARCH-verity"), the architectures by the
// specification's names, and fsbench's architectures with theirs.
func DiscoverablePartTypes() (kinds, patterns, arches []string, board map[arch.Arch]string) {
	for _, k := range dpsKinds {
		kinds = append(kinds, k.first+k.rest)
		patterns = append(patterns, k.first+"-ARCH"+k.rest)
	}
	for _, a := range dpsArches {
		arches = append(arches, a.name)
	}
	board = map[arch.Arch]string{}
	for a, n := range dpsArch {
		board[a] = n
	}
	return kinds, patterns, arches, board
}

// PartTypeNames lists every shortcut, sorted regardless of case, for help
// and suggestions.
func PartTypeNames() []string {
	names := make([]string, 0, len(partTypeNames))
	for _, n := range partTypeNames {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	return names
}

// knownPartType tells whether name is a shortcut, in any case, and gives
// its spelling in the tables ("ESP" -> "esp", "l" -> "L").
func knownPartType(name string) (string, bool) {
	n, ok := partTypeNames[strings.ToLower(name)]
	return n, ok
}

var (
	guidRe  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	mbrIDRe = regexp.MustCompile(`^(0x)?[0-9a-fA-F]{1,2}$`)
)

// defaultPartType picks the type from the filesystem when the spec gives
// none, as its catalogue entry says (FAT gets the FAT/ESP-compatible
// "basic data" type firmware reads, the others Linux data), and Linux data
// for a partition without a filesystem.
func defaultPartType(fsType string) string {
	if t, ok := filesystems.Lookup(fsType); ok {
		return t.PartitionType
	}
	return "linux"
}

// resolvePartType turns a shortcut, a GUID or an MBR id into the value the
// table stores: a lower-case GUID for GPT, "0xNN" for MBR. Shortcuts match
// regardless of case; "root", "usr" and their -verity and -verity-sig
// forms name the type for the board's architecture a.
func resolvePartType(table, given string, a arch.Arch) (string, error) {
	key := strings.ToLower(given)
	if i, ok := archRelative[key]; ok {
		n, ok := dpsArch[a]
		if !ok {
			return "", fmt.Errorf("type %q names the type for the board's architecture, and fsbench knows no Discoverable Partitions type for architecture %q; write the type with its architecture (%q)", given, a, dpsKinds[i].first+"-ARCH"+dpsKinds[i].rest)
		}
		key = dpsKinds[i].first + "-" + n + dpsKinds[i].rest
	}
	if t, ok := partTypes[key]; ok {
		if table == "gpt" {
			return t.GPT, nil
		}
		if t.MBR == 0 {
			return "", fmt.Errorf("type %q has no MBR id; it exists on GPT only (table = \"gpt\")", given)
		}
		return fmt.Sprintf("0x%02x", t.MBR), nil
	}
	switch table {
	case "gpt":
		if guidRe.MatchString(given) {
			if strings.Trim(given, "0-") == "" {
				return "", fmt.Errorf("the all-zero GUID marks an unused GPT entry; the partition would be missing from the table. Give the type of its contents (\"linux\", \"efi\", a type GUID)")
			}
			return strings.ToLower(given), nil
		}
		if mbrIDRe.MatchString(given) {
			return "", fmt.Errorf("%q is an MBR id; a GPT table takes a type GUID or a shortcut", given)
		}
	case "mbr":
		if mbrIDRe.MatchString(given) {
			n, _ := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(given), "0x"), 16, 8)
			if n == 0x05 || n == 0x0f || n == 0x85 {
				return "", fmt.Errorf("MBR id %s is reserved for extended partitions; fsbench makes the extended partition itself from logical = true", given)
			}
			return fmt.Sprintf("0x%02x", n), nil
		}
		if guidRe.MatchString(given) {
			return "", fmt.Errorf("%q is a GPT type GUID; an MBR table takes an id such as \"0x83\" or a shortcut", given)
		}
	}
	return "", fmt.Errorf("%q is not a partition type shortcut, a type GUID or an MBR id", given)
}
