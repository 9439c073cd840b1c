package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsbench/fsbench/driver/benchboard"
	"github.com/fsbench/fsbench/driver/console"
	"github.com/fsbench/fsbench/internal/ser2net"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// handSpec is an arm64 board booted by U-Boot from its FAT boot
// partition, with a test of two boots.
const handSpec = `
board "bench-board" {
  arch       = "arm64"
  console    = "ttyAMA0,115200n8"
  storage    = "vda"
  bootloader = "extlinux"
  boot { partition = partition.boot }
}

image "disk" {
  table = "gpt"
  size  = "160MiB"
  partition "boot" {
    size = "48MiB"
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
    contents { userland = "busybox" }
  }
}

test "boot_time" "rootfs" { iterations = 2 }
`

// lockedBuffer is a buffer a command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBoardByHand is a board on the bench driven as a user drives one:
// `fsbench run -target board -flash manual` over a console that ser2net
// exports with RFC 2217 says which image to write and waits; the image
// is written with bmaptool and Enter pressed; the board is switched by
// its power command and the run ends with the plan. Then the same image,
// flashed again and switched on by hand, is followed by `fsbench
// capture` over raw TCP, which ends by itself with the same results.
func TestBoardByHand(t *testing.T) {
	for _, tool := range []string{"qemu-system-aarch64", "apt-get", "fakeroot", "mcopy", "bmaptool", benchboard.Command} {
		testenv.Tool(t, tool)
	}
	_, err := ser2net.Program()
	testenv.Needf(t, err, "ser2net")
	if _, err := os.Stat("/usr/lib/u-boot/qemu_arm64/u-boot.bin"); err != nil {
		testenv.Missing(t, "Debian's u-boot-qemu")
	}
	if testing.Short() {
		t.Skip("boots a board made of QEMU through U-Boot")
	}
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "board.fsb.hcl")
	os.WriteFile(spec, []byte(handSpec), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bb, err := benchboard.Start(ctx, benchboard.Config{Dir: filepath.Join(dir, "bench"), Accel: "tcg"})
	if err != nil {
		t.Fatal(err)
	}
	defer bb.Close()
	srv, err := ser2net.Start(ctx, bb.Console(), 115200, false, "rfc2217", "tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	env := []string{"FSBENCH_RUNNER=" + testbin.Runner(t, arch.ARM64), "FSBENCH_CACHE=" + testbin.CacheDir(), "FSBENCH_LOG=warn"}
	out := filepath.Join(dir, "out")
	power := func(c string) string { return benchboard.Command + " power " + c + " -dir " + filepath.Dir(bb.Disk()) }

	stdin, typed := io.Pipe()
	var stdout, stderr lockedBuffer
	code := make(chan int, 1)
	go func() {
		code <- Main([]string{"run", "-o", out, "-target", "board", "-port", srv.URL("rfc2217"), "-flash", "manual",
			"-power-off", power("off"), "-power-cycle", power("cycle"), spec}, stdin, &stdout, &stderr, env)
	}()
	asked := waitFor(t, code, &stderr, regexp.MustCompile(`write (\S+) onto the board's storage now`))
	image, variant := asked[1], filepath.Dir(asked[1])
	bmaptool(t, image, bb.Disk())
	typed.Write([]byte("\n"))
	if c := <-code; c != ExitOK {
		t.Fatalf("run exited %d:\n%s\n%s", c, stdout.String(), stderr.String())
	}
	ran, err := console.ReadResults(filepath.Join(variant, "run", "results.jsonl"))
	if err != nil || len(ran) != 3 {
		t.Fatalf("run's results: %d, %v", len(ran), err)
	}

	// The same image, started by hand and followed by capture.
	if err := bb.Power("off"); err != nil {
		t.Fatal(err)
	}
	bmaptool(t, image, bb.Disk())
	results := filepath.Join(dir, "captured.jsonl")
	var cout, cerr lockedBuffer
	go func() {
		code <- Main([]string{"capture", "-port", srv.URL("tcp"), "-build", variant, "-results", results},
			strings.NewReader(""), &cout, &cerr, env)
	}()
	waitOpen(t, srv.Pid(), bb.Console())
	if err := bb.Power("on"); err != nil {
		t.Fatal(err)
	}
	if c := <-code; c != ExitOK || !strings.Contains(cerr.String(), "plan complete: 3 result(s)") {
		t.Fatalf("capture exited %d:\n%s", c, cerr.String())
	}
	captured, err := console.ReadResults(results)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range captured {
		if i >= len(ran) || r.Recipe != ran[i].Recipe || r.Iteration != ran[i].Iteration || (r.Recipe == "boot_time") != hasMetric(r, "host_boot") {
			t.Errorf("captured %s #%d (%v), run had %v", r.Recipe, r.Iteration, r.Metrics, ran)
		}
	}
}

// waitFor waits until stderr shows want, while the command runs, and
// returns the match.
func waitFor(t *testing.T, code <-chan int, stderr *lockedBuffer, want *regexp.Regexp) []string {
	t.Helper()
	deadline := time.After(5 * time.Minute)
	for {
		if m := want.FindStringSubmatch(stderr.String()); m != nil {
			return m
		}
		select {
		case c := <-code:
			t.Fatalf("exited %d before saying %q:\n%s", c, want, stderr.String())
		case <-deadline:
			t.Fatalf("did not say %q:\n%s", want, stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitOpen waits until process pid (ser2net, once capture connected) has
// the console open.
func waitOpen(t *testing.T, pid int, dev string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			if target, _ := os.Readlink(fd); target == dev {
				return
			}
		}
	}
	t.Fatalf("ser2net never opened %s", dev)
}

func hasMetric(r resultframe.Result, name string) bool {
	for _, m := range r.Metrics {
		if m.Name == name {
			return true
		}
	}
	return false
}

func bmaptool(t *testing.T, image, disk string) {
	t.Helper()
	if b, err := exec.Command("bmaptool", "copy", "--bmap", image+".bmap", image, disk).CombinedOutput(); err != nil {
		t.Fatalf("bmaptool: %v\n%s", err, b)
	}
}
