package storageinfo

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mmcUtilsField matches the raw values `mmc extcsd read` (mmc-utils)
// prints: "Name [FIELD: 0x01]" and "Name [FIELD]: 0x01".
var mmcUtilsField = regexp.MustCompile(`\[([A-Z0-9_]+)(?:: 0x([0-9a-f]+)\]|\]: 0x([0-9a-f]+))`)

// mmcUtilsValues is every raw value an mmc-utils printout holds, by name.
func mmcUtilsValues(t *testing.T, out string) map[string]uint64 {
	t.Helper()
	vals := map[string]uint64{}
	for _, m := range mmcUtilsField.FindAllStringSubmatch(out, -1) {
		hex := m[2] + m[3]
		v, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			t.Fatalf("%s: %v", m[0], err)
		}
		vals[m[1]] = v
	}
	return vals
}

// mmcUtilsOffsets places mmc-utils' field names in the EXT_CSD: offset and
// width (little-endian) of each field these tests compare.
var mmcUtilsOffsets = map[string][2]int{
	"S_CMD_SET": {504, 1}, "HPI_FEATURE": {503, 1}, "BKOPS_SUPPORT": {502, 1},
	"MAX_PACKED_READS": {501, 1}, "MAX_PACKED_WRITES": {500, 1}, "DATA_TAG_SUPPORT": {499, 1},
	"TAG_UNIT_SIZE": {498, 1}, "TAG_RES_SIZE": {497, 1}, "CONTEXT_CAPABILITIES": {496, 1},
	"LARGE_UNIT_SIZE_M1": {495, 1}, "EXT_SUPPORT": {494, 1}, "GENERIC_CMD6_TIME": {248, 1},
	"POWER_OFF_LONG_TIME": {247, 1}, "BKOPS_STATUS": {246, 1}, "INI_TIMEOUT_AP": {241, 1},
	"TRIM_MULT": {232, 1}, "SEC_FEATURE_SUPPORT": {231, 1}, "BOOT_INFO": {228, 1},
	"BOOT_SIZE_MULTI": {226, 1}, "ACC_SIZE": {225, 1}, "HC_ERASE_GRP_SIZE": {224, 1},
	"ERASE_TIMEOUT_MULT": {223, 1}, "REL_WR_SEC_C": {222, 1}, "HC_WP_GRP_SIZE": {221, 1},
	"S_C_VCC": {220, 1}, "S_C_VCCQ": {219, 1}, "S_A_TIMEOUT": {217, 1}, "SEC_COUNT": {212, 4},
	"PARTITION_SWITCH_TIME": {199, 1}, "OUT_OF_INTERRUPT_TIME": {198, 1}, "DRIVER_STRENGTH": {197, 1},
	"CARD_TYPE": {196, 1}, "CSD_STRUCTURE": {194, 1}, "HS_TIMING": {185, 1},
	"PARTITION_CONFIG": {179, 1}, "BOOT_BUS_CONDITIONS": {177, 1}, "ERASE_GROUP_DEF": {175, 1},
	"BOOT_WP_STATUS": {174, 1}, "BOOT_WP": {173, 1}, "USER_WP": {171, 1}, "RPMB_SIZE_MULT": {168, 1},
	"WR_REL_SET": {167, 1}, "WR_REL_PARAM": {166, 1}, "BKOPS_EN": {163, 1}, "RST_N_FUNCTION": {162, 1},
	"HPI_MGMT": {161, 1}, "PARTITIONING_SUPPORT": {160, 1}, "MAX_ENH_SIZE_MULT": {157, 3},
	"PARTITIONS_ATTRIBUTE": {156, 1}, "PARTITION_SETTING_COMPLETED": {155, 1},
	"CACHE_CTRL": {33, 1}, "POWER_OFF_NOTIFICATION": {34, 1}, "SECURE_REMOVAL_TYPE": {16, 1},
	"EXT_CSD_PRE_EOL_INFO": {267, 1}, "EXT_CSD_DEVICE_LIFE_TIME_EST_TYP_A": {268, 1},
	"EXT_CSD_DEVICE_LIFE_TIME_EST_TYP_B": {269, 1}, "CMDQ_SUPPORT": {308, 1},
}

// diffMMCUtils lists the fields whose value in mmc-utils' printout differs
// from the register, and fails if the printout names none of them.
func diffMMCUtils(t *testing.T, raw []byte, out string) []string {
	t.Helper()
	var diff []string
	compared := 0
	for name, v := range mmcUtilsValues(t, out) {
		at, ok := mmcUtilsOffsets[name]
		if !ok {
			continue
		}
		compared++
		if got := le(raw, at[0], at[1]); got != v {
			diff = append(diff, name)
		}
	}
	if compared < 30 {
		t.Fatalf("only %d fields of the mmc-utils printout compared", compared)
	}
	return diff
}

// wantFact checks a numeric fact's value and unit.
func wantFact(t *testing.T, name string, f Fact, v float64, unit string) {
	t.Helper()
	if !f.Numeric() || f.Num != v || f.Unit != unit {
		t.Errorf("%s = %v, want %v %s", name, f, v, unit)
	}
}

// wantMissing checks a fact is not available, for a reason saying why.
func wantMissing(t *testing.T, name string, f Fact, why *regexp.Regexp) {
	t.Helper()
	if f.Known() || !why.MatchString(f.Why()) {
		t.Errorf("%s = %v, want not available matching %q", name, f, why)
	}
}
