package plan

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// partType is a partition type shortcut with its GPT type GUID and MBR id.
type partType struct {
	GPT string
	MBR byte // 0 = no MBR equivalent
}

// partTypes are the shortcuts a spec may write as `type`. GUIDs are from
// the UEFI specification and the Discoverable Partitions Specification;
// MBR ids from the conventional list fdisk shows.
var partTypes = map[string]partType{
	"linux":              {"0fc63daf-8483-4772-8e79-3d69d8477de4", 0x83},
	"esp":                {"c12a7328-f81f-11d2-ba4b-00a0c93ec93b", 0xef},
	"efi":                {"c12a7328-f81f-11d2-ba4b-00a0c93ec93b", 0xef},
	"fat32":              {"ebd0a0a2-b9e5-4433-87c0-68b6b72699c7", 0x0c},
	"fat16":              {"ebd0a0a2-b9e5-4433-87c0-68b6b72699c7", 0x0e},
	"basic-data":         {"ebd0a0a2-b9e5-4433-87c0-68b6b72699c7", 0x0c},
	"swap":               {"0657fd6d-a4ab-43c4-84e5-0933c84b4f4f", 0x82},
	"lvm":                {"e6d6d379-f507-44c2-a23c-238f2a3df928", 0x8e},
	"raid":               {"a19d880f-05fc-4d3b-a006-743f0f84911e", 0xfd},
	"bios-boot":          {"21686148-6449-6e6f-744e-656564454649", 0},
	"xbootldr":           {"bc13c2ff-59e6-4262-a352-b275fd6f7172", 0xea},
	"linux-home":         {"933ac7e1-2eb4-4f13-b844-0e14e2aef915", 0x83},
	"linux-root-x86-64":  {"4f68bce3-e8cd-4db1-96e7-fbcaf984b709", 0x83},
	"linux-root-arm64":   {"b921b045-1df0-41c3-af44-4c6f280d3fae", 0x83},
	"linux-root-arm":     {"69dad710-2ce4-4e3c-b16c-21a1d49abed3", 0x83},
	"linux-root-riscv64": {"72ec70a6-cf74-40e6-bd49-4bda08e8f224", 0x83},
}

// PartTypeNames lists the shortcuts, sorted, for help and suggestions.
func PartTypeNames() []string {
	names := make([]string, 0, len(partTypes))
	for n := range partTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var (
	guidRe  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	mbrIDRe = regexp.MustCompile(`^(0x)?[0-9a-fA-F]{1,2}$`)
)

// defaultPartType picks the type from the filesystem when the spec gives
// none: FAT gets the FAT/ESP-compatible "basic data" type firmware reads,
// everything else Linux data.
func defaultPartType(fsType string) string {
	if fsType == "vfat" {
		return "fat32"
	}
	return "linux"
}

// resolvePartType turns a shortcut, a GUID or an MBR id into the value the
// table stores: a lower-case GUID for GPT, "0xNN" for MBR.
func resolvePartType(table, given string) (string, error) {
	if t, ok := partTypes[given]; ok {
		if table == "gpt" {
			return t.GPT, nil
		}
		if t.MBR == 0 {
			return "", fmt.Errorf("type %q has no MBR id; it exists on GPT only", given)
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
			if n == 0 || n == 0x05 || n == 0x0f || n == 0x85 {
				return "", fmt.Errorf("MBR id %s is reserved (empty or extended); fsbench makes the extended partition itself from logical = true", given)
			}
			return fmt.Sprintf("0x%02x", n), nil
		}
		if guidRe.MatchString(given) {
			return "", fmt.Errorf("%q is a GPT type GUID; an MBR table takes an id such as \"0x83\" or a shortcut", given)
		}
	}
	return "", fmt.Errorf("%q is not a partition type shortcut, a type GUID or an MBR id", given)
}
