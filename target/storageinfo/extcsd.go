package storageinfo

import (
	"fmt"
	"strings"
)

// ExtCSDSize is the size of an eMMC's EXT_CSD register in bytes.
const ExtCSDSize = 512

// EXT_CSD byte offsets, numbered as JEDEC JESD84-B51 numbers them.
// Multi-byte fields are little-endian: [215:212] holds SEC_COUNT's least
// significant byte at 212.
const (
	ecCacheCtrl          = 33
	ecPartitioningSupp   = 160
	ecBkopsEn            = 163
	ecWrRelParam         = 166
	ecWrRelSet           = 167
	ecRPMBSizeMult       = 168
	ecEraseGroupDef      = 175
	ecRev                = 192
	ecSecCount           = 212 // [215:212]
	ecHCWPGrpSize        = 221
	ecRelWrSecC          = 222
	ecEraseTimeoutMult   = 223
	ecHCEraseGrpSize     = 224
	ecAccSize            = 225
	ecBootSizeMult       = 226
	ecSecFeatureSupport  = 231
	ecCacheSize          = 249 // [252:249]
	ecFirmwareVersion    = 254 // [261:254]
	ecDeviceVersion      = 262 // [263:262]
	ecOptimalTrimUnit    = 264
	ecOptimalWriteSize   = 265
	ecOptimalReadSize    = 266
	ecPreEOLInfo         = 267
	ecLifeTimeEstA       = 268
	ecLifeTimeEstB       = 269
	ecVendorHealthReport = 270 // [301:270]
	ecBkopsSupport       = 502
)

// EXT_CSD_REV values, the revision that first has a field.
const (
	rev42  = 2 // eMMC 4.2: SEC_COUNT
	rev43  = 3 // eMMC 4.3: the high-capacity erase group, ACC_SIZE, boot partitions
	rev441 = 5 // eMMC 4.41: partitioning, reliable write, RPMB, secure features
	rev45  = 6 // eMMC 4.5: cache, background operations
	rev50  = 7 // eMMC 5.0: health, optimal sizes, firmware version
)

// mmcVersion is the eMMC specification an EXT_CSD_REV belongs to.
func mmcVersion(rev int) string {
	switch rev {
	case 0, 1, 2, 3:
		return fmt.Sprintf("4.%d", rev)
	case 4:
		return "4.4, an obsolete revision"
	case 5:
		return "4.41"
	case 6:
		return "4.5/4.51"
	case 7:
		return "5.0/5.01"
	case 8:
		return "5.1/5.1A"
	}
	return "newer than 5.1"
}

// ExtCSD is what an eMMC's EXT_CSD says, one fact per field. A field the
// register's revision predates is not available, with that reason.
type ExtCSD struct {
	Rev                 Fact `fact:"ext_csd_rev"`
	SecCount            Fact `fact:"sec_count"`
	EraseGroupDef       Fact `fact:"erase_group_def"`
	HCEraseGroupSize    Fact `fact:"hc_erase_group_size"`
	HCEraseTimeout      Fact `fact:"hc_erase_timeout"`
	HCWPGroupSize       Fact `fact:"hc_wp_group_size"`
	AccessSize          Fact `fact:"super_page_size"`
	RelWrSecC           Fact `fact:"rel_wr_sec_c"`
	BootPartitionSize   Fact `fact:"boot_partition_size"`
	RPMBSize            Fact `fact:"rpmb_size"`
	SecFeatureSupport   Fact `fact:"sec_feature_support"`
	TrimSupported       Fact `fact:"trim_supported"`
	PartitioningSupport Fact `fact:"partitioning_support"`
	WrRelParam          Fact `fact:"wr_rel_param"`
	WrRelSet            Fact `fact:"wr_rel_set"`
	BkopsSupport        Fact `fact:"bkops_support"`
	BkopsEn             Fact `fact:"bkops_en"`
	CacheSize           Fact `fact:"cache_size"`
	CacheCtrl           Fact `fact:"cache_ctrl"`
	FirmwareVersion     Fact `fact:"firmware_version"`
	DeviceVersion       Fact `fact:"device_version"`
	OptimalTrimSize     Fact `fact:"optimal_trim_size"`
	OptimalWriteSize    Fact `fact:"optimal_write_size"`
	OptimalReadSize     Fact `fact:"optimal_read_size"`
	PreEOLInfo          Fact `fact:"pre_eol_info"`
	LifeTimeEstA        Fact `fact:"life_time_est_a"`
	LifeTimeEstB        Fact `fact:"life_time_est_b"`
	VendorHealth        Fact `fact:"vendor_health_report"`

	raw []byte
}

// Raw is the register the facts were decoded from.
func (e *ExtCSD) Raw() []byte { return e.raw }

// extField decodes one EXT_CSD field, knowing the register's revision.
type extField struct {
	b   []byte
	rev int
}

// src names a field as JEDEC does: "EXT_CSD SEC_COUNT [215:212]".
func src(name string, off, n int) string {
	if n == 1 {
		return fmt.Sprintf("EXT_CSD %s [%d]", name, off)
	}
	return fmt.Sprintf("EXT_CSD %s [%d:%d]", name, off+n-1, off)
}

// since is the reason a field of revision minRev is not in this register,
// or "" when it is.
func (x extField) since(minRev int, name string) string {
	if x.rev >= minRev {
		return ""
	}
	return fmt.Sprintf("EXT_CSD rev %d (eMMC %s) predates %s (eMMC %s)", x.rev, mmcVersion(x.rev), name, mmcVersion(minRev))
}

// size is a size field: value × unit bytes, where a zero means the device
// does not state it (what zero means says why).
func (x extField) size(minRev int, name string, off int, unit float64, zero string) Fact {
	if why := x.since(minRev, name); why != "" {
		return missing("%s", why)
	}
	v := x.b[off]
	if v == 0 {
		return missing("%s is 0: %s", src(name, off, 1), zero)
	}
	return num(float64(v)*unit, "bytes", src(name, off, 1))
}

// DecodeExtCSD decodes a 512-byte EXT_CSD register.
func DecodeExtCSD(raw []byte) (ExtCSD, error) {
	if len(raw) != ExtCSDSize {
		return ExtCSD{}, fmt.Errorf("EXT_CSD is %d bytes, want %d", len(raw), ExtCSDSize)
	}
	x := extField{b: raw, rev: int(raw[ecRev])}
	e := ExtCSD{raw: append([]byte(nil), raw...)}
	e.Rev = code(uint64(x.rev), fmt.Sprintf("%d (eMMC %s)", x.rev, mmcVersion(x.rev)), src("EXT_CSD_REV", ecRev, 1))
	decodeGeometry(&e, x)
	decodeFeatures(&e, x)
	decodeHealth(&e, x)
	return e, nil
}

// decodeGeometry decodes the capacity and the erase, write-protect and
// access units.
func decodeGeometry(e *ExtCSD, x extField) {
	switch {
	case x.since(rev42, "SEC_COUNT") != "":
		e.SecCount = missing("%s", x.since(rev42, "SEC_COUNT"))
	case le(x.b, ecSecCount, 4) == 0:
		// Devices of 2 GB or less are byte-addressed and give their
		// capacity in the CSD alone.
		e.SecCount = missing("%s is 0: a byte-addressed device of 2 GB or less, whose capacity is in the CSD", src("SEC_COUNT", ecSecCount, 4))
	default:
		e.SecCount = num(float64(le(x.b, ecSecCount, 4)), "sectors", src("SEC_COUNT", ecSecCount, 4))
	}
	if why := x.since(rev43, "ERASE_GROUP_DEF"); why != "" {
		e.EraseGroupDef = missing("%s", why)
	} else {
		v := x.b[ecEraseGroupDef] & 1
		meaning := "0 (the CSD's erase group is in force)"
		if v == 1 {
			meaning = "1 (the high-capacity erase group is in force)"
		}
		e.EraseGroupDef = code(uint64(v), meaning, src("ERASE_GROUP_DEF", ecEraseGroupDef, 1))
	}
	const halfMiB = 512 << 10
	e.HCEraseGroupSize = x.size(rev43, "HC_ERASE_GRP_SIZE", ecHCEraseGrpSize, halfMiB, "the device states no high-capacity erase unit")
	// 300 ms per unit, for erasing one high-capacity erase group.
	e.HCEraseTimeout = x.size(rev43, "ERASE_TIMEOUT_MULT", ecEraseTimeoutMult, 300, "the device states no high-capacity erase timeout")
	if e.HCEraseTimeout.Known() {
		e.HCEraseTimeout.Unit = "ms"
	}
	switch {
	case x.since(rev43, "HC_WP_GRP_SIZE") != "":
		e.HCWPGroupSize = missing("%s", x.since(rev43, "HC_WP_GRP_SIZE"))
	case x.b[ecHCWPGrpSize] == 0 || x.b[ecHCEraseGrpSize] == 0:
		e.HCWPGroupSize = missing("%s or HC_ERASE_GRP_SIZE is 0: no high-capacity write-protect group", src("HC_WP_GRP_SIZE", ecHCWPGrpSize, 1))
	default:
		// In erase groups: its size in bytes takes both fields.
		v := float64(x.b[ecHCWPGrpSize]) * float64(x.b[ecHCEraseGrpSize]) * halfMiB
		e.HCWPGroupSize = num(v, "bytes", src("HC_WP_GRP_SIZE", ecHCWPGrpSize, 1)+" × HC_ERASE_GRP_SIZE")
	}
	switch acc := x.b[ecAccSize] & 0x0f; {
	case x.since(rev43, "ACC_SIZE") != "":
		e.AccessSize = missing("%s", x.since(rev43, "ACC_SIZE"))
	case acc == 0 || acc > 8:
		e.AccessSize = missing("%s is %d: the super-page size is not defined", src("ACC_SIZE", ecAccSize, 1), acc)
	default:
		e.AccessSize = num(float64(int64(512)<<(acc-1)), "bytes", src("ACC_SIZE", ecAccSize, 1))
	}
	if why := x.since(rev50, "OPTIMAL_TRIM_UNIT_SIZE"); why != "" {
		e.OptimalTrimSize, e.OptimalWriteSize, e.OptimalReadSize = missing("%s", why), missing("%s", why), missing("%s", why)
	} else {
		// Trim: 4 KiB × 2^(v-1); write and read: 4 KiB × v.
		if v := x.b[ecOptimalTrimUnit]; v == 0 || v > 21 {
			e.OptimalTrimSize = missing("%s is %d: not defined", src("OPTIMAL_TRIM_UNIT_SIZE", ecOptimalTrimUnit, 1), v)
		} else {
			e.OptimalTrimSize = num(float64(int64(4096)<<(v-1)), "bytes", src("OPTIMAL_TRIM_UNIT_SIZE", ecOptimalTrimUnit, 1))
		}
		e.OptimalWriteSize = x.size(rev50, "OPTIMAL_WRITE_SIZE", ecOptimalWriteSize, 4096, "not defined")
		e.OptimalReadSize = x.size(rev50, "OPTIMAL_READ_SIZE", ecOptimalReadSize, 4096, "not defined")
	}
}

// decodeFeatures decodes partitions, reliable write, secure features,
// background operations and the cache.
func decodeFeatures(e *ExtCSD, x extField) {
	if why := x.since(rev43, "REL_WR_SEC_C"); why != "" {
		e.RelWrSecC = missing("%s", why)
	} else {
		e.RelWrSecC = num(float64(x.b[ecRelWrSecC]), "sectors", src("REL_WR_SEC_C", ecRelWrSecC, 1))
	}
	if why := x.since(rev43, "BOOT_SIZE_MULT"); why != "" {
		e.BootPartitionSize = missing("%s", why)
	} else {
		// Zero is a real answer here: no boot partitions.
		e.BootPartitionSize = num(float64(x.b[ecBootSizeMult])*(128<<10), "bytes", src("BOOT_SIZE_MULT", ecBootSizeMult, 1))
	}
	if why := x.since(rev441, "RPMB_SIZE_MULT"); why != "" {
		e.RPMBSize = missing("%s", why)
	} else {
		e.RPMBSize = num(float64(x.b[ecRPMBSizeMult])*(128<<10), "bytes", src("RPMB_SIZE_MULT", ecRPMBSizeMult, 1))
	}
	e.SecFeatureSupport, e.TrimSupported = secFeatures(x)
	e.PartitioningSupport = flags(x, rev441, "PARTITIONING_SUPPORT", ecPartitioningSupp, []string{
		0: "PARTITIONING_EN", 1: "ENH_ATTRIBUTE_EN", 2: "EXT_ATTRIBUTE_EN"})
	e.WrRelParam = flags(x, rev441, "WR_REL_PARAM", ecWrRelParam, []string{
		0: "HS_CTRL_REL (WR_REL_SET is writable)", 2: "EN_REL_WR (enhanced reliable write)", 4: "EN_RPMB_REL_WR"})
	e.WrRelSet = flags(x, rev441, "WR_REL_SET", ecWrRelSet, []string{
		0: "WR_DATA_REL_USR (user area)", 1: "WR_DATA_REL_1", 2: "WR_DATA_REL_2", 3: "WR_DATA_REL_3", 4: "WR_DATA_REL_4"})
	if why := x.since(rev45, "BKOPS_SUPPORT"); why != "" {
		e.BkopsSupport, e.BkopsEn = missing("%s", why), missing("%s", why)
	} else {
		e.BkopsSupport = code(uint64(x.b[ecBkopsSupport]&1), yesNo(x.b[ecBkopsSupport]&1 == 1), src("BKOPS_SUPPORT", ecBkopsSupport, 1))
		e.BkopsEn = flags(x, rev45, "BKOPS_EN", ecBkopsEn, []string{0: "MANUAL_EN", 1: "AUTO_EN"})
	}
	if why := x.since(rev45, "CACHE_SIZE"); why != "" {
		e.CacheSize, e.CacheCtrl = missing("%s", why), missing("%s", why)
	} else {
		// CACHE_SIZE counts kibibits; zero is a real answer: no cache.
		e.CacheSize = num(float64(le(x.b, ecCacheSize, 4))*1024/8, "bytes", src("CACHE_SIZE", ecCacheSize, 4))
		on := x.b[ecCacheCtrl]&1 == 1
		e.CacheCtrl = code(uint64(x.b[ecCacheCtrl]&1), map[bool]string{true: "1 (cache on)", false: "0 (cache off)"}[on], src("CACHE_CTRL", ecCacheCtrl, 1))
	}
	if why := x.since(rev50, "FIRMWARE_VERSION"); why != "" {
		e.FirmwareVersion, e.DeviceVersion = missing("%s", why), missing("%s", why)
	} else {
		e.FirmwareVersion = text(fmt.Sprintf("0x%016x", le(x.b, ecFirmwareVersion, 8)), src("FIRMWARE_VERSION", ecFirmwareVersion, 8))
		e.DeviceVersion = code(le(x.b, ecDeviceVersion, 2), fmt.Sprintf("0x%04x", le(x.b, ecDeviceVersion, 2)), src("DEVICE_VERSION", ecDeviceVersion, 2))
	}
}

// secFeatures decodes SEC_FEATURE_SUPPORT and, from its SEC_GB_CL_EN bit,
// whether the device takes TRIM (the discard the kernel sends an eMMC).
func secFeatures(x extField) (all, trim Fact) {
	if why := x.since(rev441, "SEC_FEATURE_SUPPORT"); why != "" {
		return missing("%s", why), missing("%s", why)
	}
	all = flags(x, rev441, "SEC_FEATURE_SUPPORT", ecSecFeatureSupport, []string{
		0: "SECURE_ER_EN (secure erase and trim)", 2: "SEC_BD_BLK_EN (defective-block erase)",
		4: "SEC_GB_CL_EN (TRIM)", 6: "SEC_SANITIZE"})
	v := x.b[ecSecFeatureSupport] >> 4 & 1
	trim = code(uint64(v), yesNo(v == 1), src("SEC_FEATURE_SUPPORT", ecSecFeatureSupport, 1)+" SEC_GB_CL_EN")
	return all, trim
}

// flags decodes a bit field into the names of the bits that are set.
func flags(x extField, minRev int, name string, off int, names []string) Fact {
	if why := x.since(minRev, name); why != "" {
		return missing("%s", why)
	}
	v := x.b[off]
	var set []string
	for bit := 0; bit < 8; bit++ {
		if v>>bit&1 == 0 {
			continue
		}
		if bit < len(names) && names[bit] != "" {
			set = append(set, names[bit])
		} else {
			set = append(set, fmt.Sprintf("bit %d", bit))
		}
	}
	words := "none"
	if len(set) > 0 {
		words = strings.Join(set, ", ")
	}
	return code(uint64(v), fmt.Sprintf("0x%02x: %s", v, words), src(name, off, 1))
}

func yesNo(b bool) string {
	if b {
		return "1 (yes)"
	}
	return "0 (no)"
}

// decodeHealth decodes the pre-EOL information, the life-time estimates
// and the vendor's health report.
func decodeHealth(e *ExtCSD, x extField) {
	if why := x.since(rev50, "PRE_EOL_INFO"); why != "" {
		e.PreEOLInfo, e.LifeTimeEstA, e.LifeTimeEstB, e.VendorHealth = missing("%s", why), missing("%s", why), missing("%s", why), missing("%s", why)
		return
	}
	e.PreEOLInfo = healthCode(x.b[ecPreEOLInfo], preEOLText, src("PRE_EOL_INFO", ecPreEOLInfo, 1))
	e.LifeTimeEstA = healthCode(x.b[ecLifeTimeEstA], LifeTimeText, src("DEVICE_LIFE_TIME_EST_TYP_A", ecLifeTimeEstA, 1))
	e.LifeTimeEstB = healthCode(x.b[ecLifeTimeEstB], LifeTimeText, src("DEVICE_LIFE_TIME_EST_TYP_B", ecLifeTimeEstB, 1))
	report := x.b[ecVendorHealthReport : ecVendorHealthReport+32]
	if allZero(report) {
		e.VendorHealth = missing("%s is all zero: the vendor reports nothing there", src("VENDOR_PROPRIETARY_HEALTH_REPORT", ecVendorHealthReport, 32))
	} else {
		// Its layout is the vendor's and undocumented: the bytes, as read.
		e.VendorHealth = text(fmt.Sprintf("%x", report), src("VENDOR_PROPRIETARY_HEALTH_REPORT", ecVendorHealthReport, 32))
	}
}

// healthCode is a health field; 0x00 means the device does not say, which
// is not a value.
func healthCode(v byte, words func(byte) string, source string) Fact {
	if v == 0 {
		return missing("%s is 0x00: not defined by the device", source)
	}
	return code(uint64(v), fmt.Sprintf("0x%02x (%s)", v, words(v)), source)
}

// LifeTimeText is what a DEVICE_LIFE_TIME_EST_TYP_A or _B value (or the
// kernel's life_time attribute) means.
func LifeTimeText(v byte) string {
	switch {
	case v == 0:
		return "not defined"
	case v <= 0x0a:
		return fmt.Sprintf("%d-%d%% of life used", (v-1)*10, v*10)
	case v == 0x0b:
		return "exceeded its estimated life"
	}
	return "reserved value"
}

func preEOLText(v byte) string {
	switch v {
	case 1:
		return "normal"
	case 2:
		return "warning: 80% of reserved blocks consumed"
	case 3:
		return "urgent: 90% of reserved blocks consumed"
	}
	return "reserved value"
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
