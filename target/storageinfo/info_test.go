package storageinfo

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const armbian = "testdata/sys-armbian-sunxi"

// The SD card of the Armbian dump (kernel 3.4, before sysfs had ssr),
// asked for by a partition's name.
func TestReadSDCard(t *testing.T) {
	in := Read(armbian, t.TempDir(), "mmcblk0p1")
	if in.Disk != "mmcblk0" || in.Card.Type.Text != "SD" || in.Card.Name.Text != "SD16G" {
		t.Fatalf("disk %s, type %v, name %v", in.Disk, in.Card.Type, in.Card.Name)
	}
	wantFact(t, "preferred_erase_size", in.Kernel.PreferredEraseSize, 4194304, "bytes")
	wantFact(t, "sysfs_erase_size", in.Kernel.EraseSize, 512, "bytes")
	wantFact(t, "capacity", in.Capacity, 29608*512<<10, "bytes") // C_SIZE 0x73a7: a 16 GB card
	if in.Capacity.Source != "CSD (sysfs device/csd) C_SIZE" || in.CSD.Structure.Text != "2.0 (SDHC/SDXC)" {
		t.Errorf("capacity from %q, CSD %v", in.Capacity.Source, in.CSD.Structure)
	}
	wantMissing(t, "ssr_au_size", in.SD.AUSize, regexp.MustCompile(`no device/ssr in sysfs .*Linux 4\.10`))
	wantMissing(t, "ext_csd", in.ExtCSDSource, regexp.MustCompile(`is an SD card: EXT_CSD is an eMMC register`))
	wantMissing(t, "erase_group_size", in.EraseGroupSize, regexp.MustCompile(`allocation unit`))
	wantMissing(t, "discard_granularity", in.Queue.DiscardGranularity, regexp.MustCompile(`no queue/discard_granularity in sysfs`))
	if in.SD.SpecVersion.Text != "3.0x" {
		t.Errorf("SD spec %v", in.SD.SpecVersion)
	}
	if g := in.Geometry(); g.Unit.Num != 4<<20 || g.Unit.Source != "sysfs device/preferred_erase_size" {
		t.Errorf("geometry %v, want the kernel's 4 MiB: no SD Status to read the AU from", g.Unit)
	}
	noSerial(t, &in, "da89b829", "275048534431364730da89b82900fb61")
}

// The Samsung eMMC of the same dump, with no device node to send
// MMC_IOC_CMD to and no debugfs.
func TestReadEMMCWithoutExtCSD(t *testing.T) {
	in := Read(armbian, t.TempDir(), "mmcblk1")
	if in.Card.Manufacturer.Text != "Samsung (0x15)" || in.Card.Manufacturer.Source != "sysfs device/manfid" {
		t.Errorf("manufacturer %v", in.Card.Manufacturer)
	}
	wantMissing(t, "ext_csd", in.ExtCSDSource, regexp.MustCompile(`mmcblk1 does not exist; debugfs: `))
	wantMissing(t, "hc_erase_group_size", in.ExtCSD.HCEraseGroupSize, regexp.MustCompile(`^EXT_CSD not available: `))
	wantMissing(t, "life_time_est_a", in.ExtCSD.LifeTimeEstA, regexp.MustCompile(`^EXT_CSD not available: `))
	wantMissing(t, "csd_capacity", in.CSD.Capacity, regexp.MustCompile(`C_SIZE is 0xFFF`))
	wantMissing(t, "enhanced_area_offset", in.Kernel.EnhancedAreaOffset, regexp.MustCompile(`negative errno`))
	wantFact(t, "tran_speed", in.CSD.TranSpeed, 26e6, "Hz")
	wantFact(t, "csd_erase_unit", in.CSD.EraseGroup, 512<<10, "bytes")
	wantMissing(t, "capacity", in.Capacity, regexp.MustCompile(`no SEC_COUNT, CSD or sysfs size`))
	if g := in.Geometry(); g.Unit.Num != 512<<10 || !strings.HasPrefix(g.Unit.Source, "sysfs") {
		t.Errorf("geometry %v", g.Unit)
	}
	noSerial(t, &in, "dc0db061", "1501004d384731474303dc0db061506f")
}

// noSerial checks that neither the serial number nor the CID leaves in a
// report, though both are in the sysfs tree.
func noSerial(t *testing.T, in *Info, serial, cid string) {
	t.Helper()
	metrics, attrs := in.Report()
	for k, v := range attrs {
		if strings.Contains(strings.ToLower(v), serial) || strings.Contains(v, cid) {
			t.Errorf("attribute %s = %q holds the serial or the CID", k, v)
		}
	}
	if len(metrics) == 0 || !strings.HasPrefix(attrs["serial"], "not available: withheld") {
		t.Errorf("serial attribute %q", attrs["serial"])
	}
}

// fakeEMMC builds a sysfs tree as a board has it, for an eMMC whose card
// directory is reached through the device symlink, with the EXT_CSD in
// debugfs, and a device node that is a plain file (so MMC_IOC_CMD fails).
func fakeEMMC(t *testing.T, debugfsExtCSD string) (sys, dev string) {
	t.Helper()
	sys, dev = t.TempDir(), t.TempDir()
	card := filepath.Join(sys, "devices", "platform", "mmc_host", "mmc0", "mmc0:0001")
	files := map[string]string{
		filepath.Join(card, "type"):                                   "MMC\n",
		filepath.Join(sys, "block", "mmcblk0", "size"):                "15269888\n",
		filepath.Join(sys, "block", "mmcblk0", "queue", "rotational"): "0\n",
		filepath.Join(dev, "mmcblk0"):                                 "",
	}
	if debugfsExtCSD != "" {
		files[filepath.Join(sys, "kernel", "debug", "mmc0", "mmc0:0001", "ext_csd")] = debugfsExtCSD
	}
	for p, s := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../../devices/platform/mmc_host/mmc0/mmc0:0001", filepath.Join(sys, "block", "mmcblk0", "device")); err != nil {
		t.Fatal(err)
	}
	return sys, dev
}

// The worn eMMC's debugfs dump, read through the fallback when
// MMC_IOC_CMD is refused.
func TestReadEMMCFromDebugfs(t *testing.T) {
	sys, dev := fakeEMMC(t, fixture(t, "emmc50-worn-debugfs.txt"))
	in := Read(sys, dev, "mmcblk0")
	if !in.ExtCSDSource.Known() || in.ExtCSDSource.Source != "debugfs" || !strings.Contains(in.ExtCSDSource.Text, "is not an MMC device") {
		t.Fatalf("ext_csd %v", in.ExtCSDSource)
	}
	if in.ExtCSD.LifeTimeEstA.Num != 0x0b {
		t.Errorf("life_time_est_a %v", in.ExtCSD.LifeTimeEstA)
	}
	wantFact(t, "capacity", in.Capacity, 0xeb8000*512, "bytes")
	wantFact(t, "erase_group_size", in.EraseGroupSize, 8<<20, "bytes") // ERASE_GROUP_DEF 1
	if !strings.Contains(in.EraseGroupSize.Source, "ERASE_GROUP_DEF [175] is 1") {
		t.Errorf("erase group source %q", in.EraseGroupSize.Source)
	}
	if g := in.Geometry(); g.Unit.Num != 8<<20 || g.Unit.Source != "EXT_CSD HC_ERASE_GRP_SIZE [224]" {
		t.Errorf("geometry %v", g.Unit)
	}
}

// With no EXT_CSD at all, the health comes from the kernel's copies in
// sysfs, said to be as old as the card's probe (the values are made up:
// no dump of a 4.10+ kernel's life_time was found beside its EXT_CSD).
func TestReadEMMCHealthFromSysfs(t *testing.T) {
	sys, dev := fakeEMMC(t, "")
	card := filepath.Join(sys, "devices", "platform", "mmc_host", "mmc0", "mmc0:0001")
	os.WriteFile(filepath.Join(card, "life_time"), []byte("0x02 0x01\n"), 0o644)
	os.WriteFile(filepath.Join(card, "pre_eol_info"), []byte("0x01\n"), 0o644)
	in := Read(sys, dev, "mmcblk0")
	if in.ExtCSD.LifeTimeEstA.Text != "0x02 (10-20% of life used)" || !strings.Contains(in.ExtCSD.LifeTimeEstA.Source, "read when the card was probed") {
		t.Errorf("life_time_est_a %v", in.ExtCSD.LifeTimeEstA)
	}
	if in.ExtCSD.LifeTimeEstB.Num != 1 || in.ExtCSD.PreEOLInfo.Text != "0x01 (normal)" {
		t.Errorf("life_time_est_b %v, pre_eol_info %v", in.ExtCSD.LifeTimeEstB, in.ExtCSD.PreEOLInfo)
	}
	wantMissing(t, "hc_erase_group_size", in.ExtCSD.HCEraseGroupSize, regexp.MustCompile(`not an MMC device.*no .*ext_csd \(debugfs not mounted`))
	wantFact(t, "capacity", in.Capacity, 15269888*512, "bytes")
	if in.Capacity.Source != "sysfs size × 512" {
		t.Errorf("capacity source %q", in.Capacity.Source)
	}
}

// A virtio disk: not an MMC device, and it states no geometry.
func TestReadVirtioDisk(t *testing.T) {
	sys := t.TempDir()
	for name, v := range map[string]string{"size": "2097152", "queue/discard_granularity": "512",
		"queue/optimal_io_size": "0", "queue/rotational": "1"} {
		p := filepath.Join(sys, "block", "vda", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(v+"\n"), 0o644)
	}
	in := Read(sys, "/dev", "vda")
	wantMissing(t, "ext_csd", in.ExtCSDSource, regexp.MustCompile(`^/dev/vda is not an MMC or SD card \(no device/type in sysfs\)$`))
	wantMissing(t, "optimal_io_size", in.Queue.OptimalIOSize, regexp.MustCompile(`is 0: the driver reports none`))
	wantFact(t, "discard_granularity", in.Queue.DiscardGranularity, 512, "bytes")
	wantFact(t, "capacity", in.Capacity, 1<<30, "bytes")
	if g := in.Geometry(); g.Unit.Known() || !strings.Contains(g.Unit.Why(), "states no erase unit") {
		t.Errorf("geometry %v", g.Unit)
	}
	if in := Read(sys, "/dev", "nvme9n1"); in.Capacity.Known() || !strings.Contains(in.Capacity.Why(), "no block device nvme9n1") {
		t.Errorf("a missing disk: capacity %v", in.Capacity)
	}
}
