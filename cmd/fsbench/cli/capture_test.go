package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// openPTY returns the master of a new pty and the path of its slave.
func openPTY(t *testing.T) (*os.File, string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	var unlock int32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, m.Fd(), unix.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	return m, fmt.Sprintf("/dev/pts/%d", n)
}

// TestCaptureOnPTY plays a boot log with two result frames, one of them
// corrupted, into a real pty and runs `fsbench capture` on its slave.
func TestCaptureOnPTY(t *testing.T) {
	master, slave := openPTY(t)
	dir := t.TempDir()
	results := filepath.Join(dir, "results.jsonl")
	rawLog := filepath.Join(dir, "raw.log")

	good, err := resultframe.Encode(resultframe.Result{RunID: "r1", Seq: 1, Recipe: "boot_time", Name: "rootfs", Status: "ok",
		Metrics: []resultframe.Metric{{Name: "boot", Value: 1.25, Unit: "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := resultframe.Encode(resultframe.Result{RunID: "r1", Seq: 2, Recipe: "fio", Name: "x", Status: "ok"})
	corrupt := []byte(bad[0])
	corrupt[len(corrupt)/2] ^= 0x01
	log := "U-Boot 2024.01\r\n" +
		"[    1.000000] VFS: Mounted root (ext4 filesystem) on device 179:2.\n" +
		"Starting fsbench-runner\n" +
		strings.Join(good, "\n") + "\n" +
		string(corrupt) + "\n" +
		"~ # "

	code := make(chan int, 1)
	var stdout, stderr strings.Builder
	go func() {
		code <- Main([]string{"capture", "-port", slave, "-quit", `# $`, "-timeout", "20s", "-results", results, "-log", rawLog},
			strings.NewReader(""), &stdout, &stderr, nil)
	}()
	waitRaw(t, master)
	for _, chunk := range strings.SplitAfter(log, "\n") {
		if _, err := master.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case c := <-code:
		if c != ExitOK {
			t.Fatalf("capture exited %d:\n%s", c, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("capture did not stop at the prompt")
	}

	if !strings.Contains(stdout.String(), "] Starting fsbench-runner") {
		t.Errorf("stamped output lacks the runner line:\n%s", stdout.String())
	}
	for _, want := range []string{"milestone root-mount", "milestone prompt", "root mount to prompt:", "1 corrupted or incomplete result frame(s) rejected"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	raw, _ := os.ReadFile(rawLog)
	if string(raw) != log {
		t.Errorf("raw log differs from the bytes sent:\n%q\nwant\n%q", raw, log)
	}
	f, err := os.Open(results)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []resultframe.Result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r resultframe.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("results file line %q: %v", sc.Text(), err)
		}
		got = append(got, r)
	}
	if len(got) != 1 || got[0].Seq != 1 || got[0].Metrics[0].Value != 1.25 {
		t.Errorf("results = %+v, want only the intact frame", got)
	}
}

// A results file that cannot be written fails the capture: the results
// would otherwise be lost while it exits 0.
func TestCaptureFailsWhenResultsCannotBeStored(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	master, slave := openPTY(t)
	good, err := resultframe.Encode(resultframe.Result{RunID: "r1", Seq: 1, Recipe: "boot_time", Name: "rootfs", Status: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	code := make(chan int, 1)
	var stdout, stderr strings.Builder
	go func() {
		code <- Main([]string{"capture", "-port", slave, "-quit", `# $`, "-timeout", "20s", "-results", "/dev/full"},
			strings.NewReader(""), &stdout, &stderr, nil)
	}()
	waitRaw(t, master)
	if _, err := master.Write([]byte(strings.Join(good, "\n") + "\n~ # ")); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != ExitIO || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("capture into /dev/full exited %d:\n%s", c, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("capture did not stop")
	}
}

// waitRaw waits until capture has put the slave in raw mode: bytes sent
// before that would pass the line discipline's \r to \n translation.
func waitRaw(t *testing.T, master *os.File) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tio, err := unix.IoctlGetTermios(int(master.Fd()), unix.TCGETS)
		if err == nil && tio.Lflag&unix.ICANON == 0 && tio.Iflag&unix.ICRNL == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("capture never configured the pty")
}

// TestProgressOnlyOnATerminal: build progress (info) reaches a terminal,
// not a pipe or CI.
func TestProgressOnlyOnATerminal(t *testing.T) {
	_, slave := openPTY(t)
	tty, err := os.OpenFile(slave, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var pipe strings.Builder
	for _, c := range []struct {
		name    string
		w       io.Writer
		environ []string
		want    logrus.Level
	}{
		{"terminal", tty, nil, logrus.InfoLevel},
		{"terminal in CI", tty, []string{"CI=true"}, logrus.WarnLevel},
		{"pipe", &pipe, nil, logrus.WarnLevel},
		{"FSBENCH_LOG wins", &pipe, []string{"FSBENCH_LOG=debug"}, logrus.DebugLevel},
	} {
		if got := newLogger(c.w, c.environ).Level; got != c.want {
			t.Errorf("%s: level %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCapturePriority: -priority reaches the reading threads (the debug
// log says what they got), and a wrong value is a usage error.
func TestCapturePriority(t *testing.T) {
	for _, c := range []struct{ flag, want string }{
		{"normal", "reading threads' scheduling: as the process"},
		{"high", "reading threads' scheduling: "},
	} {
		master, slave := openPTY(t)
		code := make(chan int, 1)
		var stdout, stderr strings.Builder
		go func() {
			code <- Main([]string{"capture", "-port", slave, "-priority", c.flag, "-quit", "done", "-timeout", "20s"},
				strings.NewReader(""), &stdout, &stderr, []string{"FSBENCH_LOG=debug"})
		}()
		waitRaw(t, master)
		if _, err := master.Write([]byte("done\n")); err != nil {
			t.Fatal(err)
		}
		if got := <-code; got != ExitOK || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("-priority %s: exit %d, stderr lacks %q:\n%s", c.flag, got, c.want, stderr.String())
		}
	}
	var stderr strings.Builder
	if got := Main([]string{"capture", "-port", "/dev/null", "-priority", "max"}, strings.NewReader(""), io.Discard, &stderr, nil); got != ExitUsage || !strings.Contains(stderr.String(), "-priority") {
		t.Errorf("-priority max: exit %d, stderr %q", got, stderr.String())
	}
}

// capturePlay runs `fsbench capture` on a pty with args, plays console
// into it, and returns the exit code and stderr. The capture must end by
// itself: the pty stays open.
func capturePlay(t *testing.T, console string, args ...string) (int, string) {
	t.Helper()
	master, slave := openPTY(t)
	code := make(chan int, 1)
	var stdout, stderr strings.Builder
	go func() {
		code <- Main(append([]string{"capture", "-port", slave}, args...), strings.NewReader(""), &stdout, &stderr, nil)
	}()
	waitRaw(t, master)
	if _, err := master.Write([]byte(console)); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		return c, stderr.String()
	case <-time.After(time.Minute):
		t.Fatalf("capture did not end by itself:\n%s", stderr.String())
	}
	return 0, ""
}

// TestCaptureEndsByItself: capture ends when the runner reports its plan
// complete (0), at a boot that cannot go on (12), and says when the
// console went quiet before the plan completed (13).
func TestCaptureEndsByItself(t *testing.T) {
	frames := func(rs ...resultframe.Result) string {
		var b strings.Builder
		for _, r := range rs {
			lines, err := resultframe.Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(strings.Join(lines, "\r\n") + "\r\n")
		}
		return b.String()
	}
	boot := resultframe.Result{RunID: "r1", Seq: 1, Recipe: "boot_time", Name: "rootfs", Case: "single", Iteration: 1, Status: "ok",
		Metrics: []resultframe.Metric{{Name: "target_boot", Value: 0.5, Unit: "s"}}}
	done := resultframe.Result{RunID: "r1", Seq: 2, Recipe: "fsbench", Name: "plan", Case: "complete", Status: "ok",
		Metrics: []resultframe.Metric{{Name: "results", Value: 2}}}
	lost := done
	lost.Metrics = []resultframe.Metric{{Name: "results", Value: 3}}
	start := "U-Boot 2023.01\r\n[    1.0] VFS: Mounted root (ext4 filesystem) on device 254:2.\r\nfsbench login: \r\n"
	for _, c := range []struct {
		name, console string
		args          []string
		code          int
		want          string
	}{
		{"complete", start + frames(boot, done) + "more lines the board prints afterwards\r\n", nil, ExitOK, "plan complete: 2 result(s)"},
		{"a result lost", start + frames(boot, lost), nil, ExitIncomplete, "results [3] never arrived intact"},
		{"no boot file", "U-Boot 2023.01\r\nScanning virtio 0:1...\r\n=> ", nil, ExitBootFailed, "the bootloader found nothing it could boot"},
		{"no root filesystem", "[    0.9] VFS: Cannot open root device \"vda9\" or unknown-block(0,0): error -6\r\n", nil, ExitBootFailed,
			"could not mount the root filesystem"},
		{"silent", start + frames(boot), []string{"-silence", "2s"}, ExitIncomplete, "did not report its plan complete (1 result(s)): the console was silent for 2s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			results := filepath.Join(t.TempDir(), "results.jsonl")
			code, stderr := capturePlay(t, c.console, append([]string{"-results", results}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, c.code, c.want, stderr)
			}
		})
	}
}
