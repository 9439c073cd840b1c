package ioacct

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/wire/hostio"
	"golang.org/x/sys/unix"
)

func TestParseWriterHist(t *testing.T) {
	const hist = `# event histogram
#
# trigger info: hist:keys=comm:vals=hitcount,nr_sector:sort=nr_sector.descending:size=256 if dev == 265289728 [active]
#

{ comm: kworker/u2:1                                       } hitcount:          4  nr_sector:         64
{ comm: fio                                                } hitcount:        120  nr_sector:      98304
{ comm: jbd2/vda3-8                                        } hitcount:          3  nr_sector:         24

Totals:
    Hits: 127
    Entries: 3
    Dropped: 0
`
	got, err := parseWriterHist(bufio.NewScanner(strings.NewReader(hist)))
	if err != nil {
		t.Fatal(err)
	}
	want := []writerSectors{{"fio", 98304}, {"kworker/u2:1", 64}, {"jbd2/vda3-8", 24}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := parseWriterHist(bufio.NewScanner(strings.NewReader(strings.Replace(hist, "Dropped: 0", "Dropped: 2", 1)))); err == nil {
		t.Error("a histogram that dropped entries was accepted")
	}
	if _, err := parseWriterHist(bufio.NewScanner(strings.NewReader("{ comm: fio } hitcount: 1 nr_sector: x\n"))); err == nil {
		t.Error("a bad line was accepted")
	}
}

func TestWriterKind(t *testing.T) {
	for comm, want := range map[string]string{
		"kworker/u2:1": "writeback", "jbd2/vda3-8": "fs", "f2fs_ckpt-254:3": "fs", "btrfs-transacti": "fs",
		"xfsaild/vda3": "fs", "segctord": "fs", "ext4lazyinit": "fs", "fio": "workload", "fsbench-runner": "workload",
		"sqlite3": "workload",
	} {
		if got := writerKind(comm); got != want {
			t.Errorf("writerKind(%q) = %s, want %s", comm, got, want)
		}
	}
}

func TestReadBlockStat(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "stat")
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	// Linux 6.1: 17 fields.
	st, err := readBlockStat(write("  100 2 800 10   50 5 4096 20 0 30 40   3 0 2048 1   7 9\n"))
	if err != nil || st != (blockStat{writes: 50, writeSectors: 4096, discardSectors: 2048, flushes: 7}) {
		t.Errorf("6.1 stat: %+v %v", st, err)
	}
	// Before 4.18: 11 fields, no discards or flushes.
	st, err = readBlockStat(write("100 2 800 10 50 5 4096 20 0 30 40\n"))
	if err != nil || st != (blockStat{writes: 50, writeSectors: 4096}) {
		t.Errorf("old stat: %+v %v", st, err)
	}
	if _, err := readBlockStat(write("1 2 3\n")); err == nil {
		t.Error("a short stat was accepted")
	}
}

func TestProcWchar(t *testing.T) {
	n, err := procWchar("/proc/self/io")
	if err != nil {
		t.Skipf("needs /proc/self/io (TASK_IO_ACCOUNTING): %v", err)
	}
	f, _ := os.Create(filepath.Join(t.TempDir(), "x"))
	f.Write(make([]byte, 12345))
	f.Close()
	m, err := procWchar("/proc/self/io")
	if err != nil || m-n < 12345 {
		t.Errorf("wchar went from %d to %d after a write of 12345 bytes (%v)", n, m, err)
	}
	// A reaped child's writes count for the parent.
	if _, err := exec.LookPath("dd"); err == nil {
		before, _ := procWchar("/proc/self/io")
		exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(t.TempDir(), "y"), "bs=64k", "count=4", "status=none").Run()
		after, _ := procWchar("/proc/self/io")
		if after-before < 4*64<<10 {
			t.Errorf("a child's 256KiB did not reach the parent's wchar: %d", after-before)
		}
	}
}

// TestHostPortOnAPty asks for the host's counters on a real pty, with a
// stand-in host that answers a late reply first.
func TestHostPortOnAPty(t *testing.T) {
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("needs /dev/ptmx: %v", err)
	}
	master := os.NewFile(uintptr(mfd), "ptmx")
	defer master.Close()
	unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0)
	n, err := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	sys, dev := t.TempDir(), t.TempDir()
	port := filepath.Join(sys, "class", "virtio-ports", "vport0p1")
	os.MkdirAll(port, 0o755)
	os.WriteFile(filepath.Join(port, "name"), []byte(hostio.PortName+"\n"), 0o644)
	other := filepath.Join(sys, "class", "virtio-ports", "vport0p2")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "name"), []byte("org.qemu.guest_agent.0\n"), 0o644)
	os.Symlink(fmt.Sprintf("/dev/pts/%d", n), filepath.Join(dev, "vport0p1"))

	h, err := OpenHostPort(sys, dev)
	if err != nil || h == nil {
		t.Fatalf("openHostPort: %v %v", h, err)
	}
	// The slave in raw mode, as a virtio port is.
	if tio, err := unix.IoctlGetTermios(int(h.f.Fd()), unix.TCGETS); err == nil {
		tio.Lflag &^= unix.ICANON | unix.ECHO
		tio.Oflag &^= unix.OPOST
		unix.IoctlSetTermios(int(h.f.Fd()), unix.TCSETS, tio)
	}
	go func() {
		rd := bufio.NewReader(master)
		line, err := rd.ReadString('\n')
		if err != nil {
			return
		}
		seq, _ := hostio.ParseRequest(strings.TrimSpace(line))
		master.WriteString(hostio.Reply(seq-1, hostio.Counters{Drive: "disk0", WriteBytes: 1}))
		master.WriteString(hostio.Reply(seq, hostio.Counters{Drive: "disk0", WriteBytes: 4096, FlushOps: 2}))
	}()
	c, err := h.counters()
	if err != nil || c.WriteBytes != 4096 || c.FlushOps != 2 {
		t.Fatalf("counters = %+v, %v", c, err)
	}
	// Nobody answers now: the request times out, not hangs.
	defer func(d time.Duration) { hostPortTimeout = d }(hostPortTimeout)
	hostPortTimeout = 300 * time.Millisecond
	start := time.Now()
	if _, err := h.counters(); err == nil || time.Since(start) > 2*hostPortTimeout {
		t.Errorf("an unanswered request: %v after %s", err, time.Since(start))
	}
	if h, err := OpenHostPort(t.TempDir(), dev); h != nil || err != nil {
		t.Errorf("a target without the port: %v %v", h, err)
	}
}
