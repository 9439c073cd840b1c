package report

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fsbench/fsbench/internal/golden"
	"github.com/fsbench/fsbench/wire/blocktrace"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// The "flash" fixture: results in the shapes the runner stores for write
// accounting (every test that writes), the endurance test (with its block
// trace) and flash_info, with made-up but realistic values, in two
// contexts: QEMU with a virtio disk (host counters, no board endurance
// block, no flash registers) and a board with an eMMC (an endurance block,
// flash_info before and after). TestFlashFixture writes them with -update:
// the files are what this code makes, never edited by hand.

const (
	partBytes = 512 << 20
	mib       = 1 << 20
)

var (
	qemuContext = map[string]string{"target": "qemu", "machine": "qemu-system-x86_64 q35 virtio", "accel": "kvm", "disk": "virtio",
		"kernel": "6.1.0-57-amd64", "kernel_package": "linux-image-6.1.0-57-amd64=6.1.158-1", "runner": "v0.6.0",
		"fingerprint": "sha256:9b1e77c0a5d24f3e8c6b0d2a4f1e3c5b7a9d0e2f4a6c8e0b1d3f5a7c9e1b3d5f"}
	boardContext = map[string]string{"target": "board", "board": "imx8mm-evk", "kernel": "6.6.52-imx", "runner": "v0.6.0",
		"fingerprint": "sha256:4c2d9e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d"}
)

// fixtureFile is the results of one variant in one context.
type fixtureFile struct {
	name, variant string
	ctx           map[string]string
	run           string
	rng           *rand.Rand
	out           []resultframe.Result
}

func (f *fixtureFile) add(recipe, test, cas string, iter int, metrics []resultframe.Metric, attrs map[string]string) {
	a := map[string]string{}
	for k, v := range f.ctx {
		a[k] = v
	}
	for k, v := range attrs {
		a[k] = v
	}
	f.out = append(f.out, resultframe.Result{Version: 1, RunID: f.run, Seq: uint64(len(f.out) + 1), Recipe: recipe, Name: test,
		Case: cas, Variant: f.variant, Iteration: iter, Status: resultframe.StatusOK, Metrics: metrics, Attrs: a})
}

// jitter is x within ±rel, rounded to whole units.
func (f *fixtureFile) jitter(x, rel float64) float64 {
	return math.Round(x * (1 + rel*(2*f.rng.Float64()-1)))
}

// ioFig is one iteration's I/O as the runner's accounting reports it.
type ioFig struct {
	workload, wa       float64 // bytes the workload wrote; device bytes over them
	discard            float64
	flushes            float64
	fsShare, wbShare   float64 // of the device's bytes
	hostDiff           float64 // percent; NaN: no host counters
	writers, hostAttr  string
	dayFraction        float64
	deviceBytesPresent float64 // when set, the device's bytes (from a trace) instead of workload × wa
}

// io turns fig into the metrics and attributes of target/runner's write
// accounting, in its order.
func (f *fixtureFile) io(fig ioFig) ([]resultframe.Metric, map[string]string) {
	dev := math.Round(fig.workload*fig.wa/512) * 512
	if fig.deviceBytesPresent > 0 {
		dev = fig.deviceBytesPresent
	}
	disk := dev + 512*math.Round(f.rng.Float64()*16) // the root's few writes
	m := []resultframe.Metric{
		{Name: "workload_write_bytes", Value: fig.workload, Unit: "B"},
		{Name: "device_write_bytes", Value: dev, Unit: "B"},
		{Name: "device_discard_bytes", Value: fig.discard, Unit: "B"},
		{Name: "device_write_requests", Value: math.Round(dev / 131072 * (1 + f.rng.Float64())), Unit: ""},
		{Name: "disk_write_bytes", Value: disk, Unit: "B"},
		{Name: "disk_flushes", Value: fig.flushes, Unit: ""},
		{Name: "write_amplification", Value: dev / fig.workload, Unit: "x"},
	}
	if fig.dayFraction > 0 {
		m = append(m,
			resultframe.Metric{Name: "workload_bytes_per_day", Value: fig.workload / fig.dayFraction, Unit: "B"},
			resultframe.Metric{Name: "device_bytes_per_day", Value: dev / fig.dayFraction, Unit: "B"},
			resultframe.Metric{Name: "flushes_per_day", Value: fig.flushes / fig.dayFraction, Unit: ""})
	}
	attrs := map[string]string{"io_accounting": "partition bench (vda3), disk vda; workload: write(2) bytes of the runner and the programs it ran"}
	if f.ctx["target"] == "board" {
		attrs["io_accounting"] = "partition bench (mmcblk2p3), disk mmcblk2; workload: write(2) bytes of the runner and the programs it ran"
	}
	if fig.writers != "" && fig.writers[0] == 'n' { // "not available: ..."
		attrs["io_writers"] = fig.writers
	} else {
		m = append(m,
			resultframe.Metric{Name: "fs_thread_write_bytes", Value: math.Round(dev*fig.fsShare/512) * 512, Unit: "B"},
			resultframe.Metric{Name: "writeback_write_bytes", Value: math.Round(dev*fig.wbShare/512) * 512, Unit: "B"})
		attrs["io_writers"] = fig.writers
	}
	if math.IsNaN(fig.hostDiff) {
		attrs["host_counters"] = fig.hostAttr
		return m, attrs
	}
	host := math.Round(disk / (1 - fig.hostDiff/100))
	m = append(m,
		resultframe.Metric{Name: "host_write_bytes", Value: host, Unit: "B"},
		resultframe.Metric{Name: "host_flushes", Value: fig.flushes, Unit: ""},
		resultframe.Metric{Name: "host_discard_bytes", Value: fig.discard, Unit: "B"},
		resultframe.Metric{Name: "host_guest_difference", Value: 100 * (host - disk) / host, Unit: "%"})
	attrs["host_counters"] = "QEMU query-blockstats, drive disk0"
	return m, attrs
}

// fsProfile is how each filesystem amplifies the fixture's workloads.
type fsProfile struct {
	seqWA, randWA, sqliteWA float64
	fsShareSeq, fsShareTx   float64
	thread                  string
	logged                  bool
}

var profiles = map[string]fsProfile{
	"ext4":  {1.0004, 1.006, 3.02, 0.0008, 0.52, "jbd2/vda3-8", false},
	"f2fs":  {1.012, 1.094, 1.53, 0.008, 0.31, "f2fs_ckpt-254:3", true},
	"btrfs": {1.024, 1.93, 5.1, 0.02, 0.61, "btrfs-transacti", false},
}

func (f *fixtureFile) writers(p fsProfile, share float64, tool string) string {
	if f.ctx["target"] == "board" {
		p.thread = map[string]string{"ext4": "jbd2/mmcblk2p3-8", "f2fs": "f2fs_ckpt-179:3"}[f.variant]
	}
	wb := 0.004
	return tool + " " + strconv.FormatFloat(100*(1-share-wb), 'f', 1, 64) + "%, " + p.thread + " " +
		strconv.FormatFloat(100*share, 'f', 1, 64) + "%, kworker/u8:2 " + strconv.FormatFloat(100*wb, 'f', 1, 64) + "%"
}

// fio adds fio's write cases, three iterations each.
func (f *fixtureFile) fio(p fsProfile, hostDiff func(cas string, iter int) float64, hostAttr string) {
	for _, c := range []struct {
		cas    string
		bytes  float64
		wa, fs float64
		bw     float64
	}{{"write-4MiB-direct", 256 * mib, p.seqWA, p.fsShareSeq, 168000}, {"randwrite-4KiB-direct", 64 * mib, p.randWA, 2 * p.fsShareSeq, 21500}} {
		for iter := 1; iter <= 3; iter++ {
			bw := f.jitter(c.bw, 0.04)
			m := []resultframe.Metric{{Name: "write_bytes", Value: c.bytes, Unit: "B"}, {Name: "write_bw", Value: bw, Unit: "KiB/s"},
				{Name: "write_runtime", Value: math.Round(c.bytes / 1024 / bw * 1000), Unit: "ms"}}
			io, attrs := f.io(ioFig{workload: c.bytes + f.jitter(6144, 0.1), wa: c.wa * (1 + 0.002*f.rng.Float64()),
				flushes: 2 + math.Round(f.rng.Float64()*2), fsShare: c.fs, wbShare: 0.004, hostDiff: hostDiff(c.cas, iter),
				hostAttr: hostAttr, writers: f.writers(p, c.fs, "fio")})
			attrs["engine"], attrs["engine_version"], attrs["ioengine"] = "fio", "fio-3.33", "libaio"
			f.add("fio", "write", c.cas, iter, append(m, io...), attrs)
		}
	}
}

// sqlite adds sqlite_tps's insert case.
func (f *fixtureFile) sqlite(p fsProfile, hostDiff float64, hostAttr string) {
	tps := map[string]float64{"ext4": 412, "f2fs": 655, "btrfs": 214}[f.variant]
	for iter := 1; iter <= 3; iter++ {
		t := f.jitter(tps, 0.05)
		m := []resultframe.Metric{{Name: "tps", Value: t, Unit: "tx/s"}, {Name: "transactions", Value: 1000}, {Name: "elapsed", Value: 1000 / t, Unit: "s"}}
		io, attrs := f.io(ioFig{workload: f.jitter(4214784, 0.01), wa: p.sqliteWA * (1 + 0.01*f.rng.Float64()), flushes: f.jitter(2010, 0.01),
			fsShare: p.fsShareTx, wbShare: 0.004, hostDiff: hostDiff, hostAttr: hostAttr, writers: f.writers(p, p.fsShareTx, "sqlite3")})
		attrs["sqlite_version"] = "3.40.1"
		f.add("sqlite_tps", "androbench", "insert", iter, append(m, io...), attrs)
	}
}

// daySpan is the fixture's endurance span: two hours of a day.
const daySpan = 7200

// endurance adds the endurance test's iterations; lost says, per
// iteration, why its trace was lost ("" for a whole trace).
func (f *fixtureFile) endurance(t *testing.T, p fsProfile, lost []string, hostDiff float64, hostAttr string, flash map[string]string) {
	for i, why := range lost {
		iter := i + 1
		sh := dayShape{seconds: daySpan, fsyncEvery: 10, logLine: 388, txEvery: 60, cfgEvery: 900, cfgBlocks: 4, update: 195,
			sectors: partBytes / 512, seed: uint64(iter)}
		rs := dayTrace(sh, p.logged)
		tot := blocktrace.Sum(rs)
		frac := float64(daySpan) / 86400
		workload := f.jitter(float64(388*daySpan+120*4200+8*16384+195*4096), 0.01)
		io, attrs := f.io(ioFig{workload: workload, flushes: float64(tot.Flushes), dayFraction: frac, deviceBytesPresent: float64(tot.BytesWritten),
			discard: float64(tot.BytesDiscarded), fsShare: 0.45, wbShare: 0.05, hostDiff: hostDiff, hostAttr: hostAttr,
			writers: f.writers(p, 0.45, "fsbench-runner")})
		m := []resultframe.Metric{{Name: "trace_records", Value: float64(tot.Records)}, {Name: "day_fraction", Value: frac},
			{Name: "elapsed", Value: f.jitter(41, 0.1), Unit: "s"}}
		m = append(m, io...)
		attrs["day"] = "2h0m0s of the device's life: 388 B of log a second, fsync every 10s; 1440 transactions a day; a config of 16384 B every 15m0s; 1 updates of 798720 B"
		attrs["partition_bytes"] = strconv.Itoa(partBytes)
		for k, v := range flash {
			attrs[k] = v
		}
		if why != "" {
			attrs["block_trace_lost"] = why
		} else {
			s, err := blocktrace.EncodeString(rs, blocktrace.Options{})
			if err != nil {
				t.Fatal(err)
			}
			attrs["block_trace_lost"], attrs["block_trace"] = "0", s
		}
		f.add("endurance", "day", "single", iter, m, attrs)
	}
}

// virtioFlashInfo is what flash_info reads of a virtio disk: nothing of
// flash, every fact with its reason.
func (f *fixtureFile) virtioFlashInfo() {
	why := "not available: /dev/vda is not an MMC or SD card (no device/type in sysfs)"
	attrs := map[string]string{"fstype": f.variant, "partition_bytes": strconv.Itoa(partBytes)}
	for _, k := range []string{"card_type", "card_name", "manufacturer", "life_time_est_a", "life_time_est_b", "pre_eol_info",
		"hc_erase_group_size", "ssr_au_size", "erase_group_size", "capacity"} {
		attrs[k] = why
	}
	attrs["preferred_erase_size"] = "not available: no device/preferred_erase_size in sysfs"
	attrs["stated_erase_unit"] = "not available: the device states no erase unit (EXT_CSD HC_ERASE_GRP_SIZE: /dev/vda is not an MMC or SD card (no device/type in sysfs); " +
		"SD Status AU_SIZE: /dev/vda is not an MMC or SD card (no device/type in sysfs); preferred_erase_size: no device/preferred_erase_size in sysfs)"
	attrs["probe"] = "no boundary found: no lasting step at any boundary from 4KiB on: the largest is 1.2µs against a noise of 3.1µs per read and reads of 41µs"
	m := []resultframe.Metric{{Name: "discard_granularity", Value: 512, Unit: "bytes"}, {Name: "spec_erase_block", Value: 4 * mib, Unit: "bytes"}}
	attrs["discard_granularity.source"] = "sysfs queue/discard_granularity"
	f.add("flash_info", "flash", "single", 1, m, attrs)
}

// emmcFlashInfo is what flash_info reads of the board's eMMC, before or
// after the campaign: life time estimate A is the card's wear so far.
func (f *fixtureFile) emmcFlashInfo(test string, lifeA int) {
	life := map[int]string{1: "0x01 (0-10% of life used)", 2: "0x02 (10-20% of life used)"}
	attrs := map[string]string{
		"fstype": f.variant, "partition_bytes": strconv.Itoa(partBytes),
		"card_type": "MMC", "card_type.source": "sysfs device/type", "card_name": "8GTF4R", "card_name.source": "sysfs device/name",
		"manufacturer": "Samsung (0x15)", "manufacturer.source": "sysfs device/manfid",
		"capacity.source": "EXT_CSD SEC_COUNT [215:212]", "hc_erase_group_size.source": "EXT_CSD HC_ERASE_GRP_SIZE [224]",
		"stated_erase_unit.source": "EXT_CSD HC_ERASE_GRP_SIZE [224]",
		"life_time_est_a":          life[lifeA], "life_time_est_a.source": "EXT_CSD DEVICE_LIFE_TIME_EST_TYP_A [268]",
		"life_time_est_b": life[1], "life_time_est_b.source": "EXT_CSD DEVICE_LIFE_TIME_EST_TYP_B [269]",
		"pre_eol_info": "0x01 (normal)", "pre_eol_info.source": "EXT_CSD PRE_EOL_INFO [267]",
		"ssr_au_size": "not available: /dev/mmcblk2 is an MMC device, not an SD card",
		"probe":       "a step of 38µs at 4MiB boundaries (high confidence, noise 2.1µs, 12 sizes read)",
	}
	m := []resultframe.Metric{
		{Name: "manufacturer", Value: 0x15}, {Name: "capacity", Value: 7818182656, Unit: "bytes"},
		{Name: "hc_erase_group_size", Value: 512 << 10, Unit: "bytes"},
		{Name: "life_time_est_a", Value: float64(lifeA)}, {Name: "life_time_est_b", Value: 1}, {Name: "pre_eol_info", Value: 1},
		{Name: "stated_erase_unit", Value: 512 << 10, Unit: "bytes"},
		{Name: "spec_erase_block", Value: 4 * mib, Unit: "bytes"},
		{Name: "probe_erase_block", Value: 4 * mib, Unit: "bytes"},
	}
	f.add("flash_info", test, "single", 1, m, attrs)
}

// flashFixture makes the fixture's files.
func flashFixture(t *testing.T) []*fixtureFile {
	var files []*fixtureFile
	qemuFlash := map[string]string{"flash_erase_block": strconv.Itoa(4 * mib)}
	for i, variant := range []string{"ext4", "f2fs", "btrfs"} {
		f := &fixtureFile{name: "qemu-" + variant, variant: variant, ctx: qemuContext, run: "f1a50" + strconv.Itoa(i),
			rng: rand.New(rand.NewPCG(uint64(i), 77))}
		p := profiles[variant]
		f.virtioFlashInfo()
		diff := func(cas string, iter int) float64 {
			if variant == "btrfs" && cas == "randwrite-4KiB-direct" && iter == 2 {
				return 2.7 // the cross-check that fails
			}
			return 0.02 + 0.05*f.rng.Float64()
		}
		f.fio(p, diff, "")
		f.sqlite(p, 0.04, "")
		lost := map[string][]string{"ext4": {"", "cut at trace_limit (512 KiB encoded)"}, "f2fs": {""},
			"btrfs": {"1843 events dropped by the kernel's trace buffer"}}[variant]
		f.endurance(t, p, lost, 0.03, "", qemuFlash)
		files = append(files, f)
	}
	boardFlash := map[string]string{"flash_erase_block": strconv.Itoa(4 * mib), "flash_page_size": "16384",
		"flash_capacity": "8589934592", "flash_pe_cycles": "3000", "flash_over_provisioning": "0.07", "flash_writes_per_day": strconv.Itoa(256 * mib)}
	noHost := "not available: no virtio port org.fsbench.io (a board, or a VM that fsbench does not run)"
	for i, variant := range []string{"ext4", "f2fs"} {
		f := &fixtureFile{name: "board-" + variant, variant: variant, ctx: boardContext, run: "b0a4d" + strconv.Itoa(i),
			rng: rand.New(rand.NewPCG(uint64(10+i), 77))}
		p := profiles[variant]
		f.emmcFlashInfo("before", 1)
		f.sqlite(p, math.NaN(), noHost)
		f.endurance(t, p, []string{""}, math.NaN(), noHost, boardFlash)
		f.emmcFlashInfo("after", 1+i)
		files = append(files, f)
	}
	return files
}

// TestFlashFixture writes the fixture's results (with -update) or checks
// that the files are what flashFixture makes.
func TestFlashFixture(t *testing.T) {
	for _, f := range flashFixture(t) {
		var b bytes.Buffer
		for _, r := range f.out {
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(append(line, '\n'))
		}
		golden.Check(t, filepath.Join("testdata", "flash", f.name+".jsonl"), b.Bytes(), *update)
	}
}
