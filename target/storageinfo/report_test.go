package storageinfo

import (
	"strings"
	"testing"
)

func TestReportNamesAreUniqueAndNamed(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range (&Info{}).Entries() {
		if e.Name == "" || seen[e.Name] {
			t.Errorf("fact name %q empty or repeated", e.Name)
		}
		seen[e.Name] = true
	}
	if len(seen) < 60 {
		t.Errorf("%d facts listed", len(seen))
	}
}

// An Info no code path filled reports no numbers at all: a fact never read
// must not pass for a zero.
func TestReportNeverInventsZeros(t *testing.T) {
	metrics, attrs := (&Info{Disk: "mmcblk0"}).Report()
	if len(metrics) != 0 {
		t.Errorf("metrics from nothing read: %v", metrics)
	}
	for k, v := range attrs {
		if k != "storage" && !strings.HasPrefix(v, "not available: ") {
			t.Errorf("%s = %q", k, v)
		}
	}
}

// The worn eMMC, read from debugfs, as the runner will put it in a result.
func TestReportOfWornEMMC(t *testing.T) {
	sys, dev := fakeEMMC(t, fixture(t, "emmc50-worn-debugfs.txt"))
	in := Read(sys, dev, "mmcblk0")
	metrics, attrs := in.Report()
	byName := map[string]float64{}
	for _, m := range metrics {
		byName[m.Name] = m.Value
		if m.Name == "hc_erase_group_size" && m.Unit != "bytes" {
			t.Errorf("unit %q", m.Unit)
		}
	}
	for name, want := range map[string]float64{"hc_erase_group_size": 8 << 20, "erase_group_size": 8 << 20,
		"life_time_est_a": 0x0b, "stated_erase_unit": 8 << 20, "capacity": 0xeb8000 * 512} {
		if got, ok := byName[name]; !ok || got != want {
			t.Errorf("metric %s = %v (%v), want %v", name, got, ok, want)
		}
	}
	for name, want := range map[string]string{
		"life_time_est_a":            "0x0b (exceeded its estimated life)",
		"life_time_est_a.source":     "EXT_CSD DEVICE_LIFE_TIME_EST_TYP_A [268]",
		"hc_erase_group_size.source": "EXT_CSD HC_ERASE_GRP_SIZE [224]",
		"ssr_au_size":                "not available: /dev/mmcblk0 is an MMC device, not an SD card",
		"card_name":                  "not available: no device/name in sysfs",
	} {
		if got := strings.Replace(attrs[name], dev, "/dev", 1); got != want {
			t.Errorf("attribute %s = %q, want %q", name, got, want)
		}
	}
	if _, ok := byName["ssr_au_size"]; ok {
		t.Error("a fact not available became a metric")
	}
}

func TestFactString(t *testing.T) {
	for f, want := range map[*Fact]string{
		{Num: 524288, Unit: "bytes", Source: "EXT_CSD HC_ERASE_GRP_SIZE [224]", numeric: true}: "524288 bytes (EXT_CSD HC_ERASE_GRP_SIZE [224])",
		{Reason: "no permission"}: "not available: no permission",
		{}:                        "not available: not read",
	} {
		if got := f.String(); got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
