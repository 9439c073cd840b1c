package ioacct

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/hostio"
	"github.com/fsbench/fsbench/wire/runplan"
)

// Write amplification, at the filesystem's level: around each iteration
// of a step that writes (Step.AccountIO), the runner counts what the
// workload asked to write and what the partition's block device wrote,
// and says who submitted the device's writes.
//
//   - The workload's bytes are the write(2) bytes of the runner's process
//     and of the programs it started and reaped during the iteration
//     (/proc/self/io wchar: the kernel adds a reaped child's counters to
//     its parent's), less what the runner itself wrote to the console. A
//     program's output to the runner (fio's JSON) is counted: a few KiB.
//   - The device's are the partition's counters in /sys/class/block
//     (sectors written, discarded; write requests), after sync(2), so
//     that data the workload left dirty is counted when it reaches the
//     device. The whole disk's counters (and its flushes, which the
//     kernel counts on the disk only) come beside them.
//   - Who wrote: a histogram trigger on the block_bio_queue event, in a
//     tracefs instance of its own, sums the sectors each task submitted to
//     the partition, in the kernel, with nothing copied to user space.
//   - In QEMU, the emulator's counters of the disk (package wire/hostio)
//     check the guest's: the disk's bytes written must agree.

// minWorkload is the least a workload must write for its write
// amplification to mean something: the runner itself writes a few bytes
// to /proc and /sys files (drop_caches, the console's level) that count
// as write(2) bytes too.
const minWorkload = 64 << 10

// ioSnapshot is the counters at one point.
type ioSnapshot struct {
	wchar      int64
	console    int64
	part, disk blockStat
	host       *hostio.Counters
	hostErr    error
}

// blockStat is what /sys/class/block/<dev>/stat counts, in sectors of 512
// bytes (Documentation/block/stat.rst).
type blockStat struct {
	writes, writeSectors, discardSectors, flushes uint64
}

// Account counts one iteration's I/O on a partition.
type Account struct {
	part     *runplan.Partition
	partSys  string // /sys/class/block/<part>
	diskSys  string
	before   ioSnapshot
	console  *atomic.Int64
	hist     *writerHist
	histErr  error
	host     *HostPort
	problems []string
}

// Start takes the counters before an iteration of a step on p.
// console counts what the runner writes to the console; host is the
// host's counters' port, nil where there is none.
func Start(p *runplan.Partition, console *atomic.Int64, host *HostPort) (*Account, error) {
	ext, err := sysExtent(p.Device)
	if err != nil {
		return nil, err
	}
	a := &Account{part: p, partSys: ext.partSys, diskSys: ext.diskSys, console: console, host: host}
	a.hist, a.histErr = startWriterHist(ext.disk, ext.start, ext.start+ext.sectors)
	unix.Sync()
	if a.before, err = a.snapshot(); err != nil {
		a.Stop()
		return nil, err
	}
	return a, nil
}

// Stop removes what Start set up in the kernel (the histogram trigger).
func (a *Account) Stop() {
	if a.hist != nil {
		a.hist.close()
	}
}

func (a *Account) snapshot() (ioSnapshot, error) {
	var s ioSnapshot
	var err error
	if s.wchar, err = procWchar("/proc/self/io"); err != nil {
		return s, err
	}
	s.console = a.console.Load()
	if s.part, err = readBlockStat(filepath.Join(a.partSys, "stat")); err != nil {
		return s, err
	}
	if s.disk, err = readBlockStat(filepath.Join(a.diskSys, "stat")); err != nil {
		return s, err
	}
	if a.host != nil {
		c, err := a.host.counters()
		s.host, s.hostErr = &c, err
		if err != nil {
			s.host = nil
		}
	}
	return s, nil
}

// Finish syncs, takes the counters again and adds the iteration's figures
// to out.
func (a *Account) Finish(out *step.Outcome) error {
	defer a.Stop()
	unix.Sync()
	after, err := a.snapshot()
	if err != nil {
		return err
	}
	b := a.before
	workload := max((after.wchar-b.wchar)-(after.console-b.console), 0) + out.AsyncWriteBytes
	devBytes := int64(after.part.writeSectors-b.part.writeSectors) * 512
	out.Metric("workload_write_bytes", float64(workload), "B")
	out.Metric("device_write_bytes", float64(devBytes), "B")
	out.Metric("device_discard_bytes", float64(after.part.discardSectors-b.part.discardSectors)*512, "B")
	out.Metric("device_write_requests", float64(after.part.writes-b.part.writes), "")
	diskBytes := int64(after.disk.writeSectors-b.disk.writeSectors) * 512
	out.Metric("disk_write_bytes", float64(diskBytes), "B")
	out.Metric("disk_flushes", float64(after.disk.flushes-b.disk.flushes), "")
	if workload >= minWorkload {
		out.Metric("write_amplification", float64(devBytes)/float64(workload), "x")
	} else {
		out.Attr("write_amplification", fmt.Sprintf("not computed: the workload wrote %d bytes, less than %d KiB, which the runner's own writes to /proc and /sys could be", workload, minWorkload>>10))
	}
	if out.DayShare > 0 {
		out.Metric("workload_bytes_per_day", float64(workload)/out.DayShare, "B")
		out.Metric("device_bytes_per_day", float64(devBytes)/out.DayShare, "B")
		out.Metric("flushes_per_day", float64(after.disk.flushes-b.disk.flushes)/out.DayShare, "")
	}
	out.Attr("io_accounting", fmt.Sprintf("partition %s (%s), disk %s; workload: write(2) bytes of the runner and the programs it ran",
		a.part.Name, linux.BlockName(a.part.Device), filepath.Base(a.diskSys)))
	a.writers(out)
	a.hostCheck(out, b, after, diskBytes)
	return nil
}

// writers adds who submitted the partition's writes.
func (a *Account) writers(out *step.Outcome) {
	if a.histErr != nil {
		out.Attr("io_writers", "not available: "+a.histErr.Error())
		return
	}
	by, err := a.hist.read()
	if err != nil {
		out.Attr("io_writers", "not available: "+err.Error())
		return
	}
	var total, fsThreads, writeback int64
	for _, w := range by {
		total += w.sectors
		switch writerKind(w.comm) {
		case "fs":
			fsThreads += w.sectors
		case "writeback":
			writeback += w.sectors
		}
	}
	out.Metric("fs_thread_write_bytes", float64(fsThreads*512), "B")
	out.Metric("writeback_write_bytes", float64(writeback*512), "B")
	if total == 0 {
		out.Attr("io_writers", "none")
		return
	}
	var parts []string
	for i, w := range by {
		if i == 6 {
			parts = append(parts, "others")
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.1f%%", w.comm, 100*float64(w.sectors)/float64(total)))
	}
	out.Attr("io_writers", strings.Join(parts, ", "))
}

// writerKind sorts a task that submitted writes: the filesystem's own
// threads, the kernel's writeback (and other work) on kworkers, or the
// workload.
func writerKind(comm string) string {
	switch {
	case strings.HasPrefix(comm, "kworker/"):
		return "writeback"
	case strings.HasPrefix(comm, "jbd2/"), strings.HasPrefix(comm, "ext4"), strings.HasPrefix(comm, "f2fs_"),
		strings.HasPrefix(comm, "btrfs-"), strings.HasPrefix(comm, "xfsaild"), strings.HasPrefix(comm, "xfs"),
		comm == "segctord", strings.HasPrefix(comm, "nilfs"):
		return "fs"
	}
	return "workload"
}

// hostCheck adds the host's counters and how they agree with the disk's.
func (a *Account) hostCheck(out *step.Outcome, b, after ioSnapshot, diskBytes int64) {
	switch {
	case a.host == nil:
		out.Attr("host_counters", "not available: "+hostPortMissing)
		return
	case b.hostErr != nil || after.hostErr != nil:
		out.Attr("host_counters", "not available: "+firstErr(b.hostErr, after.hostErr).Error())
		return
	}
	hb, ha := b.host, after.host
	host := int64(ha.WriteBytes - hb.WriteBytes)
	out.Metric("host_write_bytes", float64(host), "B")
	out.Metric("host_flushes", float64(ha.FlushOps-hb.FlushOps), "")
	// QEMU 7.2's virtio-blk passes discards on without counting them in
	// query-blockstats (nor with discard=unmap): a zero there says
	// nothing when the guest's disk discarded.
	unmapped := ha.UnmapBytes - hb.UnmapBytes
	guestDiscard := (after.disk.discardSectors - b.disk.discardSectors) * 512
	switch {
	case unmapped == 0 && guestDiscard > 0:
		out.Attr("host_discard_bytes", fmt.Sprintf("not counted: the guest's disk discarded %d bytes and the emulator counted none (QEMU's virtio-blk does not count discards)", guestDiscard))
	default:
		out.Metric("host_discard_bytes", float64(unmapped), "B")
	}
	if host > 0 {
		out.Metric("host_guest_difference", 100*float64(host-diskBytes)/float64(host), "%")
	}
	out.Attr("host_counters", "QEMU query-blockstats, drive "+ha.Drive)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// readBlockStat reads a block device's stat file. Kernels before 4.18
// have no discard fields and before 5.5 no flush fields: those read as 0.
func readBlockStat(path string) (blockStat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return blockStat{}, err
	}
	f := strings.Fields(string(b))
	if len(f) < 11 {
		return blockStat{}, fmt.Errorf("%s: %d fields, want at least 11", path, len(f))
	}
	n := func(i int) uint64 {
		if i >= len(f) {
			return 0
		}
		v, _ := strconv.ParseUint(f[i], 10, 64)
		return v
	}
	return blockStat{writes: n(4), writeSectors: n(6), discardSectors: n(13), flushes: n(15)}, nil
}

// extent is where a partition lies on its disk, as sysfs says.
type extent struct {
	partSys, diskSys string    // their /sys/class/block directories
	disk             [2]uint32 // the disk's major and minor
	start, sectors   uint64    // the partition's first sector and length
}

// sysExtent finds the partition (or whole disk) dev in sysfs.
func sysExtent(dev string) (extent, error) {
	e := extent{partSys: filepath.Join("/sys/class/block", linux.BlockName(dev))}
	e.diskSys = e.partSys
	if _, err := os.Stat(filepath.Join(e.partSys, "partition")); err == nil {
		real, err := filepath.EvalSymlinks(e.partSys)
		if err != nil {
			return e, err
		}
		e.diskSys = filepath.Dir(real)
	}
	var err error
	if e.start, e.sectors, err = partitionExtent(e.partSys); err != nil {
		return e, err
	}
	e.disk, err = devNumberOf(filepath.Join(e.diskSys, "dev"))
	return e, err
}

// partitionExtent is a partition's first sector on its disk and its
// length, from sysfs; a whole disk starts at 0.
func partitionExtent(sys string) (start, sectors uint64, err error) {
	read := func(name string) (uint64, error) {
		b, err := os.ReadFile(filepath.Join(sys, name))
		if err != nil {
			return 0, err
		}
		return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	}
	if sectors, err = read("size"); err != nil {
		return 0, 0, err
	}
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		if start, err = read("start"); err != nil {
			return 0, 0, err
		}
	}
	return start, sectors, nil
}

// devNumberOf reads a sysfs dev file ("254:0").
func devNumberOf(path string) ([2]uint32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return [2]uint32{}, err
	}
	maj, min, ok := strings.Cut(strings.TrimSpace(string(b)), ":")
	a, err1 := strconv.ParseUint(maj, 10, 32)
	c, err2 := strconv.ParseUint(min, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return [2]uint32{}, fmt.Errorf("%s: %q is not major:minor", path, b)
	}
	return [2]uint32{uint32(a), uint32(c)}, nil
}

// procWchar reads the wchar line of a /proc/<pid>/io file.
func procWchar(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("the workload's bytes (the kernel needs TASK_IO_ACCOUNTING): %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "wchar:"); ok {
			return strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s has no wchar", path)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w interface{ Write([]byte) (int, error) }
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}
