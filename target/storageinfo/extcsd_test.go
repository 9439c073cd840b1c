package storageinfo

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Samsung 8 GB eMMC 5.1 of testdata/README.md, as U-Boot read it
// (ERASE_GROUP_DEF 0: U-Boot never switched to high-capacity erase groups).
func samsungUBoot(t *testing.T) ExtCSD {
	t.Helper()
	raw, reversed, err := ParseExtCSDText(fixture(t, "samsung-8gb-emmc51-uboot.txt"))
	if err != nil || reversed {
		t.Fatalf("parse: %v (reversed %v)", err, reversed)
	}
	e, err := DecodeExtCSD(raw)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSamsungEMMC51(t *testing.T) {
	e := samsungUBoot(t)
	if e.Rev.Num != 8 || !strings.Contains(e.Rev.Text, "5.1") {
		t.Errorf("rev %v, want 8 (eMMC 5.1): mmc-utils says \"Extended CSD rev 1.8 (MMC 5.1)\"", e.Rev)
	}
	// The post: "总的UDA分区为7634944KB", 7634944 KiB of user area.
	wantFact(t, "sec_count", e.SecCount, 7634944*2, "sectors")
	wantFact(t, "hc_erase_group_size", e.HCEraseGroupSize, 512<<10, "bytes") // mmc-utils: "i.e. 512 KiB"
	wantFact(t, "hc_wp_group_size", e.HCWPGroupSize, 8192<<10, "bytes")      // "i.e. 8192 KiB"
	wantFact(t, "cache_size", e.CacheSize, 8192<<10, "bytes")                // "Cache Size [CACHE_SIZE] is 8192 KiB"
	wantFact(t, "hc_erase_timeout", e.HCEraseTimeout, 300, "ms")
	wantFact(t, "super_page_size", e.AccessSize, 32<<10, "bytes") // ACC_SIZE 0x07
	wantFact(t, "boot_partition_size", e.BootPartitionSize, 4<<20, "bytes")
	wantFact(t, "rpmb_size", e.RPMBSize, 512<<10, "bytes")
	wantFact(t, "optimal_write_size", e.OptimalWriteSize, 32<<10, "bytes")
	wantFact(t, "optimal_trim_size", e.OptimalTrimSize, 4<<10, "bytes")
	wantMissing(t, "optimal_read_size", e.OptimalReadSize, regexp.MustCompile(`OPTIMAL_READ_SIZE \[266\] is 0`))
	if e.EraseGroupDef.Num != 0 || e.EraseGroupDef.Source != "EXT_CSD ERASE_GROUP_DEF [175]" {
		t.Errorf("erase_group_def %v, want 0 as U-Boot left it", e.EraseGroupDef)
	}
	for name, f := range map[string]Fact{"pre_eol_info": e.PreEOLInfo, "life_time_est_a": e.LifeTimeEstA, "life_time_est_b": e.LifeTimeEstB} {
		if f.Num != 1 {
			t.Errorf("%s = %v, want 0x01 as mmc-utils prints", name, f)
		}
	}
	if e.LifeTimeEstA.Text != "0x01 (0-10% of life used)" || e.PreEOLInfo.Text != "0x01 (normal)" {
		t.Errorf("health words: %q, %q", e.LifeTimeEstA.Text, e.PreEOLInfo.Text)
	}
	if e.WrRelParam.Text != "0x14: EN_REL_WR (enhanced reliable write), EN_RPMB_REL_WR" {
		t.Errorf("wr_rel_param %q", e.WrRelParam.Text)
	}
	if e.TrimSupported.Num != 1 || e.SecFeatureSupport.Num != 0x55 {
		t.Errorf("trim %v, sec features %v: mmc-utils prints SEC_FEATURE_SUPPORT 0x55", e.TrimSupported, e.SecFeatureSupport)
	}
	wantMissing(t, "vendor_health_report", e.VendorHealth, regexp.MustCompile(`all zero`))
}

// The same device under Linux, printed by mmc-utils: every field agrees
// with U-Boot's dump but the four that Linux's mmc_init_card writes when it
// takes the card (high-capacity erase groups, HPI, power-off notification,
// the cache), which U-Boot had left alone.
func TestSamsungAgreesWithMMCUtils(t *testing.T) {
	e := samsungUBoot(t)
	diff := diffMMCUtils(t, e.Raw(), fixture(t, "samsung-8gb-emmc51-mmcutils.txt"))
	slices.Sort(diff)
	if want := []string{"CACHE_CTRL", "ERASE_GROUP_DEF", "HPI_MGMT", "POWER_OFF_NOTIFICATION"}; !slices.Equal(diff, want) {
		t.Errorf("fields that differ from mmc-utils: %v, want the host-set %v", diff, want)
	}
}

// An eMMC 5.0 past its estimated life, from a kernel mailing list report:
// the debugfs dump and mmc-utils' printout, taken one after the other.
func TestWornEMMC50(t *testing.T) {
	raw, reversed, err := ParseExtCSDText(fixture(t, "emmc50-worn-debugfs.txt"))
	if err != nil || reversed {
		t.Fatalf("parse: %v (reversed %v)", err, reversed)
	}
	if diff := diffMMCUtils(t, raw, fixture(t, "emmc50-worn-mmcutils.txt")); len(diff) > 0 {
		t.Errorf("fields that differ from mmc-utils: %v", diff)
	}
	e, _ := DecodeExtCSD(raw)
	if e.LifeTimeEstA.Text != "0x0b (exceeded its estimated life)" {
		t.Errorf("life_time_est_a %v, want 0x0b as mmc-utils prints", e.LifeTimeEstA)
	}
	if e.LifeTimeEstB.Text != "0x02 (10-20% of life used)" {
		t.Errorf("life_time_est_b %v, want 0x02", e.LifeTimeEstB)
	}
	wantFact(t, "hc_erase_group_size", e.HCEraseGroupSize, 8192<<10, "bytes") // "i.e. 8192 KiB"
	wantFact(t, "hc_wp_group_size", e.HCWPGroupSize, 8192<<10, "bytes")
	wantFact(t, "cache_size", e.CacheSize, 128<<10, "bytes") // "is 128 KiB"
	wantFact(t, "sec_count", e.SecCount, 0xeb8000, "sectors")
	if !strings.Contains(e.Rev.Text, "5.0") {
		t.Errorf("rev %v, want eMMC 5.0 (\"Extended CSD rev 1.7 (MMC 5.0)\")", e.Rev)
	}
}

// A 512-byte register from Aaru's test suite, with the values Aaru's own
// decoder reads beside it.
func TestAaruEMMC51(t *testing.T) {
	raw, err := os.ReadFile("testdata/aaru-emmc51-ext_csd.bin")
	if err != nil {
		t.Fatal(err)
	}
	e, err := DecodeExtCSD(raw)
	if err != nil {
		t.Fatal(err)
	}
	wantFact(t, "sec_count", e.SecCount, 120832000, "sectors")               // SectorCount
	wantFact(t, "cache_size", e.CacheSize, 65536*1024/8, "bytes")            // CacheSize 65536 (kibibits)
	wantFact(t, "optimal_write_size", e.OptimalWriteSize, 32*4096, "bytes")  // OptimalWriteSize 32
	wantFact(t, "optimal_trim_size", e.OptimalTrimSize, 4096, "bytes")       // OptimalTrimUnitSize 1
	wantFact(t, "hc_erase_group_size", e.HCEraseGroupSize, 512<<10, "bytes") // HighCapacityEraseUnitSize 1
	wantFact(t, "hc_wp_group_size", e.HCWPGroupSize, 8*512<<10, "bytes")     // HighCapacityWriteProtectGroupSize 8
	wantFact(t, "hc_erase_timeout", e.HCEraseTimeout, 5*300, "ms")           // HighCapacityEraseTimeout 5
	wantFact(t, "super_page_size", e.AccessSize, 512<<5, "bytes")            // AccessSize 6
	wantFact(t, "rpmb_size", e.RPMBSize, 32*128<<10, "bytes")                // RPMBSize 32
	wantFact(t, "rel_wr_sec_c", e.RelWrSecC, 1, "sectors")                   // ReliableWriteSectorCount 1
	for name, c := range map[string]struct {
		f    Fact
		want float64
	}{
		"ext_csd_rev": {e.Rev, 8}, "wr_rel_param": {e.WrRelParam, 21}, "wr_rel_set": {e.WrRelSet, 31},
		"sec_feature_support": {e.SecFeatureSupport, 85}, "partitioning_support": {e.PartitioningSupport, 7},
		"pre_eol_info": {e.PreEOLInfo, 1}, "life_time_est_a": {e.LifeTimeEstA, 1}, "life_time_est_b": {e.LifeTimeEstB, 1},
		"erase_group_def": {e.EraseGroupDef, 1}, "cache_ctrl": {e.CacheCtrl, 1}, "bkops_support": {e.BkopsSupport, 1},
		"device_version": {e.DeviceVersion, 0},
	} {
		if c.f.Num != c.want || !c.f.Known() {
			t.Errorf("%s = %v, want %v as Aaru decodes it", name, c.f, c.want)
		}
	}
	if e.FirmwareVersion.Text != "0x000000000000011b" { // FirmwareVersion 283
		t.Errorf("firmware_version %v, want 283", e.FirmwareVersion)
	}
}

// An eMMC 4.41 from a kernel that printed debugfs backwards: the parse
// must turn it round, and the fields eMMC 5.0 added must say the revision
// predates them rather than read as zero.
func TestReversedDebugfsEMMC441(t *testing.T) {
	raw, reversed, err := ParseExtCSDText(fixture(t, "kylemanna-emmc441-debugfs-reversed.txt"))
	if err != nil || !reversed {
		t.Fatalf("parse: %v, reversed %v; want reversed", err, reversed)
	}
	// The blog's parser prints "144: ... ca 01 00" and "160: 03".
	if raw[157] != 0xca || raw[158] != 0x01 || raw[160] != 0x03 {
		t.Errorf("bytes 157, 158, 160 = %#x %#x %#x, want 0xca 0x01 0x03", raw[157], raw[158], raw[160])
	}
	e, _ := DecodeExtCSD(raw)
	if e.Rev.Num != 5 || !strings.Contains(e.Rev.Text, "4.41") {
		t.Errorf("rev %v, want 5 (eMMC 4.41)", e.Rev)
	}
	predates := regexp.MustCompile(`EXT_CSD rev 5 \(eMMC 4\.41\) predates .* \(eMMC 5\.0/5\.01\)`)
	wantMissing(t, "life_time_est_a", e.LifeTimeEstA, predates)
	wantMissing(t, "optimal_write_size", e.OptimalWriteSize, predates)
	wantMissing(t, "cache_size", e.CacheSize, regexp.MustCompile(`predates CACHE_SIZE \(eMMC 4\.5/4\.51\)`))
	wantFact(t, "hc_erase_group_size", e.HCEraseGroupSize, 4<<20, "bytes")
	wantFact(t, "sec_count", e.SecCount, 0x728000, "sectors")
}

func TestParseExtCSDTextRejects(t *testing.T) {
	for name, s := range map[string]string{
		"short":     strings.Repeat("00", 511),
		"not hex":   strings.Repeat("zz", 512),
		"all zero":  strings.Repeat("00", 512), // no plausible revision either way
		"rows hole": "000: 00 00\n",
	} {
		if _, _, err := ParseExtCSDText(s); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if _, err := DecodeExtCSD(make([]byte, 511)); err == nil {
		t.Error("decoded 511 bytes")
	}
}

func TestLifeTimeText(t *testing.T) {
	for v, want := range map[byte]string{1: "0-10% of life used", 2: "10-20% of life used",
		10: "90-100% of life used", 11: "exceeded its estimated life", 12: "reserved value"} {
		if got := LifeTimeText(v); got != want {
			t.Errorf("LifeTimeText(%#x) = %q, want %q", v, got, want)
		}
	}
	if f := healthCode(0, LifeTimeText, "x"); f.Known() {
		t.Errorf("0x00 (not defined) reads as a value: %v", f)
	}
}
