package qemu

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/qemu/initramfs"
	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/qemu/kernel/kerneltest"
	"github.com/fsbench/fsbench/wire/arch"
)

// The boot tests run real QEMU on a real Debian kernel, with bootinit as
// /init of the initramfs and guestinit as /sbin/init of the root
// filesystem. Each skips with one message when QEMU, the kernel or a
// mkfs is missing; CI installs them all.

// archOf reads a test's architecture, written as QEMU names it.
func archOf(t *testing.T, name string) arch.Arch {
	t.Helper()
	a, err := arch.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func needQEMU(t *testing.T, name string) {
	t.Helper()
	testenv.Tool(t, "qemu-system-"+archOf(t, name).QEMU())
}

// built holds the test programs, compiled once per package and
// architecture (concurrently for different ones) into a directory that
// TestMain removes.
var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*buildResult
}

type buildResult struct {
	once sync.Once
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// program returns a static build of pkg (bootinit's testinit or the
// guest's init) for arch.
func program(t *testing.T, pkg, name string) string {
	t.Helper()
	goarch := archOf(t, name).GOARCH()
	key := pkg + "@" + goarch
	built.mu.Lock()
	if built.dir == "" {
		d, err := os.MkdirTemp("", "qemu-test-bin-")
		if err != nil {
			built.mu.Unlock()
			t.Fatal(err)
		}
		built.dir, built.bins = d, map[string]*buildResult{}
	}
	b := built.bins[key]
	if b == nil {
		b = &buildResult{path: filepath.Join(built.dir, strings.ReplaceAll(key, "/", "_"))}
		built.bins[key] = b
	}
	built.mu.Unlock()
	b.once.Do(func() {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", b.path, "github.com/fsbench/fsbench/"+pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s for %s: %v\n%s", pkg, goarch, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

const (
	testinitPkg  = "target/bootinit/internal/testinit"
	guestinitPkg = "qemu/internal/guestinit"
)

// guestKernel returns the Debian kernel for arch and the file to boot.
func guestKernel(t *testing.T, name string) (*kernel.Kernel, string) {
	t.Helper()
	k := kerneltest.Get(t, archOf(t, name))
	return k, BootKernel(context.Background(), k, filepath.Join(kerneltest.CacheDir(), "uncompressed"), testLog(t))
}

// initrd builds the initramfs with bootinit and the modules named.
func initrd(t *testing.T, k *kernel.Kernel, name string, modules []string) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := initramfs.Build(&buf, initramfs.Boot{Kernel: k, Modules: modules, Init: program(t, testinitPkg, name)}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "initrd.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// guid derives a GUID from a name, so that the images are the same on
// every run.
func guid(name string) string {
	h := sha256.Sum256([]byte(name))
	h[6] = h[6]&0x0f | 0x40 // version 4 layout, as tools expect
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// bootResult is what a boot showed on the console.
type bootResult struct {
	lines []capture.Line
	start time.Time
	took  time.Duration // until QEMU exited
	cpu   time.Duration // QEMU's user and system time: less bent by a loaded host than took
	err   error         // VM.Wait's
}

// seen returns the time from QEMU's start to the first line containing
// s, and whether there was one.
func (r *bootResult) seen(s string) (time.Duration, bool) {
	for _, l := range r.lines {
		if strings.Contains(l.Text(), s) {
			return l.Start.Sub(r.start), true
		}
	}
	return 0, false
}

func (r *bootResult) count(s string) int {
	n := 0
	for _, l := range r.lines {
		if strings.Contains(l.Text(), s) {
			n++
		}
	}
	return n
}

func (r *bootResult) text() string {
	var b strings.Builder
	for _, l := range r.lines {
		fmt.Fprintf(&b, "[%7.3f] %s\n", l.Start.Sub(r.start).Seconds(), strings.TrimRight(l.Text(), "\r"))
	}
	return b.String()
}

// bootTimeout only guards against a bug: every boot, failed or not, ends
// with the guest powering off.
const bootTimeout = 3 * time.Minute

// boot runs m until QEMU exits. onLine sees every complete console line
// as it arrives, e.g. to type into the guest. The console is logged when
// the test fails.
func boot(t *testing.T, m Machine, onLine func(vm *VM, line string)) *bootResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
	defer cancel()
	r := &bootResult{start: time.Now()}
	vm, err := Start(ctx, m, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	rd := capture.NewReader(vm.Console(), -1)
	defer rd.Close()
	for {
		l, err := rd.Next(ctx)
		if err != nil {
			break
		}
		r.lines = append(r.lines, l)
		if onLine != nil {
			onLine(vm, l.Text())
		}
	}
	r.err = vm.Wait()
	r.took = time.Since(r.start)
	if ps := vm.cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	t.Cleanup(func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("console of %s:\n%s", strings.Join(vm.Argv(), " "), r.text())
		}
	})
	return r
}

func testLog(t *testing.T) logrus.FieldLogger {
	l := logrus.New()
	l.Out = logWriter{t}
	l.Level = logrus.InfoLevel
	return l
}

type logWriter struct{ t *testing.T }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}
