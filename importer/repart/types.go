package repart

import "strings"

// archTypes are the Discoverable Partitions Specification's types by
// architecture, as systemd names them (src/shared/gpt.h and gpt.c's
// gpt_partition_type_table): root, root-verity, root-verity-sig, usr,
// usr-verity, usr-verity-sig. systemd 252 knows x86, x86-64, arm, arm64,
// ia64, loongarch64, riscv32 and riscv64; later versions the others.
var archTypes = []struct {
	arch string
	guid [6]string
}{
	{"alpha", [6]string{
		"6523f8ae-3eb1-4e2a-a05a-18b695ae656f", "fc56d9e9-e6e5-4c06-be32-e74407ce09a5",
		"d46495b7-a053-414f-80f7-700c99921ef8", "e18cf08c-33ec-4c0d-8246-c6c6fb3da024",
		"8cce0d25-c0d0-4a44-bd87-46331bf1df67", "5c6e1c76-076a-457a-a0fe-f3b4cd21ce6e"}},
	{"arc", [6]string{
		"d27f46ed-2919-4cb8-bd25-9531f3c16534", "24b2d975-0f97-4521-afa1-cd531e421b8d",
		"143a70ba-cbd3-4f06-919f-6c05683a78bc", "7978a683-6316-4922-bbee-38bff5a2fecc",
		"fca0598c-d880-4591-8c16-4eda05c7347c", "94f9a9a1-9971-427a-a400-50cb297f0f35"}},
	{"arm", [6]string{
		"69dad710-2ce4-4e3c-b16c-21a1d49abed3", "7386cdf2-203c-47a9-a498-f2ecce45a2d6",
		"42b0455f-eb11-491d-98d3-56145ba9d037", "7d0359a3-02b3-4f0a-865c-654403e70625",
		"c215d751-7bcd-4649-be90-6627490a4c05", "d7ff812f-37d1-4902-a810-d76ba57b975a"}},
	{"arm64", [6]string{
		"b921b045-1df0-41c3-af44-4c6f280d3fae", "df3300ce-d69f-4c92-978c-9bfb0f38d820",
		"6db69de6-29f4-4758-a7a5-962190f00ce3", "b0e01050-ee5f-4390-949a-9101b17104e9",
		"6e11a4e7-fbca-4ded-b9e9-e1a512bb664e", "c23ce4ff-44bd-4b00-b2d4-b41b3419e02a"}},
	{"ia64", [6]string{
		"993d8d3d-f80e-4225-855a-9daf8ed7ea97", "86ed10d5-b607-45bb-8957-d350f23d0571",
		"e98b36ee-32ba-4882-9b12-0ce14655f46a", "4301d2a6-4e3b-4b2a-bb94-9e0b2c4225ea",
		"6a491e03-3be7-4545-8e38-83320e0ea880", "8de58bc2-2a43-460d-b14e-a76e4a17b47f"}},
	{"loongarch64", [6]string{
		"77055800-792c-4f94-b39a-98c91b762bb6", "f3393b22-e9af-4613-a948-9d3bfbd0c535",
		"5afb67eb-ecc8-4f85-ae8e-ac1e7c50e7d0", "e611c702-575c-4cbe-9a46-434fa0bf7e3f",
		"f46b2c26-59ae-48f0-9106-c50ed47f673d", "b024f315-d330-444c-8461-44bbde524e99"}},
	{"mips-le", [6]string{
		"37c58c8a-d913-4156-a25f-48b1b64e07f0", "d7d150d2-2a04-4a33-8f12-16651205ff7b",
		"c919cc1f-4456-4eff-918c-f75e94525ca5", "0f4868e9-9952-4706-979f-3ed3a473e947",
		"46b98d8d-b55c-4e8f-aab3-37fca7f80752", "3e23ca0b-a4bc-4b4e-8087-5ab6a26aa8a9"}},
	{"mips64-le", [6]string{
		"700bda43-7a34-4507-b179-eeb93d7a7ca3", "16b417f8-3e06-4f57-8dd2-9b5232f41aa6",
		"904e58ef-5c65-4a31-9c57-6af5fc7c5de7", "c97c1f32-ba06-40b4-9f22-236061b08aa8",
		"3c3d61fe-b5f3-414d-bb71-8739a694a4ef", "f2c2c7ee-adcc-4351-b5c6-ee9816b66e16"}},
	{"parisc", [6]string{
		"1aacdb3b-5444-4138-bd9e-e5c2239b2346", "d212a430-fbc5-49f9-a983-a7feef2b8d0e",
		"15de6170-65d3-431c-916e-b0dcd8393f25", "dc4a4480-6917-4262-a4ec-db9384949f25",
		"5843d618-ec37-48d7-9f12-cea8e08768b2", "450dd7d1-3224-45ec-9cf2-a43a346d71ee"}},
	{"ppc", [6]string{
		"1de3f1ef-fa98-47b5-8dcd-4a860a654d78", "98cfe649-1588-46dc-b2f0-add147424925",
		"1b31b5aa-add9-463a-b2ed-bd467fc857e7", "7d14fec5-cc71-415d-9d6c-06bf0b3c3eaf",
		"df765d00-270e-49e5-bc75-f47bb2118b09", "7007891d-d371-4a80-86a4-5cb875b9302e"}},
	{"ppc64", [6]string{
		"912ade1d-a839-4913-8964-a10eee08fbd2", "9225a9a3-3c19-4d89-b4f6-eeff88f17631",
		"f5e2c20c-45b2-4ffa-bce9-2a60737e1aaf", "2c9739e2-f068-46b3-9fd0-01c5a9afbcca",
		"bdb528a5-a259-475f-a87d-da53fa736a07", "0b888863-d7f8-4d9e-9766-239fce4d58af"}},
	{"ppc64-le", [6]string{
		"c31c45e6-3f39-412e-80fb-4809c4980599", "906bd944-4589-4aae-a4e4-dd983917446a",
		"d4a236e7-e873-4c07-bf1d-bf6cf7f1c3c6", "15bb03af-77e7-4d4a-b12b-c0d084f7491c",
		"ee2b9983-21e8-4153-86d9-b6901a54d1ce", "c8bfbd1e-268e-4521-8bba-bf314c399557"}},
	{"riscv32", [6]string{
		"60d5a7fe-8e7d-435c-b714-3dd8162144e1", "ae0253be-1167-4007-ac68-43926c14c5de",
		"3a112a75-8729-4380-b4cf-764d79934448", "b933fb22-5c3f-4f91-af90-e2bb0fa50702",
		"cb1ee4e3-8cd0-4136-a0a4-aa61a32e8730", "c3836a13-3137-45ba-b583-b16c50fe5eb4"}},
	{"riscv64", [6]string{
		"72ec70a6-cf74-40e6-bd49-4bda08e8f224", "b6ed5582-440b-4209-b8da-5ff7c419ea3d",
		"efe0f087-ea8d-4469-821a-4c2a96a8386a", "beaec34b-8442-439b-a40b-984381ed097d",
		"8f1056be-9b05-47c4-81d6-be53128e5b54", "d2f9000a-7a18-453f-b5cd-4d32f77a7b32"}},
	{"s390", [6]string{
		"08a7acea-624c-4a20-91e8-6e0fa67d23f9", "7ac63b47-b25c-463b-8df8-b4a94e6c90e1",
		"3482388e-4254-435a-a241-766a065f9960", "cd0f869b-d0fb-4ca0-b141-9ea87cc78d66",
		"b663c618-e7bc-4d6d-90aa-11b756bb1797", "17440e4f-a8d0-467f-a46e-3912ae6ef2c5"}},
	{"s390x", [6]string{
		"5eead9a9-fe09-4a1e-a1d7-520d00531306", "b325bfbe-c7be-4ab8-8357-139e652d2f6b",
		"c80187a5-73a3-491a-901a-017c3fa953e9", "8a4f5770-50aa-4ed3-874a-99b710db6fea",
		"31741cc4-1a2a-4111-a581-e00b447d2d06", "3f324816-667b-46ae-86ee-9b0c0c6c11b4"}},
	{"tilegx", [6]string{
		"c50cdd70-3862-4cc3-90e1-809a8c93ee2c", "966061ec-28e4-4b2e-b4a5-1f0a825a1d84",
		"b3671439-97b0-4a53-90f7-2d5a8f3ad47b", "55497029-c7c1-44cc-aa39-815ed1558630",
		"2fb4bf56-07fa-42da-8132-6b139f2026ae", "4ede75e2-6ccc-4cc8-b9c7-70334b087510"}},
	{"x86", [6]string{
		"44479540-f297-41b2-9af7-d131d5f0458a", "d13c5d3b-b5d1-422a-b29f-9454fdc89d76",
		"5996fc05-109c-48de-808b-23fa0830b676", "75250d76-8cc6-458e-bd66-bd47cc81a812",
		"8f461b0d-14ee-4e81-9aa9-049b6fb97abd", "974a71c0-de41-43c3-be5d-5c5ccd1ad2c0"}},
	{"x86-64", [6]string{
		"4f68bce3-e8cd-4db1-96e7-fbcaf984b709", "2c7357ed-ebd2-46d9-aec1-23d437ec2bf5",
		"41092b05-9fc8-4523-994f-2def0408b176", "8484680c-9521-48c6-9c11-b0720656f69e",
		"77ff5f63-e7b6-4633-acf4-1565b864c0e6", "e7bb33fb-06cf-4e81-8273-e543b413e2e2"}},
}

// archKinds name archTypes' columns: root-ARCH, root-ARCH-verity, ...
var archKinds = [6][2]string{{"root", ""}, {"root", "-verity"}, {"root", "-verity-sig"}, {"usr", ""}, {"usr", "-verity"}, {"usr", "-verity-sig"}}

// otherTypes are gpt_partition_type_table's types that have no
// architecture, in its order.
var otherTypes = [][2]string{
	{"esp", "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"},
	{"xbootldr", "bc13c2ff-59e6-4262-a352-b275fd6f7172"},
	{"swap", "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f"},
	{"home", "933ac7e1-2eb4-4f13-b844-0e14e2aef915"},
	{"srv", "3b8f8425-20e0-4f3b-907f-1a25a76f98e8"},
	{"var", "4d21b016-b534-45c2-a9fb-5c16e091fd2d"},
	{"tmp", "7ec6f557-3bc5-4aca-b293-16ef5df639d1"},
	{"user-home", "773f91ef-66d4-49b5-bd83-d683bf40ad16"},
	{"linux-generic", "0fc63daf-8483-4772-8e79-3d69d8477de4"},
}

// hostArch is the architecture whose types "root", "usr" and their
// verity forms name: systemd-repart takes its own machine's
// (GPT_ROOT_NATIVE), and the import takes x86-64's, Debian's amd64
// repart, which is also fsbench's architecture without a board.
const hostArch = "x86-64"

// partType is a Type= value resolved: the type GUID, the name repart
// gives the partition without Label= (gpt_partition_type_uuid_to_string,
// "linux" for a GUID it does not know, context_acquire_partition_uuids_and_labels),
// and whether it names the machine's architecture.
type partType struct {
	guid, name  string
	archNeutral bool
}

// lookupType resolves Type= as gpt_partition_type_uuid_from_string does:
// a name of the table, else a GUID (with or without dashes).
func lookupType(v string) (partType, bool) {
	for _, t := range otherTypes {
		if v == t[0] {
			return partType{guid: t[1], name: t[0]}, true
		}
	}
	for i, k := range archKinds {
		if v == k[0]+k[1] {
			return partType{guid: guidOf(hostArch, i), name: k[0] + "-" + hostArch + k[1], archNeutral: true}, true
		}
		for _, a := range archTypes {
			if v == k[0]+"-"+a.arch+k[1] {
				return partType{guid: a.guid[i], name: v}, true
			}
		}
	}
	g, ok := parseGUID(v)
	if !ok {
		return partType{}, false
	}
	return partType{guid: g, name: nameOf(g)}, true
}

func guidOf(arch string, kind int) string {
	for _, a := range archTypes {
		if a.arch == arch {
			return a.guid[kind]
		}
	}
	return ""
}

// nameOf is the table's name of a type GUID, "linux" when it has none.
func nameOf(guid string) string {
	for _, a := range archTypes {
		for i, g := range a.guid {
			if g == guid {
				return archKinds[i][0] + "-" + a.arch + archKinds[i][1]
			}
		}
	}
	for _, t := range otherTypes {
		if t[1] == guid {
			return t[0]
		}
	}
	return "linux"
}

// parseGUID reads a 128-bit id as sd_id128_from_string does: 32 hex
// digits, or the 36-character form with dashes; lower case out.
func parseGUID(v string) (string, bool) {
	h := strings.ToLower(v)
	if len(h) == 36 {
		if h[8] != '-' || h[13] != '-' || h[18] != '-' || h[23] != '-' {
			return "", false
		}
		h = strings.ReplaceAll(h, "-", "")
	}
	if len(h) != 32 || strings.Trim(h, "0123456789abcdef") != "" {
		return "", false
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], true
}

// growsByDefault tells whether repart sets GPT attribute bit 59 on the
// type unless the partition is read-only
// (gpt_partition_type_knows_growfs): root, usr, home, srv, var, tmp,
// xbootldr.
func growsByDefault(name string) bool {
	if strings.HasPrefix(name, "root-") || strings.HasPrefix(name, "usr-") {
		return !strings.HasSuffix(name, "-verity") && !strings.HasSuffix(name, "-verity-sig")
	}
	switch name {
	case "home", "srv", "var", "tmp", "xbootldr":
		return true
	}
	return false
}
